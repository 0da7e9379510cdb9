//! The flags every networked subcommand shares: where the server is and how to trust it.

use anyhow::Result;
use cohort_client::net::ServerAuth;
use cohort_client::session::Connect;
use std::path::PathBuf;

/// Where the server is and how to know it is the right one.
#[derive(clap::Args, Clone, Debug)]
#[command(group(clap::ArgGroup::new("trust").required(true).args(["fingerprint", "ca"])))]
pub struct ConnectArgs {
    /// The server's address, HOST:PORT (cohort-server listens on UDP port 7676 by default).
    #[arg(long, default_value = "127.0.0.1:7676", env = "COHORT_SERVER")]
    pub server: String,
    /// Trust the server whose certificate has this SHA-256 fingerprint (64 hex digits, as
    /// cohort-server prints at start; `:` between bytes allowed).
    #[arg(long, env = "COHORT_FINGERPRINT")]
    pub fingerprint: Option<String>,
    /// Trust servers whose certificate is signed by a certificate authority in this PEM file.
    #[arg(long, value_name = "FILE")]
    pub ca: Option<PathBuf>,
    /// The name the server's certificate must carry when checked with --ca.
    #[arg(long, default_value = "localhost")]
    pub server_name: String,
}

impl ConnectArgs {
    pub fn connect(&self) -> Result<Connect> {
        let auth = match (&self.fingerprint, &self.ca) {
            (Some(f), _) => ServerAuth::fingerprint(f)?,
            (None, Some(ca)) => ServerAuth::CaFile(ca.clone()),
            (None, None) => anyhow::bail!("give --fingerprint or --ca"),
        };
        Ok(Connect {
            server: self.server.clone(),
            auth,
            server_name: self.server_name.clone(),
        })
    }
}
