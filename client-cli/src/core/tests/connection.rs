//! Pings, chat, pause and leave, membership and the end, refusals, a silent server, and which
//! lost connections may be taken back.

use super::*;

#[test]
fn pings_measure_the_round_trip_and_server_pings_are_answered() {
    let mut c = joined(Role::Player(0), options());
    let t0 = Instant::now();
    c.handle_timeout(t0);
    let [ClientMessage::Ping(p)] = drain(&mut c)[..] else {
        panic!()
    };
    assert_eq!(
        c.poll_timeout(),
        Some(t0 + Duration::from_millis(PING_INTERVAL_MS))
    );
    c.handle_message(
        ServerMessage::Pong(Pong { nonce: p.nonce }),
        t0 + Duration::from_millis(42),
    );
    assert_eq!(c.rtt(), Some(Duration::from_millis(42)));
    c.handle_timeout(t0 + Duration::from_millis(10));
    assert!(drain(&mut c).is_empty(), "not yet time for the next ping");
    c.handle_message(ServerMessage::Ping(Ping { nonce: 9 }), t0);
    assert_eq!(drain(&mut c), vec![ClientMessage::Pong(Pong { nonce: 9 })]);
}

#[test]
fn chat_pause_resume_and_leave_go_out_as_messages() {
    let mut c = joined(Role::Player(0), options());
    for l in ["chat gl hf", "pause", "resume", "leave"] {
        c.handle_line(parse_line(l).unwrap());
    }
    assert_eq!(
        drain(&mut c),
        vec![
            ClientMessage::Chat {
                text: "gl hf".into()
            },
            ClientMessage::Pause,
            ClientMessage::Resume,
            ClientMessage::Leave { resign: false },
        ]
    );
    assert_eq!(c.phase(), Phase::Over);
}

#[test]
fn membership_events_and_the_end_of_the_match() {
    let mut c = joined(Role::Player(0), options());
    let mut server = Server::new();
    let mut b = server.bundle(vec![]);
    b.events = vec![MembershipEvent {
        player: 1,
        change: Membership::Dropped,
    }];
    // The server ran it without the event; run it again with it, as a real server would.
    let mut s2 = Server::new();
    run_bundle(&mut s2.world, &b, config().turn_ticks);
    c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    let [ClientMessage::TurnHash(h)] = drain(&mut c)[..] else {
        panic!()
    };
    assert_eq!(h.hash, s2.world.hash());
    c.handle_message(
        ServerMessage::MatchEnded(MatchEnded {
            last_turn: 0,
            reason: EndReason::TurnLimit,
        }),
        Instant::now(),
    );
    assert_eq!(c.phase(), Phase::Over);
}

#[test]
fn a_refusal_that_closes_ends_the_client_and_one_that_does_not_keeps_it() {
    let mut c = joined(Role::Player(0), options());
    c.handle_message(
        ServerMessage::error(ErrorCode::RateLimited, "slow down"),
        Instant::now(),
    );
    assert_eq!(c.phase(), Phase::Playing);
    c.handle_message(
        ServerMessage::error(ErrorCode::BadToken, "forged"),
        Instant::now(),
    );
    assert_eq!(c.phase(), Phase::Over);
}

#[test]
fn a_silent_server_loses_the_connection_and_the_seat_may_be_taken_back() {
    let t0 = Instant::now();
    let mut c = ClientCore::new(options(), rules());
    c.start(t0);
    let silence = Duration::from_millis(SERVER_SILENCE_MS);
    assert_eq!(
        c.poll_timeout(),
        Some(t0 + silence),
        "even the Hello's answer"
    );
    c.handle_message(accepted(Role::Player(1), 0, false), t0);
    // The server's pings keep the connection: each word heard moves the deadline.
    let later = t0 + Duration::from_millis(4_000);
    c.handle_message(ServerMessage::Ping(Ping { nonce: 1 }), later);
    c.handle_timeout(later + silence - Duration::from_millis(1));
    assert_eq!(c.phase(), Phase::Playing);
    assert!(c.may_rejoin());
    c.handle_timeout(later + silence);
    assert_eq!(c.phase(), Phase::Over);
    assert!(events(&mut c).contains(&Event::ServerSilent));
    assert!(
        c.may_rejoin(),
        "lost, not ended: the seat is still this client's"
    );
}

#[test]
fn only_a_lost_connection_or_a_drop_for_lag_may_be_rejoined() {
    let rejoinable = |m: ServerMessage| {
        let mut c = joined(Role::Player(0), options());
        c.handle_message(m, Instant::now());
        assert_eq!(c.phase(), Phase::Over);
        c.may_rejoin()
    };
    assert!(rejoinable(ServerMessage::error(
        ErrorCode::DroppedForLag,
        "slow"
    )));
    assert!(!rejoinable(ServerMessage::error(
        ErrorCode::Replaced,
        "elsewhere"
    )));
    assert!(!rejoinable(ServerMessage::error(
        ErrorCode::BadToken,
        "forged"
    )));
    assert!(!rejoinable(ServerMessage::MatchEnded(MatchEnded {
        last_turn: 0,
        reason: EndReason::TurnLimit,
    })));
    let mut left = joined(Role::Player(0), options());
    left.leave();
    assert!(!left.may_rejoin());
}
