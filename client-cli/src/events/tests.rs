//! `cohort play`'s lines for given events, and what they make of its exit code.

use super::*;
use crate::core::TurnStatus;
use cohort_protocol::message::{
    ChatLine, DesyncNotice, EndReason, Error, MatchEnded, Paused, Rescheduled, Resumed,
};
use cohort_sim::StateHash;
use std::time::Duration;

/// Player 1 of a match of 100 ms turns: the status every 10 turns.
const VIEW: ClientView = ClientView {
    turn_ms: Some(100),
    player: Some(1),
};

fn shown(p: &mut EventPrinter, e: Event) -> Option<(Stream, String)> {
    p.line(VIEW, &e).map(|s| (s.stream, s.text))
}

fn o(s: &str) -> Option<(Stream, String)> {
    Some((Stream::Out, s.to_string()))
}

fn e(s: &str) -> Option<(Stream, String)> {
    Some((Stream::Err, s.to_string()))
}

fn turn(turn: u64, previous_agrees: Option<bool>, rtt: Option<u64>) -> Event {
    Event::Turn(TurnStatus {
        turn,
        hash: None,
        previous_agrees,
        input_delay: 3,
        rtt: rtt.map(Duration::from_millis),
    })
}

#[test]
fn the_turns_status_is_shown_about_once_a_second_and_on_every_disagreement() {
    let mut p = EventPrinter::new();
    assert_eq!(
        shown(&mut p, turn(20, Some(true), Some(42))),
        o("turn     20  ping 42 ms  input delay 3  hashes agree")
    );
    assert_eq!(shown(&mut p, turn(21, Some(true), Some(42))), None);
    assert_eq!(shown(&mut p, turn(29, None, None)), None);
    assert_eq!(
        shown(&mut p, turn(30, None, None)),
        o("turn     30  ping -  input delay 3  hash pending")
    );
    assert_eq!(
        shown(&mut p, turn(31, Some(false), None)),
        o("turn     31  ping -  input delay 3  HASHES DIFFER")
    );
    assert!(!p.diverged, "a turn's status alone is no divergence");
    // Before the join: every 8 turns.
    let mut q = EventPrinter::new();
    assert_eq!(q.line(ClientView::default(), &turn(12, None, None)), None);
    assert!(q
        .line(ClientView::default(), &turn(16, None, None))
        .is_some());
}

#[test]
fn the_match_s_news_go_to_stdout() {
    let mut p = EventPrinter::new();
    let joined = Event::Joined {
        match_id: "m7".into(),
        role: Role::Player(1),
        next_turn: 0,
        input_delay: 2,
    };
    assert_eq!(
        shown(&mut p, joined),
        o("joined match m7 as player 1 at turn 0, input delay 2")
    );
    let watching = Event::Joined {
        match_id: "m7".into(),
        role: Role::Spectator,
        next_turn: 40,
        input_delay: 2,
    };
    assert_eq!(
        shown(&mut p, watching),
        o("joined match m7 as spectator at turn 40, input delay 2")
    );
    assert_eq!(
        shown(&mut p, Event::SnapshotLoaded { turn: 39 }),
        o("loaded the state after turn 39")
    );
    let checked = |agrees| Event::SnapshotChecked { turn: 39, agrees };
    assert_eq!(
        shown(&mut p, checked(true)),
        o("the state after turn 39 agrees with the server's")
    );
    assert_eq!(
        shown(&mut p, checked(false)),
        o("the state after turn 39 DIFFERS FROM the server's")
    );
    assert_eq!(
        shown(&mut p, Event::InputDelay(4)),
        o("input delay is now 4 turns")
    );
    let late = Rescheduled {
        asked: 10,
        turn: 12,
        count: 2,
    };
    assert_eq!(
        shown(&mut p, Event::Rescheduled(late)),
        o("2 order(s) for turn 10 were late and run at turn 12")
    );
    let chat = ChatLine {
        from: Role::Player(0),
        name: "ana".into(),
        text: "gl hf".into(),
    };
    assert_eq!(shown(&mut p, Event::Chat(chat)), o("<ana> gl hf"));
    let paused = Paused {
        by: 0,
        pauses_left: 2,
        resumes_in_ms: 30_500,
    };
    assert_eq!(
        shown(&mut p, Event::Paused(paused)),
        o("paused by player 0 (2 pause(s) left; resumes by itself in 30 s)")
    );
    assert_eq!(
        shown(&mut p, Event::Resumed(Resumed { by: Some(0) })),
        o("resumed by player 0")
    );
    assert_eq!(
        shown(&mut p, Event::Resumed(Resumed { by: None })),
        o("resumed")
    );
    assert_eq!(shown(&mut p, Event::Help("a\nb")), o("a\nb"));
    let ended = MatchEnded {
        last_turn: 99,
        reason: EndReason::TurnLimit,
    };
    assert_eq!(
        shown(&mut p, Event::Ended(ended)),
        o("the match ended after turn 99 (TurnLimit)")
    );
    assert!(!p.diverged && !p.closed_by_error);
}

#[test]
fn a_disagreement_or_a_desync_naming_this_player_is_a_divergence() {
    let mut p = EventPrinter::new();
    let notice = |players: Vec<u8>, continuing| DesyncNotice {
        turn: 5,
        players,
        server_hash: StateHash([0; 32]),
        continuing,
    };
    assert_eq!(
        shown(&mut p, Event::Desync(notice(vec![0], true))),
        o("desync after turn 5 (players [0]); the match goes on")
    );
    assert!(!p.diverged, "another player's desync");
    assert_eq!(
        shown(&mut p, Event::Desync(notice(vec![0, 1], false))),
        o("desync after turn 5 (players [0, 1]); the match stops")
    );
    assert!(p.diverged);

    let mut q = EventPrinter::new();
    let (mine, server) = (StateHash([0xab; 32]), StateHash([0x01; 32]));
    assert_eq!(
        shown(
            &mut q,
            Event::HashDisagrees {
                turn: 7,
                mine,
                server
            }
        ),
        o(&format!(
            "DESYNC after turn 7: mine {}, server's {}",
            "ab".repeat(32),
            "01".repeat(32)
        ))
    );
    assert!(q.diverged);
}

#[test]
fn trouble_goes_to_stderr_and_a_closing_error_but_lag_is_an_error_exit() {
    let mut p = EventPrinter::new();
    let error = |code, closes| Event::ServerError {
        error: Error {
            code,
            text: "why".into(),
        },
        closes,
    };
    assert_eq!(
        shown(&mut p, error(ErrorCode::Lagging, false)),
        e("server: Lagging: why")
    );
    assert!(!p.closed_by_error);
    assert_eq!(
        shown(&mut p, error(ErrorCode::DroppedForLag, true)),
        e("server: DroppedForLag: why (connection closed)")
    );
    assert!(
        !p.closed_by_error,
        "dropped for lag: the seat is taken back"
    );
    assert_eq!(
        shown(&mut p, error(ErrorCode::BadToken, true)),
        e("server: BadToken: why (connection closed)")
    );
    assert!(p.closed_by_error);
    assert!(!p.diverged);
    assert_eq!(
        shown(&mut p, Event::ServerSilent),
        e("the server fell silent: connection lost")
    );
    assert_eq!(
        shown(&mut p, Event::ConnectionLost("reset".into())),
        e("connection lost: reset")
    );
    let again = Event::Reconnecting {
        why: "reset".into(),
        attempt: 2,
        attempts: 5,
        wait: Duration::from_millis(1500),
    };
    assert_eq!(
        shown(&mut p, again),
        e("connection lost (reset); reconnecting in 1500 ms (try 2 of 5)")
    );
    assert_eq!(
        shown(
            &mut p,
            Event::Refused("a spectator cannot give orders".into())
        ),
        e("refused: a spectator cannot give orders")
    );
}
