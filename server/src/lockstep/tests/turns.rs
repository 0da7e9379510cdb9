//! Closing turns on time and scheduling commands: the lobby, late and refused commands, the input delay, the turn limit, a stalled server.

use super::*;

#[test]
fn the_lobby_waits_for_every_player_then_turn_0_says_who_joined() {
    let mut h = Harness::new(2);
    h.join(1, Role::Player(0));
    assert!(matches!(
        h.take(1)[0],
        ServerMessage::JoinAccepted(JoinAccepted {
            next_turn: 0,
            snapshot_follows: false,
            spectator_delay_secs: 0,
            ..
        })
    ));
    h.advance(1_000);
    assert!(h.bundles(1).is_empty(), "no turn closes in the lobby");
    assert_eq!(h.m.phase(), Phase::Lobby);
    h.join(2, Role::Player(1));
    assert_eq!(h.m.phase(), Phase::Running);
    assert!(h.replay_started);
    h.turns(1);
    let b = h.bundles(1);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].turn, 0);
    assert_eq!(
        b[0].events,
        vec![
            MembershipEvent {
                player: 0,
                change: Membership::Joined
            },
            MembershipEvent {
                player: 1,
                change: Membership::Joined
            }
        ]
    );
}

#[test]
fn turns_close_on_time_whoever_has_spoken() {
    let mut h = Harness::started(2);
    h.advance(h.turn_ms() - 1);
    assert!(h.bundles(1).is_empty());
    h.advance(1);
    h.turns(4);
    let turns: Vec<u64> = h.bundles(2).iter().map(|b| b.turn).collect();
    assert_eq!(turns, vec![0, 1, 2, 3, 4]);
    assert_eq!(h.m.turns_run(), 5);
    assert_eq!(h.replay.len(), 5);
}

#[test]
fn each_bundle_carries_the_servers_hash_of_the_turn_before() {
    let mut h = Harness::started(2);
    h.turns(3);
    let b = h.bundles(1);
    assert_eq!(b[0].previous_hash, None);
    assert_eq!(b[1].previous_hash, h.m.hash_after(0));
    assert_eq!(b[2].previous_hash, h.m.hash_after(1));
}

#[test]
fn commands_run_in_their_turn_by_player_slot() {
    let mut h = Harness::started(2);
    let (a, b) = (h.stop(0), h.stop(1));
    h.send(2, commands(2, vec![b.clone()]));
    h.send(1, commands(2, vec![a.clone()]));
    h.turns(3);
    let bundles = h.bundles(1);
    assert!(bundles[0].commands.is_empty() && bundles[1].commands.is_empty());
    let got: Vec<(u8, Command)> = bundles[2]
        .commands
        .iter()
        .map(|c| (c.player, c.command.clone()))
        .collect();
    assert_eq!(got, vec![(0, a), (1, b)]);
    assert!(h
        .take(1)
        .iter()
        .all(|m| !matches!(m, ServerMessage::Rescheduled(_))));
}

#[test]
fn a_late_command_goes_to_the_open_turn_and_its_sender_is_told() {
    let mut h = Harness::started(2);
    h.turns(3);
    h.take(1);
    h.take(2);
    let c = h.stop(0);
    h.send(1, commands(1, vec![c.clone()]));
    assert_eq!(
        h.take(1),
        vec![ServerMessage::Rescheduled(Rescheduled {
            asked: 1,
            turn: 3,
            count: 1
        })]
    );
    h.turns(1);
    let b = h.bundles(2);
    assert_eq!(b[0].turn, 3);
    assert_eq!(b[0].commands[0].command, c);
    assert_eq!(h.m.stats().commands_rescheduled, 1);
}

#[test]
fn a_flood_of_commands_is_refused_and_at_last_closed() {
    let mut h = Harness::started(2);
    let c = h.stop(0);
    let per = MAX_COMMANDS_PER_MESSAGE;
    let mut accepted = 0;
    for _ in 0..(COMMAND_BURST as usize / per + RATE_STRIKES as usize + 2) {
        h.send(1, commands(0, vec![c.clone(); per]));
        if h.closed.contains(&1) {
            break;
        }
        accepted += 1;
    }
    assert!(h.closed.contains(&1), "the flooder is closed");
    assert!(accepted >= COMMAND_BURST as usize / per);
    let errors = h.errors(1);
    assert!(errors.iter().all(|e| *e == ErrorCode::RateLimited));
    assert_eq!(errors.len(), RATE_STRIKES as usize);
    // The other player is unaffected and the match goes on; the flooder is dropped.
    h.turns(1);
    let b = h.bundles(2);
    assert_eq!(b.len(), 1);
    assert!(b[0].events.contains(&MembershipEvent {
        player: 0,
        change: Membership::Dropped
    }));
}

#[test]
fn commands_over_a_limit_are_refused_and_the_connection_stays() {
    let mut h = Harness::started(2);
    let c = h.stop(0);
    h.send(
        1,
        commands(0, vec![c.clone(); MAX_COMMANDS_PER_MESSAGE + 1]),
    );
    assert_eq!(h.errors(1), vec![ErrorCode::OverLimit]);
    h.send(1, commands(MAX_TURNS_AHEAD + 1, vec![c.clone()]));
    assert_eq!(h.errors(1), vec![ErrorCode::TooFarAhead]);
    h.send(
        1,
        ClientMessage::Chat {
            text: "x".repeat(MAX_CHAT_BYTES + 1),
        },
    );
    assert_eq!(h.errors(1), vec![ErrorCode::OverLimit]);
    assert!(h.closed.is_empty());
}

#[test]
fn commands_beyond_a_turns_share_move_to_the_next_turn() {
    let mut h = Harness::started(2);
    let c = h.stop(0);
    for _ in 0..3 {
        h.send(1, commands(0, vec![c.clone(); MAX_COMMANDS_PER_MESSAGE]));
    }
    h.turns(2);
    let b = h.bundles(1);
    assert_eq!(b[0].commands.len(), MAX_COMMANDS_PER_TURN);
    assert_eq!(
        b[1].commands.len(),
        3 * MAX_COMMANDS_PER_MESSAGE - MAX_COMMANDS_PER_TURN
    );
}

#[test]
fn the_input_delay_follows_round_trips_in_the_bundle_stream() {
    let (mut s, _) = settings(2);
    s.adaptive_delay = true;
    let mut h = Harness::with(s);
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    let start = h.m.input_delay();
    h.advance(0);
    // The server pings at once; player 1 answers 400 ms later.
    let nonce = h
        .take(2)
        .iter()
        .find_map(|m| match m {
            ServerMessage::Ping(p) => Some(p.nonce),
            _ => None,
        })
        .unwrap();
    h.advance(400);
    h.send(2, ClientMessage::Pong(Pong { nonce }));
    h.turns(1);
    let b = h.bundles(1);
    let changed: Vec<u32> = b.iter().filter_map(|b| b.input_delay).collect();
    assert_eq!(changed.len(), 1);
    assert!(changed[0] > start);
    assert_eq!(changed[0], h.m.input_delay());
    assert_eq!(
        changed[0],
        wanted_delay(400 + 400, h.turn_ms()),
        "smoothed round trip plus twice its variation"
    );
}

#[test]
fn the_turn_limit_ends_the_match() {
    let (mut s, _) = settings(2);
    s.max_turns = Some(5);
    let mut h = Harness::with(s);
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    h.turns(10);
    assert_eq!(h.bundles(1).len(), 5);
    assert_eq!(h.ended, Some(EndReason::TurnLimit));
    assert_eq!(h.replay.len(), 5);
}

#[test]
fn a_stalled_server_catches_up_a_few_turns_then_sets_its_clock_anew() {
    let mut h = Harness::started(2);
    // Nothing is handled for 20 turns; then one timeout fires.
    let late = h.now + Duration::from_millis(20 * h.turn_ms());
    h.m.handle_timeout(late);
    h.m.simulate();
    h.drain();
    h.now = late;
    assert_eq!(h.bundles(1).len(), MAX_CATCH_UP_TURNS as usize);
    h.turns(1);
    assert_eq!(h.bundles(1).len(), 1);
    let _ = h.t0;
}
