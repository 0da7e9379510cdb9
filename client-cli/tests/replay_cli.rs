//! `cohort replay`'s exit codes: 0 when every recorded hash verifies, 1 naming the first
//! differing turn (and, for a desync report, the entity and field), 2 for an unreadable file.

use cohort_protocol::message::TurnBundle;
use cohort_protocol::replay::{ReplayHeader, ReplayWriter, TurnRecord};
use cohort_protocol::report::{encode_report, ClientSide, DesyncReport, PeerHash, StateView};
use cohort_protocol::setup::{run_bundle, run_bundle_hashed};
use cohort_protocol::MatchConfig;
use cohort_sim::{fx, Command, Fx, PlayerCommand, Ruleset, StateHash, Vec2, World};
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::Arc;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("cohort-replay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn config() -> MatchConfig {
    let mut c = MatchConfig::standard("cli", &Ruleset::default_rules(), 2);
    c.turn_ticks = 2;
    c
}

/// `turns` honest turns (a move at turn 1) and the world after them.
fn recorded(turns: u64) -> (Vec<TurnRecord>, World) {
    let rules = Arc::new(Ruleset::default_rules());
    let mut world = config().world(rules).unwrap();
    let unit = world.state.units[0].id;
    let records = (0..turns)
        .map(|turn| {
            let commands = if turn == 1 {
                vec![PlayerCommand {
                    player: 0,
                    command: Command::Move {
                        units: vec![unit],
                        to: Vec2::new(fx(40), fx(30)),
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
            run_bundle(&mut world, &bundle, 2);
            TurnRecord {
                bundle,
                hash: world.hash(),
            }
        })
        .collect();
    (records, world)
}

fn header() -> ReplayHeader {
    ReplayHeader {
        config: config(),
        writer: "test".into(),
    }
}

fn write_replay(path: &Path, records: &[TurnRecord]) {
    let mut w = ReplayWriter::start(Vec::new(), &header()).unwrap();
    for r in records {
        w.append(r).unwrap();
    }
    std::fs::write(path, w.into_inner()).unwrap();
}

fn replay(path: &Path) -> (i32, String, String) {
    replay_with(path, &[])
}

/// `cohort replay --quiet PATH ARGS…`: its exit status, stdout and stderr.
fn replay_with(path: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Process::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["replay", "--quiet"])
        .arg(path)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_honest_replay_verifies_with_exit_0() {
    let path = dir().join("honest.cohort-replay");
    write_replay(&path, &recorded(20).0);
    let (code, out, _) = replay(&path);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("verified: all 20 turns"), "{out}");
}

#[test]
fn a_replay_cut_short_verifies_up_to_its_last_whole_record() {
    let path = dir().join("cut.cohort-replay");
    write_replay(&path, &recorded(12).0);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
    let (code, out, _) = replay(&path);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("verified: all 11 turns"), "{out}");
    assert!(out.contains("note: the last record was cut short"), "{out}");
}

#[test]
fn a_wrong_hash_exits_1_naming_the_turn() {
    let path = dir().join("tampered.cohort-replay");
    let (mut records, _) = recorded(20);
    records[7].hash = StateHash([1; 32]);
    write_replay(&path, &records);
    let (code, out, _) = replay(&path);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("differs at turn 7"), "{out}");
}

#[test]
fn a_desync_report_exits_1_naming_turn_tick_entity_and_field() {
    let path = dir().join("desync.cohort-report");
    let (records, world) = recorded(10);
    let mut client = world.clone();
    client.state.units[2].position.y += Fx::from_bits(3);
    let id = client.state.units[2].id;
    // A report without tick hashes (a client that kept none): the turn's ticks, and the states
    // after it.
    let report = report_at_9(records, &world, &client, Ticks::default());
    std::fs::write(&path, encode_report(&report).unwrap()).unwrap();
    let (code, out, _) = replay(&path);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("turn 9 first differs"), "{out}");
    assert!(
        out.contains("before tick 19 and differ after tick 20"),
        "{out}"
    );
    assert!(
        out.contains("states compared: after turn 9, tick 20"),
        "{out}"
    );
    assert!(
        out.contains(&format!("units[id {}].position.y", id.0)),
        "{out}"
    );
}

#[test]
fn an_unreadable_file_exits_2_with_a_clear_message() {
    let d = dir();
    let (code, _, err) = replay(&d.join("no-such-file"));
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
    assert_eq!(err.matches("No such file").count(), 1, "told once: {err}");
    let junk = d.join("junk.bin");
    std::fs::write(&junk, b"this is not a replay").unwrap();
    let (code, _, err) = replay(&junk);
    assert_eq!(code, 2);
    assert!(err.contains("neither a replay"), "{err}");
    let damaged = d.join("damaged.cohort-replay");
    std::fs::write(&damaged, b"COHORTRP\0\0\0\x01\0\0").unwrap();
    let (code, _, err) = replay(&damaged);
    assert_eq!(code, 2);
    assert!(err.contains("unreadable"), "{err}");
}

#[test]
fn a_replay_damaged_in_the_middle_exits_2_naming_the_record_and_its_offset() {
    let path = dir().join("damaged.cohort-replay");
    let (records, _) = recorded(12);
    write_replay(&path, &records);
    let mut bytes = std::fs::read(&path).unwrap();
    // The offset of turn 6's record: the file's start, then each record's bytes.
    let start = cohort_protocol::replay::encode_replay_start(&header())
        .unwrap()
        .len();
    let offset = start
        + records[..6]
            .iter()
            .map(|r| {
                cohort_protocol::replay::encode_turn_record(r)
                    .unwrap()
                    .len()
            })
            .sum::<usize>();
    bytes[offset + 9] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let (code, out, err) = replay(&path);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains(&format!("the record of turn 6 at byte {offset} is damaged")),
        "{err}"
    );
    assert!(err.contains("5 whole records follow it"), "{err}");
    assert!(!out.contains("verified"), "{out}");
}

/// What a report may hold of the failing turn's ticks: both sides' tick hashes, the client's
/// states at the turn's start and at its first differing tick.
#[derive(Default)]
struct Ticks {
    server: Vec<cohort_sim::hash::TickHash>,
    client: Vec<cohort_sim::hash::TickHash>,
    start: Option<cohort_sim::world::Snapshot>,
    at_tick: Option<cohort_sim::world::Snapshot>,
}

/// A report of player 1 ("b") diverging at turn 9: the server's and the client's states after it.
fn report_at_9(records: Vec<TurnRecord>, server: &World, client: &World, t: Ticks) -> DesyncReport {
    DesyncReport {
        header: header(),
        turn: 9,
        diverged: vec![1],
        peer_hashes: vec![PeerHash {
            player: 1,
            name: "b".into(),
            hash: Some(client.hash()),
        }],
        records,
        server: StateView::of(server, 9),
        server_tick_hashes: t.server,
        client: Some(ClientSide {
            player: 1,
            name: "b".into(),
            view: StateView::of(client, 9),
            tick_hashes: t.client,
            start: t.start,
            at_tick: t.at_tick,
            notes: vec![],
        }),
    }
}

/// A report of a client whose unit 2 moved 3/65536 of a tile between the two ticks of turn 9
/// (ticks 19 and 20): its tick hashes, its state at the turn's start and after tick 20.
fn mid_turn_report() -> (DesyncReport, u64) {
    let (mut records, _) = recorded(10);
    let last = records.pop().unwrap();
    let rules = Arc::new(Ruleset::default_rules());
    let mut world = config().world(rules).unwrap();
    for r in &records {
        run_bundle(&mut world, &r.bundle, 2);
    }
    let start = world.clone();
    let mut client = world.clone();
    let server_ticks = run_bundle_hashed(&mut world, &last.bundle, 2);
    let mut client_ticks = Vec::new();
    client.step(&last.bundle.commands);
    client_ticks.push(client.tick_hash());
    client.state.units[2].position.y += Fx::from_bits(3);
    client.step(&[]);
    client_ticks.push(client.tick_hash());
    let id = client.state.units[2].id;
    records.push(last);
    let ticks = Ticks {
        server: server_ticks,
        client: client_ticks,
        start: Some(start.snapshot()),
        at_tick: Some(client.snapshot()),
    };
    let report = report_at_9(records, &world, &client, ticks);
    (report, id.0)
}

#[test]
fn json_tells_a_mid_turn_desync_by_tick_part_entity_and_every_field() {
    let path = dir().join("mid-turn.cohort-report");
    let (report, id) = mid_turn_report();
    std::fs::write(&path, encode_report(&report).unwrap()).unwrap();
    let (code, out, err) = replay_with(&path, &["--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["verdict"], "desync");
    assert_eq!(v["first_turn"], 9);
    assert_eq!(v["first_tick"], 20, "{v:#}");
    assert_eq!(v["turn_ticks"]["first"], 19);
    assert_eq!(v["compared"]["stage"], "first_tick");
    assert_eq!(v["compared"]["tick"], 20);
    assert_eq!(v["server_ticks_reproduced"], true);
    assert!(v["records_differ"].is_null());
    assert_eq!(v["parts"], serde_json::json!(["units"]));
    assert_eq!(
        v["entities"],
        serde_json::json!([{ "part": "units", "id": id, "name": format!("unit {id}") }])
    );
    let fields = v["fields"].as_array().unwrap();
    let y = fields
        .iter()
        .find(|f| f["path"] == format!("units[id {id}].position.y"))
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_ne!(y["server"], y["client"]);
    // The prose says the same.
    let (code, out, _) = replay(&path);
    assert_eq!(code, 1);
    assert!(out.contains("first tick that differs: 20"), "{out}");
    assert!(
        out.contains(&format!("units[id {id}].position.y: server ")),
        "{out}"
    );
}

#[test]
fn json_tells_a_verified_replay_a_differing_one_and_an_error() {
    let d = dir();
    let path = d.join("json-honest.cohort-replay");
    let (mut records, _) = recorded(20);
    write_replay(&path, &records);
    let (code, out, _) = replay_with(&path, &["--json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "verified");
    assert_eq!(v["turns"], 20);
    assert_eq!(v["last_hash"], records[19].hash.to_string());
    assert!(v["cut_short"].is_null());
    records[7].hash = StateHash([1; 32]);
    let path = d.join("json-tampered.cohort-replay");
    write_replay(&path, &records);
    let (code, out, _) = replay_with(&path, &["--json"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "differs");
    assert_eq!(v["first_turn"], 7);
    assert_eq!(v["divergence"]["recorded"], StateHash([1; 32]).to_string());
    let (code, out, _) = replay_with(&d.join("no-such-file"), &["--json"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "error");
    assert!(v["error"].as_str().unwrap().contains("cannot read"), "{v}");
}

#[test]
fn a_truncated_report_or_replay_is_a_clear_error() {
    let d = dir();
    let (report, _) = mid_turn_report();
    let bytes = encode_report(&report).unwrap();
    for cut in [bytes.len() - 1, bytes.len() / 2, 12, 8, 3] {
        let path = d.join(format!("cut-{cut}.cohort-report"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let (code, out, err) = replay(&path);
        assert_eq!(code, 2, "cut at {cut}: {out}{err}");
        assert!(!err.contains("panicked"), "{err}");
        if cut >= 8 {
            assert!(err.contains("is unreadable"), "cut at {cut}: {err}");
            assert!(err.contains("cut short"), "cut at {cut}: {err}");
        } else {
            assert!(err.contains("neither a replay"), "cut at {cut}: {err}");
        }
    }
    // A replay cut inside its header (no record yet whole) cannot be checked at all.
    let path = d.join("cut-header.cohort-replay");
    write_replay(&path, &recorded(3).0);
    let start = cohort_protocol::replay::encode_replay_start(&header())
        .unwrap()
        .len();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..start - 4]).unwrap();
    let (code, out, err) = replay(&path);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("is unreadable"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
