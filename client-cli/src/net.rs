//! The client's QUIC driver: connects (ALPN `cohort/1`), verifies the server by its
//! certificate's SHA-256 fingerprint or by a CA file, and moves frames between one
//! bidirectional stream and the [`ClientCore`]. Every lockstep rule lives in the core; this only
//! moves bytes and timers.

use crate::core::{ClientCore, Event, Phase};
use anyhow::{anyhow, bail, Context, Result};
use cohort_protocol::close::{self, MovedTo};
use cohort_protocol::codec::{decode_message, encode_frame};
use cohort_protocol::fingerprint::{parse_fingerprint, sha256, sha256_fingerprint};
use cohort_protocol::limits::ALPN;
use cohort_protocol::{ClientMessage, FrameReader, ServerMessage};
use quinn::crypto::rustls::QuicClientConfig;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How long a connection attempt may take before it is given up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the client waits, after leaving, for the server to hear it.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// Bytes read from the stream at a time.
const READ_BYTES: usize = 64 * 1024;

/// How the client knows it talks to the right server.
#[derive(Clone, Debug)]
pub enum ServerAuth {
    /// The SHA-256 of the server certificate's DER bytes (what `cohort-server` prints).
    Fingerprint([u8; 32]),
    /// A PEM file of the certificate authorities to trust.
    CaFile(PathBuf),
}

impl ServerAuth {
    /// A fingerprint written as 64 hex digits, with or without `:` between bytes, any case.
    pub fn fingerprint(text: &str) -> Result<ServerAuth> {
        let bytes = parse_fingerprint(text).ok_or_else(|| {
            anyhow!(
                "`{text}` is not a SHA-256 fingerprint (64 hex digits, as cohort-server prints)"
            )
        })?;
        Ok(ServerAuth::Fingerprint(bytes))
    }
}

/// Accepts exactly the certificate whose SHA-256 is the pinned fingerprint; the handshake's
/// signatures are still checked against that certificate's key.
#[derive(Debug)]
struct PinnedCertificate {
    fingerprint: [u8; 32],
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl ServerCertVerifier for PinnedCertificate {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if sha256(end_entity.as_ref()) == self.fingerprint {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(format!(
                "the server's certificate has fingerprint {}, not the pinned {}",
                sha256_fingerprint(end_entity.as_ref()),
                hex::encode(self.fingerprint)
            )))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The QUIC client configuration that verifies the server as `auth` says (TLS 1.3, ALPN
/// `cohort/1`). Every QUIC client of Cohort's uses it: `cohort play` and `bot`, and the tests
/// that speak raw frames to a real server.
pub fn client_config(auth: &ServerAuth) -> Result<quinn::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .context("TLS 1.3 with the ring provider")?;
    let mut tls = match auth {
        ServerAuth::Fingerprint(fingerprint) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(PinnedCertificate {
                fingerprint: *fingerprint,
                provider,
            }))
            .with_no_client_auth(),
        ServerAuth::CaFile(path) => {
            let mut roots = rustls::RootCertStore::empty();
            let certs = CertificateDer::pem_file_iter(path)
                .with_context(|| format!("reading the CA file {}", path.display()))?;
            for cert in certs {
                let cert = cert.with_context(|| format!("a certificate in {}", path.display()))?;
                roots
                    .add(cert)
                    .with_context(|| format!("a certificate in {}", path.display()))?;
            }
            if roots.is_empty() {
                bail!("{} holds no PEM certificate", path.display());
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
    };
    tls.alpn_protocols = vec![ALPN.to_vec()];
    let quic = QuicClientConfig::try_from(tls).context("a QUIC-capable TLS configuration")?;
    Ok(quinn::ClientConfig::new(Arc::new(quic)))
}

/// Whether connecting failed because the TLS handshake was refused (a TLS alert: the server's
/// certificate is not the pinned one, not signed by the CA file, or names another server) —
/// a failure that another try meets again — rather than a passing one (no answer, a lost
/// packet, a server not yet up).
pub fn handshake_refused(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<quinn::ConnectionError>(),
            Some(quinn::ConnectionError::TransportError(t))
                if (0x100..0x200).contains(&u64::from(t.code))
        )
    })
}

/// A connection to a server: the endpoint, the connection and its one stream.
pub struct Link {
    endpoint: quinn::Endpoint,
    connection: quinn::Connection,
    send: quinn::SendStream,
    recv: quinn::RecvStream,
    reader: FrameReader,
    buf: Vec<u8>,
}

/// Resolves `host:port` to its first address.
pub async fn resolve(server: &str) -> Result<SocketAddr> {
    tokio::net::lookup_host(server)
        .await
        .with_context(|| format!("resolving `{server}` (expected HOST:PORT)"))?
        .next()
        .ok_or_else(|| anyhow!("`{server}` resolves to no address"))
}

impl Link {
    /// Connects to `server` (HOST:PORT), verifying it as `auth` says, and opens the stream.
    /// `server_name` is the name the certificate must carry when checked against a CA.
    pub async fn connect(server: &str, auth: &ServerAuth, server_name: &str) -> Result<Link> {
        let addr = resolve(server).await?;
        let bind: SocketAddr = if addr.is_ipv6() {
            "[::]:0".parse()?
        } else {
            "0.0.0.0:0".parse()?
        };
        let mut endpoint = quinn::Endpoint::client(bind).context("opening a UDP socket")?;
        endpoint.set_default_client_config(client_config(auth)?);
        let connecting = endpoint
            .connect(addr, server_name)
            .with_context(|| format!("connecting to {addr}"))?;
        let connection = tokio::time::timeout(CONNECT_TIMEOUT, connecting)
            .await
            .map_err(|_| anyhow!("no answer from {addr} within {CONNECT_TIMEOUT:?}"))?
            .with_context(|| format!("the QUIC handshake with {addr}"))?;
        let (send, recv) = connection
            .open_bi()
            .await
            .context("opening the control stream")?;
        Ok(Link {
            endpoint,
            connection,
            send,
            recv,
            reader: FrameReader::new(),
            buf: vec![0u8; READ_BYTES],
        })
    }

    /// Sends one message as a frame.
    pub async fn send(&mut self, message: &ClientMessage) -> Result<()> {
        let frame = encode_frame(message).context("encoding a message")?;
        self.send_raw(&frame).await
    }

    /// Sends bytes as they are (tests use it to send what no honest client would).
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.send
            .write_all(bytes)
            .await
            .context("writing to the server")
    }

    /// The next message from the server; none when the server closed the stream between
    /// frames (an error when it ended inside one).
    pub async fn recv(&mut self) -> Result<Option<ServerMessage>> {
        loop {
            if let Some(payload) = self
                .reader
                .next_frame()
                .context("a frame from the server")?
            {
                return decode_message(&payload)
                    .map(Some)
                    .context("a message from the server");
            }
            match self.recv.read(&mut self.buf).await {
                Ok(Some(n)) => self.reader.push(&self.buf[..n]),
                Ok(None)
                | Err(quinn::ReadError::ConnectionLost(
                    quinn::ConnectionError::ApplicationClosed(_),
                ))
                | Err(quinn::ReadError::ConnectionLost(quinn::ConnectionError::LocallyClosed)) => {
                    // The end of the stream: a frame cut short is an error, not a message.
                    self.reader.finish().context("the server's stream ended")?;
                    return Ok(None);
                }
                Err(e) => return Err(e).context("reading from the server"),
            }
        }
    }

    /// The connection (for its statistics and close reason).
    pub fn connection(&self) -> &quinn::Connection {
        &self.connection
    }

    /// Where the match went, when the server closed the connection with `moved`.
    pub fn moved_to(&self) -> Option<MovedTo> {
        match self.connection.close_reason()? {
            quinn::ConnectionError::ApplicationClosed(c)
                if c.error_code.into_inner() == u64::from(close::MOVED.code) =>
            {
                MovedTo::parse(&c.reason)
            }
            _ => None,
        }
    }

    /// Finishes the stream and closes the connection, waiting a little for the server to
    /// hear it.
    pub async fn close(mut self) {
        let _ = self.send.finish();
        let _ = tokio::time::timeout(CLOSE_GRACE, self.send.stopped()).await;
        self.connection
            .close(close::BYE.code.into(), close::BYE.reason_bytes());
        let _ = tokio::time::timeout(CLOSE_GRACE, self.endpoint.wait_idle()).await;
    }

    /// Drops the connection at once without a word (what a crashed client does).
    pub fn abort(self) {
        self.connection
            .close(close::GONE.code.into(), close::GONE.reason_bytes());
    }
}

/// What a driven client sees happen: each event, with the core to act on it (a bot's brain
/// gives orders from here).
pub type OnEvent<'a> = dyn FnMut(&mut ClientCore, &Event) + Send + 'a;

/// Runs `core` over `link` until the match ends, the server closes, the connection is lost, or
/// `lines` says to leave. Lines from `lines` (stdin's, for `cohort play`) are read in the text
/// syntax; a closed `lines` is set to none and leaves nothing undone (the client plays on).
/// Returns the core whatever happened (its tally, and [`ClientCore::may_rejoin`] to tell a lost
/// connection from an ended one) with how the connection ended, and where the match went when
/// the server closed it with `moved` (docs/PROTOCOL.md, "QUIC close codes").
pub async fn drive(
    mut core: ClientCore,
    mut link: Link,
    lines: &mut Option<mpsc::Receiver<String>>,
    on_event: &mut OnEvent<'_>,
) -> (ClientCore, Result<()>, Option<MovedTo>) {
    core.start(Instant::now());
    let result = drive_loop(&mut core, &mut link, lines, on_event).await;
    let moved = link.moved_to();
    if core.may_rejoin() {
        // Lost: nothing to wait for on this connection.
        link.abort();
    } else {
        link.close().await;
    }
    (core, result, moved)
}

async fn drive_loop(
    core: &mut ClientCore,
    link: &mut Link,
    lines: &mut Option<mpsc::Receiver<String>>,
    on_event: &mut OnEvent<'_>,
) -> Result<()> {
    loop {
        while let Some(e) = core.poll_event() {
            on_event(core, &e);
        }
        while let Some(m) = core.poll_transmit() {
            if let Err(e) = link.send(&m).await {
                // The server may have closed right after its last words (MatchEnded, an
                // error): read what it sent before giving up.
                drain_after_close(core, link, on_event).await;
                if core.phase() == Phase::Over {
                    return Ok(());
                }
                return Err(e);
            }
        }
        if core.phase() == Phase::Over {
            return Ok(());
        }
        let deadline = core
            .poll_timeout()
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
        let sleep = tokio::time::sleep_until(deadline.into());
        tokio::select! {
            message = link.recv() => match message? {
                Some(m) => core.handle_message(m, Instant::now()),
                None => {
                    // Tell the caller why the server went away, if it said.
                    while let Some(e) = core.poll_event() {
                        on_event(core, &e);
                    }
                    if core.phase() == Phase::Over {
                        return Ok(());
                    }
                    let reason = link
                        .connection()
                        .close_reason()
                        .map_or_else(|| "the stream ended".to_string(), |r| r.to_string());
                    bail!("the server closed the connection: {reason}");
                }
            },
            // Lines wait until the join is answered, so early orders are not refused.
            line = next_line(lines), if core.phase() != Phase::Joining => match line {
                Some(text) => match crate::text::parse_line(&text) {
                    Ok(l) => core.handle_line(l),
                    Err(e) => on_event(core, &Event::Refused(e.to_string())),
                },
                None => *lines = None,
            },
            () = sleep => core.handle_timeout(Instant::now()),
        }
    }
}

/// Reads and handles whatever the server sent before the connection went, briefly.
async fn drain_after_close(core: &mut ClientCore, link: &mut Link, on_event: &mut OnEvent<'_>) {
    let read = async {
        while let Ok(Some(m)) = link.recv().await {
            core.handle_message(m, Instant::now());
            if core.phase() == Phase::Over {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(CLOSE_GRACE, read).await;
    while let Some(e) = core.poll_event() {
        on_event(core, &e);
    }
}

async fn next_line(lines: &mut Option<mpsc::Receiver<String>>) -> Option<String> {
    match lines {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}
