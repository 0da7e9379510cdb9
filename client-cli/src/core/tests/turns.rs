//! The handshake, turns run in order and their hashes, the nudge, orders, spectators and clients
//! without the sim.

use super::*;

#[test]
fn the_handshake_sends_version_ruleset_token_and_name() {
    let mut c = ClientCore::new(options(), rules());
    assert_eq!(c.phase(), Phase::Idle);
    c.start(Instant::now());
    match drain(&mut c).as_slice() {
        [ClientMessage::Hello(h)] => {
            assert_eq!(h.protocol_version, PROTOCOL_VERSION);
            assert_eq!(h.ruleset_hash, rules().hash());
            assert_eq!(h.token, options().token);
            assert_eq!(h.client_name, "ana");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(c.phase(), Phase::Joining);
    c.handle_message(accepted(Role::Player(1), 0, false), Instant::now());
    assert_eq!(c.phase(), Phase::Playing);
    assert_eq!(c.player(), Some(1));
    assert!(matches!(events(&mut c)[0], Event::Joined { .. }));
}

#[test]
fn bundles_run_in_turn_order_and_every_hash_goes_back() {
    let mut c = joined(Role::Player(1), options());
    let mut server = Server::new();
    for t in 0..6 {
        let commands = if t == 2 {
            vec![a_move(&server.world, 0), a_move(&server.world, 1)]
        } else {
            vec![]
        };
        let b = server.bundle(commands);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
        match drain(&mut c).as_slice() {
            [ClientMessage::TurnHash(h)] => {
                assert_eq!(h.turn, t);
                assert_eq!(h.hash, server.hashes[t as usize]);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(c.tally().turns_run, 6);
    assert_eq!(
        c.tally().hashes_agreed,
        5,
        "turns 0-4 confirmed by bundles 1-5"
    );
    assert_eq!(c.tally().hashes_disagreed, 0);
}

#[test]
fn a_bundle_out_of_turn_ends_the_client_with_a_reason() {
    let mut c = joined(Role::Player(0), options());
    let mut server = Server::new();
    server.bundle(vec![]);
    let b = server.bundle(vec![]);
    c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    assert_eq!(c.phase(), Phase::Over);
    assert!(events(&mut c)
        .iter()
        .any(|e| matches!(e, Event::ServerError { closes: true, .. })));
}

#[test]
fn the_perturbed_client_disagrees_from_that_turn_on() {
    let mut c = joined(
        Role::Player(1),
        ClientOptions {
            perturb_at_turn: Some(3),
            ..options()
        },
    );
    let mut server = Server::new();
    for t in 0..6u64 {
        let b = server.bundle(vec![]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
        let [ClientMessage::TurnHash(h)] = drain(&mut c)[..] else {
            panic!()
        };
        assert_eq!(h.hash == server.hashes[t as usize], t < 3, "turn {t}");
    }
    let disagreements: Vec<u64> = events(&mut c)
        .iter()
        .filter_map(|e| match e {
            Event::HashDisagrees { turn, .. } => Some(*turn),
            _ => None,
        })
        .collect();
    assert_eq!(disagreements, vec![3, 4]);
}

#[test]
fn orders_are_meant_for_the_last_bundle_plus_the_input_delay() {
    let mut c = joined(Role::Player(0), options());
    let mut server = Server::new();
    assert_eq!(c.order_turn(), 2);
    c.handle_line(parse_line("stop 3").unwrap());
    match drain(&mut c).as_slice() {
        [ClientMessage::Commands(m)] => {
            assert_eq!(m.turn, 2);
            assert_eq!(
                m.commands,
                vec![Command::Stop {
                    units: vec![EntityId(3)]
                }]
            );
        }
        other => panic!("{other:?}"),
    }
    for _ in 0..4 {
        let b = server.bundle(vec![]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    assert_eq!(c.order_turn(), 5);
    let mut b = server.bundle(vec![]);
    b.input_delay = Some(5);
    c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    assert_eq!(c.input_delay(), 5);
    assert_eq!(c.order_turn(), 9);
    assert!(events(&mut c).contains(&Event::InputDelay(5)));
    // Many orders at once are split into messages within the protocol's limit.
    drain(&mut c);
    c.order(vec![
        Command::Stop {
            units: vec![EntityId(3)]
        };
        MAX_COMMANDS_PER_MESSAGE + 1
    ]);
    assert_eq!(drain(&mut c).len(), 2);
}

#[test]
fn a_spectator_runs_the_sim_but_gives_no_orders() {
    let mut c = joined(Role::Spectator, options());
    let mut server = Server::new();
    c.handle_line(parse_line("move 3 to 1 1").unwrap());
    assert!(drain(&mut c).is_empty());
    assert!(matches!(events(&mut c)[..], [Event::Refused(_)]));
    for _ in 0..3 {
        let b = server.bundle(vec![a_move(&server.world, 0)]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    assert_eq!(c.tally().hashes_agreed, 2);
    assert_eq!(c.world().unwrap().hash(), server.world.hash());
}

#[test]
fn a_client_without_the_sim_acknowledges_turns() {
    let mut c = joined(
        Role::Player(0),
        ClientOptions {
            simulate: false,
            ..options()
        },
    );
    let mut server = Server::new();
    let b = server.bundle(vec![]);
    c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    assert_eq!(drain(&mut c), vec![ClientMessage::Ack { turn: 0 }]);
    assert!(c.world().is_some(), "the starting world, for a bot's brain");
}
