//! Configuration: a TOML file (`--config`), flags, and `COHORT_*` environment variables; a
//! flag or variable wins over the file, the file over the defaults. With nothing given,
//! `cohort-server` hosts the embedded default: one match, `default`, for 2 players on the
//! default map. docs/OPERATIONS.md lists every key.

mod args;
mod file;

#[cfg(test)]
mod tests;

pub use args::Args;
pub use file::{FileConfig, FileMatch, KeyError};

use crate::lockstep::{OnDesync, Settings};
use anyhow::{bail, Context, Result};
use cohort_protocol::file::{read_limited, FileLimit};
use cohort_protocol::limits::{DEFAULT_PORT, RULESET_FILE};
use cohort_sim::Ruleset;
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

/// Everything the server runs with.
#[derive(Debug)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    pub cert: Option<(PathBuf, PathBuf)>,
    /// None: make one at random.
    pub secret: Option<Vec<u8>>,
    pub replay_dir: PathBuf,
    /// The state folder (`--state-dir`): the certificate and secret kept, matches taken up
    /// again. None: neither.
    pub state_dir: Option<PathBuf>,
    /// With a state folder, a shutdown ends the running matches rather than suspending them
    /// (`--end-on-shutdown`).
    pub end_on_shutdown: bool,
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
            if args.spectator_delay.is_some() {
                m.spectator_delay_secs = args.spectator_delay;
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
            state_dir: args.state_dir.clone().or(file.state_dir),
            end_on_shutdown: args.end_on_shutdown || file.end_on_shutdown.unwrap_or(false),
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
