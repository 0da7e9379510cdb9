//! Re-simulating recorded turns against their recorded hashes (`cohort replay`).
//!
//! A replay is checked turn by turn: its configuration builds the starting world, every record's
//! bundle is run through [`run_bundle`] as every peer ran it, and the state's hash after it must
//! equal the server's recorded hash. A desync report is checked the same way up to its failing
//! turn, then narrowed ([`narrow`]): the first tick whose state differs, and at that tick the
//! parts, the entries and every field that differ between the server's state and the diverging
//! client's ([`diff`]).

pub mod diff;
pub mod found;
pub mod narrow;
pub mod scenario;

pub use diff::FieldDifference;
pub use narrow::{narration, narrow_report, Compared, Narrowing, Stage};

use cohort_protocol::replay::{Replay, TurnRecord};
use cohort_protocol::setup::{run_bundle, ConfigError};
use cohort_protocol::MatchConfig;
use cohort_sim::{Ruleset, StateHash, World};
use std::sync::Arc;

/// Why a file could not be re-simulated at all.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("the match configuration cannot be played: {0}")]
    Config(#[from] ConfigError),
    #[error("record {index} is for turn {turn}; records must be turns 0, 1, 2… in order")]
    OutOfOrder { index: usize, turn: u64 },
    #[error("the report's failing turn {0} is not among its records")]
    MissingTurn(u64),
    #[error("a snapshot in the report cannot be loaded: {0}")]
    Snapshot(String),
    #[error(
        "the client's state in the report is after turn {client}, not the failing turn {failing}"
    )]
    ClientTurn { client: u64, failing: u64 },
}

/// The first turn whose recomputed hash differs from the recorded one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    pub turn: u64,
    /// The hash recorded (the server's).
    pub recorded: StateHash,
    /// The hash re-simulation gives.
    pub computed: StateHash,
}

/// What re-simulating a replay found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every recorded hash was met; `turns` turns were run, ending in `last_hash`.
    Verified { turns: u64, last_hash: StateHash },
    /// A recorded hash was not met.
    Differs(Divergence),
}

/// Runs `records` from the configuration's world, checking each recorded hash, calling
/// `progress(turns done)` after every turn. Stops at the first difference. Returns the verdict
/// and the world as it stood after the last turn run.
pub fn resimulate(
    config: &MatchConfig,
    rules: Arc<Ruleset>,
    records: &[TurnRecord],
    mut progress: impl FnMut(u64),
) -> Result<(Verdict, World), VerifyError> {
    let mut world = config.world(rules)?;
    let mut last_hash = world.hash();
    for (index, record) in records.iter().enumerate() {
        if record.bundle.turn != index as u64 {
            return Err(VerifyError::OutOfOrder {
                index,
                turn: record.bundle.turn,
            });
        }
        run_bundle(&mut world, &record.bundle, config.turn_ticks);
        last_hash = world.hash();
        progress(index as u64 + 1);
        if last_hash != record.hash {
            let d = Divergence {
                turn: record.bundle.turn,
                recorded: record.hash,
                computed: last_hash,
            };
            return Ok((Verdict::Differs(d), world));
        }
    }
    let turns = records.len() as u64;
    Ok((Verdict::Verified { turns, last_hash }, world))
}

/// Re-simulates a whole replay.
pub fn verify_replay(
    replay: &Replay,
    rules: Arc<Ruleset>,
    progress: impl FnMut(u64),
) -> Result<Verdict, VerifyError> {
    resimulate(&replay.header.config, rules, &replay.records, progress).map(|(v, _)| v)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use cohort_protocol::message::TurnBundle;
    use cohort_sim::{fx, Command, PlayerCommand, Vec2};

    pub(super) fn rules() -> Arc<Ruleset> {
        Arc::new(Ruleset::default_rules())
    }

    pub(super) fn config() -> MatchConfig {
        let mut c = MatchConfig::standard("v", &rules(), 2);
        c.turn_ticks = 2;
        c
    }

    /// A replay of `turns` turns recorded by running them honestly.
    pub(super) fn recorded(turns: u64) -> Vec<TurnRecord> {
        let config = config();
        let mut world = config.world(rules()).unwrap();
        let unit = world.state().units[0].id;
        (0..turns)
            .map(|turn| {
                let commands = if turn == 1 {
                    vec![PlayerCommand {
                        player: 0,
                        command: Command::Move {
                            units: vec![unit],
                            to: Vec2::new(fx(40), fx(40)),
                        },
                    }]
                } else {
                    vec![]
                };
                let bundle = TurnBundle {
                    turn,
                    input_delay: None,
                    events: vec![],
                    commands,
                    previous_hash: None,
                };
                run_bundle(&mut world, &bundle, config.turn_ticks);
                TurnRecord {
                    bundle,
                    hash: world.hash(),
                }
            })
            .collect()
    }

    #[test]
    fn an_honest_replay_verifies() {
        let records = recorded(6);
        let mut seen = Vec::new();
        let (v, _) = resimulate(&config(), rules(), &records, |n| seen.push(n)).unwrap();
        assert_eq!(
            v,
            Verdict::Verified {
                turns: 6,
                last_hash: records[5].hash
            }
        );
        assert_eq!(seen, vec![1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_wrong_hash_names_its_turn() {
        let mut records = recorded(6);
        records[3].hash = StateHash([0; 32]);
        let (v, _) = resimulate(&config(), rules(), &records, |_| {}).unwrap();
        match v {
            Verdict::Differs(d) => assert_eq!(d.turn, 3),
            other => panic!("{other:?}"),
        }
        let mut records = recorded(6);
        records[4].bundle.commands.clear();
        records[1].bundle.commands.clear();
        let (v, _) = resimulate(&config(), rules(), &records, |_| {}).unwrap();
        assert!(matches!(v, Verdict::Differs(Divergence { turn: 1, .. })));
    }
}
