//! A bot match of 20 minutes of game time records a replay that verifies (issue 11.6).
//!
//! Twenty minutes of game time take twenty minutes on a real server, which paces turns by the
//! wall clock; so here the real lockstep `Match` and two real `ClientCore`s with seeded random
//! brains run on a clock of their own (every message through the wire codec, delivered at
//! once), the way cohort-server's driver and `cohort bot` run them. The replay is written with
//! the server's `ReplayWriter`, read back from its bytes and re-simulated as `cohort replay`
//! does. `play.rs` plays 2,000 turns over real QUIC on loopback; this plays 9,375 turns of 8
//! ticks.

use cohort_client::brain::{Brain, RandomBrain};
use cohort_client::core::{ClientCore, ClientOptions, Event as ClientEvent};
use cohort_client::verify::{verify_replay, Verdict};
use cohort_protocol::codec::{decode_message, encode_message};
use cohort_protocol::message::{ClientMessage, EndReason, Role, ServerMessage};
use cohort_protocol::replay::{read_replay, ReplayWriter, Tail};
use cohort_protocol::MatchConfig;
use cohort_server::lockstep::{Action, Event, Match, PeerId, Settings};
use cohort_sim::world::TICK_MS;
use cohort_sim::Ruleset;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Game time played: twenty minutes.
const GAME_MS: u64 = 20 * 60 * 1000;

/// One bot: its connection's id, its core and its brain.
struct Bot {
    peer: PeerId,
    core: ClientCore,
    brain: RandomBrain,
    inbox: Vec<ServerMessage>,
    orders_given: u64,
    turns_run: u64,
    ended: Option<EndReason>,
}

/// A server's message through the wire codec, as it crosses a connection.
fn to_client(m: &ServerMessage) -> ServerMessage {
    decode_message(&encode_message(m).expect("encodes")).expect("decodes")
}

/// A client's message through the wire codec.
fn to_server(m: &ClientMessage) -> ClientMessage {
    decode_message(&encode_message(m).expect("encodes")).expect("decodes")
}

#[test]
fn a_bot_match_of_twenty_minutes_of_game_time_records_a_replay_that_verifies() {
    let rules = Arc::new(Ruleset::default_rules());
    let config = MatchConfig::standard("long", &rules, 2);
    let turns = GAME_MS / config.turn_ms();
    assert_eq!(
        turns * u64::from(config.turn_ticks) * u64::from(TICK_MS),
        GAME_MS
    );
    let mut settings = Settings::new(config.clone());
    settings.max_turns = Some(turns);
    settings.require_hashes = true;
    let mut now = Instant::now();
    let mut m = Match::new(settings, rules.clone(), now).unwrap();
    let mut bots: Vec<Bot> = (0..2u8)
        .map(|p| Bot {
            peer: u64::from(p) + 1,
            core: ClientCore::new(
                ClientOptions {
                    token: String::new(),
                    name: format!("bot{p}"),
                    simulate: true,
                    perturb_at_turn: None,
                    perturb_at_tick: None,
                },
                rules.clone(),
            ),
            brain: RandomBrain::new(7 + u64::from(p)),
            inbox: Vec::new(),
            orders_given: 0,
            turns_run: 0,
            ended: None,
        })
        .collect();
    let mut replay: Option<ReplayWriter<Vec<u8>>> = None;
    let mut ended = None;
    let mut reports = 0;
    for (slot, b) in bots.iter_mut().enumerate() {
        b.core.start(now);
        let Some(ClientMessage::Hello(hello)) = b.core.poll_transmit().map(|m| to_server(&m))
        else {
            panic!("a client begins with its Hello");
        };
        let role = Role::Player(u8::try_from(slot).unwrap());
        m.handle(
            now,
            Event::Join {
                peer: b.peer,
                role,
                hello,
            },
        );
    }
    // Until the match ends: everything the match asked for carried out, every message
    // delivered and answered, then the clock on to the next deadline anyone has.
    let deadline = now + Duration::from_millis(GAME_MS * 2);
    while ended.is_none() {
        assert!(now < deadline, "the match ran past twice its length");
        let mut quiet = false;
        while !quiet {
            quiet = true;
            m.simulate();
            while let Some(a) = m.poll_action() {
                quiet = false;
                match a {
                    Action::Send { to, message } => {
                        let b = bots.iter_mut().find(|b| b.peer == to).unwrap();
                        b.inbox.push(to_client(&message));
                    }
                    Action::Broadcast { to, message, .. } => {
                        for b in bots.iter_mut().filter(|b| to.contains(&b.peer)) {
                            b.inbox.push(to_client(&message));
                        }
                    }
                    Action::Close { peer } => {
                        let b = bots.iter().find(|b| b.peer == peer).unwrap();
                        let told_end = matches!(b.inbox.last(), Some(ServerMessage::MatchEnded(_)));
                        assert!(
                            told_end || b.ended.is_some(),
                            "the match closed bot {peer} before the end (turn {}): {:?}",
                            b.turns_run,
                            b.inbox.last()
                        );
                    }
                    Action::ReplayStart(h) => {
                        replay = Some(ReplayWriter::start(Vec::new(), &h).unwrap())
                    }
                    Action::ReplayRecord(r) => replay.as_mut().unwrap().append(&r).unwrap(),
                    // Saving asked for with a state folder only.
                    Action::SaveState { .. } | Action::Suspended => {}
                    Action::CloseSuspended { peer } => {
                        panic!("bot {peer} closed as suspended: nothing suspends this match")
                    }
                    Action::Report(_) => reports += 1,
                    Action::View { .. } => unreachable!("no browser watches"),
                    Action::Ended(e) => ended = Some(e),
                    Action::SimFailed { turn } => panic!("the server's sim failed at turn {turn}"),
                }
            }
            for b in &mut bots {
                for message in std::mem::take(&mut b.inbox) {
                    b.core.handle_message(message, now);
                }
                while let Some(e) = b.core.poll_event() {
                    match e {
                        ClientEvent::Turn(t) => {
                            b.turns_run += 1;
                            if let (Some(me), Some(world)) = (b.core.player(), b.core.world()) {
                                let orders = b.brain.orders(t.turn, world, me);
                                b.orders_given += orders.len() as u64;
                                b.core.order(orders);
                            }
                        }
                        ClientEvent::Ended(e) => b.ended = Some(e.reason),
                        ClientEvent::Desync(d) => panic!("bot {}: {d:?}", b.peer),
                        _ => {}
                    }
                }
                while let Some(message) = b.core.poll_transmit() {
                    quiet = false;
                    let message = to_server(&message);
                    m.handle(
                        now,
                        Event::Message {
                            peer: b.peer,
                            message,
                        },
                    );
                }
            }
        }
        if ended.is_some() {
            break;
        }
        let next = bots
            .iter()
            .filter_map(|b| b.core.poll_timeout())
            .chain(m.poll_timeout())
            .min()
            .expect("someone waits for something");
        now = now.max(next);
        m.handle_timeout(now);
        for b in &mut bots {
            if b.core.poll_timeout().is_some_and(|t| t <= now) {
                b.core.handle_timeout(now);
            }
        }
    }
    assert_eq!(ended, Some(EndReason::TurnLimit));
    assert_eq!(reports, 0, "no desync report");
    assert_eq!(m.stats().desyncs, 0);
    for b in &bots {
        assert_eq!(b.turns_run, turns, "bot {}", b.peer);
        assert!(
            b.orders_given > 100,
            "bot {} gave orders: {}",
            b.peer,
            b.orders_given
        );
        assert_eq!(b.core.tally().hashes_disagreed, 0);
    }
    // The replay as the server wrote it, read back and re-simulated as `cohort replay` does.
    let bytes = replay.expect("a replay was started").into_inner();
    let replay = read_replay(&bytes).unwrap();
    assert!(matches!(replay.tail, Tail::Whole), "{}", replay.tail);
    assert_eq!(replay.records.len() as u64, turns);
    let commands: usize = replay.records.iter().map(|r| r.bundle.commands.len()).sum();
    assert!(
        commands > 200,
        "the replay holds the bots' orders: {commands}"
    );
    let last_tick = turns * u64::from(config.turn_ticks);
    assert_eq!(last_tick * u64::from(TICK_MS), GAME_MS);
    let verdict = verify_replay(&replay, rules, |_| {}).unwrap();
    assert!(
        matches!(verdict, Verdict::Verified { turns: t, .. } if t == turns),
        "{verdict:?}"
    );
}
