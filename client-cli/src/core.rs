//! The client core: a sans-IO state machine, like the server's `Match` (and quinn-proto under
//! quinn). The driver feeds it what happened — [`ClientCore::start`], a message received
//! ([`ClientCore::handle_message`]), an order typed or thought up ([`ClientCore::handle_line`],
//! [`ClientCore::order`]), the time passing ([`ClientCore::handle_timeout`]) — and takes what to
//! do: messages to send ([`ClientCore::poll_transmit`]) and things to show
//! ([`ClientCore::poll_event`]). No sockets, no clocks of its own: `now` comes in.
//!
//! The turn flow (DESIGN.md, "Lockstep"): the client runs turn T only when its bundle arrives,
//! in turn order, through [`cohort_protocol::setup::run_bundle`] (membership events, then commands, then the turn's
//! ticks), and sends the hash of its state after T. Each bundle carries the server's hash after
//! T-1, which the client compares with its own: that is the hash agreement it shows. Orders are
//! meant for `last bundle + input delay`; the input delay changes only inside the bundle stream.
//!
//! After a desync the server asks for the client's evidence of the failing turn T
//! (`SnapshotRequest { turn: T, tick_hashes }`, with the server's tick hashes of T), and the
//! client answers with its evidence of exactly that turn ([`cohort_protocol::report::Evidence`]):
//! its tick hashes of T, its state after T, and — run again from its checkpoint ([`recall`]) —
//! its states at the start of T and after its first tick whose hash differs from the server's.
//! It can, without keeping a ring of past states, because of the order of the stream: the
//! bundle of T + 1 carries the server's hash of T, and the server asks only once it holds the
//! client's hash of T (sent after the client ran T). So the request reaches the client either
//! before the bundle of T + 1 — the client's current state is still T's — or after it, and then
//! the client has itself seen its hash of T contradicted, before running T + 1, and kept its
//! state and its recall at that moment ([`ClientCore::disagreed_state`]: taken once, at its
//! first disagreement, the one the server reports). The state after T it sends is its own state
//! as it stood, not a re-simulation; a request for any other turn gets `SnapshotUnavailable`
//! with the reason.
//!
//! The files, one job each: this one the core's state and its event loop (messages, lines and
//! orders in; the handshake); `event.rs` what it tells ([`Event`], [`TurnStatus`], [`Tally`]);
//! `clock.rs` its timeouts (pings, the server's silence); `turns.rs` running bundles and the
//! hash agreement; `rejoin.rs` snapshots in (a rejoin) and evidence out (a desync);
//! `recall.rs` the tick hashes, checkpoint and bundles of its recent turns.

use crate::text::{Line, HELP};
use cohort_protocol::limits::{MAX_COMMANDS_PER_MESSAGE, PROTOCOL_VERSION};
use cohort_protocol::message::{Commands, Error, Hello, JoinAccepted, Pong, Role, TurnBundle};
use cohort_protocol::{ClientMessage, ErrorCode, MatchConfig, ServerMessage};
use cohort_sim::hash::TickHash;
use cohort_sim::world::Snapshot;
use cohort_sim::{Command, Ruleset, StateHash, World};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How many of its own past hashes a client keeps, to compare with the server's as bundles
/// bring them (a bundle carries the server's hash of the turn before it).
pub const KEPT_HASHES: usize = 64;

/// Milliseconds without a word from the server (it pings every `PING_INTERVAL_MS`, 500, and
/// sends a bundle every turn) after which the client takes the connection as lost, so that its
/// driver may reconnect (Cohort's choice: ten pings missed in a row).
pub const SERVER_SILENCE_MS: u64 = 5_000;

/// How the client was set up.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// The join token (names the match and the slot).
    pub token: String,
    /// Shown to others.
    pub name: String,
    /// Run the sim and send hashes (false: send acknowledgements only, for pure load).
    pub simulate: bool,
    /// TEST SWITCH: after running this turn, nudge the first unit's x by 1/65536 of a tile, so
    /// this client's hash differs from everyone's from this turn on. Never use in a real match.
    pub perturb_at_turn: Option<u64>,
    /// TEST SWITCH: the same nudge after running this tick (counted from the match's start, as
    /// `World::tick`), so the client goes wrong in the middle of a turn.
    pub perturb_at_tick: Option<u64>,
}

/// Where the client is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not yet started.
    Idle,
    /// Hello sent, waiting for the answer.
    Joining,
    /// Accepted; waiting for the snapshot to arrive whole (a rejoin, a late spectator).
    Loading,
    /// Receiving and running bundles.
    Playing,
    /// The match ended or the server refused or closed; nothing more happens.
    Over,
}

/// The client core. See the module documentation.
pub struct ClientCore {
    options: ClientOptions,
    rules: Arc<Ruleset>,
    phase: Phase,
    config: Option<MatchConfig>,
    role: Option<Role>,
    world: Option<World>,
    /// The world the match started from (a non-simulating bot's brain looks at it).
    start_world: Option<World>,
    /// The turn of the next bundle to run.
    next_turn: u64,
    input_delay: u32,
    /// Pieces of the snapshot being received.
    snapshot_pieces: BTreeMap<u32, Vec<u8>>,
    snapshot_turn: Option<u64>,
    /// Bundles that arrived while the snapshot was loading.
    waiting_bundles: Vec<TurnBundle>,
    /// The turn the loaded snapshot was from, until the server's hash confirms it.
    unchecked_snapshot: Option<(u64, StateHash)>,
    /// This client's hash after each recent turn.
    my_hashes: BTreeMap<u64, StateHash>,
    /// Its tick hashes, checkpoint and bundles of its recent turns.
    recall: Recall,
    /// What it kept at the first turn whose hash the server contradicted (taken before running
    /// the next bundle), for the server's `SnapshotRequest` of that turn.
    disagreed: Option<Disagreed>,
    pings: BTreeMap<u64, Instant>,
    next_nonce: u64,
    next_ping: Option<Instant>,
    rtt: Option<Duration>,
    paused: bool,
    /// When the server was last heard from (or the Hello sent).
    last_heard: Option<Instant>,
    /// Whether the connection ended in a way a new connection may mend (lost, silent, dropped
    /// for lag): the seat is still this client's.
    rejoinable: bool,
    tally: Tally,
    outbox: VecDeque<ClientMessage>,
    events: VecDeque<Event>,
}

impl ClientCore {
    pub fn new(options: ClientOptions, rules: Arc<Ruleset>) -> ClientCore {
        ClientCore {
            options,
            rules,
            phase: Phase::Idle,
            config: None,
            role: None,
            world: None,
            start_world: None,
            next_turn: 0,
            input_delay: 0,
            snapshot_pieces: BTreeMap::new(),
            snapshot_turn: None,
            waiting_bundles: Vec::new(),
            unchecked_snapshot: None,
            my_hashes: BTreeMap::new(),
            recall: Recall::default(),
            disagreed: None,
            pings: BTreeMap::new(),
            next_nonce: 1,
            next_ping: None,
            rtt: None,
            paused: false,
            last_heard: None,
            rejoinable: false,
            tally: Tally::default(),
            outbox: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    /// Begins the handshake: the Hello goes out.
    pub fn start(&mut self, now: Instant) {
        if self.phase != Phase::Idle {
            return;
        }
        self.phase = Phase::Joining;
        self.send(ClientMessage::Hello(Hello {
            protocol_version: PROTOCOL_VERSION,
            ruleset_hash: self.rules.hash(),
            token: self.options.token.clone(),
            client_name: self.options.name.clone(),
        }));
        self.next_ping = Some(now);
        self.last_heard = Some(now);
    }

    /// The next message to send, if any.
    pub fn poll_transmit(&mut self) -> Option<ClientMessage> {
        self.outbox.pop_front()
    }

    /// The next thing to show, if any.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// A message arrived from the server.
    pub fn handle_message(&mut self, message: ServerMessage, now: Instant) {
        if self.phase == Phase::Over {
            return;
        }
        self.last_heard = Some(now);
        match message {
            ServerMessage::JoinAccepted(a) => self.on_accepted(a),
            ServerMessage::Snapshot(chunk) => self.on_snapshot_chunk(chunk),
            ServerMessage::TurnBundle(b) => {
                if self.phase == Phase::Loading {
                    self.waiting_bundles.push(b);
                } else {
                    self.on_bundle(b);
                }
            }
            ServerMessage::Rescheduled(r) => {
                self.tally.rescheduled += u64::from(r.count);
                self.events.push_back(Event::Rescheduled(r));
            }
            ServerMessage::DesyncNotice(d) => {
                self.tally.desync_notices += 1;
                self.events.push_back(Event::Desync(d));
            }
            ServerMessage::SnapshotRequest { turn, tick_hashes } => {
                self.send_evidence(turn, &tick_hashes)
            }
            ServerMessage::Ping(p) => self.send(ClientMessage::Pong(Pong { nonce: p.nonce })),
            ServerMessage::Pong(p) => {
                if let Some(sent) = self.pings.remove(&p.nonce) {
                    self.rtt = Some(now.saturating_duration_since(sent));
                }
            }
            ServerMessage::Chat(c) => self.events.push_back(Event::Chat(c)),
            ServerMessage::Paused(p) => {
                self.paused = true;
                self.events.push_back(Event::Paused(p));
            }
            ServerMessage::Resumed(r) => {
                self.paused = false;
                self.events.push_back(Event::Resumed(r));
            }
            ServerMessage::MatchEnded(e) => {
                self.phase = Phase::Over;
                self.events.push_back(Event::Ended(e));
            }
            ServerMessage::Error(error) => {
                let closes = error.code.closes();
                if closes {
                    self.phase = Phase::Over;
                    // Dropped for lag, the seat is still this client's to take back.
                    self.rejoinable = error.code == ErrorCode::DroppedForLag;
                }
                self.events.push_back(Event::ServerError { error, closes });
            }
        }
    }

    /// A line the player typed.
    pub fn handle_line(&mut self, line: Line) {
        match line {
            Line::Nothing => {}
            Line::Command(c) => self.order(vec![c]),
            Line::Chat(text) => self.send(ClientMessage::Chat { text }),
            Line::Pause => self.send(ClientMessage::Pause),
            Line::Resume => self.send(ClientMessage::Resume),
            Line::Leave => self.leave(),
            Line::Help => self.events.push_back(Event::Help(HELP)),
        }
    }

    /// Orders for the turn `last bundle + input delay`. Refused (with an [`Event::Refused`])
    /// before the join or for a spectator.
    pub fn order(&mut self, commands: Vec<Command>) {
        if commands.is_empty() {
            return;
        }
        if !matches!(self.phase, Phase::Loading | Phase::Playing) {
            self.refuse("not in a match yet");
            return;
        }
        if self.player().is_none() {
            self.refuse("a spectator cannot give orders");
            return;
        }
        let turn = self.order_turn();
        for chunk in commands.chunks(MAX_COMMANDS_PER_MESSAGE) {
            self.tally.commands_sent += chunk.len() as u64;
            self.send(ClientMessage::Commands(Commands {
                turn,
                commands: chunk.to_vec(),
            }));
        }
    }

    /// Leaves the match.
    pub fn leave(&mut self) {
        self.leave_with(false);
    }

    /// Leaves the match, giving it up when `resign` (for the record: `Resigned`, not `Left`).
    pub fn leave_with(&mut self, resign: bool) {
        if self.phase != Phase::Over {
            self.send(ClientMessage::Leave { resign });
            self.phase = Phase::Over;
        }
    }

    /// The turn an order given now is meant for.
    pub fn order_turn(&self) -> u64 {
        let delay = u64::from(self.input_delay);
        match self.next_turn.checked_sub(1) {
            Some(last) => last + delay,
            None => delay,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn role(&self) -> Option<Role> {
        self.role
    }

    /// This client's player slot, if it plays.
    pub fn player(&self) -> Option<u8> {
        match self.role {
            Some(Role::Player(p)) => Some(p),
            _ => None,
        }
    }

    pub fn config(&self) -> Option<&MatchConfig> {
        self.config.as_ref()
    }

    /// The world as this client last ran it (or the starting world when it does not simulate).
    pub fn world(&self) -> Option<&World> {
        self.world.as_ref().or(self.start_world.as_ref())
    }

    /// The turn of the next bundle to run (the turns run so far, from a fresh start).
    pub fn next_turn(&self) -> u64 {
        self.next_turn
    }

    pub fn input_delay(&self) -> u32 {
        self.input_delay
    }

    pub fn rtt(&self) -> Option<Duration> {
        self.rtt
    }

    pub fn paused(&self) -> bool {
        self.paused
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// The driver lost the connection, for the reason given: the client is over (and may
    /// rejoin, [`ClientCore::may_rejoin`]) unless it already was.
    pub fn connection_lost(&mut self, why: String) {
        if self.phase != Phase::Over {
            self.phase = Phase::Over;
            self.rejoinable = true;
            self.events.push_back(Event::ConnectionLost(why));
        }
    }

    /// The driver could not connect because the server's certificate was refused: the client
    /// is over and may not rejoin (another try meets the same certificate).
    pub fn server_not_trusted(&mut self, why: String) {
        if self.phase != Phase::Over {
            self.phase = Phase::Over;
            self.rejoinable = false;
            self.events.push_back(Event::ServerNotTrusted(why));
        }
    }

    /// Whether a new connection may take this client's seat back: the connection went (lost,
    /// the server silent, dropped for lag) while the match was this client's to play. False
    /// after the match ended, the client left, or the server refused it or gave the seat to
    /// another connection (`Replaced`).
    pub fn may_rejoin(&self) -> bool {
        self.phase != Phase::Over || self.rejoinable
    }

    /// This client's hash after `turn`, if it still remembers it.
    pub fn hash_after(&self, turn: u64) -> Option<StateHash> {
        self.my_hashes.get(&turn).copied()
    }

    /// The turn and state this client kept at its first hash disagreement, if any.
    pub fn disagreed_state(&self) -> Option<(u64, &Snapshot)> {
        self.disagreed.as_ref().map(|d| (d.turn, &d.end))
    }

    /// This client's tick hashes of `turn`, while it remembers them
    /// ([`cohort_protocol::limits::TICK_HASH_TURNS`]).
    pub fn tick_hashes_of(&self, turn: u64) -> Option<&[TickHash]> {
        self.recall.tick_hashes(turn)
    }

    fn send(&mut self, m: ClientMessage) {
        self.outbox.push_back(m);
    }

    fn refuse(&mut self, why: &str) {
        self.events.push_back(Event::Refused(why.to_string()));
    }

    fn fail(&mut self, why: String) {
        self.phase = Phase::Over;
        self.events.push_back(Event::ServerError {
            error: Error {
                code: ErrorCode::Internal,
                text: why,
            },
            closes: true,
        });
        self.send(ClientMessage::Leave { resign: false });
    }

    fn on_accepted(&mut self, a: JoinAccepted) {
        if self.phase != Phase::Joining {
            return;
        }
        let start = match a.config.world(self.rules.clone()) {
            Ok(w) => w,
            Err(e) => return self.fail(format!("the match cannot be played here: {e}")),
        };
        self.events.push_back(Event::Joined {
            match_id: a.config.match_id.clone(),
            role: a.role,
            next_turn: a.next_turn,
            input_delay: a.input_delay,
        });
        self.role = Some(a.role);
        self.next_turn = a.next_turn;
        self.input_delay = a.input_delay;
        self.config = Some(a.config);
        if a.snapshot_follows {
            self.phase = Phase::Loading;
            if !self.options.simulate {
                self.start_world = Some(start);
            }
        } else {
            self.phase = Phase::Playing;
            if self.options.simulate {
                self.world = Some(start);
            } else {
                self.start_world = Some(start);
            }
        }
    }
}

mod clock;
mod event;
mod recall;
mod rejoin;
mod turns;

pub use event::{Event, Tally, TurnStatus};
pub use recall::{Recall, RunAgain, CHECKPOINT_TURNS};
use rejoin::Disagreed;

#[cfg(test)]
mod tests;
