//! A match taken up again after its server died: rebuilt from its replay (and a snapshot),
//! waiting for its players for the grace period, going on without the missing ones.

use super::*;
use crate::lockstep::resume::{rebuild, RebuildError, RESUME_GRACE_MS};

/// A two-player match that saves its state every 8 turns, played 21 turns with orders.
fn played() -> Harness {
    let (mut s, _) = settings(2);
    s.snapshot_every = Some(8);
    let mut h = Harness::with(s);
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    h.join(9, Role::Spectator);
    for turn in 0..21 {
        let c = h.stop(u8::try_from(turn % 2).unwrap());
        h.send(turn % 2 + 1, commands(turn + 2, vec![c]));
        h.turns(1);
    }
    h
}

/// The server died: a new `Match` from the replay so far (and the saved state given), a
/// minute later on the clock, with nobody connected.
fn resumed(old: &Harness, snapshot: Option<(u64, Snapshot)>) -> Harness {
    let (mut s, rules) = settings(2);
    s.snapshot_every = Some(8);
    let rebuilt = rebuild(old.m.config(), old.replay.clone(), snapshot, rules.clone()).unwrap();
    let now = old.now + Duration::from_secs(60);
    let mut h = Harness::with(s);
    h.m = Match::from_replay(h.m.settings.clone(), rules, rebuilt, now).unwrap();
    h.now = now;
    h.replay = old.replay.clone();
    h
}

fn one(player: u8, change: Membership) -> Vec<MembershipEvent> {
    vec![MembershipEvent { player, change }]
}

fn last_saved(h: &Harness) -> (u64, Snapshot) {
    let (turns, world) = h.saved.last().cloned().unwrap();
    (turns, *world.unwrap())
}

#[test]
fn the_state_is_saved_at_the_start_and_every_n_turns_after_its_record() {
    let h = played();
    let turns: Vec<u64> = h.saved.iter().map(|(t, _)| *t).collect();
    assert_eq!(turns, vec![0, 8, 16]);
    assert!(
        h.saved[0].1.is_none(),
        "at the start: the configuration's world"
    );
    let (t, snap) = last_saved(&h);
    let w = World::from_snapshot(h.rules.clone(), snap).unwrap();
    assert_eq!(w.hash(), h.replay[usize::try_from(t).unwrap() - 1].hash);
}

#[test]
fn a_match_taken_up_again_waits_for_every_player_then_goes_on_where_it_was() {
    let old = played();
    let turns = old.replay.len() as u64;
    let mut h = resumed(&old, Some(last_saved(&old)));
    assert!(h.m.waiting_for_players());
    assert_eq!(h.m.next_turn(), turns);
    h.join(11, Role::Player(0));
    h.join(19, Role::Spectator);
    let accepted = h.take(11);
    assert!(matches!(
        accepted[0],
        ServerMessage::JoinAccepted(JoinAccepted {
            next_turn,
            snapshot_follows: true,
            ..
        }) if next_turn == turns
    ));
    // Paused for as long as a player is missing, short of the grace period.
    h.advance(RESUME_GRACE_MS - 1);
    assert!(h.bundles(11).is_empty());
    assert!(h.bundles(19).is_empty());
    assert_eq!(h.replay.len() as u64, turns);
    h.join(12, Role::Player(1));
    assert!(!h.m.waiting_for_players());
    h.turns(3);
    let b = h.bundles(12);
    assert_eq!(b.len(), 3);
    assert_eq!(b[0].turn, turns);
    assert!(b[0].events.is_empty(), "the players never left the match");
    assert_eq!(b[0].previous_hash, Some(old.replay.last().unwrap().hash));
    assert_eq!(h.bundles(19).len(), 3, "the spectator watches on");
    // One replay, turn after turn, across the restart.
    assert_eq!(h.replay.len() as u64, turns + 3);
    assert!(resimulates(&h));
}

#[test]
fn players_not_back_within_the_grace_are_dropped_and_may_rejoin() {
    let old = played();
    let turns = old.replay.len() as u64;
    let mut h = resumed(&old, None);
    h.join(11, Role::Player(0));
    h.advance(RESUME_GRACE_MS - 1);
    assert!(h.bundles(11).is_empty());
    h.advance(1);
    assert!(!h.m.waiting_for_players());
    h.turns(1);
    let b = h.bundles(11);
    assert_eq!(b[0].turn, turns);
    assert_eq!(b[0].events, one(1, Membership::Dropped));
    h.join(12, Role::Player(1));
    h.turns(1);
    let b = h.bundles(11);
    assert_eq!(b.last().unwrap().events, one(1, Membership::Joined));
    assert!(resimulates(&h));
}

#[test]
fn with_nobody_back_the_match_goes_on_empty_and_ends_as_an_empty_match_does() {
    let old = played();
    let mut h = resumed(&old, None);
    h.advance(RESUME_GRACE_MS);
    assert!(!h.m.waiting_for_players());
    assert_eq!(h.ended, None);
    h.advance(EMPTY_MATCH_GRACE_MS);
    assert_eq!(h.ended, Some(EndReason::NoPlayers));
    assert!(resimulates(&h));
}

#[test]
fn a_snapshot_spares_re_simulating_and_one_that_does_not_fit_is_not_trusted() {
    let old = played();
    let (_, rules) = settings(2);
    let records = old.replay.clone();
    let all = records.len() as u64;
    let (t, snap) = last_saved(&old);
    let r = rebuild(
        old.m.config(),
        records.clone(),
        Some((t, snap.clone())),
        rules.clone(),
    )
    .unwrap();
    assert_eq!(r.resimulated, all - t);
    assert!(r.snapshot_refused.is_none());
    assert_eq!(r.world.hash(), old.m.world().unwrap().hash());
    // The same state said to be after another turn: its hash is not that turn's.
    let r = rebuild(
        old.m.config(),
        records.clone(),
        Some((t - 1, snap.clone())),
        rules.clone(),
    )
    .unwrap();
    assert_eq!(r.resimulated, all);
    assert!(r.snapshot_refused.is_some());
    assert_eq!(r.world.hash(), old.m.world().unwrap().hash());
    // A snapshot past the replay's end (the replay lost its last records).
    let r = rebuild(
        old.m.config(),
        records[..5].to_vec(),
        Some((t, snap)),
        rules,
    )
    .unwrap();
    assert_eq!(r.resimulated, 5);
    assert!(r.snapshot_refused.unwrap().contains("holds 5 turns"));
}

#[test]
fn a_record_whose_hash_does_not_re_simulate_is_refused_with_its_turn() {
    let old = played();
    let (_, rules) = settings(2);
    let mut records = old.replay.clone();
    records[13].hash = cohort_sim::StateHash([7; 32]);
    match rebuild(old.m.config(), records, None, rules) {
        Err(RebuildError::Hash { turn, .. }) => assert_eq!(turn, 13),
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a wrong hash was taken"),
    }
}

#[test]
fn a_suspended_match_plays_its_open_turn_saves_its_state_and_closes_without_ending() {
    let mut old = played();
    let c = old.stop(0);
    old.send(1, commands(old.m.next_turn(), vec![c]));
    let open = old.m.next_turn();
    old.event(Event::Suspend);
    assert!(old.suspended);
    assert_eq!(old.ended, None, "not ended: kept to be taken up again");
    assert_eq!(
        old.replay.len() as u64,
        open + 1,
        "its open turn played and recorded"
    );
    assert!(!old.replay.last().unwrap().bundle.commands.is_empty());
    for peer in [1, 2, 9] {
        assert!(old.closed_suspended.contains(&peer), "closed as suspended");
        assert!(!old
            .take(peer)
            .iter()
            .any(|m| matches!(m, ServerMessage::MatchEnded(_))));
    }
    let (turns, snap) = last_saved(&old);
    assert_eq!(turns, open + 1);
    let (_, rules) = settings(2);
    let r = rebuild(
        old.m.config(),
        old.replay.clone(),
        Some((turns, snap)),
        rules,
    )
    .unwrap();
    assert_eq!(
        r.resimulated, 0,
        "the state saved is the state after its last turn"
    );
    let mut h = resumed(&old, Some(last_saved(&old)));
    h.join(11, Role::Player(0));
    h.join(12, Role::Player(1));
    h.turns(2);
    assert_eq!(h.bundles(11)[0].turn, open + 1);
    assert!(resimulates(&h));
}

#[test]
fn a_shutdown_that_keeps_matches_suspends_a_running_one_as_an_operator_would() {
    let mut old = played();
    let c = old.stop(1);
    old.send(2, commands(old.m.next_turn(), vec![c]));
    let open = old.m.next_turn();
    old.event(Event::ShutdownSuspend);
    assert!(old.suspended, "suspended, its state kept");
    assert_eq!(old.ended, None, "not ended");
    assert_eq!(old.replay.len() as u64, open + 1, "its open turn recorded");
    for peer in [1, 2, 9] {
        assert!(old.closed_suspended.contains(&peer), "closed as suspended");
        assert!(!old
            .take(peer)
            .iter()
            .any(|m| matches!(m, ServerMessage::MatchEnded(_))));
    }
    assert_eq!(
        last_saved(&old).0,
        open + 1,
        "the state after its last turn"
    );
    // A join meanwhile is closed as suspended too: the player tries again.
    old.join(20, Role::Player(0));
    assert!(old.closed_suspended.contains(&20));
    assert!(old.take(20).is_empty(), "no Error before the close");
    // The next start takes it up at its next turn.
    let mut h = resumed(&old, Some(last_saved(&old)));
    h.join(11, Role::Player(0));
    h.join(12, Role::Player(1));
    h.turns(2);
    assert_eq!(h.bundles(11)[0].turn, open + 1);
    assert!(resimulates(&h));
}

#[test]
fn a_shutdown_that_keeps_matches_ends_one_still_in_its_lobby() {
    let (mut s, _) = settings(2);
    s.snapshot_every = Some(8);
    let mut h = Harness::with(s);
    h.join(1, Role::Player(0));
    h.event(Event::ShutdownSuspend);
    assert!(!h.suspended, "nothing to keep before it began");
    assert_eq!(h.ended, Some(EndReason::ServerShutdown));
    assert!(h.closed.contains(&1) && h.closed_suspended.is_empty());
}
