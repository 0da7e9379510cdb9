//! The lockstep rules, with a fake clock and no sockets.

use super::*;
use cohort_protocol::codec::decode_snapshot;
use cohort_protocol::limits::MAX_COMMANDS_PER_TURN;
use cohort_protocol::limits::{
    COMMAND_BURST, LAG_DROP_TURNS, MAX_COMMANDS_PER_MESSAGE, MAX_PAUSES_PER_PLAYER, MAX_PAUSE_MS,
    MAX_TURNS_AHEAD, PROTOCOL_VERSION, SNAPSHOT_CHUNK_BYTES,
};
use cohort_protocol::message::{
    Commands, DesyncNotice, JoinAccepted, Membership, Rescheduled, Resumed, SnapshotChunk, TurnHash,
};
use cohort_protocol::setup::run_bundle;
use cohort_sim::{Command, EntityId};

struct Harness {
    m: Match,
    t0: Instant,
    now: Instant,
    rules: Arc<Ruleset>,
    /// Everything each peer was sent, in order.
    inbox: BTreeMap<PeerId, Vec<ServerMessage>>,
    closed: Vec<PeerId>,
    replay: Vec<TurnRecord>,
    replay_started: bool,
    reports: Vec<DesyncReport>,
    ended: Option<EndReason>,
}

fn settings(players: u8) -> (Settings, Arc<Ruleset>) {
    let rules = Arc::new(Ruleset::default_rules());
    let mut config = MatchConfig::standard("t", &rules, players);
    config.turn_ticks = 4;
    let mut s = Settings::new(config);
    s.adaptive_delay = false;
    (s, rules)
}

impl Harness {
    fn new(players: u8) -> Harness {
        let (s, _) = settings(players);
        Harness::with(s)
    }

    fn with(s: Settings) -> Harness {
        let rules = Arc::new(Ruleset::default_rules());
        let t0 = Instant::now();
        Harness {
            m: Match::new(s, rules.clone(), t0).unwrap(),
            t0,
            now: t0,
            rules,
            inbox: BTreeMap::new(),
            closed: Vec::new(),
            replay: Vec::new(),
            replay_started: false,
            reports: Vec::new(),
            ended: None,
        }
    }

    fn turn_ms(&self) -> u64 {
        self.m.config().turn_ms()
    }

    fn hello(&self) -> Hello {
        Hello {
            protocol_version: PROTOCOL_VERSION,
            ruleset_hash: self.rules.hash(),
            token: String::new(),
            client_name: "c".into(),
        }
    }

    fn drain(&mut self) {
        while let Some(a) = self.m.poll_action() {
            match a {
                Action::Send { to, message } => self.inbox.entry(to).or_default().push(message),
                Action::Broadcast { to, message, .. } => {
                    for p in to {
                        self.inbox.entry(p).or_default().push((*message).clone());
                    }
                }
                Action::Close { peer } => self.closed.push(peer),
                Action::ReplayStart(_) => self.replay_started = true,
                Action::ReplayRecord(r) => self.replay.push(r),
                Action::Report(r) => self.reports.push(*r),
                Action::Ended(r) => self.ended = Some(r),
            }
        }
    }

    fn event(&mut self, e: Event) {
        self.m.handle(self.now, e);
        self.m.simulate();
        self.drain();
    }

    fn join(&mut self, peer: PeerId, role: Role) {
        let hello = self.hello();
        self.event(Event::Join { peer, role, hello });
    }

    fn send(&mut self, peer: PeerId, message: ClientMessage) {
        self.event(Event::Message { peer, message });
    }

    /// Lets `ms` milliseconds pass, firing every timeout on the way.
    fn advance(&mut self, ms: u64) {
        let end = self.now + Duration::from_millis(ms);
        while let Some(t) = self.m.poll_timeout().filter(|t| *t <= end) {
            self.now = t.max(self.now);
            self.m.handle_timeout(self.now);
            self.m.simulate();
            self.drain();
        }
        self.now = end;
    }

    /// Lets `n` whole turns pass.
    fn turns(&mut self, n: u64) {
        self.advance(n * self.turn_ms());
    }

    fn take(&mut self, peer: PeerId) -> Vec<ServerMessage> {
        std::mem::take(self.inbox.entry(peer).or_default())
    }

    fn bundles(&mut self, peer: PeerId) -> Vec<TurnBundle> {
        self.take(peer)
            .into_iter()
            .filter_map(|m| match m {
                ServerMessage::TurnBundle(b) => Some(b),
                _ => None,
            })
            .collect()
    }

    fn errors(&mut self, peer: PeerId) -> Vec<ErrorCode> {
        self.take(peer)
            .into_iter()
            .filter_map(|m| match m {
                ServerMessage::Error(e) => Some(e.code),
                _ => None,
            })
            .collect()
    }

    fn started(players: u8) -> Harness {
        let mut h = Harness::new(players);
        for p in 0..players {
            h.join(u64::from(p) + 1, Role::Player(p));
        }
        h
    }

    fn unit_of(&self, player: u8) -> EntityId {
        self.m
            .world()
            .state
            .units
            .iter()
            .find(|u| u.owner == player)
            .unwrap()
            .id
    }

    fn stop(&self, player: u8) -> Command {
        Command::Stop {
            units: vec![self.unit_of(player)],
        }
    }
}

fn commands(turn: u64, commands: Vec<Command>) -> ClientMessage {
    ClientMessage::Commands(Commands { turn, commands })
}

#[test]
fn the_lobby_waits_for_every_player_then_turn_0_says_who_joined() {
    let mut h = Harness::new(2);
    h.join(1, Role::Player(0));
    assert!(matches!(
        h.take(1)[0],
        ServerMessage::JoinAccepted(JoinAccepted {
            next_turn: 0,
            snapshot_follows: false,
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
fn a_seat_taken_over_from_a_diverged_client_sends_its_report_at_once() {
    let mut h = diverged_after_turn_1();
    h.join(7, Role::Player(1));
    assert_eq!(h.errors(2), vec![ErrorCode::Replaced]);
    h.advance(0);
    assert_eq!(
        h.reports.len(),
        1,
        "the old connection's snapshot will not come"
    );
    assert!(h.reports[0].client.is_none());
}

/// Runs the replay's bundles from the configuration's world and checks every hash.
fn resimulates(h: &Harness) -> bool {
    let mut w = h.m.config().world(h.rules.clone()).unwrap();
    h.replay.iter().enumerate().all(|(i, r)| {
        run_bundle(&mut w, &r.bundle, h.m.config().turn_ticks);
        r.bundle.turn == i as u64 && w.hash() == r.hash
    })
}

#[test]
fn matching_hashes_raise_nothing_and_the_replay_resimulates() {
    let mut h = Harness::started(2);
    let c = h.stop(0);
    h.send(1, commands(1, vec![c]));
    h.turns(4);
    for t in 0..4 {
        let hash = h.m.hash_after(t).unwrap();
        h.send(1, ClientMessage::TurnHash(TurnHash { turn: t, hash }));
        h.send(2, ClientMessage::TurnHash(TurnHash { turn: t, hash }));
    }
    assert_eq!(h.m.stats().desyncs, 0);
    assert_eq!(h.m.stats().hashes_compared, 8);
    assert!(resimulates(&h));
}

#[test]
fn a_hash_that_comes_before_the_servers_sim_is_compared_and_counted_once_the_sim_runs() {
    let mut h = Harness::started(2);
    h.turns(2);
    // Turn 2 closes; the server has not run it yet.
    let late = h.now + Duration::from_millis(h.turn_ms());
    h.m.handle_timeout(late);
    h.drain();
    h.now = late;
    let bundle = h.bundles(1).pop().unwrap();
    assert_eq!(bundle.turn, 2);
    assert_eq!(h.m.hash_after(2), None, "not run yet");
    let mut w = h.m.world_after(1).unwrap();
    run_bundle(&mut w, &bundle, h.m.config().turn_ticks);
    let hash = w.hash();
    let early = ClientMessage::TurnHash(TurnHash { turn: 2, hash });
    h.m.handle(
        h.now,
        Event::Message {
            peer: 1,
            message: early,
        },
    );
    assert_eq!(
        h.m.stats().hashes_compared,
        0,
        "waits for the server's own hash"
    );
    h.m.simulate();
    h.drain();
    assert_eq!(h.m.stats().hashes_compared, 1);
    assert_eq!(h.m.stats().desyncs, 0);
    // Acknowledgements without a hash are not counted.
    h.send(2, ClientMessage::Ack { turn: 2 });
    assert_eq!(h.m.stats().hashes_compared, 1);
}

/// A client world that differs from the server's after `turn`.
fn perturbed(h: &Harness, turn: u64) -> World {
    let mut w = h.m.world_after(turn).unwrap();
    w.state.units[0].hit_points -= 1;
    w
}

/// Sends a client's evidence of `turn` whose state after it is `world` (no tick hashes, no
/// states run again: a client that kept none).
fn send_snapshot(h: &mut Harness, peer: PeerId, turn: u64, world: &World) {
    let evidence = cohort_protocol::report::Evidence {
        tick_hashes: vec![],
        start: None,
        at_tick: None,
        end: world.snapshot(),
        notes: vec!["it kept nothing".into()],
    };
    let bytes = cohort_protocol::codec::encode_evidence(&evidence).unwrap();
    let count = bytes.len().div_ceil(SNAPSHOT_CHUNK_BYTES) as u32;
    for (i, piece) in bytes.chunks(SNAPSHOT_CHUNK_BYTES).enumerate() {
        h.send(
            peer,
            ClientMessage::Snapshot(SnapshotChunk {
                turn,
                index: i as u32,
                count,
                bytes: piece.to_vec(),
            }),
        );
    }
}

#[test]
fn a_desync_is_caught_on_its_turn_told_to_everyone_and_reported() {
    let mut h = Harness::started(2);
    h.turns(4);
    h.take(1);
    h.take(2);
    let good = h.m.hash_after(2).unwrap();
    h.send(
        1,
        ClientMessage::TurnHash(TurnHash {
            turn: 2,
            hash: good,
        }),
    );
    let bad = perturbed(&h, 2);
    h.send(
        2,
        ClientMessage::TurnHash(TurnHash {
            turn: 2,
            hash: bad.hash(),
        }),
    );
    let notice = DesyncNotice {
        turn: 2,
        players: vec![1],
        server_hash: good,
        continuing: true,
    };
    assert_eq!(h.take(1), vec![ServerMessage::DesyncNotice(notice.clone())]);
    assert_eq!(
        h.take(2),
        vec![
            ServerMessage::DesyncNotice(notice),
            ServerMessage::SnapshotRequest {
                turn: 2,
                tick_hashes: h.m.tick_hashes_of(2).unwrap().to_vec()
            }
        ]
    );
    assert_eq!(
        h.m.tick_hashes_of(2).unwrap().len(),
        h.m.config().turn_ticks as usize
    );
    send_snapshot(&mut h, 2, 2, &bad);
    assert_eq!(h.reports.len(), 1);
    let r = &h.reports[0];
    assert_eq!(r.server_tick_hashes, h.m.tick_hashes_of(2).unwrap());
    assert_eq!((r.turn, r.diverged.clone()), (2, vec![1]));
    assert_eq!(r.server.hash, good);
    let client = r.client.as_ref().unwrap();
    assert_eq!((client.view.turn, client.view.hash), (2, bad.hash()));
    assert_eq!(client.notes, vec!["it kept nothing".to_string()]);
    let (parts, ids) = r.server.differences(&client.view);
    assert_eq!(parts, vec!["units".to_string()]);
    assert_eq!(
        ids,
        vec![cohort_sim::hash::Entry::Unit(bad.state.units[0].id)]
    );
    let hashes: Vec<(u8, Option<StateHash>)> =
        r.peer_hashes.iter().map(|p| (p.player, p.hash)).collect();
    assert_eq!(hashes, vec![(0, Some(good)), (1, Some(bad.hash()))]);
    assert_eq!(r.records.len(), 4);
    // The match goes on.
    h.turns(1);
    assert_eq!(h.bundles(1).len(), 1);
    assert!(h.ended.is_none());
}

#[test]
fn a_desync_stops_the_match_when_so_configured() {
    let (mut s, _) = settings(2);
    s.on_desync = OnDesync::Stop;
    let mut h = Harness::with(s);
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    h.turns(3);
    let bad = perturbed(&h, 1);
    h.send(
        2,
        ClientMessage::TurnHash(TurnHash {
            turn: 1,
            hash: bad.hash(),
        }),
    );
    h.take(1);
    h.turns(2);
    assert!(h.bundles(1).is_empty(), "no turn closes while stopping");
    send_snapshot(&mut h, 2, 1, &bad);
    assert_eq!(h.reports.len(), 1);
    assert_eq!(h.reports[0].client.as_ref().map(|c| c.view.turn), Some(1));
    assert_eq!(h.ended, Some(EndReason::Desync));
    assert!(h.closed.contains(&1) && h.closed.contains(&2));
}

#[test]
fn without_the_clients_snapshot_the_report_goes_out_in_time() {
    let mut h = Harness::started(2);
    h.turns(2);
    let bad = perturbed(&h, 0);
    h.send(
        2,
        ClientMessage::TurnHash(TurnHash {
            turn: 0,
            hash: bad.hash(),
        }),
    );
    h.advance(desync::SNAPSHOT_WAIT_MS + 1);
    assert_eq!(h.reports.len(), 1);
    assert!(h.reports[0].client.is_none());
}

/// Player 1 (peer 2) diverges after turn 1; the server asks for that turn's state.
fn diverged_after_turn_1() -> Harness {
    let mut h = Harness::started(2);
    h.turns(3);
    let bad = perturbed(&h, 1);
    h.send(
        2,
        ClientMessage::TurnHash(TurnHash {
            turn: 1,
            hash: bad.hash(),
        }),
    );
    assert!(h
        .take(2)
        .iter()
        .any(|m| matches!(m, ServerMessage::SnapshotRequest { turn: 1, .. })));
    h
}

#[test]
fn a_snapshot_of_another_turn_is_refused_and_the_report_goes_without_it() {
    let mut h = diverged_after_turn_1();
    let later = perturbed(&h, 2);
    send_snapshot(&mut h, 2, 2, &later);
    assert_eq!(h.errors(2), vec![ErrorCode::BadSnapshot]);
    assert_eq!(h.reports.len(), 1);
    assert!(h.reports[0].client.is_none());
    assert_eq!(h.reports[0].turn, 1);
}

#[test]
fn a_client_without_that_turns_state_says_so_and_the_report_goes_at_once() {
    let mut h = diverged_after_turn_1();
    h.send(
        2,
        ClientMessage::SnapshotUnavailable {
            turn: 1,
            reason: "gone".into(),
        },
    );
    assert_eq!(h.reports.len(), 1);
    assert!(h.reports[0].client.is_none());
    // Unasked, the same answer is refused.
    h.send(
        2,
        ClientMessage::SnapshotUnavailable {
            turn: 1,
            reason: "again".into(),
        },
    );
    assert_eq!(h.errors(2), vec![ErrorCode::BadSnapshot]);
    assert_eq!(h.reports.len(), 1);
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
fn a_hash_for_a_turn_not_yet_sent_closes_the_connection() {
    let mut h = Harness::started(2);
    h.send(
        1,
        ClientMessage::TurnHash(TurnHash {
            turn: 5,
            hash: StateHash::default(),
        }),
    );
    assert_eq!(h.errors(1), vec![ErrorCode::Unexpected]);
    assert!(h.closed.contains(&1));
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
fn a_match_requiring_hashes_closes_a_player_that_only_acks() {
    let (mut s, _) = settings(2);
    s.require_hashes = true;
    let mut h = Harness::with(s);
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    h.join(9, Role::Spectator);
    h.turns(1);
    h.take(1);
    h.take(2);
    let hash = h.m.hash_after(0).unwrap();
    h.send(1, ClientMessage::TurnHash(TurnHash { turn: 0, hash }));
    h.send(2, ClientMessage::Ack { turn: 0 });
    h.send(9, ClientMessage::Ack { turn: 0 });
    assert!(h.errors(1).is_empty());
    assert_eq!(h.errors(2), vec![ErrorCode::Unexpected]);
    assert!(h.closed.contains(&2), "the hashless player is closed");
    assert!(h.errors(9).is_empty(), "a spectator may acknowledge");
    assert!(!h.closed.contains(&9) && !h.closed.contains(&1));
    h.turns(1);
    let b = h.bundles(1);
    assert_eq!(
        b[0].events,
        vec![MembershipEvent {
            player: 1,
            change: Membership::Dropped
        }]
    );
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
