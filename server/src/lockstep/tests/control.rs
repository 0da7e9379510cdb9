//! Pausing, chat, and ending a match (shutdown, an operator).

use super::*;

#[test]
fn pauses_stop_the_clock_and_are_limited_per_player() {
    let mut h = Harness::started(2);
    h.turns(1);
    h.take(1);
    h.take(2);
    for _ in 0..MAX_PAUSES_PER_PLAYER {
        h.send(1, ClientMessage::Pause);
        assert!(h.m.is_paused());
        h.turns(10);
        assert!(h.bundles(2).is_empty(), "no turn closes while paused");
        h.send(2, ClientMessage::Resume);
        assert!(!h.m.is_paused());
    }
    h.take(1);
    h.send(1, ClientMessage::Pause);
    assert_eq!(h.errors(1), vec![ErrorCode::PauseRefused]);
    h.send(2, ClientMessage::Pause);
    assert!(h.m.is_paused());
    h.advance(MAX_PAUSE_MS);
    assert!(!h.m.is_paused(), "a pause runs out");
    assert!(h
        .take(1)
        .contains(&ServerMessage::Resumed(Resumed { by: None })));
}

#[test]
fn chat_is_relayed_to_everyone() {
    let mut h = Harness::started(2);
    h.join(5, Role::Spectator);
    h.take(1);
    h.take(5);
    h.send(
        5,
        ClientMessage::Chat {
            text: "gl hf".into(),
        },
    );
    let line = ServerMessage::Chat(ChatLine {
        from: Role::Spectator,
        name: "c".into(),
        text: "gl hf".into(),
    });
    assert_eq!(h.take(1), vec![line.clone()]);
    assert_eq!(h.take(5), vec![line]);
}

#[test]
fn shutdown_finishes_the_turn_records_it_and_tells_everyone() {
    let mut h = Harness::started(2);
    h.turns(2);
    let c = h.stop(0);
    h.send(1, commands(2, vec![c.clone()]));
    h.take(1);
    h.event(Event::Shutdown);
    let msgs = h.take(1);
    let ServerMessage::TurnBundle(b) = &msgs[0] else {
        panic!("{msgs:?}")
    };
    assert_eq!((b.turn, b.commands[0].command.clone()), (2, c));
    assert_eq!(
        msgs[1],
        ServerMessage::MatchEnded(MatchEnded {
            last_turn: 2,
            reason: EndReason::ServerShutdown
        })
    );
    assert_eq!(h.replay.len(), 3);
    assert_eq!(h.ended, Some(EndReason::ServerShutdown));
    assert!(resimulates(&h));
    assert_eq!(h.m.poll_timeout(), None);
}

#[test]
fn an_operator_ends_a_running_match_its_open_turn_played_and_everyone_told() {
    let mut h = Harness::started(2);
    h.turns(2);
    let c = h.stop(0);
    h.send(1, commands(2, vec![c.clone()]));
    h.take(1);
    h.event(Event::End);
    let msgs = h.take(1);
    let ServerMessage::TurnBundle(b) = &msgs[0] else {
        panic!("{msgs:?}")
    };
    assert_eq!((b.turn, b.commands[0].command.clone()), (2, c));
    assert_eq!(
        msgs[1],
        ServerMessage::MatchEnded(MatchEnded {
            last_turn: 2,
            reason: EndReason::Operator
        })
    );
    assert_eq!(h.replay.len(), 3, "the open turn is recorded");
    assert_eq!(h.ended, Some(EndReason::Operator));
    assert!(h.closed.contains(&1) && h.closed.contains(&2));
    assert!(resimulates(&h));
    let roster = h.m.roster();
    assert_eq!(roster.len(), 2);
    assert!(roster
        .iter()
        .all(|s| s.status == PlayerStatus::Playing && s.joined && !s.connected));
}

#[test]
fn an_operator_ends_a_match_still_in_its_lobby_without_a_turn() {
    let mut h = Harness::new(2);
    h.join(1, Role::Player(0));
    h.event(Event::End);
    assert_eq!(
        h.take(1).last(),
        Some(&ServerMessage::MatchEnded(MatchEnded {
            last_turn: 0,
            reason: EndReason::Operator
        }))
    );
    assert!(h.replay.is_empty() && !h.replay_started);
    assert_eq!(h.ended, Some(EndReason::Operator));
    let joined: Vec<bool> = h.m.roster().iter().map(|s| s.joined).collect();
    assert_eq!(joined, vec![true, false]);
}
