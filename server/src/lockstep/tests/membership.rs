//! Who is in a match: spectators, refused joins, seat takeover, rejoining, leaving.

use super::*;

#[test]
fn a_spectator_watches_and_cannot_touch_the_sim() {
    let mut h = Harness::started(2);
    h.turns(2);
    h.join(9, Role::Spectator);
    let msgs = h.take(9);
    assert!(matches!(
        msgs[0],
        ServerMessage::JoinAccepted(JoinAccepted {
            role: Role::Spectator,
            next_turn: 2,
            snapshot_follows: true,
            spectator_delay_secs: 0,
            ..
        })
    ));
    let c = h.stop(0);
    h.send(9, commands(3, vec![c]));
    h.send(9, ClientMessage::Pause);
    assert_eq!(
        h.errors(9),
        vec![ErrorCode::NotAPlayer, ErrorCode::NotAPlayer]
    );
    h.turns(2);
    let b = h.bundles(9);
    assert_eq!(b.len(), 2);
    assert!(b.iter().all(|b| b.commands.is_empty()));
}

#[test]
fn the_wrong_ruleset_and_a_slot_outside_the_match_are_refused_and_take_no_seat() {
    let mut h = Harness::new(2);
    h.join(2, Role::Player(0));
    let mut hello = h.hello();
    hello.ruleset_hash = [0; 32];
    h.event(Event::Join {
        peer: 1,
        role: Role::Player(0),
        hello,
    });
    assert_eq!(h.errors(1), vec![ErrorCode::RulesetMismatch]);
    assert_eq!(h.closed, vec![1], "the seated connection stays");
    h.join(4, Role::Player(5));
    assert_eq!(h.errors(4), vec![ErrorCode::SlotTaken]);
    assert_eq!(h.m.phase(), Phase::Lobby);
    assert!(h.errors(2).is_empty());
}

#[test]
fn a_join_for_a_seat_taken_in_the_lobby_replaces_it_and_the_match_starts() {
    let mut h = Harness::new(2);
    h.join(1, Role::Player(0));
    h.join(3, Role::Player(0));
    assert_eq!(h.errors(1), vec![ErrorCode::Replaced]);
    assert_eq!(h.closed, vec![1]);
    h.event(Event::Disconnected { peer: 1 });
    assert_eq!(h.m.phase(), Phase::Lobby);
    h.join(2, Role::Player(1));
    assert_eq!(h.m.phase(), Phase::Running);
    h.turns(1);
    assert!(h.bundles(1).is_empty());
    let b = h.bundles(3);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].events.len(), 2, "both players joined at turn 0");
}

/// The `JoinAccepted` a peer was sent and the world its snapshot holds.
fn joined_from_snapshot(h: &mut Harness, peer: PeerId) -> (JoinAccepted, u64, World) {
    let msgs = h.take(peer);
    let ServerMessage::JoinAccepted(acc) = &msgs[0] else {
        panic!("{msgs:?}")
    };
    assert!(acc.snapshot_follows);
    let mut turn = None;
    let bytes: Vec<u8> = msgs[1..]
        .iter()
        .flat_map(|m| match m {
            ServerMessage::Snapshot(c) => {
                turn = Some(c.turn);
                c.bytes.clone()
            }
            _ => vec![],
        })
        .collect();
    let world = World::from_snapshot(h.rules.clone(), decode_snapshot(&bytes).unwrap()).unwrap();
    (acc.clone(), turn.expect("a snapshot"), world)
}

#[test]
fn a_join_for_a_connected_seat_takes_it_over_at_once_and_the_match_never_waits() {
    let mut h = Harness::started(2);
    h.turns(3);
    // The old connection's order for the open turn stays scheduled.
    let order = h.stop(1);
    let open = h.m.next_turn();
    h.send(2, commands(open, vec![order.clone()]));
    h.take(1);
    // The player's game restarts: the old connection is still open when the new one joins.
    h.join(7, Role::Player(1));
    assert_eq!(h.errors(2), vec![ErrorCode::Replaced]);
    assert_eq!(h.closed, vec![2]);
    let (acc, turn, mut client) = joined_from_snapshot(&mut h, 7);
    assert_eq!(
        (acc.role, acc.next_turn, turn),
        (Role::Player(1), open, open - 1)
    );
    assert_eq!(client.hash(), h.m.hash_after(open - 1).unwrap());
    // Whatever the old connection still says goes nowhere; its end changes nothing.
    h.send(2, commands(open + 1, vec![order.clone()]));
    h.event(Event::Disconnected { peer: 2 });
    for _ in 0..3 {
        h.turns(1);
        assert_eq!(
            h.bundles(1).len(),
            1,
            "the other player gets every turn on time"
        );
    }
    let b = h.bundles(7);
    let turns: Vec<u64> = b.iter().map(|b| b.turn).collect();
    assert_eq!(turns, vec![open, open + 1, open + 2]);
    assert_eq!(b[0].commands.len(), 1, "the old connection's order ran");
    for bundle in &b {
        assert!(bundle.events.is_empty(), "no membership event: {bundle:?}");
        assert!(bundle.commands.len() <= 1);
        run_bundle(&mut client, bundle, h.m.config().turn_ticks);
        assert_eq!(client.hash(), h.m.hash_after(bundle.turn).unwrap());
        h.send(
            7,
            ClientMessage::TurnHash(TurnHash {
                turn: bundle.turn,
                hash: client.hash(),
            }),
        );
    }
    assert!(h.replay.iter().skip(1).all(|r| r.bundle.events.is_empty()));
    let stats = h.m.stats();
    assert_eq!((stats.taken_over, stats.dropped, stats.desyncs), (1, 0, 0));
    assert!(h.errors(7).is_empty());
    assert!(!h.m.is_paused());
}

#[test]
fn a_dropped_player_rejoins_from_a_snapshot_and_plays_on() {
    let mut h = Harness::started(2);
    h.turns(3);
    h.event(Event::Disconnected { peer: 2 });
    h.turns(1);
    let b = h.bundles(1);
    assert_eq!(
        b.last().unwrap().events,
        vec![MembershipEvent {
            player: 1,
            change: Membership::Dropped
        }]
    );
    h.join(7, Role::Player(1));
    let (acc, turn, mut client) = joined_from_snapshot(&mut h, 7);
    assert_eq!((acc.next_turn, turn), (4, 3));
    assert_eq!(client.hash(), h.m.hash_after(3).unwrap());
    h.turns(2);
    let b = h.bundles(7);
    assert_eq!(b[0].turn, 4);
    assert_eq!(
        b[0].events,
        vec![MembershipEvent {
            player: 1,
            change: Membership::Joined
        }]
    );
    for bundle in &b {
        run_bundle(&mut client, bundle, h.m.config().turn_ticks);
        assert_eq!(client.hash(), h.m.hash_after(bundle.turn).unwrap());
    }
}

#[test]
fn leaving_and_resigning_are_membership_events_and_the_last_ends_the_match() {
    let mut h = Harness::started(3);
    h.turns(1);
    h.send(2, ClientMessage::Leave { resign: true });
    h.turns(1);
    let b = h.bundles(1);
    assert_eq!(
        b.last().unwrap().events,
        vec![MembershipEvent {
            player: 1,
            change: Membership::Resigned
        }]
    );
    h.join(9, Role::Player(1));
    assert_eq!(h.errors(9), vec![ErrorCode::SlotTaken]);
    h.send(1, ClientMessage::Leave { resign: false });
    assert!(h.ended.is_none());
    h.send(3, ClientMessage::Leave { resign: false });
    assert_eq!(h.ended, Some(EndReason::NoPlayers));
    assert!(resimulates(&h));
}

#[test]
fn a_spectator_joining_before_turn_0_closes_starts_from_the_configuration() {
    let mut h = Harness::started(2);
    h.join(9, Role::Spectator);
    let msgs = h.take(9);
    assert!(
        matches!(
            msgs[..],
            [ServerMessage::JoinAccepted(JoinAccepted {
                next_turn: 0,
                snapshot_follows: false,
                spectator_delay_secs: 0,
                ..
            })]
        ),
        "no snapshot: there is no state after a turn yet; {msgs:?}"
    );
    let mut world = h.m.config().world(h.rules.clone()).unwrap();
    h.turns(3);
    let b = h.bundles(9);
    assert_eq!(b[0].turn, 0);
    for bundle in &b {
        run_bundle(&mut world, bundle, h.m.config().turn_ticks);
        assert_eq!(world.hash(), h.m.hash_after(bundle.turn).unwrap());
    }
}

#[test]
fn refused_joins_and_round_trips_are_observed_and_a_rejoin_counted() {
    let mut h = Harness::started(2);
    h.join(3, Role::Player(5));
    assert_eq!(h.errors(3), vec![ErrorCode::SlotTaken]);
    let mut seen = Vec::new();
    while let Some(o) = h.m.poll_observed() {
        seen.push(o);
    }
    assert_eq!(seen, vec![Observed::JoinRefused(ErrorCode::SlotTaken)]);
    assert_eq!(h.m.connected(), (2, 0));
    // The first ping went out on the first timeout; answer it 5 ms later.
    h.turns(1);
    let nonce = h
        .take(1)
        .iter()
        .find_map(|m| match m {
            ServerMessage::Ping(p) => Some(p.nonce),
            _ => None,
        })
        .expect("a ping");
    h.advance(5);
    h.send(1, ClientMessage::Pong(Pong { nonce }));
    match h.m.poll_observed() {
        Some(Observed::RoundTrip(rtt)) => assert!(rtt >= Duration::from_millis(5), "{rtt:?}"),
        other => panic!("{other:?}"),
    }
    h.event(Event::Disconnected { peer: 2 });
    h.turns(1);
    h.join(4, Role::Player(1));
    assert_eq!((h.m.stats().dropped, h.m.stats().rejoins), (1, 1));
    let roster = h.m.roster();
    assert!(roster[1].connected && roster[1].status == PlayerStatus::Playing);
}
