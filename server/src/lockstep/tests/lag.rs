//! Lag: a client behind on its acknowledgements, and one whose outbox stays full.

use super::*;

#[test]
fn a_lagging_client_is_warned_then_dropped_and_the_match_goes_on() {
    let mut h = Harness::started(2);
    for t in 0..LAG_DROP_TURNS + 2 {
        h.turns(1);
        h.send(1, ClientMessage::Ack { turn: t });
    }
    let errors = h.errors(2);
    assert_eq!(errors, vec![ErrorCode::Lagging, ErrorCode::DroppedForLag]);
    assert!(h.closed.contains(&2));
    assert!(!h.closed.contains(&1));
    assert!(h.errors(1).is_empty());
    h.turns(1);
    assert_eq!(h.bundles(1).len(), 1);
    assert_eq!(h.m.stats().dropped, 1);
}

/// Lets `ms` pass a turn at a time, every connected peer acknowledging each turn as it closes
/// (so that only an outbox, not the turn lag, can drop anyone).
fn advance_acking(h: &mut Harness, ms: u64) {
    let mut left = ms;
    while left > 0 {
        let step = left.min(h.turn_ms());
        h.advance(step);
        left -= step;
        if let Some(turn) = h.m.next_turn().checked_sub(1) {
            for peer in h.m.peer_ids() {
                h.send(peer, ClientMessage::Ack { turn });
            }
        }
    }
}

#[test]
fn a_peer_whose_outbox_stays_full_is_warned_then_dropped_for_lag_at_the_limit() {
    let mut h = Harness::started(3);
    h.join(9, Role::Spectator);
    let turn = h.turn_ms();
    advance_acking(&mut h, 3 * turn);
    for p in [1, 2, 3, 9] {
        h.take(p);
    }
    h.event(Event::OutboxFull { peer: 2 });
    assert_eq!(h.errors(2), vec![ErrorCode::Lagging], "warned at once");
    // Told again while still full: no second warning, and the count does not start anew.
    advance_acking(&mut h, OUTBOX_FULL_DROP_MS / 2);
    h.event(Event::OutboxFull { peer: 2 });
    advance_acking(&mut h, OUTBOX_FULL_DROP_MS - OUTBOX_FULL_DROP_MS / 2 - 1);
    assert!(h.errors(2).is_empty());
    assert!(!h.closed.contains(&2), "kept until the limit");
    assert!(h.m.peer_ids().contains(&2));
    assert!(h.m.roster()[1].connected);
    advance_acking(&mut h, 1);
    assert_eq!(
        h.errors(2),
        vec![ErrorCode::DroppedForLag],
        "dropped at the limit"
    );
    assert_eq!(h.closed, vec![2]);
    assert!(!h.m.peer_ids().contains(&2));
    assert_eq!(h.m.roster()[1].status, PlayerStatus::Dropped);
    assert_eq!(h.m.stats().dropped, 1);
    // The others carry on, and see what a lost connection shows: `Dropped` in the next bundle.
    h.turns(1);
    let to_1 = h.take(1);
    assert!(!to_1.iter().any(|m| matches!(m, ServerMessage::Error(_))));
    let events: Vec<MembershipEvent> = to_1
        .into_iter()
        .filter_map(|m| match m {
            ServerMessage::TurnBundle(b) => Some(b.events),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(
        events,
        vec![MembershipEvent {
            player: 1,
            change: Membership::Dropped
        }]
    );
    assert!(h.errors(3).is_empty());
    assert!(h.errors(9).is_empty());
    assert_eq!(h.m.phase(), Phase::Running);
    h.turns(1);
    assert_eq!(h.bundles(3).len(), 1);
    assert_eq!(h.bundles(9).len(), 1);
}

#[test]
fn a_peer_whose_outbox_drains_in_time_is_kept_and_a_full_spectator_is_dropped_alone() {
    let mut h = Harness::started(2);
    h.join(9, Role::Spectator);
    let turn = h.turn_ms();
    advance_acking(&mut h, turn);
    h.event(Event::OutboxFull { peer: 1 });
    advance_acking(&mut h, OUTBOX_FULL_DROP_MS - 1);
    h.event(Event::OutboxDrained { peer: 1 });
    advance_acking(&mut h, 2 * OUTBOX_FULL_DROP_MS);
    assert!(h.closed.is_empty());
    assert_eq!(h.errors(1), vec![ErrorCode::Lagging]);
    assert_eq!(h.m.stats().dropped, 0);
    // Full again: warned again, and the count starts from now.
    h.event(Event::OutboxFull { peer: 1 });
    assert_eq!(h.errors(1), vec![ErrorCode::Lagging]);
    advance_acking(&mut h, OUTBOX_FULL_DROP_MS - 1);
    h.event(Event::OutboxDrained { peer: 1 });
    // A spectator is closed alone: no membership event, the match plays on.
    h.event(Event::OutboxFull { peer: 9 });
    advance_acking(&mut h, OUTBOX_FULL_DROP_MS);
    assert_eq!(
        h.errors(9),
        vec![ErrorCode::Lagging, ErrorCode::DroppedForLag]
    );
    assert_eq!(h.closed, vec![9]);
    assert_eq!(h.m.connected(), (2, 0));
    assert!(h.bundles(1).iter().all(|b| b.events.is_empty()));
    assert_eq!(h.m.stats().dropped, 0);
    // Outbox news of a peer the match does not know changes nothing.
    h.event(Event::OutboxFull { peer: 77 });
    h.event(Event::OutboxDrained { peer: 77 });
    assert!(h.take(77).is_empty());
}
