//! A rejoining client's snapshot, and the evidence a client sends of a failing turn.

use super::*;

#[test]
fn a_rejoining_client_loads_the_snapshot_checks_it_and_catches_up() {
    let mut server = Server::new();
    for t in 0..5 {
        let commands = if t == 1 {
            vec![a_move(&server.world, 0)]
        } else {
            vec![]
        };
        server.bundle(commands);
    }
    // The snapshot after turn 4, in two pieces; bundles 5 and 6 arrive before the last piece.
    let bytes = encode_snapshot(&server.world.snapshot()).unwrap();
    let half = bytes.len() / 2;
    let mut c = ClientCore::new(options(), rules());
    c.start(Instant::now());
    c.handle_message(accepted(Role::Player(0), 5, true), Instant::now());
    assert_eq!(c.phase(), Phase::Loading);
    let piece = |index: u32, b: &[u8]| {
        ServerMessage::Snapshot(SnapshotChunk {
            turn: 4,
            index,
            count: 2,
            bytes: b.to_vec(),
        })
    };
    c.handle_message(piece(1, &bytes[half..]), Instant::now());
    for _ in 0..2 {
        let b = server.bundle(vec![a_move(&server.world, 1)]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    assert_eq!(c.tally().turns_run, 0);
    c.handle_message(piece(0, &bytes[..half]), Instant::now());
    assert_eq!(c.phase(), Phase::Playing);
    assert_eq!(c.tally().turns_run, 2);
    let hashes: Vec<TurnHash> = drain(&mut c)
        .into_iter()
        .filter_map(|m| match m {
            ClientMessage::TurnHash(h) => Some(h),
            _ => None,
        })
        .collect();
    assert_eq!(
        hashes,
        vec![
            TurnHash {
                turn: 5,
                hash: server.hashes[5]
            },
            TurnHash {
                turn: 6,
                hash: server.hashes[6]
            },
        ]
    );
    let ev = events(&mut c);
    assert!(ev.contains(&Event::SnapshotLoaded { turn: 4 }));
    assert!(ev.contains(&Event::SnapshotChecked {
        turn: 4,
        agrees: true
    }));
}

/// The client's answer to a snapshot request carrying `server_ticks`, put back together.
fn evidence(
    c: &mut ClientCore,
    turn: u64,
    server_ticks: &[TickHash],
) -> cohort_protocol::report::Evidence {
    c.handle_message(
        ServerMessage::SnapshotRequest {
            turn,
            tick_hashes: server_ticks.to_vec(),
        },
        Instant::now(),
    );
    let mut bytes = Vec::new();
    for m in drain(c) {
        let ClientMessage::Snapshot(chunk) = m else {
            panic!("{m:?}")
        };
        assert_eq!(chunk.turn, turn);
        assert!(chunk.bytes.len() <= SNAPSHOT_CHUNK_BYTES);
        bytes.extend(chunk.bytes);
    }
    cohort_protocol::codec::decode_evidence(&bytes).unwrap()
}

/// The client's state after `turn`, from its answer to a snapshot request.
fn answered_snapshot(c: &mut ClientCore, turn: u64) -> World {
    World::from_snapshot(rules(), evidence(c, turn, &[]).end).unwrap()
}

fn loaded(snapshot: Option<cohort_sim::world::Snapshot>) -> World {
    World::from_snapshot(rules(), snapshot.expect("a state")).unwrap()
}

#[test]
fn a_client_perturbed_mid_turn_sends_its_state_at_that_very_tick() {
    // Turns of 2 ticks; the nudge after tick 7, the first of turn 3.
    let mut c = joined(
        Role::Player(1),
        ClientOptions {
            perturb_at_tick: Some(7),
            ..options()
        },
    );
    let mut server = Server::new();
    for _ in 0..4 {
        let b = server.bundle(vec![a_move(&server.world, 1)]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    drain(&mut c);
    let mine = c.tick_hashes_of(3).unwrap().to_vec();
    assert_eq!(mine.len(), 2);
    assert_ne!(mine[0], server.ticks[3][0], "tick 7 differs");
    assert_eq!(c.tick_hashes_of(2).unwrap(), &server.ticks[2][..]);
    let e = evidence(&mut c, 3, &server.ticks[3]);
    assert!(e.notes.is_empty(), "{:?}", e.notes);
    assert_eq!(e.tick_hashes, mine);
    // Its start: the state after turn 2, which the server agreed with.
    let start = loaded(e.start);
    assert_eq!(start.hash(), server.hashes[2]);
    assert_eq!(start.tick(), 6);
    // Its state after tick 7, nudged: the tick hash it had live, the server's state but for x.
    let at = loaded(e.at_tick);
    assert_eq!((at.tick(), at.tick_hash()), (7, mine[0]));
    let mut theirs = start.clone();
    // Every turn's bundle moves the same unit to the same point.
    theirs.step(&[a_move(&start, 1)]);
    let (a, b) = (&at.state().units[0], &theirs.state().units[0]);
    assert_eq!(a.position.x - b.position.x, Fx::from_bits(1));
    let mut undone = at.clone();
    undone.state_mut().units[0].position.x = b.position.x;
    assert_eq!(undone.hash(), theirs.hash(), "only that field differs");
    assert_eq!(loaded(Some(e.end)).hash(), c.hash_after(3).unwrap());
}

#[test]
fn a_snapshot_request_for_the_current_turn_is_answered_with_the_clients_state() {
    let mut c = joined(Role::Player(1), options());
    let mut server = Server::new();
    for _ in 0..3 {
        let b = server.bundle(vec![a_move(&server.world, 1)]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    drain(&mut c);
    assert_eq!(answered_snapshot(&mut c, 2).hash(), server.hashes[2]);
}

#[test]
fn a_snapshot_request_arriving_turns_later_gets_the_failing_turns_state() {
    let mut opts = options();
    opts.perturb_at_turn = Some(2);
    let mut c = joined(Role::Player(1), opts);
    let mut server = Server::new();
    // Turns 0 to 5 run; the bundle of turn 3 shows the client its hash of 2 contradicted.
    for _ in 0..6 {
        let b = server.bundle(vec![a_move(&server.world, 1)]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    drain(&mut c);
    assert_eq!(c.disagreed_state().map(|(t, _)| t), Some(2));
    let mine = c.hash_after(2).unwrap();
    assert_ne!(mine, server.hashes[2]);
    let world = answered_snapshot(&mut c, 2);
    assert_eq!(world.hash(), mine, "the state the client had after turn 2");
    assert_eq!(world.state().tick, 3 * u64::from(config().turn_ticks));
    // The current turn is still answered from the current state.
    assert_eq!(
        answered_snapshot(&mut c, 5).hash(),
        c.hash_after(5).unwrap()
    );
}

#[test]
fn a_snapshot_request_for_a_turn_gone_is_answered_with_the_reason() {
    let mut c = joined(Role::Player(1), options());
    let mut server = Server::new();
    for _ in 0..4 {
        let b = server.bundle(vec![]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    drain(&mut c);
    c.handle_message(
        ServerMessage::SnapshotRequest {
            turn: 1,
            tick_hashes: vec![],
        },
        Instant::now(),
    );
    match &drain(&mut c)[..] {
        [ClientMessage::SnapshotUnavailable { turn: 1, reason }] => {
            assert!(reason.contains("after turn 1 is gone"), "{reason}");
            assert!(reason.len() <= cohort_protocol::limits::MAX_CHAT_BYTES);
        }
        other => panic!("{other:?}"),
    }
    let mut idle = joined(
        Role::Player(1),
        ClientOptions {
            simulate: false,
            ..options()
        },
    );
    idle.handle_message(
        ServerMessage::SnapshotRequest {
            turn: 0,
            tick_hashes: vec![],
        },
        Instant::now(),
    );
    assert!(matches!(
        &drain(&mut idle)[..],
        [ClientMessage::SnapshotUnavailable { turn: 0, .. }]
    ));
}
