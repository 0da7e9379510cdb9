//! `cohort replay`'s exit codes: 0 when every recorded hash verifies, 1 naming the first
//! differing turn (and, for a desync report, the entity and field), 2 for an unreadable file.

use cohort_protocol::message::TurnBundle;
use cohort_protocol::replay::{ReplayHeader, ReplayWriter, TurnRecord};
use cohort_protocol::report::{encode_report, ClientSide, DesyncReport, PeerHash, StateView};
use cohort_protocol::setup::run_bundle;
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
    let out = Process::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["replay", "--quiet"])
        .arg(path)
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
    let server = StateView::of(&world, 9);
    let report = DesyncReport {
        header: header(),
        turn: 9,
        diverged: vec![1],
        peer_hashes: vec![PeerHash {
            player: 1,
            name: "b".into(),
            hash: Some(client.hash()),
        }],
        records,
        server,
        // A report without tick hashes (a client that kept none): the turn's ticks, and the
        // states after it.
        server_tick_hashes: vec![],
        client: Some(ClientSide {
            player: 1,
            name: "b".into(),
            view: StateView::of(&client, 9),
            tick_hashes: vec![],
            start: None,
            at_tick: None,
            notes: vec![],
        }),
    };
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
