//! The bodies of Cohort's fuzz targets, one function per target, and the seed inputs each
//! starts from. Every input a peer or a user can hand Cohort goes through one of them: the
//! frames a peer sends ([`frame_decoder`]), the snapshot a diverging client sends
//! ([`snapshot`]), replay and desync-report files ([`replay_reader`], [`report_reader`]), match
//! snapshot files a restarted server reads back or an operator uploads ([`match_snapshot`]),
//! scenario, map and ruleset files ([`scenario`], [`map`], [`ruleset`]).
//!
//! A target never panics on any input; where Cohort promises more, it asserts it: a decoded
//! message encodes back to itself, a replay's tail is told consistently, every refusal of a
//! scenario, map or ruleset names its file and a line.
//!
//! Run by cargo-fuzz (`fuzz/fuzz_targets/*.rs`, nightly, `fuzz/run.sh`), and, bounded and seeded,
//! by `cargo test` on stable (`tests/tests/fuzz_inputs.rs` includes this file). It uses nothing
//! but cohort-sim and cohort-protocol.

use cohort_protocol::codec::{
    decode_message, decode_snapshot, encode_frame, encode_message, encode_snapshot,
    peek_hello_version, FrameReader,
};
use cohort_protocol::message::{
    every_client_message, every_server_message, Commands, JoinAccepted, Membership,
    MembershipEvent, Role, TurnBundle,
};
use cohort_protocol::replay::{read_replay, ReplayHeader, ReplayWriter, Tail, TurnRecord};
use cohort_protocol::report::{encode_report, read_report, ClientSide, DesyncReport, StateView};
use cohort_protocol::resume::{
    decode_match_snapshot, encode_match_snapshot, MatchSnapshot, ResumeSettings,
};
use cohort_protocol::setup::run_bundle;
use cohort_protocol::{ClientMessage, ErrorCode, MatchConfig, ServerMessage};
use cohort_sim::map::{parse_ascii, parse_scenarios, Layout, Legend, MovingAiMap};
use cohort_sim::ruleset::DEFAULT_RULESET_TOML;
use cohort_sim::scenario::{ruleset_from_bytes, Runner, Scenario, ScenarioError};
use cohort_sim::{fx, Command, EntityId, FormationKind, PlayerCommand, Ruleset, StateHash, Vec2};
use cohort_sim::{Tile, World};
use std::sync::{Arc, OnceLock};

/// The embedded default ruleset, compiled once.
fn rules() -> Arc<Ruleset> {
    static RULES: OnceLock<Arc<Ruleset>> = OnceLock::new();
    RULES
        .get_or_init(|| Arc::new(Ruleset::default_rules()))
        .clone()
}

/// A target: its name (as `cargo fuzz run NAME` and the seed folders call it) and its body.
pub type Target = (&'static str, fn(&[u8]));

/// The targets.
pub const TARGETS: [Target; 8] = [
    ("frame_decoder", frame_decoder),
    ("snapshot", snapshot),
    ("replay_reader", replay_reader),
    ("report_reader", report_reader),
    ("match_snapshot", match_snapshot),
    ("scenario", scenario),
    ("map", map),
    ("ruleset", ruleset),
];

/// Bytes from a peer, in pieces (the first byte of the input sets their size), read as frames
/// and each decoded as a client's and as a server's message; the whole input as one payload
/// too. A message that decodes encodes back to a frame that decodes to the same message.
pub fn frame_decoder(data: &[u8]) {
    let Some((&split, bytes)) = data.split_first() else {
        return;
    };
    let piece = usize::from(split % 64) + 1;
    let mut reader = FrameReader::new();
    'pieces: for chunk in bytes.chunks(piece) {
        reader.push(chunk);
        loop {
            match reader.next_frame() {
                Ok(Some(payload)) => round_trips(&payload),
                Ok(None) => break,
                // Over the frame limit: the connection closes.
                Err(_) => break 'pieces,
            }
        }
    }
    round_trips(bytes);
    let _ = peek_hello_version(bytes);
}

/// Decodes `payload` as a client's and as a server's message; what decodes survives
/// encoding.
fn round_trips(payload: &[u8]) {
    if let Ok(m) = decode_message::<ClientMessage>(payload) {
        let again = encode_message(&m).expect("a decoded message encodes");
        let back: ClientMessage = decode_message(&again).expect("an encoded message decodes");
        assert_eq!(back, m, "a client message survives encoding");
    }
    if let Ok(m) = decode_message::<ServerMessage>(payload) {
        let again = encode_message(&m).expect("a decoded message encodes");
        let back: ServerMessage = decode_message(&again).expect("an encoded message decodes");
        assert_eq!(back, m, "a server message survives encoding");
    }
}

/// A snapshot as a diverging client sends it: decoded, loaded (every inconsistency refused),
/// hashed and viewed as the server's report does, then run for a tick as a rejoining client
/// does.
pub fn snapshot(data: &[u8]) {
    let Ok(snap) = decode_snapshot(data) else {
        return;
    };
    let Ok(mut world) = World::from_snapshot(rules(), snap) else {
        return;
    };
    let view = StateView::of(&world, 0);
    assert_eq!(view.hash, world.hash());
    // A tick on a huge world would only be slow, not wrong: the fuzzer keeps to small ones.
    if world.state().units.len() <= 64 && world.grid().width() * world.grid().height() <= 4096 {
        run_bundle(&mut world, &empty_bundle(0), 1);
    }
}

/// A match snapshot file (docs/FILES.md, "Match snapshot"): read; one that reads has a
/// configuration that is played or refused, and its state is loaded or refused, as a
/// restarted server does before it trusts the state against its replay's hash.
pub fn match_snapshot(data: &[u8]) {
    let Ok(m) = decode_match_snapshot(data) else {
        return;
    };
    let _ = m.settings.config.check();
    if let Some(snap) = m.world {
        if let Ok(world) = World::from_snapshot(rules(), snap) {
            let _ = world.hash();
        }
    }
}

fn empty_bundle(turn: u64) -> TurnBundle {
    TurnBundle {
        turn,
        input_delay: None,
        events: vec![],
        commands: vec![],
        previous_hash: None,
    }
}

/// A replay file: read; its records are numbered from 0, and what follows them is told
/// consistently (nothing, a cut, or damage at the first byte not taken).
pub fn replay_reader(data: &[u8]) {
    let Ok(replay) = read_replay(data) else {
        return;
    };
    for (i, r) in replay.records.iter().enumerate() {
        assert_eq!(usize::try_from(r.bundle.turn).ok(), Some(i));
    }
    let end = data.len() - replay.ignored_bytes;
    match &replay.tail {
        Tail::Whole => assert_eq!(replay.ignored_bytes, 0),
        Tail::CutShort { offset, bytes } => {
            assert_eq!((*offset, *bytes), (end, replay.ignored_bytes))
        }
        Tail::Damaged { turn, offset, .. } => {
            assert_eq!(*offset, end);
            assert_eq!(usize::try_from(*turn).ok(), Some(replay.records.len()));
        }
    }
    let _ = replay.tail.to_string();
}

/// A desync report file: read; a report that reads compares its two states as `cohort
/// replay` does.
pub fn report_reader(data: &[u8]) {
    let Ok(report) = read_report(data) else {
        return;
    };
    if let Some(client) = &report.client {
        let _ = report.server.differences(&client.view);
    }
}

/// The files a fuzzed scenario may name: a small ASCII map, a small Moving AI map, the default
/// ruleset.
fn named_file(name: &str, most: usize) -> Result<Vec<u8>, String> {
    let bytes = match name {
        "m.txt" => ASCII_MAP.as_bytes(),
        "m.map" => MOVINGAI_MAP.as_bytes(),
        "r.toml" => DEFAULT_RULESET_TOML.as_bytes(),
        _ => return Err(format!("no file `{name}` here")),
    };
    Ok(bytes[..bytes.len().min(most)].to_vec())
}

const ASCII_MAP: &str = "........\n..TT....\n..TT..~~\n......~~\n........\n";
const MOVINGAI_MAP: &str = "type octile\nheight 4\nwidth 6\nmap\n......\n.@@...\n.@@.W.\n......\n";

/// A scenario file (naming `m.txt`, `m.map` or `r.toml` if it likes): loaded, or refused naming
/// its file and a line; a small one that loads runs a few ticks.
pub fn scenario(data: &[u8]) {
    match Scenario::from_bytes(data, "fuzz.toml", &named_file, None) {
        Ok(s) => {
            let small = s.world.state().units.len() <= 64
                && s.world.grid().width() * s.world.grid().height() <= 4096;
            if small {
                let mut runner = Runner::new(s);
                runner.run(4, |_| {});
            }
        }
        Err(e) => names_its_place(&e),
    }
}

fn names_its_place(e: &ScenarioError) {
    assert!(!e.file.is_empty(), "a refusal names its file: {e:?}");
    assert!(e.line >= 1, "a refusal names its line: {e}");
}

/// A map file, as ASCII and as Moving AI (its map and its scenario list): laid out as a world,
/// or refused with a line.
pub fn map(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let rules = rules();
    match parse_ascii(text, &rules, &Legend::default()) {
        Ok(layout) => lay_out(layout, &rules),
        Err(e) => assert!(e.line >= 1, "{e:?}"),
    }
    match Layout::from_movingai(text, &rules) {
        Ok(layout) => lay_out(layout, &rules),
        Err(e) => assert!(e.line >= 1, "{e:?}"),
    }
    let _ = MovingAiMap::parse(text);
    let _ = parse_scenarios(text);
}

fn lay_out(layout: Layout, rules: &Arc<Ruleset>) {
    // Laying out a huge map is slow, not wrong: the fuzzer keeps to small ones.
    if layout.width * layout.height <= 4096 {
        let players = vec![cohort_sim::world::Player::new(0, 0)];
        let _ = layout.into_world(rules.clone(), players, 0);
    }
}

/// A ruleset file: compiled, or refused naming its file and a line.
pub fn ruleset(data: &[u8]) {
    if let Err(e) = ruleset_from_bytes(data, "fuzz-rules.toml") {
        names_its_place(&e);
    }
}

/// The seed inputs of target `name`: valid files and messages of every kind, for the fuzzer to
/// mutate. Sample files are read from the repository's `scenarios/` and the embedded ruleset.
pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    match name {
        "frame_decoder" => message_seeds(),
        "snapshot" => vec![encode_snapshot(&small_world().snapshot()).expect("encodes")],
        "replay_reader" => vec![small_replay()],
        "report_reader" => vec![small_report()],
        "match_snapshot" => vec![small_match_snapshot()],
        "scenario" => {
            let mut s = sample_scenarios();
            s.push(SMALL_SCENARIO.as_bytes().to_vec());
            s.push(
                b"rules = \"r.toml\"\n[map]\nfile = \"m.map\"\n[[units]]\nkind = \"knight\"\nowner = 0\nat = [0, 0]\n"
                    .to_vec(),
            );
            s
        }
        "map" => vec![
            ASCII_MAP.as_bytes().to_vec(),
            MOVINGAI_MAP.as_bytes().to_vec(),
            b"version 1\n0\tm.map\t6\t4\t0\t0\t5\t3\t5.82842712\n".to_vec(),
            std::fs::read(repo().join("scenarios/maps/pond.txt")).unwrap_or_default(),
        ],
        "ruleset" => vec![DEFAULT_RULESET_TOML.as_bytes().to_vec()],
        _ => Vec::new(),
    }
}

/// The repository's root (this file is one folder below it, in `fuzz/` or `tests/`).
fn repo() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The sample scenarios that load fast (no generated map): `scenarios/*.toml` and
/// `scenarios/verify/*.toml`.
fn sample_scenarios() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for dir in ["scenarios", "scenarios/verify"] {
        let Ok(entries) = std::fs::read_dir(repo().join(dir)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|x| x == "toml") {
                if let Ok(bytes) = std::fs::read(&p) {
                    if !bytes.windows(8).any(|w| w == b"generate") {
                        out.push(bytes);
                    }
                }
            }
        }
    }
    out
}

const SMALL_SCENARIO: &str = r#"name = "small"
seed = 7
turn_ticks = 2
ticks = 40
[map]
ascii = """
..........
..TT......
..TT...G..
..........
.....~~...
"""
legend = { "G" = "grass+gold_mine" }
[[players]]
team = 0
[[players]]
team = 1
[[resources]]
kind = "tree"
at = [0, 0]
to = [1, 0]
name = "grove"
[[buildings]]
kind = "house"
owner = 0
at = [8, 1]
[[units]]
kind = "villager"
owner = 0
at = [1, 3]
count = 3
columns = 3
spacing = 0.8
name = "workers"
[[units]]
kind = "knight"
owner = 1
at = ["9", 4.25]
hit_points = 40
[[commands]]
tick = 0
player = 0
do = "gather"
units = ["workers"]
target = [7, 2]
[[commands]]
tick = 3
player = 1
do = "attack_move"
units = ["knight@1"]
to = [1.5, 3]
[[commands]]
tick = 5
player = 0
do = "set_formation"
units = ["*@0"]
formation = "box"
"#;

/// A small world with units of two players, buildings and resources.
fn small_world() -> World {
    let files = named_file;
    Scenario::from_toml(SMALL_SCENARIO, "small.toml", &files, None)
        .expect("the small scenario loads")
        .world
}

fn small_config() -> MatchConfig {
    let mut c = MatchConfig::standard("fuzz", &rules(), 2);
    c.turn_ticks = 2;
    c
}

/// One message of every kind, each side's, as frames (and a few frames run together).
fn message_seeds() -> Vec<Vec<u8>> {
    let units = vec![EntityId(3), EntityId(300)];
    let commands = vec![
        Command::Move {
            units: units.clone(),
            to: Vec2::new(fx(40), fx(-2)),
        },
        Command::Attack {
            units: units.clone(),
            target: EntityId(9),
        },
        Command::FormationMove {
            units: units.clone(),
            to: Vec2::new(fx(5), fx(5)),
        },
        Command::PlaceBuilding {
            kind: "house".into(),
            at: Tile::new(4, 4),
            turned: true,
            builders: units.clone(),
        },
        Command::SetFormation {
            units: units.clone(),
            formation: FormationKind::Staggered,
        },
        Command::Stop { units },
    ];
    let hash = StateHash([0xab; 32]);
    let mut client = every_client_message();
    client.push(ClientMessage::Commands(Commands {
        turn: 2,
        commands: commands.clone(),
    }));
    let mut server = every_server_message(&rules());
    server.push(ServerMessage::TurnBundle(TurnBundle {
        turn: 5,
        input_delay: Some(3),
        events: vec![MembershipEvent {
            player: 1,
            change: Membership::Joined,
        }],
        commands: commands
            .into_iter()
            .map(|command| PlayerCommand { player: 0, command })
            .collect(),
        previous_hash: Some(hash),
    }));
    server.push(ServerMessage::JoinAccepted(JoinAccepted {
        config: small_config(),
        role: Role::Player(1),
        next_turn: 4,
        input_delay: 2,
        snapshot_follows: true,
        spectator_delay_secs: 0,
    }));
    server.push(ServerMessage::error(ErrorCode::Replaced, "taken over"));
    // The first byte of a frame seed is the piece size of the reads.
    let framed = |frames: Vec<Vec<u8>>| {
        let mut out = vec![7u8];
        out.extend(frames.into_iter().flatten());
        out
    };
    let mut seeds: Vec<Vec<u8>> = client
        .iter()
        .map(|m| framed(vec![encode_frame(m).expect("encodes")]))
        .chain(
            server
                .iter()
                .map(|m| framed(vec![encode_frame(m).expect("encodes")])),
        )
        .collect();
    seeds.push(framed(
        client
            .iter()
            .map(|m| encode_frame(m).expect("encodes"))
            .collect(),
    ));
    seeds
}

/// A match snapshot of a small world after its first turn.
fn small_match_snapshot() -> Vec<u8> {
    let world = small_world();
    let snapshot = MatchSnapshot {
        settings: ResumeSettings {
            config: MatchConfig::standard("f", &rules(), 2),
            adaptive_delay: true,
            max_turns: Some(100),
            stop_on_desync: false,
            require_hashes: false,
            created_at: 1_700_000_000,
        },
        replay: "f-1700000000.cohort-replay".into(),
        turns_run: 1,
        world: Some(world.snapshot()),
    };
    encode_match_snapshot(&snapshot).expect("encodes")
}

/// A replay of a few turns with orders.
fn small_replay() -> Vec<u8> {
    let config = small_config();
    let mut world = config.world(rules()).expect("the match's world");
    let unit = world.state().units[0].id;
    let mut w = ReplayWriter::start(
        Vec::new(),
        &ReplayHeader {
            config,
            writer: "fuzz".into(),
        },
    )
    .expect("starts");
    for turn in 0..6 {
        let mut bundle = empty_bundle(turn);
        if turn == 1 {
            bundle.commands.push(PlayerCommand {
                player: 0,
                command: Command::Move {
                    units: vec![unit],
                    to: Vec2::new(fx(30), fx(30)),
                },
            });
        }
        run_bundle(&mut world, &bundle, 2);
        w.append(&TurnRecord {
            bundle,
            hash: world.hash(),
        })
        .expect("appends");
    }
    w.into_inner()
}

/// A report of a small world whose client nudged a unit.
fn small_report() -> Vec<u8> {
    let world = small_world();
    let mut other = world.clone();
    other.state_mut().units[0].hit_points -= 1;
    let report = DesyncReport {
        header: ReplayHeader {
            config: small_config(),
            writer: "fuzz".into(),
        },
        turn: 0,
        diverged: vec![1],
        peer_hashes: vec![],
        records: vec![TurnRecord {
            bundle: empty_bundle(0),
            hash: world.hash(),
        }],
        server: StateView::of(&world, 0),
        server_tick_hashes: vec![world.tick_hash()],
        client: Some(ClientSide {
            player: 1,
            name: "b".into(),
            view: StateView::of(&other, 0),
            tick_hashes: vec![other.tick_hash()],
            start: Some(world.snapshot()),
            at_tick: Some(other.snapshot()),
            notes: vec![],
        }),
    };
    encode_report(&report).expect("encodes")
}
