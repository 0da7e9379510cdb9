//! The client core without sockets: messages in, messages and events out, a fake clock.

use super::*;
use crate::text::parse_line;
use cohort_protocol::codec::encode_snapshot;
use cohort_protocol::message::{EndReason, Membership, MembershipEvent};
use cohort_protocol::setup::run_bundle;
use cohort_sim::{fx, EntityId, PlayerCommand, Vec2};

fn rules() -> Arc<Ruleset> {
    Arc::new(Ruleset::default_rules())
}

fn config() -> MatchConfig {
    let mut c = MatchConfig::standard("core", &rules(), 2);
    c.turn_ticks = 2;
    c
}

fn options() -> ClientOptions {
    ClientOptions {
        token: "cohort1.core.1.99.ab".into(),
        name: "ana".into(),
        simulate: true,
        perturb_at_turn: None,
        perturb_at_tick: None,
    }
}

fn accepted(role: Role, next_turn: u64, snapshot_follows: bool) -> ServerMessage {
    ServerMessage::JoinAccepted(JoinAccepted {
        config: config(),
        role,
        next_turn,
        input_delay: 2,
        snapshot_follows,
    })
}

fn drain(c: &mut ClientCore) -> Vec<ClientMessage> {
    std::iter::from_fn(|| c.poll_transmit()).collect()
}

fn events(c: &mut ClientCore) -> Vec<Event> {
    std::iter::from_fn(|| c.poll_event()).collect()
}

/// The reference: the server's side of the same turns.
struct Server {
    world: World,
    hashes: Vec<StateHash>,
    /// Each turn's tick hashes.
    ticks: Vec<Vec<TickHash>>,
}

impl Server {
    fn new() -> Server {
        Server {
            world: config().world(rules()).unwrap(),
            hashes: Vec::new(),
            ticks: Vec::new(),
        }
    }

    fn bundle(&mut self, commands: Vec<PlayerCommand>) -> TurnBundle {
        let turn = self.hashes.len() as u64;
        let b = TurnBundle {
            turn,
            input_delay: None,
            events: vec![],
            commands,
            previous_hash: self.hashes.last().copied(),
        };
        let ticks =
            cohort_protocol::setup::run_bundle_hashed(&mut self.world, &b, config().turn_ticks);
        self.ticks.push(ticks);
        self.hashes.push(self.world.hash());
        b
    }
}

fn joined(role: Role, opts: ClientOptions) -> ClientCore {
    let mut c = ClientCore::new(opts, rules());
    c.start(Instant::now());
    c.handle_message(accepted(role, 0, false), Instant::now());
    drain(&mut c);
    events(&mut c);
    c
}

fn a_move(world: &World, player: u8) -> PlayerCommand {
    let unit = world
        .state
        .units
        .iter()
        .find(|u| u.owner == player)
        .unwrap()
        .id;
    PlayerCommand {
        player,
        command: Command::Move {
            units: vec![unit],
            to: Vec2::new(fx(50), fx(50)),
        },
    }
}

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

#[test]
fn a_rejoining_client_loads_the_snapshot_checks_it_and_catches_up() {
    let mut server = Server::new();
    for t in 0..5 {
        let commands = if t == 1 {
            vec![a_move(&server.world, 0)]
        } else {
            vec![]
        };
        server.bundle(commands);
    }
    // The snapshot after turn 4, in two pieces; bundles 5 and 6 arrive before the last piece.
    let bytes = encode_snapshot(&server.world.snapshot()).unwrap();
    let half = bytes.len() / 2;
    let mut c = ClientCore::new(options(), rules());
    c.start(Instant::now());
    c.handle_message(accepted(Role::Player(0), 5, true), Instant::now());
    assert_eq!(c.phase(), Phase::Loading);
    let piece = |index: u32, b: &[u8]| {
        ServerMessage::Snapshot(SnapshotChunk {
            turn: 4,
            index,
            count: 2,
            bytes: b.to_vec(),
        })
    };
    c.handle_message(piece(1, &bytes[half..]), Instant::now());
    for _ in 0..2 {
        let b = server.bundle(vec![a_move(&server.world, 1)]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    assert_eq!(c.tally().turns_run, 0);
    c.handle_message(piece(0, &bytes[..half]), Instant::now());
    assert_eq!(c.phase(), Phase::Playing);
    assert_eq!(c.tally().turns_run, 2);
    let hashes: Vec<TurnHash> = drain(&mut c)
        .into_iter()
        .filter_map(|m| match m {
            ClientMessage::TurnHash(h) => Some(h),
            _ => None,
        })
        .collect();
    assert_eq!(
        hashes,
        vec![
            TurnHash {
                turn: 5,
                hash: server.hashes[5]
            },
            TurnHash {
                turn: 6,
                hash: server.hashes[6]
            },
        ]
    );
    let ev = events(&mut c);
    assert!(ev.contains(&Event::SnapshotLoaded { turn: 4 }));
    assert!(ev.contains(&Event::SnapshotChecked {
        turn: 4,
        agrees: true
    }));
}

/// The client's answer to a snapshot request carrying `server_ticks`, put back together.
fn evidence(
    c: &mut ClientCore,
    turn: u64,
    server_ticks: &[TickHash],
) -> cohort_protocol::report::Evidence {
    c.handle_message(
        ServerMessage::SnapshotRequest {
            turn,
            tick_hashes: server_ticks.to_vec(),
        },
        Instant::now(),
    );
    let mut bytes = Vec::new();
    for m in drain(c) {
        let ClientMessage::Snapshot(chunk) = m else {
            panic!("{m:?}")
        };
        assert_eq!(chunk.turn, turn);
        assert!(chunk.bytes.len() <= SNAPSHOT_CHUNK_BYTES);
        bytes.extend(chunk.bytes);
    }
    cohort_protocol::codec::decode_evidence(&bytes).unwrap()
}

/// The client's state after `turn`, from its answer to a snapshot request.
fn answered_snapshot(c: &mut ClientCore, turn: u64) -> World {
    World::from_snapshot(rules(), evidence(c, turn, &[]).end).unwrap()
}

fn loaded(snapshot: Option<cohort_sim::world::Snapshot>) -> World {
    World::from_snapshot(rules(), snapshot.expect("a state")).unwrap()
}

#[test]
fn a_client_perturbed_mid_turn_sends_its_state_at_that_very_tick() {
    // Turns of 2 ticks; the nudge after tick 7, the first of turn 3.
    let mut c = joined(
        Role::Player(1),
        ClientOptions {
            perturb_at_tick: Some(7),
            ..options()
        },
    );
    let mut server = Server::new();
    for _ in 0..4 {
        let b = server.bundle(vec![a_move(&server.world, 1)]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    drain(&mut c);
    let mine = c.tick_hashes_of(3).unwrap().to_vec();
    assert_eq!(mine.len(), 2);
    assert_ne!(mine[0], server.ticks[3][0], "tick 7 differs");
    assert_eq!(c.tick_hashes_of(2).unwrap(), &server.ticks[2][..]);
    let e = evidence(&mut c, 3, &server.ticks[3]);
    assert!(e.notes.is_empty(), "{:?}", e.notes);
    assert_eq!(e.tick_hashes, mine);
    // Its start: the state after turn 2, which the server agreed with.
    let start = loaded(e.start);
    assert_eq!(start.hash(), server.hashes[2]);
    assert_eq!(start.tick(), 6);
    // Its state after tick 7, nudged: the tick hash it had live, the server's state but for x.
    let at = loaded(e.at_tick);
    assert_eq!((at.tick(), at.tick_hash()), (7, mine[0]));
    let mut theirs = start.clone();
    // Every turn's bundle moves the same unit to the same point.
    theirs.step(&[a_move(&start, 1)]);
    let (a, b) = (&at.state.units[0], &theirs.state.units[0]);
    assert_eq!(a.position.x - b.position.x, Fx::from_bits(1));
    let mut undone = at.clone();
    undone.state.units[0].position.x = b.position.x;
    assert_eq!(undone.hash(), theirs.hash(), "only that field differs");
    assert_eq!(loaded(Some(e.end)).hash(), c.hash_after(3).unwrap());
}

#[test]
fn a_snapshot_request_for_the_current_turn_is_answered_with_the_clients_state() {
    let mut c = joined(Role::Player(1), options());
    let mut server = Server::new();
    for _ in 0..3 {
        let b = server.bundle(vec![a_move(&server.world, 1)]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    drain(&mut c);
    assert_eq!(answered_snapshot(&mut c, 2).hash(), server.hashes[2]);
}

#[test]
fn a_snapshot_request_arriving_turns_later_gets_the_failing_turns_state() {
    let mut opts = options();
    opts.perturb_at_turn = Some(2);
    let mut c = joined(Role::Player(1), opts);
    let mut server = Server::new();
    // Turns 0 to 5 run; the bundle of turn 3 shows the client its hash of 2 contradicted.
    for _ in 0..6 {
        let b = server.bundle(vec![a_move(&server.world, 1)]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    drain(&mut c);
    assert_eq!(c.disagreed_state().map(|(t, _)| t), Some(2));
    let mine = c.hash_after(2).unwrap();
    assert_ne!(mine, server.hashes[2]);
    let world = answered_snapshot(&mut c, 2);
    assert_eq!(world.hash(), mine, "the state the client had after turn 2");
    assert_eq!(world.state.tick, 3 * u64::from(config().turn_ticks));
    // The current turn is still answered from the current state.
    assert_eq!(
        answered_snapshot(&mut c, 5).hash(),
        c.hash_after(5).unwrap()
    );
}

#[test]
fn a_snapshot_request_for_a_turn_gone_is_answered_with_the_reason() {
    let mut c = joined(Role::Player(1), options());
    let mut server = Server::new();
    for _ in 0..4 {
        let b = server.bundle(vec![]);
        c.handle_message(ServerMessage::TurnBundle(b), Instant::now());
    }
    drain(&mut c);
    c.handle_message(
        ServerMessage::SnapshotRequest {
            turn: 1,
            tick_hashes: vec![],
        },
        Instant::now(),
    );
    match &drain(&mut c)[..] {
        [ClientMessage::SnapshotUnavailable { turn: 1, reason }] => {
            assert!(reason.contains("after turn 1 is gone"), "{reason}");
            assert!(reason.len() <= cohort_protocol::limits::MAX_CHAT_BYTES);
        }
        other => panic!("{other:?}"),
    }
    let mut idle = joined(
        Role::Player(1),
        ClientOptions {
            simulate: false,
            ..options()
        },
    );
    idle.handle_message(
        ServerMessage::SnapshotRequest {
            turn: 0,
            tick_hashes: vec![],
        },
        Instant::now(),
    );
    assert!(matches!(
        &drain(&mut idle)[..],
        [ClientMessage::SnapshotUnavailable { turn: 0, .. }]
    ));
}

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
