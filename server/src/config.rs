//! Configuration: a TOML file (`--config`), flags, and `COHORT_*` environment variables; a
//! flag or variable wins over the file, the file over the defaults. With nothing given,
//! `cohort-server` hosts the embedded default: one match, `default`, for 2 players on the
//! default map. docs/OPERATIONS.md lists every key.

use crate::lockstep::{OnDesync, Settings};
use anyhow::{bail, Context, Result};
use clap::Parser;
use cohort_protocol::file::{read_limited, FileLimit};
use cohort_protocol::limits::{DEFAULT_PORT, RULESET_FILE};
use cohort_protocol::limits::{MAX_INPUT_DELAY, MIN_INPUT_DELAY};
use cohort_protocol::setup::{ConfigError, MapSpec, DEFAULT_INPUT_DELAY, DEFAULT_TURN_TICKS};
use cohort_protocol::MatchConfig;
use cohort_sim::map::{DEFAULT_MAP_SEED, DEFAULT_MAP_SIZE, MAX_ARMY};
use cohort_sim::Ruleset;
use serde::Deserialize;
use std::net::SocketAddr;
use std::path::PathBuf;

/// How long printed and written tokens stay valid by default, in seconds (a day).
pub const DEFAULT_TOKEN_TTL_SECS: u64 = 24 * 60 * 60;

/// The largest server configuration file (`--config`), in bytes.
pub const MAX_CONFIG_FILE_BYTES: usize = 1 << 20;

/// The largest token secret file (`--secret-file`), in bytes.
pub const MAX_SECRET_FILE_BYTES: usize = 64 << 10;

const CONFIG_FILE: FileLimit = FileLimit {
    bytes: MAX_CONFIG_FILE_BYTES,
    what: "server configuration",
    name: "MAX_CONFIG_FILE_BYTES",
};

const SECRET_FILE: FileLimit = FileLimit {
    bytes: MAX_SECRET_FILE_BYTES,
    what: "secret file",
    name: "MAX_SECRET_FILE_BYTES",
};

/// How many matches one process hosts at once (waiting, running or paused) unless
/// `max_matches` says otherwise; the admin API refuses more.
pub const DEFAULT_MAX_MATCHES: usize = 64;

/// The shortest admin token accepted, in bytes.
pub const MIN_ADMIN_TOKEN_BYTES: usize = 16;

/// The environment variable that may hold the webhook's signing secret.
pub const WEBHOOK_SECRET_ENV: &str = "COHORT_WEBHOOK_SECRET";

/// The environment variable that may hold the admin token (never a flag: a flag's value is
/// seen by every user of the machine).
pub const ADMIN_TOKEN_ENV: &str = "COHORT_ADMIN_TOKEN";

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
    /// Serve the admin API (HTTP/JSON: create, list, end matches) on this TCP address; needs an
    /// admin token (--admin-token-file or the COHORT_ADMIN_TOKEN variable).
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

/// The configuration file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub listen: Option<SocketAddr>,
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
    pub secret: Option<String>,
    pub secret_file: Option<PathBuf>,
    pub replay_dir: Option<PathBuf>,
    pub report_dir: Option<PathBuf>,
    pub print_tokens: Option<bool>,
    pub tokens_file: Option<PathBuf>,
    pub token_ttl_secs: Option<u64>,
    pub metrics: Option<SocketAddr>,
    pub admin: Option<SocketAddr>,
    pub admin_token_file: Option<PathBuf>,
    pub max_matches: Option<usize>,
    pub public_address: Option<String>,
    pub webhook: Option<String>,
    pub webhook_secret_file: Option<PathBuf>,
    pub stats_file: Option<PathBuf>,
    #[serde(default, rename = "match")]
    pub matches: Vec<FileMatch>,
}

/// One `[[match]]` of the configuration file, and the body of the admin API's
/// `POST /v1/matches`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileMatch {
    pub id: String,
    #[serde(default = "two")]
    pub players: u8,
    /// Player names, in slot order (default "Player 1"…).
    #[serde(default)]
    pub names: Vec<String>,
    /// Teams, in slot order (default: everyone on their own).
    #[serde(default)]
    pub teams: Vec<u8>,
    pub map_seed: Option<u64>,
    pub map_size: Option<i32>,
    /// Each player's units topped up to this many soldiers (1 to 200; `MapSpec::Armies`).
    pub army: Option<u32>,
    pub turn_ticks: Option<u32>,
    pub input_delay: Option<u32>,
    pub adaptive_delay: Option<bool>,
    pub max_turns: Option<u64>,
    pub on_desync: Option<OnDesync>,
    /// Refuse hashless players (`Ack` instead of `TurnHash`) [default: false].
    pub require_hashes: Option<bool>,
}

fn two() -> u8 {
    2
}

/// A `[[match]]` key that is wrong: which and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("match `{match_id}`: `{field}`: {message}")]
pub struct KeyError {
    pub match_id: String,
    pub field: &'static str,
    pub message: String,
}

/// Everything the server runs with.
#[derive(Debug)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    pub cert: Option<(PathBuf, PathBuf)>,
    /// None: make one at random.
    pub secret: Option<Vec<u8>>,
    pub replay_dir: PathBuf,
    pub report_dir: PathBuf,
    pub print_tokens: bool,
    pub tokens_file: Option<PathBuf>,
    pub token_ttl_secs: u64,
    pub metrics: Option<SocketAddr>,
    /// The admin API's address and its bearer token.
    pub admin: Option<(SocketAddr, Vec<u8>)>,
    /// The most matches hosted at once.
    pub max_matches: usize,
    /// The address players are given, when not the listen address.
    pub public_address: Option<String>,
    /// Where ended matches' summaries are posted.
    pub webhook: Option<reqwest::Url>,
    /// What the webhook's posts are signed with.
    pub webhook_secret: Option<Vec<u8>>,
    pub stats_file: Option<PathBuf>,
    /// The Agones SDK sidecar's gRPC port on localhost (none: not under Agones).
    pub agones: Option<u16>,
    pub matches: Vec<Settings>,
}

/// The ruleset `--ruleset` names, or the embedded default.
pub fn load_ruleset(args: &Args) -> Result<Ruleset> {
    let Some(path) = &args.ruleset else {
        return Ok(Ruleset::default_rules());
    };
    let bytes = read_limited(path, RULESET_FILE)?;
    let origin = path.display().to_string();
    cohort_sim::scenario::ruleset_from_bytes(&bytes, &origin).map_err(|e| anyhow::anyhow!("{e}"))
}

impl ServerConfig {
    /// The file (if any) under the flags and environment.
    pub fn load(args: &Args, rules: &Ruleset) -> Result<ServerConfig> {
        let file: FileConfig = match &args.config {
            Some(path) => {
                let bytes = read_limited(path, CONFIG_FILE)?;
                let origin = path.display().to_string();
                let text = cohort_sim::scenario::text_of(
                    &origin,
                    &bytes,
                    CONFIG_FILE.bytes,
                    CONFIG_FILE.name,
                )
                .map_err(|e| anyhow::anyhow!("{e}"))?;
                toml::from_str(text).with_context(|| format!("in {}", path.display()))?
            }
            None => FileConfig::default(),
        };
        let secret = match (
            &args.secret,
            &args.secret_file,
            &file.secret,
            &file.secret_file,
        ) {
            (Some(s), ..) => Some(s.clone().into_bytes()),
            (None, Some(p), ..) | (None, None, None, Some(p)) => Some(read_secret(p)?),
            (None, None, Some(s), _) => Some(s.clone().into_bytes()),
            (None, None, None, None) => None,
        };
        if secret.as_ref().is_some_and(|s| s.is_empty()) {
            bail!("the token secret is empty");
        }
        let cert = match (
            args.cert.clone().or(file.cert),
            args.key.clone().or(file.key),
        ) {
            (Some(c), Some(k)) => Some((c, k)),
            (None, None) => None,
            _ => bail!("a certificate needs its key and a key its certificate (cert and key)"),
        };
        let admin_addr = args.admin.or(file.admin);
        let admin = match admin_addr {
            Some(addr) => Some((
                addr,
                admin_token(
                    args.admin_token_file
                        .as_ref()
                        .or(file.admin_token_file.as_ref()),
                )?,
            )),
            None => None,
        };
        let agones = (args.agones || args.agones_port.is_some()).then(|| {
            args.agones_port
                .unwrap_or(crate::agones::DEFAULT_SDK_GRPC_PORT)
        });
        let file_matches = if args.matches.is_some() {
            Vec::new()
        } else {
            file.matches
        };
        let mut matches = if let Some(n) = args.matches {
            anyhow::ensure!(n >= 1, "--matches must be at least 1");
            (1..=n)
                .map(|i| FileMatch::standard(&format!("m{i}"), args.players.unwrap_or(2)))
                .collect()
        } else if file_matches.is_empty() && (admin.is_some() || agones.is_some()) {
            // Matches come on demand: from the admin API, or from an Agones allocation.
            Vec::new()
        } else if file_matches.is_empty() {
            vec![FileMatch::standard("default", args.players.unwrap_or(2))]
        } else {
            file_matches
        };
        for m in &mut matches {
            if args.turn_ticks.is_some() {
                m.turn_ticks = args.turn_ticks;
            }
            if args.army.is_some() {
                m.army = args.army;
            }
            if args.input_delay.is_some() {
                m.input_delay = args.input_delay;
            }
            if args.fixed_delay {
                m.adaptive_delay = Some(false);
            }
            if args.max_turns.is_some() {
                m.max_turns = args.max_turns;
            }
            if args.on_desync.is_some() {
                m.on_desync = args.on_desync;
            }
            if args.require_hashes {
                m.require_hashes = Some(true);
            }
        }
        let mut ids = std::collections::BTreeSet::new();
        let mut settings = Vec::new();
        for m in &matches {
            anyhow::ensure!(ids.insert(m.id.clone()), "match `{}` is listed twice", m.id);
            settings.push(m.settings(rules)?);
        }
        let max_matches = args
            .max_matches
            .or(file.max_matches)
            .unwrap_or(DEFAULT_MAX_MATCHES);
        anyhow::ensure!(max_matches >= 1, "max_matches must be at least 1");
        anyhow::ensure!(
            settings.len() <= max_matches,
            "{} matches are configured, more than max_matches ({max_matches})",
            settings.len()
        );
        let webhook = match args.webhook.clone().or(file.webhook) {
            Some(url) => Some(webhook_url(&url)?),
            None => None,
        };
        let webhook_secret = match &webhook {
            Some(_) => secret_from(
                args.webhook_secret_file
                    .as_ref()
                    .or(file.webhook_secret_file.as_ref()),
                WEBHOOK_SECRET_ENV,
                "the webhook secret",
            )?,
            None => None,
        };
        Ok(ServerConfig {
            listen: args
                .listen
                .or(file.listen)
                .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], DEFAULT_PORT))),
            cert,
            print_tokens: args.print_tokens || file.print_tokens.unwrap_or(secret.is_none()),
            secret,
            replay_dir: args
                .replay_dir
                .clone()
                .or(file.replay_dir)
                .unwrap_or_else(|| "replays".into()),
            report_dir: args
                .report_dir
                .clone()
                .or(file.report_dir)
                .unwrap_or_else(|| "reports".into()),
            tokens_file: args.tokens_file.clone().or(file.tokens_file),
            token_ttl_secs: args
                .token_ttl
                .or(file.token_ttl_secs)
                .unwrap_or(DEFAULT_TOKEN_TTL_SECS),
            metrics: args.metrics.or(file.metrics),
            admin,
            max_matches,
            public_address: args.public_address.clone().or(file.public_address),
            webhook,
            webhook_secret,
            stats_file: args.stats_file.clone().or(file.stats_file),
            agones,
            matches: settings,
        })
    }
}

/// The admin token from `file`, else from [`ADMIN_TOKEN_ENV`].
fn admin_token(file: Option<&PathBuf>) -> Result<Vec<u8>> {
    match secret_from(file, ADMIN_TOKEN_ENV, "the admin token")? {
        Some(token) => Ok(token),
        None => bail!(
            "the admin API needs a token: admin_token_file (--admin-token-file) or {ADMIN_TOKEN_ENV}"
        ),
    }
}

/// A secret (`what`) from `file`, else from the variable `env`; none if neither is there. At
/// least [`MIN_ADMIN_TOKEN_BYTES`].
fn secret_from(file: Option<&PathBuf>, env: &str, what: &str) -> Result<Option<Vec<u8>>> {
    let secret = match file {
        Some(path) => read_secret(path).with_context(|| format!("the file of {what}"))?,
        None => match std::env::var_os(env) {
            Some(t) => t.into_encoded_bytes(),
            None => return Ok(None),
        },
    };
    anyhow::ensure!(
        secret.len() >= MIN_ADMIN_TOKEN_BYTES,
        "{what} must be at least {MIN_ADMIN_TOKEN_BYTES} bytes"
    );
    Ok(Some(secret))
}

/// A webhook URL: absolute, http or https.
fn webhook_url(text: &str) -> Result<reqwest::Url> {
    let url = reqwest::Url::parse(text).with_context(|| format!("the webhook URL `{text}`"))?;
    anyhow::ensure!(
        matches!(url.scheme(), "http" | "https"),
        "the webhook URL `{text}` must be http:// or https://"
    );
    Ok(url)
}

fn read_secret(path: &std::path::Path) -> Result<Vec<u8>> {
    let mut bytes = read_limited(path, SECRET_FILE)?;
    while bytes.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        bytes.pop();
    }
    Ok(bytes)
}

impl FileMatch {
    fn standard(id: &str, players: u8) -> FileMatch {
        FileMatch {
            id: id.to_string(),
            players,
            names: Vec::new(),
            teams: Vec::new(),
            map_seed: None,
            map_size: None,
            army: None,
            turn_ticks: None,
            input_delay: None,
            adaptive_delay: None,
            max_turns: None,
            on_desync: None,
            require_hashes: None,
        }
    }

    /// The match's settings, or which key is wrong and why.
    pub fn settings(&self, rules: &Ruleset) -> Result<Settings, KeyError> {
        let key = |field: &'static str, message: String| KeyError {
            match_id: self.id.clone(),
            field,
            message,
        };
        if self.names.len() > usize::from(self.players) {
            return Err(key(
                "names",
                format!("{} names for {} players", self.names.len(), self.players),
            ));
        }
        if self.teams.len() > usize::from(self.players) {
            return Err(key(
                "teams",
                format!("{} teams for {} players", self.teams.len(), self.players),
            ));
        }
        if let Some(d) = self
            .input_delay
            .filter(|d| !(MIN_INPUT_DELAY..=MAX_INPUT_DELAY).contains(d))
        {
            return Err(key(
                "input_delay",
                format!("the input delay is {MIN_INPUT_DELAY} to {MAX_INPUT_DELAY} turns, not {d}"),
            ));
        }
        let mut config = MatchConfig::standard(&self.id, rules, self.players);
        for (slot, name) in config.players.iter_mut().zip(&self.names) {
            slot.name = name.clone();
        }
        for (slot, team) in config.players.iter_mut().zip(&self.teams) {
            slot.team = *team;
        }
        let (seed, size) = (
            self.map_seed.unwrap_or(DEFAULT_MAP_SEED),
            self.map_size.unwrap_or(DEFAULT_MAP_SIZE),
        );
        config.map = match self.army {
            Some(army) => MapSpec::Armies { seed, size, army },
            None => MapSpec::Generated { seed, size },
        };
        config.turn_ticks = self.turn_ticks.unwrap_or(DEFAULT_TURN_TICKS);
        config.input_delay = self.input_delay.unwrap_or(DEFAULT_INPUT_DELAY);
        config.check().map_err(|e| {
            let field = match &e {
                ConfigError::MatchId(_) => "id",
                ConfigError::PlayerCount(_) | ConfigError::SlotOrder => "players",
                ConfigError::Name(_) => "names",
                ConfigError::TurnTicks(_) => "turn_ticks",
                ConfigError::MapSize(_) => "map_size",
                ConfigError::Army(_) => "army",
                ConfigError::Ruleset => "ruleset",
            };
            key(field, e.to_string())
        })?;
        let mut s = Settings::new(config);
        s.adaptive_delay = self.adaptive_delay.unwrap_or(true);
        s.max_turns = self.max_turns.filter(|t| *t > 0);
        s.on_desync = self.on_desync.unwrap_or_default();
        s.require_hashes = self.require_hashes.unwrap_or(false);
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Ruleset {
        Ruleset::default_rules()
    }

    #[test]
    fn no_arguments_host_the_default_match() {
        let c = ServerConfig::load(&Args::default(), &rules()).unwrap();
        assert_eq!(c.listen.port(), DEFAULT_PORT);
        assert_eq!(c.matches.len(), 1);
        assert_eq!(c.matches[0].config.match_id, "default");
        assert_eq!(c.matches[0].config.players.len(), 2);
        assert!(c.secret.is_none() && c.print_tokens);
        assert_eq!(c.agones, None, "not under Agones");
    }

    #[test]
    fn agones_is_on_with_the_flag_or_the_sidecar_port() {
        let load = |args: Args| ServerConfig::load(&args, &rules()).unwrap().agones;
        let flag = Args {
            agones: true,
            ..Args::default()
        };
        assert_eq!(load(flag), Some(9357));
        let port = Args {
            agones_port: Some(9400),
            ..Args::default()
        };
        assert_eq!(load(port), Some(9400));
    }

    #[test]
    fn a_file_with_matches_under_flags() {
        let dir = std::env::temp_dir().join(format!("cohort-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("server.toml");
        std::fs::write(
            &path,
            r#"
listen = "127.0.0.1:9000"
secret = "s3cret"
[[match]]
id = "final"
players = 4
names = ["Ana", "Bo"]
teams = [1, 1, 2, 2]
turn_ticks = 6
on_desync = "stop"
[[match]]
id = "other"
require_hashes = true
"#,
        )
        .unwrap();
        let args = Args {
            config: Some(path),
            turn_ticks: Some(5),
            ..Args::default()
        };
        let c = ServerConfig::load(&args, &rules()).unwrap();
        assert_eq!(c.listen.port(), 9000);
        assert_eq!(c.secret.as_deref(), Some(&b"s3cret"[..]));
        assert!(!c.print_tokens);
        let m = &c.matches[0];
        assert_eq!(m.config.players.len(), 4);
        assert_eq!(m.config.players[1].name, "Bo");
        assert_eq!(m.config.players[3].team, 2);
        assert_eq!(m.config.turn_ticks, 5, "the flag wins");
        assert_eq!(m.on_desync, OnDesync::Stop);
        assert_eq!(c.matches[1].config.match_id, "other");
        assert!(!m.require_hashes && c.matches[1].require_hashes);
        let everywhere = Args {
            require_hashes: true,
            ..Args::default()
        };
        let c = ServerConfig::load(&everywhere, &rules()).unwrap();
        assert!(
            c.matches[0].require_hashes,
            "the flag sets it for every match"
        );
    }

    #[test]
    fn many_generated_matches() {
        let args = Args {
            matches: Some(3),
            players: Some(8),
            ..Args::default()
        };
        let c = ServerConfig::load(&args, &rules()).unwrap();
        let ids: Vec<&str> = c
            .matches
            .iter()
            .map(|m| m.config.match_id.as_str())
            .collect();
        assert_eq!(ids, vec!["m1", "m2", "m3"]);
        assert!(c.matches.iter().all(|m| m.config.players.len() == 8));
        assert!(c
            .matches
            .iter()
            .all(|m| matches!(m.config.map, MapSpec::Generated { .. })));
        let armies = Args {
            army: Some(MAX_ARMY),
            ..args
        };
        let c = ServerConfig::load(&armies, &rules()).unwrap();
        for m in &c.matches {
            let MapSpec::Armies { army, .. } = m.config.map else {
                panic!("{:?}", m.config.map)
            };
            assert_eq!(army, MAX_ARMY);
        }
    }

    #[test]
    fn the_admin_api_needs_a_token_and_then_starts_with_no_match() {
        let dir = std::env::temp_dir().join(format!("cohort-admin-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let token = dir.join("token");
        let admin = |file: Option<PathBuf>| Args {
            admin: Some("127.0.0.1:0".parse().unwrap()),
            admin_token_file: file,
            ..Args::default()
        };
        std::fs::write(&token, "short\n").unwrap();
        let e = ServerConfig::load(&admin(Some(token.clone())), &rules()).unwrap_err();
        assert!(format!("{e:#}").contains("at least 16 bytes"), "{e:#}");
        std::fs::write(&token, "a-long-enough-admin-token\n").unwrap();
        let c = ServerConfig::load(&admin(Some(token)), &rules()).unwrap();
        let (_, t) = c.admin.unwrap();
        assert_eq!(t, b"a-long-enough-admin-token");
        assert!(c.matches.is_empty(), "matches come on demand");
        assert_eq!(c.max_matches, DEFAULT_MAX_MATCHES);
        if std::env::var_os(ADMIN_TOKEN_ENV).is_none() {
            let e = ServerConfig::load(&admin(None), &rules()).unwrap_err();
            assert!(format!("{e:#}").contains(ADMIN_TOKEN_ENV), "{e:#}");
        }
    }

    #[test]
    fn webhooks_are_http_urls_and_max_matches_bounds_the_file() {
        let hook = |url: &str| Args {
            webhook: Some(url.into()),
            ..Args::default()
        };
        assert!(
            ServerConfig::load(&hook("http://127.0.0.1:9/end"), &rules())
                .unwrap()
                .webhook
                .is_some()
        );
        assert!(ServerConfig::load(&hook("ftp://x/"), &rules()).is_err());
        assert!(ServerConfig::load(&hook("not a url"), &rules()).is_err());
        let many = Args {
            matches: Some(3),
            max_matches: Some(2),
            ..Args::default()
        };
        let e = ServerConfig::load(&many, &rules()).unwrap_err();
        assert!(format!("{e:#}").contains("max_matches"), "{e:#}");
    }

    #[test]
    fn a_wrong_match_key_is_named() {
        let m = |f: fn(&mut FileMatch)| {
            let mut m = FileMatch::standard("k", 2);
            f(&mut m);
            m.settings(&rules()).unwrap_err().field
        };
        assert_eq!(m(|m| m.players = 1), "players");
        assert_eq!(m(|m| m.id = "a b".into()), "id");
        assert_eq!(m(|m| m.names = vec!["a".into(); 3]), "names");
        assert_eq!(m(|m| m.names = vec![String::new()]), "names");
        assert_eq!(m(|m| m.teams = vec![1; 3]), "teams");
        assert_eq!(m(|m| m.turn_ticks = Some(0)), "turn_ticks");
        assert_eq!(m(|m| m.map_size = Some(9)), "map_size");
        assert_eq!(m(|m| m.input_delay = Some(0)), "input_delay");
        assert_eq!(m(|m| m.army = Some(0)), "army");
        assert_eq!(m(|m| m.army = Some(MAX_ARMY + 1)), "army");
    }

    #[test]
    fn bad_configurations_are_refused_clearly() {
        let args = Args {
            matches: Some(1),
            players: Some(9),
            ..Args::default()
        };
        let e = ServerConfig::load(&args, &rules()).unwrap_err();
        assert!(format!("{e:#}").contains("2 to 8 players"), "{e:#}");
    }
}

#[cfg(test)]
mod example {
    use super::*;

    #[test]
    fn the_example_file_in_deploy_is_valid() {
        let file: FileConfig =
            toml::from_str(include_str!("../../deploy/server.example.toml")).unwrap();
        let rules = Ruleset::default_rules();
        let settings: Vec<Settings> = file
            .matches
            .iter()
            .map(|m| m.settings(&rules).unwrap())
            .collect();
        assert_eq!(settings.len(), 2);
        assert_eq!(settings[0].config.players[2].name, "Cy");
        assert_eq!(settings[0].max_turns, None);
    }
}
