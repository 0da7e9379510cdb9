//! The configuration file (TOML) and its `[[match]]` tables, which the admin API takes too:
//! a match's keys checked and turned into its [`Settings`].

use super::{OnDesync, Settings};
use cohort_protocol::limits::{
    MAX_INPUT_DELAY, MAX_NAME_BYTES, MAX_SPECTATOR_DELAY_SECS, MIN_INPUT_DELAY,
};
use cohort_protocol::setup::{ConfigError, MapSpec, DEFAULT_INPUT_DELAY, DEFAULT_TURN_TICKS};
use cohort_protocol::MatchConfig;
use cohort_sim::map::{DEFAULT_MAP_SEED, DEFAULT_MAP_SIZE};
use cohort_sim::Ruleset;
use serde::Deserialize;
use std::net::SocketAddr;
use std::path::PathBuf;

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
    pub state_dir: Option<PathBuf>,
    pub end_on_shutdown: Option<bool>,
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
    /// Seconds spectators are kept behind the match, 0 to
    /// [`MAX_SPECTATOR_DELAY_SECS`] [default: 0].
    pub spectator_delay_secs: Option<u32>,
}

fn two() -> u8 {
    2
}

/// A `[[match]]` key that is wrong: which and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("match `{match_id}`: `{field}`: {message}")]
pub struct KeyError {
    pub match_id: String,
    /// The key, as a path where it is a list's element (`names[1]`).
    pub field: String,
    pub message: String,
}

impl FileMatch {
    pub(super) fn standard(id: &str, players: u8) -> FileMatch {
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
            spectator_delay_secs: None,
        }
    }

    /// The match's settings, or which key is wrong and why.
    pub fn settings(&self, rules: &Ruleset) -> Result<Settings, KeyError> {
        let key = |field: &str, message: String| KeyError {
            match_id: self.id.clone(),
            field: field.to_string(),
            message,
        };
        if self.names.len() > usize::from(self.players) {
            return Err(key(
                "names",
                format!("{} names for {} players", self.names.len(), self.players),
            ));
        }
        if let Some((i, name)) = self
            .names
            .iter()
            .enumerate()
            .find(|(_, n)| n.is_empty() || n.len() > MAX_NAME_BYTES)
        {
            return Err(key(
                &format!("names[{i}]"),
                format!("player name `{name}` is empty or longer than {MAX_NAME_BYTES} bytes"),
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
        if let Some(d) = self
            .spectator_delay_secs
            .filter(|d| *d > MAX_SPECTATOR_DELAY_SECS)
        {
            return Err(key(
                "spectator_delay_secs",
                format!("the spectator delay is 0 to {MAX_SPECTATOR_DELAY_SECS} seconds, not {d}"),
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
        s.spectator_delay_secs = self.spectator_delay_secs.unwrap_or(0);
        Ok(s)
    }
}
