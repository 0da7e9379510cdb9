//! The flags every networked subcommand shares: where the server is and how to trust it.

use anyhow::Result;
use cohort_client::net::ServerAuth;
use cohort_client::session::{
    Connect, Reconnect, RECONNECT_ATTEMPTS, RECONNECT_FIRST_WAIT, RECONNECT_MAX_WAIT,
    RECONNECT_WINDOW,
};
use std::path::PathBuf;
use std::time::Duration;

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

/// How a lost connection is taken back: tries for --reconnect-for seconds, each after a wait
/// that doubles from --reconnect-wait-ms up to --reconnect-max-wait-ms. The server gives the seat to the new
/// connection at once (docs/PROTOCOL.md, "Seat takeover").
#[derive(clap::Args, Clone, Debug)]
pub struct ReconnectArgs {
    /// Reconnection tries after a lost connection before giving up (0: never reconnect); a
    /// try that gets back in and runs a turn starts the count anew.
    #[arg(long, default_value_t = RECONNECT_ATTEMPTS, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub reconnect_attempts: u32,
    /// Seconds after a lost connection during which tries are made (a server restarted takes
    /// its matches up again and waits for their players); none starts later.
    #[arg(long, value_name = "SECS", default_value_t = RECONNECT_WINDOW.as_secs(), value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub reconnect_for: u64,
    /// Milliseconds before the first reconnection try; doubled before each later one.
    #[arg(long, default_value_t = RECONNECT_FIRST_WAIT.as_millis() as u64, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub reconnect_wait_ms: u64,
    /// The longest wait between two reconnection tries, in milliseconds.
    #[arg(long, default_value_t = RECONNECT_MAX_WAIT.as_millis() as u64, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub reconnect_max_wait_ms: u64,
}

impl ReconnectArgs {
    pub fn reconnect(&self) -> Reconnect {
        Reconnect {
            attempts: self.reconnect_attempts,
            window: Duration::from_secs(self.reconnect_for),
            first_wait: Duration::from_millis(self.reconnect_wait_ms),
            max_wait: Duration::from_millis(self.reconnect_max_wait_ms.max(self.reconnect_wait_ms)),
        }
    }
}
