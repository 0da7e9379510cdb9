//! `cohort replay`'s exit codes: 0 when every recorded hash verifies, 1 naming the first
//! differing turn (and, for a desync report, the entity and field), 2 for an unreadable file.
//!
//! Over 600 lines on purpose: one test binary for every `cohort replay` mode (verify, desync
//! reports, `--json`, `--scenario`, `--render`/`--animate`) sharing the recorded matches built
//! here, so the crate links one binary for them, not five.

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
    let unit = world.state().units[0].id;
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
    client.state_mut().units[2].position.y += Fx::from_bits(3);
    let id = client.state().units[2].id;
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
    client.state_mut().units[2].position.y += Fx::from_bits(3);
    client.step(&[]);
    client_ticks.push(client.tick_hash());
    let id = client.state().units[2].id;
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

/// `turns` turns of player 0 giving one of every kind of order the scenario carries, a
/// membership event at turn `event_at` if any; recorded honestly.
fn orders_recorded(turns: u64, event_at: Option<u64>) -> Vec<TurnRecord> {
    use cohort_protocol::message::{Membership, MembershipEvent};
    use cohort_sim::{fx_ratio, FormationKind};
    let rules = Arc::new(Ruleset::default_rules());
    let mut world = config().world(rules).unwrap();
    let mine: Vec<_> = world
        .state()
        .units
        .iter()
        .filter(|u| u.owner == 0)
        .map(|u| u.id)
        .collect();
    let theirs = world
        .state()
        .units
        .iter()
        .find(|u| u.owner == 1)
        .unwrap()
        .id;
    let group = mine[..3.min(mine.len())].to_vec();
    let at = |x: i32, y: (i64, i64)| Vec2::new(fx(x) + fx_ratio(1, 3), fx_ratio(y.0, y.1));
    (0..turns)
        .map(|turn| {
            let command = match turn {
                2 => Some(Command::Move {
                    units: vec![mine[0]],
                    to: at(40, (61, 2)),
                }),
                6 => Some(Command::SetFormation {
                    units: group.clone(),
                    formation: FormationKind::Box,
                }),
                7 => Some(Command::FormationMove {
                    units: group.clone(),
                    to: at(36, (57, 2)),
                }),
                9 => Some(Command::Stop {
                    units: vec![group[1]],
                }),
                10 => Some(Command::Disband {
                    units: group.clone(),
                }),
                11 => Some(Command::AttackMove {
                    units: group.clone(),
                    to: at(30, (50, 3)),
                }),
                12 => Some(Command::Follow {
                    units: vec![mine[0]],
                    target: theirs,
                }),
                13 => Some(Command::Hold {
                    units: vec![group[2]],
                }),
                _ => None,
            };
            let events = if Some(turn) == event_at {
                vec![MembershipEvent {
                    player: 1,
                    change: Membership::Dropped,
                }]
            } else {
                vec![]
            };
            let bundle = TurnBundle {
                turn,
                input_delay: None,
                events,
                commands: command
                    .into_iter()
                    .map(|command| PlayerCommand { player: 0, command })
                    .collect(),
                previous_hash: None,
            };
            cohort_protocol::setup::run_bundle(&mut world, &bundle, 2);
            TurnRecord {
                bundle,
                hash: world.hash(),
            }
        })
        .collect()
}

/// `cohort sim SCENARIO --json`'s hash after every turn.
fn sim_hashes(scenario: &Path) -> Vec<String> {
    let out = Process::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["sim", "--json"])
        .arg(scenario)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let hashes: Vec<String> = v["turn_hashes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap().to_string())
        .collect();
    let ticks = v["ticks"].as_u64().unwrap();
    assert_eq!(
        ticks,
        2 * hashes.len() as u64,
        "the ticks run, not the tick reached"
    );
    hashes
}

#[test]
fn the_scenario_written_at_a_turn_reproduces_the_replays_hashes_after_it() {
    let d = dir();
    let records = orders_recorded(16, None);
    let path = d.join("orders.cohort-replay");
    write_replay(&path, &records);
    let out = d.join("bug.toml");
    let (code, text, err) = replay_with(&path, &["--at", "5", "--scenario", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("turn 5, then turns 6 to 15"), "{text}");
    let scenario = std::fs::read_to_string(&out).unwrap();
    for action in [
        "set_formation",
        "formation_move",
        "stop",
        "disband",
        "attack_move",
        "follow",
        "hold",
    ] {
        assert!(
            scenario.contains(&format!("do = \"{action}\"")),
            "{scenario}"
        );
    }
    assert!(d.join("bug.state").exists());
    // Run by `cohort sim` on its own: the replay's hash after every later turn.
    let want: Vec<String> = records[6..].iter().map(|r| r.hash.to_string()).collect();
    assert_eq!(sim_hashes(&out), want);
    // From the last turn: a scenario of no turns.
    let last = d.join("last.toml");
    let (code, text, err) =
        replay_with(&path, &["--at", "15", "--scenario", last.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(sim_hashes(&last).is_empty());
    // A turn past the records: a clear error.
    let (code, _, err) = replay_with(&path, &["--at", "16", "--scenario", last.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("turn 16 is not among the file's records (turns 0 to 15)"),
        "{err}"
    );
}

#[test]
fn a_scenario_carries_membership_events_and_ends_at_until() {
    let d = dir();
    let records = orders_recorded(16, Some(12));
    let path = d.join("events.cohort-replay");
    write_replay(&path, &records);
    let out = d.join("events.toml");
    let (code, text, err) = replay_with(&path, &["--at", "4", "--scenario", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("1 status changes"), "{text}");
    let scenario = std::fs::read_to_string(&out).unwrap();
    assert!(
        scenario.contains("[[statuses]]\ntick = 24\nplayer = 1\nstatus = \"dropped\""),
        "{scenario}"
    );
    let want: Vec<String> = records[5..].iter().map(|r| r.hash.to_string()).collect();
    assert_eq!(
        sim_hashes(&out),
        want,
        "through the player's drop and after it"
    );
    // Without the drop the hashes after it are not the replay's: the drop is carried, not idle.
    let dropless = d.join("dropless.toml");
    let cut = scenario.replace("status = \"dropped\"", "status = \"playing\"");
    std::fs::write(&dropless, cut).unwrap();
    assert_ne!(sim_hashes(&dropless), want);
    // --until: turns 5 to 9 only.
    let short = d.join("short.toml");
    let (code, text, err) = replay_with(
        &path,
        &[
            "--at",
            "4",
            "--until",
            "9",
            "--scenario",
            short.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("turns 5 to 9"), "{text}");
    assert_eq!(sim_hashes(&short), want[..5].to_vec());
    let (code, _, err) = replay_with(
        &path,
        &[
            "--at",
            "4",
            "--until",
            "3",
            "--scenario",
            short.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("--until 3 is before --at 4"), "{err}");
}

/// `cohort sim FILE`'s exit status and stderr.
fn sim_error(scenario: &Path) -> (i32, String) {
    let out = Process::new(env!("CARGO_BIN_EXE_cohort"))
        .args(["sim", "--json"])
        .arg(scenario)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_scenario_state_that_cannot_be_had_is_a_clear_error() {
    let d = dir();
    let records = orders_recorded(8, None);
    let path = d.join("state.cohort-replay");
    write_replay(&path, &records);
    let out = d.join("good.toml");
    let (code, text, err) = replay_with(&path, &["--at", "3", "--scenario", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    let good = std::fs::read_to_string(&out).unwrap();
    let cases = [
        (
            "with_map.toml",
            format!("{good}\n[map]\nascii = \"..\\n..\"\n"),
            "leave out `map`",
        ),
        (
            "garbage.toml",
            good.replace("good.state", "garbage.state"),
            "is not a snapshot",
        ),
        (
            "missing.toml",
            good.replace("good.state", "missing.state"),
            "missing.state",
        ),
        (
            "no_player.toml",
            format!("{good}\n[[statuses]]\ntick = 40\nplayer = 5\nstatus = \"left\"\n"),
            "statuses[0].player: there is no player 5",
        ),
        (
            "other_rules.toml",
            format!("rules = \"other.ruleset.toml\"\n{good}"),
            "another ruleset",
        ),
    ];
    std::fs::write(d.join("garbage.state"), b"not a snapshot at all").unwrap();
    // Another ruleset: one figure changed.
    let other =
        cohort_sim::ruleset::DEFAULT_RULESET_TOML.replacen("hit_points = 25", "hit_points = 26", 1);
    std::fs::write(d.join("other.ruleset.toml"), other).unwrap();
    for (name, text, want) in cases {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        let (code, err) = sim_error(&p);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

/// A PNG's width and height, decoded whole.
fn png_size(path: &Path) -> (u32, u32) {
    let p = tiny_skia::Pixmap::decode_png(&std::fs::read(path).unwrap()).expect("a valid PNG");
    (p.width(), p.height())
}

/// The default map of `config()` (120 × 120 tiles) at 17 px a tile: 2,040 px a side.
const PICTURE_SIDE: u32 = 2040;

#[test]
fn render_draws_the_state_after_a_turn_of_a_replay() {
    let d = dir();
    let records = orders_recorded(16, None);
    let path = d.join("render.cohort-replay");
    write_replay(&path, &records);
    let (early, late) = (d.join("turn1.png"), d.join("turn15.png"));
    let (code, text, err) =
        replay_with(&path, &["--render", "1", "--out", early.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("the state after turn 1 (2040x2040 px)"),
        "{text}"
    );
    assert_eq!(png_size(&early), (PICTURE_SIDE, PICTURE_SIDE));
    let (code, text, err) = replay_with(
        &path,
        &["--render", "15", "--out", late.to_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{text}{err}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (v["verdict"].as_str(), v["tick"].as_u64()),
        (Some("drawn"), Some(32))
    );
    assert_ne!(
        std::fs::read(&early).unwrap(),
        std::fs::read(&late).unwrap(),
        "the units moved between turns 1 and 15"
    );
    // SVG by the extension.
    let svg = d.join("turn15.svg");
    let (code, text, err) = replay_with(&path, &["--render", "15", "--out", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg "), "{}", &svg[..80]);
    assert!(svg.contains(r#"width="2040" height="2040""#));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<circle").count() - svg.matches("fill=\"#1b4a17\"").count(),
        8
    );
    // Refusals: a turn the file lacks, another extension, --out alone.
    for (args, want) in [
        (
            vec!["--render", "16", "--out", "x.png"],
            "turn 16 is not among the file's records (turns 0 to 15)",
        ),
        (
            vec!["--render", "3", "--out", "x.bmp"],
            "--out must end in .svg or .png",
        ),
        (
            vec!["--out", "x.png"],
            "--out goes with --render or --animate",
        ),
    ] {
        let (code, _, err) = replay_with(&path, &args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn render_of_a_report_draws_both_states_with_the_differing_entity_ringed() {
    let d = dir();
    let (report, id) = mid_turn_report();
    let path = d.join("ringed.cohort-report");
    std::fs::write(&path, encode_report(&report).unwrap()).unwrap();
    let svg = d.join("both.svg");
    let (code, text, err) = replay_with(&path, &["--render", "9", "--out", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("the server's state (left) and player [1]'s (right) at tick 20 of turn 9, 1 differing entities ringed"),
        "{text}"
    );
    let svg = std::fs::read_to_string(&svg).unwrap();
    // Half the width each (1,024 px: 8 px a tile) and the gap: 960 + 8 + 960.
    assert!(
        svg.contains(r#"width="1928" height="960""#),
        "{}",
        &svg[..120]
    );
    let rings: Vec<&str> = svg
        .lines()
        .filter(|l| l.contains(r##"stroke="#ff00ff""##))
        .collect();
    assert_eq!(rings.len(), 2, "unit {id} ringed on each side: {rings:?}");
    let x = |l: &str| -> f32 {
        let at = l.find("cx=\"").unwrap() + 4;
        l[at..].split('"').next().unwrap().parse().unwrap()
    };
    assert!(
        x(rings[0]) < 960.0 && x(rings[1]) > 968.0,
        "one each side: {rings:?}"
    );
    let png = d.join("both.png");
    let (code, text, err) = replay_with(&path, &["--render", "9", "--out", png.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    let pixmap = tiny_skia::Pixmap::decode_png(&std::fs::read(&png).unwrap()).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), (1928, 960));
    let magenta = pixmap
        .pixels()
        .iter()
        .filter(|p| (p.red(), p.green(), p.blue()) == (255, 0, 255))
        .count();
    assert!(
        magenta > 20,
        "the rings are drawn: {magenta} magenta pixels"
    );
    // An earlier turn of a report: the re-simulated state, alone; a later one is refused.
    let one = d.join("turn4.png");
    let (code, text, err) = replay_with(&path, &["--render", "4", "--out", one.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    assert_eq!(png_size(&one), (PICTURE_SIDE, PICTURE_SIDE));
    let (code, _, err) = replay_with(&path, &["--render", "10", "--out", one.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("turn 10 is after the report's failing turn 9"),
        "{err}"
    );
    // A report without the client's side: the server's state alone.
    let (mut report, _) = mid_turn_report();
    report.client = None;
    let alone = d.join("alone.cohort-report");
    std::fs::write(&alone, encode_report(&report).unwrap()).unwrap();
    let (code, text, err) = replay_with(&alone, &["--render", "9", "--out", one.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("the client sent none to compare"), "{text}");
    assert_eq!(png_size(&one), (PICTURE_SIDE, PICTURE_SIDE));
}

#[test]
fn animate_makes_a_gif_of_the_turns() {
    let d = dir();
    let records = orders_recorded(16, None);
    let path = d.join("clip.cohort-replay");
    write_replay(&path, &records);
    let gif_path = d.join("clip.gif");
    let (code, text, err) = replay_with(
        &path,
        &[
            "--animate",
            "2..11",
            "--every",
            "3",
            "--out",
            gif_path.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains(
            "4 frames, the state after turns 2 to 11 every 3 (720x720 px, 90 ms a frame)"
        ),
        "{text}"
    );
    // Decoded whole: 4 frames (turns 2, 5, 8, 11) of 720 × 720, each 9 hundredths of a second.
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(&gif_path).unwrap())
        .expect("a valid GIF");
    assert_eq!((decoder.width(), decoder.height()), (720, 720));
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!((frame.width, frame.height, frame.delay), (720, 720, 9));
        frames.push(frame.buffer.to_vec());
    }
    assert_eq!(frames.len(), 4);
    assert_ne!(
        frames[0], frames[3],
        "the units moved between turns 2 and 11"
    );
    for (args, want) in [
        (vec!["--animate", "5..3", "--out", "x.gif"], "5 is after 3"),
        (
            vec!["--animate", "0..16", "--out", "x.gif"],
            "turn 16 is not among the file's records",
        ),
        (
            vec!["--animate", "0..3", "--out", "x.png"],
            "--out must end in .gif",
        ),
        (
            vec!["--animate", "0..3", "--every", "0", "--out", "x.gif"],
            "--every",
        ),
    ] {
        let (code, _, err) = replay_with(&path, &args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn a_scenario_of_a_match_under_another_ruleset_carries_a_copy_of_it() {
    let d = dir();
    let text =
        cohort_sim::ruleset::DEFAULT_RULESET_TOML.replacen("hit_points = 25", "hit_points = 26", 1);
    let rules_path = d.join("house.toml");
    std::fs::write(&rules_path, &text).unwrap();
    let rules =
        Arc::new(cohort_sim::scenario::ruleset_from_bytes(text.as_bytes(), "house.toml").unwrap());
    let mut config = MatchConfig::standard("house", &rules, 2);
    config.turn_ticks = 2;
    let mut world = config.world(rules).unwrap();
    let unit = world.state().units[0].id;
    let mut w = ReplayWriter::start(
        Vec::new(),
        &ReplayHeader {
            config: config.clone(),
            writer: "test".into(),
        },
    )
    .unwrap();
    let mut hashes = Vec::new();
    for turn in 0..8 {
        let commands = if turn == 4 {
            vec![PlayerCommand {
                player: 0,
                command: Command::Move {
                    units: vec![unit],
                    to: Vec2::new(fx(30), fx(30)),
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
        hashes.push(world.hash().to_string());
        w.append(&TurnRecord {
            bundle,
            hash: world.hash(),
        })
        .unwrap();
    }
    let path = d.join("house.cohort-replay");
    std::fs::write(&path, w.into_inner()).unwrap();
    let out = d.join("house-bug.toml");
    let (code, text, err) = replay_with(
        &path,
        &[
            "--ruleset",
            rules_path.to_str().unwrap(),
            "--at",
            "2",
            "--scenario",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{text}{err}");
    let scenario = std::fs::read_to_string(&out).unwrap();
    assert!(
        scenario.contains("rules = \"house-bug.ruleset.toml\""),
        "{scenario}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("house-bug.ruleset.toml")).unwrap(),
        std::fs::read_to_string(&rules_path).unwrap()
    );
    // `cohort sim` with nothing but the three files: the match's hashes.
    assert_eq!(sim_hashes(&out), hashes[3..].to_vec());
}
