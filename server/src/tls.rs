//! Certificates: the operator's files in production, or a self-signed one generated at start
//! whose SHA-256 fingerprint is printed for clients to pin. The self-signed one is what
//! browsers accept through WebTransport's `serverCertificateHashes`: ECDSA P-256, valid
//! [`SELF_SIGNED_VALIDITY_DAYS`] days at most.

use anyhow::{Context, Result};
use cohort_protocol::fingerprint::sha256_fingerprint;
use cohort_protocol::limits::ALPN;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::path::Path;
use std::sync::Arc;

/// How long the self-signed certificate is valid, from an hour before the start: WebTransport's
/// `serverCertificateHashes` takes only certificates valid 14 days or less, so the page of a
/// server up for longer needs a restart (a new certificate) or a CA-signed one.
pub const SELF_SIGNED_VALIDITY_DAYS: i64 = 13;

/// A certificate chain and its key.
pub struct Identity {
    pub chain: Vec<CertificateDer<'static>>,
    pub key: PrivateKeyDer<'static>,
    /// The SHA-256 of the leaf certificate, 64 hex digits.
    pub fingerprint: String,
    pub self_signed: bool,
}

impl Identity {
    /// A new self-signed certificate for `localhost` and the loopback addresses.
    pub fn self_signed() -> Result<Identity> {
        Ok(Identity::self_signed_pem()?.0)
    }

    /// [`Identity::self_signed`], with the certificate and its key in PEM (to keep them in
    /// the state folder).
    pub fn self_signed_pem() -> Result<(Identity, String, String)> {
        let names = vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "::1".to_string(),
        ];
        let mut params =
            rcgen::CertificateParams::new(names).context("generating a self-signed certificate")?;
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::hours(1);
        params.not_after = now + time::Duration::days(SELF_SIGNED_VALIDITY_DAYS);
        // ECDSA P-256 with SHA-256: what `serverCertificateHashes` requires.
        let key_pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
            .context("generating the certificate's key")?;
        let cert = params
            .self_signed(&key_pair)
            .context("signing the self-signed certificate")?;
        let der = cert.der().clone();
        let id = Identity {
            fingerprint: sha256_fingerprint(&der),
            chain: vec![der],
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key_pair.serialize_der())),
            self_signed: true,
        };
        Ok((id, cert.pem(), key_pair.serialize_pem()))
    }

    /// A PEM certificate chain and PEM private key from files.
    pub fn from_files(cert: &Path, key: &Path) -> Result<Identity> {
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
            .with_context(|| format!("reading certificates from {}", cert.display()))?
            .collect::<Result<_, _>>()
            .with_context(|| format!("reading certificates from {}", cert.display()))?;
        anyhow::ensure!(!chain.is_empty(), "{} holds no certificate", cert.display());
        let key = PrivateKeyDer::from_pem_file(key)
            .with_context(|| format!("reading the private key from {}", key.display()))?;
        Ok(Identity {
            fingerprint: sha256_fingerprint(&chain[0]),
            chain,
            key,
            self_signed: false,
        })
    }

    /// quinn's server configuration: TLS 1.3 with ALPN `cohort/1` (the lockstep protocol) and
    /// `h3` (WebTransport, browsers watching), on one endpoint.
    pub fn server_config(self) -> Result<quinn::ServerConfig> {
        let mut tls = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .context("TLS 1.3")?
        .with_no_client_auth()
        .with_single_cert(self.chain, self.key)
        .context("the certificate and key do not fit together")?;
        tls.alpn_protocols = vec![ALPN.to_vec(), web_transport_quinn::ALPN.as_bytes().to_vec()];
        let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(tls)
            .context("building the QUIC TLS configuration")?;
        let mut config = quinn::ServerConfig::with_crypto(Arc::new(crypto));
        let transport = Arc::get_mut(&mut config.transport).expect("fresh config");
        transport.max_idle_timeout(Some(
            std::time::Duration::from_secs(30)
                .try_into()
                .expect("30 s is a valid idle timeout"),
        ));
        transport.keep_alive_interval(Some(std::time::Duration::from_secs(5)));
        Ok(config)
    }
}
