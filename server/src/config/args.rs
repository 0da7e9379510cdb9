//! The command line: every flag of `cohort-server` (each also a `COHORT_*` variable).

use super::OnDesync;
use clap::Parser;
use cohort_protocol::limits::MAX_SPECTATOR_DELAY_SECS;
use cohort_sim::map::MAX_ARMY;
use std::net::SocketAddr;
use std::path::PathBuf;

/// Cohort's lockstep game server: hosts matches for `cohort` clients over QUIC.
///
/// With no arguments it hosts one match for 2 players on the default map with a self-signed
/// certificate, and prints the certificate's fingerprint, the port, both join tokens and the
/// `cohort play` command to join.
#[derive(Parser, Debug, Default)]
#[command(name = "cohort-server", version, about, long_about)]
pub struct Args {
    /// A TOML configuration file (see docs/OPERATIONS.md).
    #[arg(long, env = "COHORT_CONFIG")]
    pub config: Option<PathBuf>,
    /// The UDP address to listen on [default: 0.0.0.0:7676].
    #[arg(long, env = "COHORT_LISTEN")]
    pub listen: Option<SocketAddr>,
    /// The certificate chain, PEM (with --key); without it a self-signed one is made.
    #[arg(long, env = "COHORT_CERT", requires = "key")]
    pub cert: Option<PathBuf>,
    /// The certificate's private key, PEM.
    #[arg(long, env = "COHORT_KEY", requires = "cert")]
    pub key: Option<PathBuf>,
    /// The secret join tokens are signed with; without one a random secret is made.
    #[arg(long, env = "COHORT_SECRET", hide_env_values = true)]
    pub secret: Option<String>,
    /// A file holding the token secret (its whole content, trailing newline removed).
    #[arg(long, env = "COHORT_SECRET_FILE", conflicts_with = "secret")]
    pub secret_file: Option<PathBuf>,
    /// Where replays are written [default: replays].
    #[arg(long, env = "COHORT_REPLAY_DIR")]
    pub replay_dir: Option<PathBuf>,
    /// The state folder: keeps the self-signed certificate and random secret across restarts,
    /// and turns on taking matches up again — every match writes a snapshot beside its replay
    /// every 32 turns, SIGTERM and ctrl-c suspend the running matches instead of ending them,
    /// and a server started again finds the matches of --replay-dir that had not ended and
    /// resumes them (docs/OPERATIONS.md, "Shutdown", "Restart and go on").
    #[arg(long, env = "COHORT_STATE_DIR")]
    pub state_dir: Option<PathBuf>,
    /// With --state-dir, end every running match on SIGTERM or ctrl-c (reason server_shutdown,
    /// its snapshot removed) instead of suspending it to be taken up again at the next start:
    /// for a server retired for good.
    #[arg(long, env = "COHORT_END_ON_SHUTDOWN")]
    pub end_on_shutdown: bool,
    /// Where desync reports are written [default: reports].
    #[arg(long, env = "COHORT_REPORT_DIR")]
    pub report_dir: Option<PathBuf>,
    /// Host this many matches named m1, m2… instead of the file's matches.
    #[arg(long, env = "COHORT_MATCHES")]
    pub matches: Option<u32>,
    /// Players per match, 2 to 8 (with --matches or the default match).
    #[arg(long, env = "COHORT_PLAYERS")]
    pub players: Option<u8>,
    /// Ticks of 16 ms per turn, for every match [default: 8].
    #[arg(long, env = "COHORT_TURN_TICKS")]
    pub turn_ticks: Option<u32>,
    /// Full armies, for every match: each player's units topped up to N (1 to 200) soldiers
    /// round its start (8 players × 200 = 1,600 units; load tests) [default: the map's own].
    #[arg(long, value_name = "N", env = "COHORT_ARMY",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_ARMY)))]
    pub army: Option<u32>,
    /// The starting input delay in turns, for every match [default: 2].
    #[arg(long, env = "COHORT_INPUT_DELAY")]
    pub input_delay: Option<u32>,
    /// Keep the input delay fixed instead of following round trips.
    #[arg(long, env = "COHORT_FIXED_DELAY")]
    pub fixed_delay: bool,
    /// End every match after this many turns.
    #[arg(long, env = "COHORT_MAX_TURNS")]
    pub max_turns: Option<u64>,
    /// What a desync does to a match: continue or stop [default: continue].
    #[arg(long, env = "COHORT_ON_DESYNC", value_parser = parse_on_desync)]
    pub on_desync: Option<OnDesync>,
    /// Refuse players that send `Ack` instead of their state hash (`TurnHash`), for every
    /// match: such a player's desyncs cannot be caught. It is closed with `Unexpected` at its
    /// first `Ack`; spectators may still acknowledge without a hash.
    #[arg(long, env = "COHORT_REQUIRE_HASHES")]
    pub require_hashes: bool,
    /// Keep spectators this many seconds behind the match, for every match (0 to 900): the
    /// server sends them nothing about a turn until then [default: 0].
    #[arg(long, value_name = "SECS", env = "COHORT_SPECTATOR_DELAY",
          value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_SPECTATOR_DELAY_SECS)))]
    pub spectator_delay: Option<u32>,
    /// Print every match's join tokens (the default when the secret was made at random).
    #[arg(long, env = "COHORT_PRINT_TOKENS")]
    pub print_tokens: bool,
    /// Write every match's join tokens as JSON to this file.
    #[arg(long, env = "COHORT_TOKENS_FILE")]
    pub tokens_file: Option<PathBuf>,
    /// How long minted tokens stay valid, in seconds [default: 86400].
    #[arg(long, env = "COHORT_TOKEN_TTL")]
    pub token_ttl: Option<u64>,
    /// Serve Prometheus metrics at /metrics, liveness at /healthz and readiness at /readyz on
    /// this TCP address.
    #[arg(long, env = "COHORT_METRICS")]
    pub metrics: Option<SocketAddr>,
    /// Serve the admin API (HTTP/JSON: create, list, end, suspend, move and resume matches) on
    /// this TCP address; needs an admin token (--admin-token-file or the COHORT_ADMIN_TOKEN
    /// variable).
    #[arg(long, env = "COHORT_ADMIN")]
    pub admin: Option<SocketAddr>,
    /// A file holding the admin API's bearer token (its whole content, trailing newline
    /// removed; at least 16 bytes).
    #[arg(long, env = "COHORT_ADMIN_TOKEN_FILE")]
    pub admin_token_file: Option<PathBuf>,
    /// The most matches hosted at once (the admin API refuses more) [default: 64].
    #[arg(long, env = "COHORT_MAX_MATCHES")]
    pub max_matches: Option<usize>,
    /// The address players are given (HOST:PORT) in the admin API's answers [default: the
    /// listen address, 127.0.0.1 for an unspecified one].
    #[arg(long, env = "COHORT_PUBLIC_ADDRESS")]
    pub public_address: Option<String>,
    /// POST every ended match's summary (JSON) to this http:// or https:// URL.
    #[arg(long, env = "COHORT_WEBHOOK")]
    pub webhook: Option<String>,
    /// A file holding the secret the webhook's posts are signed with (HMAC-SHA256 in the
    /// `cohort-signature` header; at least 16 bytes); or the COHORT_WEBHOOK_SECRET variable.
    #[arg(long, env = "COHORT_WEBHOOK_SECRET_FILE")]
    pub webhook_secret_file: Option<PathBuf>,
    /// Write the matches' figures (turn timing, traffic) as JSON to this file on exit.
    #[arg(long, env = "COHORT_STATS_FILE")]
    pub stats_file: Option<PathBuf>,
    /// The ruleset file (TOML, docs/RULESET.md) every match plays by, instead of the embedded
    /// default. Clients must play by the same one (`cohort play --ruleset`): the join compares
    /// the hashes.
    #[arg(long, env = "COHORT_RULESET", value_name = "FILE")]
    pub ruleset: Option<PathBuf>,
    /// Run under Agones: talk to the SDK sidecar on localhost (gRPC): ready, health, the
    /// allocated match, players, shutdown (on by itself when AGONES_SDK_GRPC_PORT is set, as
    /// Agones does).
    #[arg(long, env = "COHORT_AGONES")]
    pub agones: bool,
    /// The Agones SDK sidecar's gRPC port on localhost [default: 9357]; Agones sets it.
    #[arg(long, env = "AGONES_SDK_GRPC_PORT")]
    pub agones_port: Option<u16>,
}

fn parse_on_desync(s: &str) -> Result<OnDesync, String> {
    match s {
        "continue" => Ok(OnDesync::Continue),
        "stop" => Ok(OnDesync::Stop),
        _ => Err(format!("`{s}`: expected continue or stop")),
    }
}
