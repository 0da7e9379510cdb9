//! Re-simulating recorded turns against their recorded hashes (`cohort replay`).
//!
//! A replay is checked turn by turn: its configuration builds the starting world, every record's
//! bundle is run through [`run_bundle`] as every peer ran it, and the state's hash after it must
//! equal the server's recorded hash. A desync report is checked the same way through its failing
//! turn, then narrowed: which part of the state, which entity and which field differ between the
//! server's state and the diverging client's, and in which ticks.

use cohort_protocol::replay::{Replay, TurnRecord};
use cohort_protocol::report::{DesyncReport, StateView};
use cohort_protocol::setup::{run_bundle, ConfigError};
use cohort_protocol::MatchConfig;
use cohort_sim::hash::Entry;
use cohort_sim::{Fx, PlayerId, Ruleset, StateHash, World};
use serde_json::Value;
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

/// One field that differs between two states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDifference {
    /// Where, as `units[id 5].position.x`.
    pub path: String,
    pub server: String,
    pub client: String,
}

/// A desync report, narrowed down.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Narrowing {
    /// The turn after which the client's hash first differed from the server's.
    pub turn: u64,
    /// The players whose hashes differed.
    pub players: Vec<PlayerId>,
    /// Whether re-simulating the records reproduced the server's hash after every turn
    /// through `turn` (if not, the replay itself diverges first: see the divergence).
    pub records_verify: Option<Divergence>,
    /// The ticks of the failing turn: the client's state agreed before the first and differed
    /// after the last (peers exchange hashes at turn ends, so this is as narrow as a hash goes).
    pub ticks: (u64, u64),
    /// The parts of the state that differ (`units`, `rng`, …), when the client sent its state.
    pub parts: Vec<String>,
    /// The entries (players, units, buildings, resources, formations) that differ.
    pub entities: Vec<Entry>,
    /// The first field that differs, in id order of entities, then field order.
    pub field: Option<FieldDifference>,
    /// The turn the client's state is from: always `turn` (checked).
    pub client_turn: Option<u64>,
    /// The tick the client's state is at: the failing turn's last, `ticks.1` (checked).
    pub client_tick: Option<u64>,
}

/// Re-simulates a report's records through its failing turn and compares the client's state
/// with the server's.
pub fn narrow_report(
    report: &DesyncReport,
    rules: Arc<Ruleset>,
    progress: impl FnMut(u64),
) -> Result<Narrowing, VerifyError> {
    let config = &report.header.config;
    let through = report
        .records
        .iter()
        .position(|r| r.bundle.turn == report.turn)
        .ok_or(VerifyError::MissingTurn(report.turn))?;
    let (verdict, _) = resimulate(config, rules.clone(), &report.records[..=through], progress)?;
    let records_verify = match verdict {
        Verdict::Differs(d) => Some(d),
        Verdict::Verified { .. } => None,
    };
    let ticks_per_turn = u64::from(config.turn_ticks);
    let ticks = (
        report.turn * ticks_per_turn + 1,
        (report.turn + 1) * ticks_per_turn,
    );
    let mut n = Narrowing {
        turn: report.turn,
        players: report.diverged.clone(),
        records_verify,
        ticks,
        parts: Vec::new(),
        entities: Vec::new(),
        field: None,
        client_turn: None,
        client_tick: None,
    };
    if let Some(client) = &report.client {
        let tick = client.view.snapshot.state.tick;
        if client.view.turn != report.turn || tick != ticks.1 {
            return Err(VerifyError::ClientTurn {
                client: client.view.turn,
                failing: report.turn,
            });
        }
        let (parts, entities) = report.server.differences(&client.view);
        n.parts = parts;
        n.entities = entities;
        n.client_turn = Some(client.view.turn);
        n.client_tick = Some(tick);
        n.field = first_field_difference(&report.server, &client.view);
        // Load both snapshots to be sure they are what the report says they are.
        for view in [&client.view, &report.server] {
            let w = World::from_snapshot(rules.clone(), view.snapshot.clone())
                .map_err(|e| VerifyError::Snapshot(e.to_string()))?;
            if w.hash() != view.hash {
                return Err(VerifyError::Snapshot(format!(
                    "the snapshot of turn {} hashes to {}, not the {} recorded with it",
                    view.turn,
                    w.hash(),
                    view.hash
                )));
            }
        }
    }
    Ok(n)
}

/// What `cohort replay` prints about a narrowed report, line by line.
pub fn narration(n: &Narrowing) -> Vec<String> {
    let mut lines = vec![format!(
        "desync: turn {} first differs (players {:?})",
        n.turn, n.players
    )];
    lines.push(match &n.records_verify {
        Some(d) => format!(
            "the recorded turns themselves differ first at turn {}: recorded {}, re-simulated {}",
            d.turn, d.recorded, d.computed
        ),
        None => format!(
            "the recorded turns re-simulate to the server's hashes through turn {}",
            n.turn
        ),
    });
    lines.push(format!(
        "ticks: the states agreed before tick {} and differ after tick {}",
        n.ticks.0, n.ticks.1
    ));
    match (n.client_turn, n.client_tick) {
        (Some(turn), Some(tick)) => {
            lines.push(format!("client state after turn {turn}, at tick {tick}"));
            lines.push(format!("parts that differ: {}", n.parts.join(", ")));
            let ids: Vec<String> = n.entities.iter().map(Entry::to_string).collect();
            lines.push(format!("entities that differ: {}", ids.join(", ")));
            if let Some(f) = &n.field {
                lines.push(format!(
                    "first field that differs: {}: server {}, client {}",
                    f.path, f.server, f.client
                ));
            }
        }
        _ => lines.push("the client sent no state: entity and field unknown".into()),
    }
    lines
}

/// The first field where two states differ: entities in id order first (units, buildings,
/// resources), then the rest of the state in its field order.
pub fn first_field_difference(server: &StateView, client: &StateView) -> Option<FieldDifference> {
    let a = serde_json::to_value(&server.snapshot.state).ok()?;
    let b = serde_json::to_value(&client.snapshot.state).ok()?;
    let mut found: Vec<FieldDifference> = Vec::new();
    for list in ["units", "buildings", "resources"] {
        let by_id = |v: &Value| -> Vec<(u64, Value)> {
            v.get(list)
                .and_then(Value::as_array)
                .map(|l| {
                    l.iter()
                        .map(|e| (e.get("id").and_then(Value::as_u64).unwrap_or(0), e.clone()))
                        .collect()
                })
                .unwrap_or_default()
        };
        let (xs, ys) = (by_id(&a), by_id(&b));
        for (id, x) in &xs {
            let path = format!("{list}[id {id}]");
            match ys.iter().find(|(j, _)| j == id) {
                Some((_, y)) => {
                    if let Some(d) = first_difference(&path, x, y) {
                        found.push(d);
                    }
                }
                None => found.push(FieldDifference {
                    path,
                    server: "present".into(),
                    client: "absent".into(),
                }),
            }
        }
        for (id, _) in ys.iter().filter(|(j, _)| !xs.iter().any(|(i, _)| i == j)) {
            found.push(FieldDifference {
                path: format!("{list}[id {id}]"),
                server: "absent".into(),
                client: "present".into(),
            });
        }
    }
    let id_of = |d: &FieldDifference| -> u64 {
        d.path
            .split("[id ")
            .nth(1)
            .and_then(|s| s.split(']').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or(u64::MAX)
    };
    if let Some(d) = found.into_iter().min_by_key(id_of) {
        return Some(d);
    }
    first_difference("state", &a, &b)
}

/// The first leaf where two JSON values differ, depth first in field order. A fixed-point
/// number (`{"bits": n}`) is one leaf, shown as a decimal.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<FieldDifference> {
    if a == b {
        return None;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if !is_fixed(a) && !is_fixed(b) => {
            for (k, va) in x {
                let vb = y.get(k).unwrap_or(&Value::Null);
                if let Some(d) = first_difference(&format!("{path}.{k}"), va, vb) {
                    return Some(d);
                }
            }
            y.iter()
                .find(|(k, _)| !x.contains_key(*k))
                .map(|(k, vb)| leaf(&format!("{path}.{k}"), &Value::Null, vb))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(&format!("{path}[{i}]"), va, vb)),
        _ => Some(leaf(path, a, b)),
    }
}

fn is_fixed(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.len() == 1 && o.get("bits").is_some_and(Value::is_i64))
}

fn shown(v: &Value) -> String {
    match v.get("bits").and_then(Value::as_i64) {
        Some(bits) if is_fixed(v) => Fx::from_bits(bits).to_string(),
        _ => {
            let s = v.to_string();
            if s.len() > 120 {
                format!("{}…", &s[..s.floor_char_boundary_compat(120)])
            } else {
                s
            }
        }
    }
}

fn leaf(path: &str, a: &Value, b: &Value) -> FieldDifference {
    FieldDifference {
        path: path.to_string(),
        server: shown(a),
        client: shown(b),
    }
}

/// `str::floor_char_boundary` for the stable compiler.
trait FloorCharBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl FloorCharBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        i = i.min(self.len());
        while !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_protocol::message::TurnBundle;
    use cohort_protocol::replay::ReplayHeader;
    use cohort_protocol::report::{ClientSide, PeerHash};
    use cohort_sim::{fx, Command, PlayerCommand, Vec2};

    fn rules() -> Arc<Ruleset> {
        Arc::new(Ruleset::default_rules())
    }

    fn config() -> MatchConfig {
        let mut c = MatchConfig::standard("v", &rules(), 2);
        c.turn_ticks = 2;
        c
    }

    /// A replay of `turns` turns recorded by running them honestly.
    fn recorded(turns: u64) -> Vec<TurnRecord> {
        let config = config();
        let mut world = config.world(rules()).unwrap();
        let unit = world.state.units[0].id;
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

    #[test]
    fn a_report_is_narrowed_to_the_entity_and_field() {
        let records = recorded(4);
        let (_, world) = resimulate(&config(), rules(), &records, |_| {}).unwrap();
        let mut client = world.clone();
        let id = client.state.units[1].id;
        client.state.units[1].position.x += Fx::from_bits(1);
        let server_view = StateView::of(&world, 3);
        let report = DesyncReport {
            header: ReplayHeader {
                config: config(),
                writer: "test".into(),
            },
            turn: 3,
            diverged: vec![1],
            peer_hashes: vec![PeerHash {
                player: 1,
                name: "b".into(),
                hash: Some(client.hash()),
            }],
            records,
            server: server_view,
            client: Some(ClientSide {
                player: 1,
                name: "b".into(),
                view: StateView::of(&client, 3),
            }),
        };
        let n = narrow_report(&report, rules(), |_| {}).unwrap();
        assert_eq!(n.records_verify, None);
        assert_eq!(n.ticks, (7, 8));
        assert_eq!((n.client_turn, n.client_tick), (Some(3), Some(8)));
        let told = narration(&n).join("\n");
        assert!(
            told.contains("client state after turn 3, at tick 8"),
            "{told}"
        );
        assert_eq!(n.parts, vec!["units".to_string()]);
        assert_eq!(n.entities, vec![Entry::Unit(id)]);
        let f = n.field.unwrap();
        assert_eq!(f.path, format!("units[id {}].position.x", id.0));
        assert_ne!(f.server, f.client);
    }
}
