//! The spectator delay: what spectators (and browsers watching) may be sent, and when.

use super::*;
use crate::watch::frame;
use cohort_protocol::codec::encode_message;
use cohort_protocol::limits::MAX_SPECTATORS;

/// One second at 64 ms a turn: 16 turns (15.6 rounded up).
const DELAY_SECS: u32 = 1;
const DELAY_TURNS: u64 = 16;

fn delayed(players: u8, max_turns: Option<u64>) -> Harness {
    let (mut s, _) = settings(players);
    s.spectator_delay_secs = DELAY_SECS;
    s.max_turns = max_turns;
    Harness::with(s)
}

/// Everything each peer was sent, kept across steps, every bundle acknowledged as it comes
/// (as a client does, so nobody lags out).
#[derive(Default)]
struct Seen {
    all: BTreeMap<PeerId, Vec<ServerMessage>>,
}

impl Seen {
    /// Takes what every peer was sent, checks the delay rule for spectators against the newest
    /// closed turn, and acknowledges the bundles.
    fn take(&mut self, h: &mut Harness, spectators: &[PeerId]) {
        let newest_closed = h.m.next_turn().checked_sub(1);
        let peers: Vec<PeerId> = h.inbox.keys().copied().collect();
        for peer in peers {
            let msgs = h.take(peer);
            let mut last = None;
            for m in &msgs {
                match m {
                    ServerMessage::TurnBundle(b) => {
                        if spectators.contains(&peer) && h.m.phase() != Phase::Ended {
                            let newest = newest_closed.expect("a bundle was released");
                            assert!(
                                b.turn + DELAY_TURNS <= newest,
                                "spectator {peer} got turn {} when turn {newest} was the newest closed",
                                b.turn
                            );
                        }
                        last = Some(b.turn);
                    }
                    ServerMessage::JoinAccepted(a) if spectators.contains(&peer) => {
                        assert_eq!(a.spectator_delay_secs, DELAY_SECS);
                        // Its first turn says nothing; the snapshot of the turn before does.
                        if let (Some(newest), Some(before)) =
                            (newest_closed, a.next_turn.checked_sub(1))
                        {
                            assert!(
                                before + DELAY_TURNS <= newest,
                                "spectator {peer} joined at {} when turn {newest} was the newest closed",
                                a.next_turn
                            );
                        }
                    }
                    ServerMessage::Snapshot(c) if spectators.contains(&peer) => {
                        let newest = newest_closed.expect("a snapshot after a closed turn");
                        assert!(
                            c.turn + DELAY_TURNS <= newest,
                            "snapshot of turn {}",
                            c.turn
                        );
                    }
                    _ => {}
                }
            }
            self.all.entry(peer).or_default().extend(msgs);
            if let Some(turn) = last {
                if !h.closed.contains(&peer) && h.m.phase() != Phase::Ended {
                    h.send(peer, ClientMessage::Ack { turn });
                }
            }
        }
    }

    /// The match's stream as `peer` received it, encoded: what the match broadcasts (bundles,
    /// chat, pauses, notices, the end), not what it sends each peer alone (pings, errors, the
    /// join, snapshots).
    fn stream(&self, peer: PeerId) -> Vec<Vec<u8>> {
        self.all
            .get(&peer)
            .into_iter()
            .flatten()
            .filter(|m| {
                matches!(
                    m,
                    ServerMessage::TurnBundle(_)
                        | ServerMessage::Chat(_)
                        | ServerMessage::Paused(_)
                        | ServerMessage::Resumed(_)
                        | ServerMessage::DesyncNotice(_)
                        | ServerMessage::MatchEnded(_)
                )
            })
            .map(|m| encode_message(m).unwrap())
            .collect()
    }
}

/// Steps the match a turn at a time (and a part of one, so joins fall anywhere in a turn).
fn step(h: &mut Harness, seen: &mut Seen, spectators: &[PeerId], ms: u64) {
    h.advance(ms);
    seen.take(h, spectators);
}

fn bundle_turn(encoded: &[u8]) -> Option<u64> {
    match cohort_protocol::codec::decode_message::<ServerMessage>(encoded).ok()? {
        ServerMessage::TurnBundle(b) => Some(b.turn),
        _ => None,
    }
}

#[test]
fn a_spectator_joining_at_any_moment_never_sees_a_turn_within_the_delay() {
    // Joins in the lobby, before the delay has passed, and later, at odd moments in a turn.
    for join_after_ms in [0, 5, 64 * 3 + 17, 64 * 15 + 63, 64 * 16, 64 * 40 + 31] {
        let mut h = delayed(2, None);
        let mut seen = Seen::default();
        h.join(1, Role::Player(0));
        h.join(2, Role::Player(1));
        let spectators = [9];
        step(&mut h, &mut seen, &spectators, join_after_ms);
        h.join(9, Role::Spectator);
        seen.take(&mut h, &spectators);
        for _ in 0..60 {
            let c = h.stop(0);
            let turn = h.m.next_turn();
            h.send(1, commands(turn, vec![c]));
            h.send(
                1,
                ClientMessage::Chat {
                    text: format!("turn {turn}"),
                },
            );
            step(&mut h, &mut seen, &spectators, 64);
        }
        let got: Vec<u64> = seen
            .stream(9)
            .iter()
            .filter_map(|b| bundle_turn(b))
            .collect();
        assert!(
            !got.is_empty(),
            "joined after {join_after_ms} ms: the spectator got turns"
        );
        let newest = h.m.next_turn() - 1;
        assert_eq!(
            got.last().copied(),
            Some(newest - DELAY_TURNS),
            "and it is kept exactly the delay behind, no more"
        );
        // Chat said during turn K reaches it only with bundle K.
        for (i, m) in seen.all[&9].iter().enumerate() {
            if let ServerMessage::Chat(c) = m {
                let said: u64 = c.text.trim_start_matches("turn ").parse().unwrap();
                let next = seen.all[&9][i..].iter().find_map(|m| match m {
                    ServerMessage::TurnBundle(b) => Some(b.turn),
                    _ => None,
                });
                assert!(
                    next.is_none_or(|t| t == said),
                    "chat of turn {said} before bundle {next:?}"
                );
            }
        }
    }
}

#[test]
fn a_spectators_stream_is_the_players_stream_byte_for_byte_only_later() {
    let mut h = delayed(2, Some(50));
    let mut seen = Seen::default();
    let spectators = [8, 9];
    // One watches from the lobby, one joins mid-match with a snapshot.
    h.join(8, Role::Spectator);
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    for i in 0..200 {
        if i == 25 {
            h.join(9, Role::Spectator);
        }
        if i == 10 {
            h.send(2, ClientMessage::Pause);
        }
        if i == 12 {
            h.send(2, ClientMessage::Resume);
        }
        let c = h.stop(0);
        let turn = h.m.next_turn();
        h.send(1, commands(turn, vec![c]));
        if i % 3 == 0 {
            h.send(
                2,
                ClientMessage::Chat {
                    text: format!("line {i}"),
                },
            );
        }
        step(&mut h, &mut seen, &spectators, 64);
        if h.closed.contains(&8) && h.closed.contains(&9) {
            break;
        }
    }
    assert_eq!(h.ended, Some(EndReason::TurnLimit));
    let player = seen.stream(1);
    assert!(matches!(
        cohort_protocol::codec::decode_message::<ServerMessage>(player.last().unwrap()).unwrap(),
        ServerMessage::MatchEnded(_)
    ));
    assert_eq!(seen.stream(8), player, "the whole stream, byte for byte");
    // The mid-match joiner: the players' stream from its first turn on.
    let joined_at = seen.all[&9]
        .iter()
        .find_map(|m| match m {
            ServerMessage::JoinAccepted(a) => Some(a.next_turn),
            _ => None,
        })
        .unwrap();
    assert!(joined_at > 0);
    let from = player
        .iter()
        .position(|b| bundle_turn(b) == Some(joined_at))
        .unwrap();
    // Frames held before its join and released after it (chat of its first turn) come too.
    let late = seen.stream(9);
    assert!(player.ends_with(&late[late.len() - (player.len() - from)..]));
    assert!(late.len() >= player.len() - from);
    // Its snapshot is the server's state after the turn before, run in the delayed world.
    let pieces: Vec<u8> = seen.all[&9]
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Snapshot(c) => Some(c.bytes.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    let snapshot = decode_snapshot(&pieces).unwrap();
    let world = cohort_sim::World::from_snapshot(h.rules.clone(), snapshot).unwrap();
    assert_eq!(Some(world.hash()), h.m.hash_after(joined_at - 1));
    assert!(resimulates(&h));
}

#[test]
fn rejoining_and_every_spectator_up_to_the_limit_hold() {
    let mut h = delayed(2, None);
    let mut seen = Seen::default();
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    let spectators: Vec<PeerId> = (100..100 + MAX_SPECTATORS as u64).collect();
    for (i, &s) in spectators.iter().enumerate() {
        step(&mut h, &mut seen, &spectators, 64 * (i as u64 % 3) + 7);
        h.join(s, Role::Spectator);
    }
    h.join(999, Role::Spectator);
    assert_eq!(h.errors(999), vec![ErrorCode::MatchFull]);
    h.event(Event::Watch { peer: 998 });
    assert!(h.closed.contains(&998), "a browser counts as a spectator");
    // One goes and comes back on a new connection: it picks up where spectators are.
    h.event(Event::Disconnected { peer: 100 });
    step(&mut h, &mut seen, &spectators, 64 * 5);
    h.join(200, Role::Spectator);
    let mut all = spectators.clone();
    all.push(200);
    for _ in 0..40 {
        step(&mut h, &mut seen, &all, 64);
    }
    let newest = h.m.next_turn() - 1;
    for &s in all.iter().skip(1) {
        let last = seen.stream(s).iter().rev().find_map(|b| bundle_turn(b));
        assert_eq!(last, Some(newest - DELAY_TURNS), "spectator {s}");
        assert!(!h.closed.contains(&s), "spectator {s} kept");
    }
    let rejoined = seen.stream(200);
    let first = rejoined.iter().find_map(|b| bundle_turn(b)).unwrap();
    let reference = seen.stream(101);
    let from = reference
        .iter()
        .position(|b| bundle_turn(b) == Some(first))
        .unwrap();
    assert!(reference[from..].ends_with(&rejoined[rejoined.len() - (reference.len() - from)..]));
}

#[test]
fn what_is_held_for_spectators_is_bounded_by_the_delay() {
    let mut h = delayed(2, None);
    let mut seen = Seen::default();
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    h.join(9, Role::Spectator);
    for i in 0..300 {
        h.send(
            1,
            ClientMessage::Chat {
                text: format!("{i}"),
            },
        );
        step(&mut h, &mut seen, &[9], 64);
        // A turn's bundle and one chat line a turn, for the delay's turns and the open one.
        assert!(
            h.m.spectators_held() <= 2 * (DELAY_TURNS as usize + 1),
            "turn {i}"
        );
    }
    assert!(h.m.spectators_held() >= DELAY_TURNS as usize);
}

#[test]
fn spectators_chat_reaches_spectators_at_once_and_never_the_players() {
    let mut h = delayed(2, None);
    let mut seen = Seen::default();
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    h.join(8, Role::Spectator);
    h.join(9, Role::Spectator);
    step(&mut h, &mut seen, &[8, 9], 64);
    h.send(9, ClientMessage::Chat { text: "gg".into() });
    let heard = |m: &ServerMessage| matches!(m, ServerMessage::Chat(c) if c.text == "gg");
    assert!(h.inbox[&8].iter().any(heard), "at once");
    for _ in 0..40 {
        step(&mut h, &mut seen, &[8, 9], 64);
    }
    assert!(!seen.all[&1].iter().any(heard));
    assert!(!seen.all[&2].iter().any(heard));
}

#[test]
fn after_the_end_spectators_watch_on_to_the_end_of_their_stream_and_a_shutdown_cuts_it_short() {
    for shutdown in [false, true] {
        let mut h = delayed(2, Some(30));
        let mut seen = Seen::default();
        h.join(1, Role::Player(0));
        h.join(2, Role::Player(1));
        h.join(9, Role::Spectator);
        h.event(Event::Watch { peer: 7 });
        while h.ended.is_none() {
            step(&mut h, &mut seen, &[9], 64);
        }
        assert!(
            h.closed.contains(&1) && h.closed.contains(&2),
            "players told at once"
        );
        assert!(!h.closed.contains(&9) && !h.closed.contains(&7));
        assert!(h.m.draining());
        let got_at_end = seen.stream(9).iter().filter_map(|b| bundle_turn(b)).max();
        assert_eq!(got_at_end, Some(29 - DELAY_TURNS));
        if shutdown {
            h.event(Event::Shutdown);
        } else {
            for _ in 0..2 * DELAY_TURNS {
                step(&mut h, &mut seen, &[9], 64);
            }
        }
        seen.take(&mut h, &[9]);
        assert!(!h.m.draining());
        assert_eq!(h.m.poll_timeout(), None);
        assert!(h.closed.contains(&9) && h.closed.contains(&7));
        let stream = seen.stream(9);
        let last = cohort_protocol::codec::decode_message::<ServerMessage>(stream.last().unwrap());
        let ServerMessage::MatchEnded(end) = last.unwrap() else {
            panic!("the stream ends with MatchEnded");
        };
        let turns: Vec<u64> = stream.iter().filter_map(|b| bundle_turn(b)).collect();
        if shutdown {
            assert_eq!(end.reason, EndReason::ServerShutdown);
            assert_eq!(turns.last(), Some(&(29 - DELAY_TURNS)));
        } else {
            assert_eq!(end.reason, EndReason::TurnLimit);
            assert_eq!(
                turns,
                (0..30).collect::<Vec<_>>(),
                "every turn, then the end"
            );
            assert_eq!(stream, seen.stream(1));
        }
    }
}

#[test]
fn a_browser_is_shown_only_released_turns_as_the_server_ran_them() {
    let mut h = delayed(2, None);
    let mut seen = Seen::default();
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    step(&mut h, &mut seen, &[], 64 * 20);
    h.event(Event::Watch { peer: 7 });
    for _ in 0..40 {
        let c = h.stop(1);
        let turn = h.m.next_turn();
        h.send(2, commands(turn, vec![c]));
        h.advance(64);
        let newest = h.m.next_turn() - 1;
        for f in h.views.get(&7).into_iter().flatten() {
            if f[4] == frame::TURN {
                let turn = u64::from(u32::from_le_bytes(f[5..9].try_into().unwrap()));
                assert!(
                    turn + DELAY_TURNS <= newest,
                    "view of turn {turn} at {newest}"
                );
            }
        }
        seen.take(&mut h, &[]);
    }
    let frames = &h.views[&7];
    assert_eq!(frames[0][4], frame::INTRO);
    assert_eq!(frames[1][4], frame::RESOURCES);
    // Each view is the server's own state after its turn, re-run from the replay.
    let mut w = h.m.config().world(h.rules.clone()).unwrap();
    let mut shown = 0;
    for r in &h.replay {
        run_bundle(&mut w, &r.bundle, h.m.config().turn_ticks);
        let expected = frame::turn(&w, 2, r.bundle.turn);
        if frames.iter().any(|f| **f == expected) {
            shown += 1;
        }
    }
    assert!(shown >= 40, "{shown} turns shown as the server ran them");
}

#[test]
fn without_a_delay_spectators_get_the_stream_live_as_before() {
    let mut h = Harness::started(2);
    h.join(9, Role::Spectator);
    h.event(Event::Watch { peer: 7 });
    h.turns(3);
    let b = h.bundles(9);
    assert_eq!(b.last().map(|b| b.turn), Some(h.m.next_turn() - 1));
    let last_view = h.views[&7].last().unwrap();
    assert_eq!(last_view[4], frame::TURN);
    assert_eq!(
        u64::from(u32::from_le_bytes(last_view[5..9].try_into().unwrap())),
        h.m.next_turn() - 1
    );
}
