//! Hashes compared, desyncs caught and reported, the diverging client's snapshot.

use super::*;

#[test]
fn a_seat_taken_over_from_a_diverged_client_sends_its_report_at_once() {
    let mut h = diverged_after_turn_1();
    h.join(7, Role::Player(1));
    assert_eq!(h.errors(2), vec![ErrorCode::Replaced]);
    h.advance(0);
    assert_eq!(
        h.reports.len(),
        1,
        "the old connection's snapshot will not come"
    );
    assert!(h.reports[0].client.is_none());
}

#[test]
fn matching_hashes_raise_nothing_and_the_replay_resimulates() {
    let mut h = Harness::started(2);
    let c = h.stop(0);
    h.send(1, commands(1, vec![c]));
    h.turns(4);
    for t in 0..4 {
        let hash = h.m.hash_after(t).unwrap();
        h.send(1, ClientMessage::TurnHash(TurnHash { turn: t, hash }));
        h.send(2, ClientMessage::TurnHash(TurnHash { turn: t, hash }));
    }
    assert_eq!(h.m.stats().desyncs, 0);
    assert_eq!(h.m.stats().hashes_compared, 8);
    assert!(resimulates(&h));
}

#[test]
fn a_hash_that_comes_before_the_servers_sim_is_compared_and_counted_once_the_sim_runs() {
    let mut h = Harness::started(2);
    h.turns(2);
    // Turn 2 closes; the server has not run it yet.
    let late = h.now + Duration::from_millis(h.turn_ms());
    h.m.handle_timeout(late);
    h.drain();
    h.now = late;
    let bundle = h.bundles(1).pop().unwrap();
    assert_eq!(bundle.turn, 2);
    assert_eq!(h.m.hash_after(2), None, "not run yet");
    let mut w = h.m.world_after(1).unwrap();
    run_bundle(&mut w, &bundle, h.m.config().turn_ticks);
    let hash = w.hash();
    let early = ClientMessage::TurnHash(TurnHash { turn: 2, hash });
    h.m.handle(
        h.now,
        Event::Message {
            peer: 1,
            message: early,
        },
    );
    assert_eq!(
        h.m.stats().hashes_compared,
        0,
        "waits for the server's own hash"
    );
    h.m.simulate();
    h.drain();
    assert_eq!(h.m.stats().hashes_compared, 1);
    assert_eq!(h.m.stats().desyncs, 0);
    // Acknowledgements without a hash are not counted.
    h.send(2, ClientMessage::Ack { turn: 2 });
    assert_eq!(h.m.stats().hashes_compared, 1);
}

/// A client world that differs from the server's after `turn`.
fn perturbed(h: &Harness, turn: u64) -> World {
    let mut w = h.m.world_after(turn).unwrap();
    w.state_mut().units[0].hit_points -= 1;
    w
}

/// Sends a client's evidence of `turn` whose state after it is `world` (no tick hashes, no
/// states run again: a client that kept none).
fn send_snapshot(h: &mut Harness, peer: PeerId, turn: u64, world: &World) {
    let evidence = cohort_protocol::report::Evidence {
        tick_hashes: vec![],
        start: None,
        at_tick: None,
        end: world.snapshot(),
        notes: vec!["it kept nothing".into()],
    };
    let bytes = cohort_protocol::codec::encode_evidence(&evidence).unwrap();
    let count = bytes.len().div_ceil(SNAPSHOT_CHUNK_BYTES) as u32;
    for (i, piece) in bytes.chunks(SNAPSHOT_CHUNK_BYTES).enumerate() {
        h.send(
            peer,
            ClientMessage::Snapshot(SnapshotChunk {
                turn,
                index: i as u32,
                count,
                bytes: piece.to_vec(),
            }),
        );
    }
}

#[test]
fn a_desync_is_caught_on_its_turn_told_to_everyone_and_reported() {
    let mut h = Harness::started(2);
    h.turns(4);
    h.take(1);
    h.take(2);
    let good = h.m.hash_after(2).unwrap();
    h.send(
        1,
        ClientMessage::TurnHash(TurnHash {
            turn: 2,
            hash: good,
        }),
    );
    let bad = perturbed(&h, 2);
    h.send(
        2,
        ClientMessage::TurnHash(TurnHash {
            turn: 2,
            hash: bad.hash(),
        }),
    );
    let notice = DesyncNotice {
        turn: 2,
        players: vec![1],
        server_hash: good,
        continuing: true,
    };
    assert_eq!(h.take(1), vec![ServerMessage::DesyncNotice(notice.clone())]);
    assert_eq!(
        h.take(2),
        vec![
            ServerMessage::DesyncNotice(notice),
            ServerMessage::SnapshotRequest {
                turn: 2,
                tick_hashes: h.m.tick_hashes_of(2).unwrap().to_vec()
            }
        ]
    );
    assert_eq!(
        h.m.tick_hashes_of(2).unwrap().len(),
        h.m.config().turn_ticks as usize
    );
    send_snapshot(&mut h, 2, 2, &bad);
    assert_eq!(h.reports.len(), 1);
    let r = &h.reports[0];
    assert_eq!(r.server_tick_hashes, h.m.tick_hashes_of(2).unwrap());
    assert_eq!((r.turn, r.diverged.clone()), (2, vec![1]));
    assert_eq!(r.server.hash, good);
    let client = r.client.as_ref().unwrap();
    assert_eq!((client.view.turn, client.view.hash), (2, bad.hash()));
    assert_eq!(client.notes, vec!["it kept nothing".to_string()]);
    let (parts, ids) = r.server.differences(&client.view);
    assert_eq!(parts, vec!["units".to_string()]);
    assert_eq!(
        ids,
        vec![cohort_sim::hash::Entry::Unit(bad.state().units[0].id)]
    );
    let hashes: Vec<(u8, Option<StateHash>)> =
        r.peer_hashes.iter().map(|p| (p.player, p.hash)).collect();
    assert_eq!(hashes, vec![(0, Some(good)), (1, Some(bad.hash()))]);
    assert_eq!(r.records.len(), 4);
    // One notice per diverged player (docs/EMBEDDING.md's DESYNC row), not per turn: player 1
    // differing again after turn 3 is not told again.
    let again = perturbed(&h, 3);
    h.send(
        2,
        ClientMessage::TurnHash(TurnHash {
            turn: 3,
            hash: again.hash(),
        }),
    );
    for peer in [1, 2] {
        let notices = h
            .take(peer)
            .into_iter()
            .filter(|m| matches!(m, ServerMessage::DesyncNotice(_)))
            .count();
        assert_eq!(notices, 0, "peer {peer} told twice of player 1");
    }
    assert_eq!(h.m.stats().desyncs, 2, "the second was seen");
    // The match goes on.
    h.turns(1);
    assert_eq!(h.bundles(1).len(), 1);
    assert!(h.ended.is_none());
}

#[test]
fn a_desync_stops_the_match_when_so_configured() {
    let (mut s, _) = settings(2);
    s.on_desync = OnDesync::Stop;
    let mut h = Harness::with(s);
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    h.turns(3);
    let bad = perturbed(&h, 1);
    h.send(
        2,
        ClientMessage::TurnHash(TurnHash {
            turn: 1,
            hash: bad.hash(),
        }),
    );
    h.take(1);
    h.turns(2);
    assert!(h.bundles(1).is_empty(), "no turn closes while stopping");
    send_snapshot(&mut h, 2, 1, &bad);
    assert_eq!(h.reports.len(), 1);
    assert_eq!(h.reports[0].client.as_ref().map(|c| c.view.turn), Some(1));
    assert_eq!(h.ended, Some(EndReason::Desync));
    assert!(h.closed.contains(&1) && h.closed.contains(&2));
}

#[test]
fn without_the_clients_snapshot_the_report_goes_out_in_time() {
    let mut h = Harness::started(2);
    h.turns(2);
    let bad = perturbed(&h, 0);
    h.send(
        2,
        ClientMessage::TurnHash(TurnHash {
            turn: 0,
            hash: bad.hash(),
        }),
    );
    h.advance(crate::lockstep::desync::SNAPSHOT_WAIT_MS + 1);
    assert_eq!(h.reports.len(), 1);
    assert!(h.reports[0].client.is_none());
}

/// Player 1 (peer 2) diverges after turn 1; the server asks for that turn's state.
fn diverged_after_turn_1() -> Harness {
    let mut h = Harness::started(2);
    h.turns(3);
    let bad = perturbed(&h, 1);
    h.send(
        2,
        ClientMessage::TurnHash(TurnHash {
            turn: 1,
            hash: bad.hash(),
        }),
    );
    assert!(h
        .take(2)
        .iter()
        .any(|m| matches!(m, ServerMessage::SnapshotRequest { turn: 1, .. })));
    h
}

#[test]
fn a_snapshot_of_another_turn_is_refused_and_the_report_goes_without_it() {
    let mut h = diverged_after_turn_1();
    let later = perturbed(&h, 2);
    send_snapshot(&mut h, 2, 2, &later);
    assert_eq!(h.errors(2), vec![ErrorCode::BadSnapshot]);
    assert_eq!(h.reports.len(), 1);
    assert!(h.reports[0].client.is_none());
    assert_eq!(h.reports[0].turn, 1);
}

#[test]
fn a_client_without_that_turns_state_says_so_and_the_report_goes_at_once() {
    let mut h = diverged_after_turn_1();
    h.send(
        2,
        ClientMessage::SnapshotUnavailable {
            turn: 1,
            reason: "gone".into(),
        },
    );
    assert_eq!(h.reports.len(), 1);
    assert!(h.reports[0].client.is_none());
    // Unasked, the same answer is refused.
    h.send(
        2,
        ClientMessage::SnapshotUnavailable {
            turn: 1,
            reason: "again".into(),
        },
    );
    assert_eq!(h.errors(2), vec![ErrorCode::BadSnapshot]);
    assert_eq!(h.reports.len(), 1);
}

#[test]
fn a_hash_for_a_turn_not_yet_sent_closes_the_connection() {
    let mut h = Harness::started(2);
    h.send(
        1,
        ClientMessage::TurnHash(TurnHash {
            turn: 5,
            hash: StateHash::default(),
        }),
    );
    assert_eq!(h.errors(1), vec![ErrorCode::Unexpected]);
    assert!(h.closed.contains(&1));
}

#[test]
fn a_match_requiring_hashes_closes_a_player_that_only_acks() {
    let (mut s, _) = settings(2);
    s.require_hashes = true;
    let mut h = Harness::with(s);
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    h.join(9, Role::Spectator);
    h.turns(1);
    h.take(1);
    h.take(2);
    let hash = h.m.hash_after(0).unwrap();
    h.send(1, ClientMessage::TurnHash(TurnHash { turn: 0, hash }));
    h.send(2, ClientMessage::Ack { turn: 0 });
    h.send(9, ClientMessage::Ack { turn: 0 });
    assert!(h.errors(1).is_empty());
    assert_eq!(h.errors(2), vec![ErrorCode::Unexpected]);
    assert!(h.closed.contains(&2), "the hashless player is closed");
    assert!(h.errors(9).is_empty(), "a spectator may acknowledge");
    assert!(!h.closed.contains(&9) && !h.closed.contains(&1));
    h.turns(1);
    let b = h.bundles(1);
    assert_eq!(
        b[0].events,
        vec![MembershipEvent {
            player: 1,
            change: Membership::Dropped
        }]
    );
}
