//! The sim layer's exchanges, called as C calls them: a snapshot of another configuration or
//! with a contradicting turn refused with its status; a world's snapshot and tick hashes
//! exported, and bundles of one's own encoded, so a world steps without a server to the hashes
//! the server's code gives; evidence frames that decode as the protocol's; scenarios loaded
//! by path and stepped tick by tick to `cohort sim`'s hashes.

mod common;

use cohort_ffi::exchange::*;
use cohort_ffi::orders::{CohortCommand, CohortOrder};
use cohort_ffi::view::{cohort_world_info, CohortWorldInfo};
use cohort_ffi::world::*;
use cohort_ffi::{CohortHandle, CohortStatus};
use cohort_protocol::codec::{decode_evidence, decode_message, encode_message, encode_snapshot};
use cohort_protocol::message::{JoinAccepted, Role, TurnBundle};
use cohort_protocol::setup::run_bundle_hashed;
use cohort_protocol::{ClientMessage, MatchConfig, ServerMessage};
use cohort_sim::scenario::Runner;
use cohort_sim::{fx, Command, EntityId, PlayerCommand, Ruleset, Vec2};
use common::last_error;
use std::path::Path;
use std::ptr::{null, null_mut};
use std::sync::Arc;

fn rules() -> Arc<Ruleset> {
    Arc::new(Ruleset::default_rules())
}

fn world_of(config: &MatchConfig) -> CohortHandle {
    let bytes = encode_message(&ServerMessage::JoinAccepted(JoinAccepted {
        config: config.clone(),
        role: Role::Player(0),
        next_turn: 0,
        input_delay: 2,
        snapshot_follows: false,
        spectator_delay_secs: 0,
    }))
    .unwrap();
    let mut w = 0;
    let s =
        unsafe { cohort_world_from_join_accepted(bytes.as_ptr(), bytes.len(), null(), 0, &mut w) };
    assert_eq!(s, CohortStatus::Ok, "{}", last_error());
    w
}

fn config(turn_ticks: u32) -> MatchConfig {
    let mut c = MatchConfig::standard("x", &rules(), 2);
    c.turn_ticks = turn_ticks;
    c
}

fn load(w: CohortHandle, snap: &[u8], turn: u64) -> CohortStatus {
    unsafe { cohort_world_load_snapshot(w, snap.as_ptr(), snap.len(), turn) }
}

fn run(w: CohortHandle, payload: &[u8]) -> (CohortStatus, [u8; 32]) {
    let mut hash = [0u8; 32];
    let s =
        unsafe { cohort_world_run_bundle(w, payload.as_ptr(), payload.len(), hash.as_mut_ptr()) };
    (s, hash)
}

/// `cohort_encode_evidence`'s frames for `turn`, asked their size first.
fn evidence(turn: u64, hashes: &[u8], end: &[u8]) -> Vec<u8> {
    let count = hashes.len() / COHORT_TICK_HASH_BYTES;
    let encode = |buf: *mut u8, cap: usize, len: &mut usize| unsafe {
        cohort_encode_evidence(
            turn,
            hashes.as_ptr(),
            count,
            null(),
            0,
            end.as_ptr(),
            end.len(),
            buf,
            cap,
            len,
        )
    };
    let mut len = 0;
    assert_eq!(
        encode(null_mut(), 0, &mut len),
        CohortStatus::BufferTooSmall
    );
    let mut frames = vec![0u8; len];
    assert_eq!(
        encode(frames.as_mut_ptr(), len, &mut len),
        CohortStatus::Ok,
        "{}",
        last_error()
    );
    frames
}

fn empty_bundle(turn: u64) -> Vec<u8> {
    let mut len = 0;
    let s = unsafe { cohort_encode_bundle(turn, null(), null(), 0, null_mut(), 0, &mut len) };
    assert_eq!(s, CohortStatus::BufferTooSmall);
    let mut buf = vec![0u8; len];
    let s =
        unsafe { cohort_encode_bundle(turn, null(), null(), 0, buf.as_mut_ptr(), len, &mut len) };
    assert_eq!(s, CohortStatus::Ok, "{}", last_error());
    buf
}

/// The state after `turns` turns of a world made from `config`, as a snapshot's bytes.
fn snapshot_after(config: &MatchConfig, turns: u64) -> Vec<u8> {
    let mut world = config.world(rules()).unwrap();
    for turn in 0..turns {
        let b = TurnBundle {
            turn,
            input_delay: None,
            events: vec![],
            commands: vec![],
            previous_hash: None,
        };
        run_bundle_hashed(&mut world, &b, config.turn_ticks);
    }
    encode_snapshot(&world.snapshot()).unwrap()
}

#[test]
fn a_snapshot_of_another_configuration_or_turn_is_refused() {
    let w = world_of(&config(8));
    // Another turn length: 3 turns of 5 ticks are tick 15, no whole number of turns of 8.
    let other = snapshot_after(&config(5), 3);
    assert_eq!(load(w, &other, 2), CohortStatus::Refused);
    assert!(
        last_error().contains("another turn length"),
        "{}",
        last_error()
    );
    // Other players: three instead of two.
    let three = snapshot_after(&MatchConfig::standard("x", &rules(), 3), 2);
    assert_eq!(load(w, &three, 1), CohortStatus::Refused);
    assert!(last_error().contains("players"), "{}", last_error());
    // Another map size.
    let mut small = config(8);
    small.map = cohort_protocol::setup::MapSpec::Generated { seed: 1, size: 64 };
    assert_eq!(
        load(w, &snapshot_after(&small, 2), 1),
        CohortStatus::Refused
    );
    assert!(last_error().contains("map is 64 × 64"), "{}", last_error());
    // Another map of the same size: another seed.
    let mut seed = config(8);
    seed.map = cohort_protocol::setup::MapSpec::Generated {
        seed: 99,
        size: 120,
    };
    assert_eq!(load(w, &snapshot_after(&seed, 2), 1), CohortStatus::Refused);
    assert!(last_error().contains("terrain differs"), "{}", last_error());
    // The right configuration, the wrong turn: the state after turn 2 is at tick 24.
    let good = snapshot_after(&config(8), 3);
    assert_eq!(load(w, &good, 5), CohortStatus::InvalidArgument);
    assert!(
        last_error().contains("turn 5 contradicts the snapshot's tick 24"),
        "{}",
        last_error()
    );
    assert_eq!(load(w, &good, u64::MAX), CohortStatus::InvalidArgument);
    // Nothing changed: the world is still at tick 0; the right turn loads.
    let mut info = CohortWorldInfo::default();
    assert_eq!(unsafe { cohort_world_info(w, &mut info) }, CohortStatus::Ok);
    assert_eq!(info.tick, 0);
    assert_eq!(load(w, &good, 2), CohortStatus::Ok, "{}", last_error());
    assert_eq!(unsafe { cohort_world_info(w, &mut info) }, CohortStatus::Ok);
    assert_eq!((info.tick, info.next_turn), (24, 3));
    assert_eq!(cohort_world_free(w), CohortStatus::Ok);
}

#[test]
fn a_world_steps_without_a_server_and_exports_its_snapshot_and_tick_hashes() {
    let config = config(4);
    let w = world_of(&config);
    let mut reference = config.world(rules()).unwrap();
    let ids = [406u64, 407];
    let order = CohortOrder {
        x_fx: 30 << 16,
        y_fx: 31 << 16,
        ..common::order(CohortCommand::Move, &ids)
    };
    let mut kept = Vec::new();
    for turn in 0..6u64 {
        let payload = if turn == 1 {
            let players = [0u8];
            let mut buf = vec![0u8; 512];
            let mut len = 0;
            let s = unsafe {
                cohort_encode_bundle(
                    turn,
                    &order,
                    players.as_ptr(),
                    1,
                    buf.as_mut_ptr(),
                    512,
                    &mut len,
                )
            };
            assert_eq!(s, CohortStatus::Ok, "{}", last_error());
            buf.truncate(len);
            buf
        } else {
            empty_bundle(turn)
        };
        let ServerMessage::TurnBundle(b) = decode_message(&payload).unwrap() else {
            panic!("a TurnBundle")
        };
        assert_eq!(b.turn, turn);
        if turn == 1 {
            assert_eq!(
                b.commands,
                vec![PlayerCommand {
                    player: 0,
                    command: Command::Move {
                        units: ids.iter().map(|i| EntityId(*i)).collect(),
                        to: Vec2::new(fx(30), fx(31)),
                    },
                }]
            );
        }
        kept.push(run_bundle_hashed(&mut reference, &b, config.turn_ticks));
        let (s, hash) = run(w, &payload);
        assert_eq!(s, CohortStatus::Ok, "{}", last_error());
        assert_eq!(hash, reference.hash().0, "turn {turn}");
    }
    // Tick hashes of every turn run, as the server's code has them.
    for (turn, expected) in kept.iter().enumerate() {
        let mut count = 0;
        let mut out = vec![0u8; 16 * 4];
        let s =
            unsafe { cohort_world_tick_hashes(w, turn as u64, out.as_mut_ptr(), 4, &mut count) };
        assert_eq!(s, CohortStatus::Ok, "{}", last_error());
        assert_eq!(count, 4);
        let got: Vec<&[u8]> = out.chunks(16).collect();
        let want: Vec<&[u8]> = expected.iter().map(|h| &h.0[..]).collect();
        assert_eq!(got, want, "turn {turn}");
    }
    let mut count = 0;
    assert_eq!(
        unsafe { cohort_world_tick_hashes(w, 6, null_mut(), 0, &mut count) },
        CohortStatus::NotFound
    );
    assert_eq!(
        unsafe { cohort_world_tick_hashes(w, 5, null_mut(), 0, &mut count) },
        CohortStatus::BufferTooSmall
    );
    assert_eq!(count, 4);

    // The snapshot: what the server's code encodes, and it loads into a fresh world.
    let mut len = 0;
    assert_eq!(
        unsafe { cohort_world_snapshot(w, null_mut(), 0, &mut len) },
        CohortStatus::BufferTooSmall
    );
    let mut snap = vec![0u8; len];
    assert_eq!(
        unsafe { cohort_world_snapshot(w, snap.as_mut_ptr(), len, &mut len) },
        CohortStatus::Ok
    );
    assert_eq!(snap, encode_snapshot(&reference.snapshot()).unwrap());
    let w2 = world_of(&config);
    assert_eq!(load(w2, &snap, 5), CohortStatus::Ok, "{}", last_error());
    let next = empty_bundle(6);
    assert_eq!(run(w, &next), run(w2, &next));

    // The evidence for turn 5: Snapshot frames that decode as the protocol's.
    let hashes: Vec<u8> = kept[5].iter().flat_map(|h| h.0).collect();
    let frames = evidence(5, &hashes, &snap);
    let mut bytes = Vec::new();
    let mut rest = &frames[..];
    while !rest.is_empty() {
        let n = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
        let ClientMessage::Snapshot(chunk) = decode_message(&rest[4..4 + n]).unwrap() else {
            panic!("a Snapshot frame")
        };
        assert_eq!(chunk.turn, 5);
        bytes.extend_from_slice(&chunk.bytes);
        rest = &rest[4 + n..];
    }
    let evidence = decode_evidence(&bytes).unwrap();
    assert_eq!(evidence.tick_hashes, kept[5]);
    assert_eq!(evidence.end.state.tick, 24);
    assert!(evidence.start.is_none());
    let s = unsafe {
        cohort_encode_evidence(5, null(), 0, null(), 0, null(), 0, null_mut(), 0, &mut len)
    };
    assert_eq!(
        s,
        CohortStatus::InvalidArgument,
        "the end state is required"
    );

    // A bundle of one's own holds at most 32 orders, each player 0 to 7.
    let many = vec![order; 33];
    let players = [0u8; 33];
    let s = unsafe {
        cohort_encode_bundle(
            9,
            many.as_ptr(),
            players.as_ptr(),
            33,
            null_mut(),
            0,
            &mut len,
        )
    };
    assert_eq!(s, CohortStatus::InvalidArgument);
    let eight = [8u8];
    let s = unsafe { cohort_encode_bundle(9, &order, eight.as_ptr(), 1, null_mut(), 0, &mut len) };
    assert_eq!(s, CohortStatus::InvalidArgument);
    assert_eq!(cohort_world_free(w), CohortStatus::Ok);
    assert_eq!(cohort_world_free(w2), CohortStatus::Ok);
}

#[test]
fn a_scenario_loads_by_path_and_steps_tick_by_tick_to_its_runners_hashes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/group_move.toml");
    let text = path.to_str().unwrap();
    let mut w = 0;
    let s = unsafe { cohort_world_from_scenario(text.as_ptr(), text.len(), null(), 0, &mut w) };
    assert_eq!(s, CohortStatus::Ok, "{}", last_error());
    let scenario = cohort_client::scenario_file::load_file(&path, None).unwrap();
    assert_eq!(scenario.turn_ticks, 4, "a turn longer than a tick");
    let mut runner = Runner::new(scenario);
    for tick in 1..=10u64 {
        runner.step();
        let mut hash = [0u8; 32];
        assert_eq!(
            unsafe { cohort_world_step(w, 1, hash.as_mut_ptr()) },
            CohortStatus::Ok,
            "{}",
            last_error()
        );
        assert_eq!(hash, runner.world.hash().0, "tick {tick}");
    }
    // Mid-turn (10 ticks of 4-tick turns): a bundle waits for the turn's end.
    let (s, _) = run(w, &empty_bundle(2));
    assert_eq!(s, CohortStatus::InvalidArgument);
    assert!(
        last_error().contains("2 ticks into turn 2"),
        "{}",
        last_error()
    );
    runner.run(2, |_| {});
    let mut hash = [0u8; 32];
    assert_eq!(
        unsafe { cohort_world_step(w, 2, hash.as_mut_ptr()) },
        CohortStatus::Ok
    );
    assert_eq!(hash, runner.world.hash().0);
    assert_eq!(
        run(w, &empty_bundle(3)).0,
        CohortStatus::Ok,
        "{}",
        last_error()
    );
    assert_eq!(
        unsafe { cohort_world_step(w, 0, null_mut()) },
        CohortStatus::InvalidArgument
    );
    assert_eq!(
        unsafe { cohort_world_step(w, COHORT_MAX_STEP_TICKS + 1, null_mut()) },
        CohortStatus::InvalidArgument
    );
    assert_eq!(cohort_world_free(w), CohortStatus::Ok);

    // A missing file and a bad scenario are refused, naming why.
    let missing = "/nonexistent/scenario.toml";
    let s =
        unsafe { cohort_world_from_scenario(missing.as_ptr(), missing.len(), null(), 0, &mut w) };
    assert_eq!(s, CohortStatus::Refused);
    assert!(
        last_error().contains("/nonexistent/scenario.toml"),
        "{}",
        last_error()
    );
    let dir = std::env::temp_dir().join(format!("cohort-ffi-scenario-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "name = \"bad\"\nticks = \"many\"\n").unwrap();
    let bad = bad.to_str().unwrap();
    let s = unsafe { cohort_world_from_scenario(bad.as_ptr(), bad.len(), null(), 0, &mut w) };
    assert_eq!(s, CohortStatus::Refused);
    assert!(last_error().contains("ticks"), "{}", last_error());
    let _ = std::fs::remove_dir_all(&dir);
    let s = unsafe { cohort_world_from_scenario(null(), 3, null(), 0, &mut w) };
    assert_eq!(s, CohortStatus::NullPointer);
}
