//! The lockstep `Match`: a sans-IO state machine (DESIGN.md, "Lockstep"). The caller feeds it
//! what happened ([`Match::handle`]) and the time ([`Match::handle_timeout`] when
//! [`Match::poll_timeout`] is due), runs the closed turns' sim as a job the match lends its
//! world to ([`Match::sim_job`], [`Match::sim_done`]: `sim_job`) while the match goes on, and
//! carries out what it asks ([`Match::poll_action`]). No sockets, no timers, no threads, no
//! files: every lockstep rule lives here and is tested with a fake clock.
//!
//! The server is the clock: turn T closes at `epoch + (T + 1) × turn` whoever has spoken;
//! a late command goes to the open turn and its sender is told (`Rescheduled`); who plays
//! changes only through membership events in the bundle stream.

mod clock;
mod delay;
mod desync;
mod join;
mod outbox;
mod peer;
mod rate;
mod record_log;
mod report_job;
mod resume;
mod roster;
mod sim_job;
mod spectate;
mod turns;
mod watch;

#[cfg(test)]
mod tests;

pub use clock::{EMPTY_MATCH_GRACE_MS, MAX_CATCH_UP_TURNS};
pub use delay::{wanted_delay, InputDelay};
pub use outbox::OUTBOX_FULL_DROP_MS;
pub use peer::Peer;
pub use rate::TokenBucket;
pub use record_log::RecordLog;
pub use report_job::{ReportDone, ReportJob};
pub use resume::{rebuild, RebuildError, Rebuilt, RESUME_GRACE_MS, SNAPSHOT_TURNS};
pub use roster::SlotView;
pub use sim_job::{SimDone, SimJob, MAX_WAITING_FOR_WORLD, SIM_BEHIND_WARN_TURNS};

use cohort_protocol::limits::{MAX_CHAT_BYTES, RATE_STRIKES};
use cohort_protocol::message::{
    ChatLine, ClientMessage, EndReason, ErrorCode, Hello, MatchEnded, MembershipEvent, Ping, Pong,
    Role, ServerMessage, TurnBundle,
};
use cohort_protocol::replay::{ReplayHeader, TurnRecord};
use cohort_protocol::report::DesyncReport;
use cohort_protocol::setup::ConfigError;
use cohort_protocol::MatchConfig;
use cohort_sim::hash::TickHash;
use cohort_sim::world::{PlayerStatus, Snapshot};
use cohort_sim::{Ruleset, StateHash, World};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A connection's id, given by the driver.
pub type PeerId = u64;

/// What a match does after a desync.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnDesync {
    /// Tell everyone, write the report, play on.
    #[default]
    Continue,
    /// Tell everyone, write the report, end the match.
    Stop,
}

/// How a match is run, beyond what its clients are told.
#[derive(Clone, Debug)]
pub struct Settings {
    pub config: MatchConfig,
    /// Whether the input delay follows the measured round trips.
    pub adaptive_delay: bool,
    /// End the match after this many turns.
    pub max_turns: Option<u64>,
    pub on_desync: OnDesync,
    /// Refuse players that acknowledge turns without a hash (`Ack`): their desyncs could not be
    /// caught. Such a player is closed with `Unexpected` at its first `Ack`. Cohort's choice:
    /// spectators may still `Ack` (their view is their own business).
    pub require_hashes: bool,
    /// Seconds spectators are kept behind the match (0 to
    /// [`cohort_protocol::limits::MAX_SPECTATOR_DELAY_SECS`]): a spectator receives nothing
    /// about a turn until this long after the turn closed ([`spectate`]).
    pub spectator_delay_secs: u32,
    /// Named in replay headers and reports.
    pub writer: String,
    /// Turns between two [`Action::SaveState`]s (a snapshot of the match beside its replay,
    /// to take it up again from); none: the match asks for none.
    pub snapshot_every: Option<u64>,
}

impl Settings {
    pub fn new(config: MatchConfig) -> Settings {
        Settings {
            config,
            adaptive_delay: true,
            max_turns: None,
            on_desync: OnDesync::Continue,
            require_hashes: false,
            spectator_delay_secs: 0,
            writer: format!("cohort-server {}", env!("CARGO_PKG_VERSION")),
            snapshot_every: None,
        }
    }
}

/// What happened, told to the match.
#[derive(Clone, Debug)]
pub enum Event {
    /// A connection whose Hello and token were checked asks to join in `role`.
    Join {
        peer: PeerId,
        role: Role,
        hello: Hello,
    },
    /// A message from a joined connection.
    Message {
        peer: PeerId,
        message: ClientMessage,
    },
    /// The connection is gone.
    Disconnected { peer: PeerId },
    /// The peer's outbox is full: the driver holds its frames back until there is room. The
    /// match warns the peer, and drops it for lag if no [`Event::OutboxDrained`] comes within
    /// [`OUTBOX_FULL_DROP_MS`].
    OutboxFull { peer: PeerId },
    /// Every frame held back for the peer went into its outbox.
    OutboxDrained { peer: PeerId },
    /// The server is shutting down: finish the turn, end the match.
    Shutdown,
    /// An operator ends the match (the admin API): finish the turn, end it with
    /// [`EndReason::Operator`].
    End,
    /// A browser whose spectator token was checked asks to watch (`/watch/<match>`): it is
    /// sent [`Action::View`] frames, never a [`ServerMessage`]. Its session gone is
    /// [`Event::Disconnected`].
    Watch { peer: PeerId },
    /// An operator suspends the match (the admin API), to take it up again on this server's
    /// next start or on another server: finish the turn, save the state, close every
    /// connection without `MatchEnded` (clients take it as a lost connection and reconnect).
    Suspend,
    /// The server is shutting down and keeps its matches (it has a state folder): a running
    /// match is suspended as at [`Event::Suspend`], to be taken up again at the next start; one
    /// still in its lobby, or stopping after a desync, ends as at [`Event::Shutdown`].
    ShutdownSuspend,
}

/// What the match asks its driver to do, in order.
#[derive(Clone, Debug)]
pub enum Action {
    Send {
        to: PeerId,
        message: ServerMessage,
    },
    /// The same message to several peers (encode it once).
    Broadcast {
        to: Vec<PeerId>,
        message: Arc<ServerMessage>,
        /// For a turn's bundle: when the turn was scheduled to close (the driver measures the
        /// send jitter against it).
        due: Option<Instant>,
    },
    /// A frame of the view stream (`crate::watch::frame`, encoded and length-prefixed) to
    /// browsers watching.
    View {
        to: Vec<PeerId>,
        frame: Arc<Vec<u8>>,
    },
    /// Close the connection, after sending what was asked before.
    Close {
        peer: PeerId,
    },
    /// Close the connection, after sending what was asked before, with the QUIC close code
    /// `suspended` (`cohort_protocol::close::SUSPENDED`): the match is suspended and the seat
    /// still the player's, who tries again.
    CloseSuspended {
        peer: PeerId,
    },
    /// Start the match's replay file.
    ReplayStart(ReplayHeader),
    /// Append a turn to the replay file and flush it.
    ReplayRecord(TurnRecord),
    /// Save the match's state after `turns_run` turns beside its replay (every
    /// [`Settings::snapshot_every`] turns; at its start, with no world: the configuration's),
    /// so that it can be taken up again from there. Comes after the record of the turn before.
    SaveState {
        turns_run: u64,
        world: Option<Box<Snapshot>>,
    },
    /// Write a desync report.
    Report(Box<DesyncReport>),
    /// The match is over; every closed turn has been run and recorded. No more actions will
    /// come (but for a delayed match's spectators watching on, [`Match::draining`]).
    Ended(EndReason),
    /// The server's sim failed running `turn` (a job panicked, [`Match::sim_failed`]): the
    /// match is over, everyone in it told and closed. No more actions will come.
    SimFailed {
        turn: u64,
    },
    /// The match was suspended after saving its state ([`Action::SaveState`] before this); no
    /// more actions will come, and its files are kept to take it up again.
    Suspended,
}

/// What the match measured or refused, for the driver's metrics (never a rule: the match
/// behaves the same whether anyone reads them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    /// A ping's round trip.
    RoundTrip(Duration),
    /// A connection asked to join and was refused (the code it was sent).
    JoinRefused(ErrorCode),
}

/// Observations kept for the driver; past this many unread, the oldest are forgotten.
pub const OBSERVATIONS_KEPT: usize = 1024;

/// Where a match is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for every player slot to join.
    Lobby,
    Running,
    /// A desync stops the match: waiting for the client's snapshot before ending.
    Stopping,
    Ended,
}

/// A player slot.
#[derive(Clone, Debug)]
struct Slot {
    status: PlayerStatus,
    peer: Option<PeerId>,
    pauses_used: u8,
    /// Whether it has joined once (the lobby waits for every slot).
    joined_once: bool,
}

/// Counters and timings, for logs, metrics and benchmarks.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MatchStats {
    pub turns_closed: u64,
    /// How late each turn closed after its deadline, in microseconds (for the jitter figures).
    #[serde(skip)]
    pub close_lateness_us: Vec<u32>,
    pub commands_scheduled: u64,
    pub commands_rescheduled: u64,
    /// Clients' state hashes compared with the server's (each hash once, when both are known).
    pub hashes_compared: u64,
    pub desyncs: u64,
    pub reports: u64,
    pub dropped: u64,
    /// Players who came back after being dropped.
    pub rejoins: u64,
    /// Seats taken over by a new connection with the slot's token.
    pub taken_over: u64,
    pub refused_messages: u64,
    pub peak_peers: usize,
    /// The most turns closed and not yet run by the server's sim, after any turn closed
    /// ([`Match::sim_behind`]).
    pub sim_behind_max: u64,
    /// Times the sim fell more than [`SIM_BEHIND_WARN_TURNS`] behind (each warned once).
    pub sim_behind_warnings: u64,
}

/// One match's lockstep.
pub struct Match {
    settings: Settings,
    rules: Arc<Ruleset>,
    /// The state after `turns_run` turns; none while a sim job has it ([`Match::sim_job`]).
    world: Option<World>,
    /// A sim job is out.
    sim_out: bool,
    /// The input delay in force for the last turn run (what a joiner starting from the
    /// world is told).
    delay_run: u32,
    /// The turn a sim job failed at ([`Match::sim_failed`]).
    sim_failed_at: Option<u64>,
    /// The sim is past [`SIM_BEHIND_WARN_TURNS`] behind and was warned about.
    sim_behind_warned: bool,
    /// Events waiting for the world to come home (`sim_job`), in arrival order.
    waiting: VecDeque<Event>,
    /// The match has ended for its players; [`Action::Ended`] waits for the sim to have run
    /// every closed turn.
    ending: Option<EndReason>,
    /// Desync reports waiting to be made (`report_job`), and how many are being made.
    report_jobs: VecDeque<ReportJob>,
    reports_out: usize,
    turns_run: u64,
    phase: Phase,
    /// The open turn: the next to close.
    next_turn: u64,
    /// Turn `epoch_turn` closes at `epoch + turn`; each later one a turn after.
    epoch: Instant,
    epoch_turn: u64,
    peers: BTreeMap<PeerId, Peer>,
    slots: Vec<Slot>,
    /// Commands waiting for their turn: per turn, per player slot, in arrival order.
    pending: BTreeMap<u64, Vec<turns::Queued>>,
    /// Membership changes for the next bundle.
    events: Vec<MembershipEvent>,
    delay: InputDelay,
    /// Closed and sent, not yet run by the server's sim.
    unrun: VecDeque<TurnBundle>,
    /// The server's hash after each turn run.
    hashes: Vec<StateHash>,
    /// The tick hashes of the last [`cohort_protocol::limits::TICK_HASH_TURNS`] turns run: (turn, one per tick).
    tick_hashes: VecDeque<(u64, Vec<TickHash>)>,
    /// Every turn run, encoded, for reports and re-simulation.
    records: RecordLog,
    /// Snapshots of the state after some turns run, for re-simulating to a turn quickly.
    checkpoints: VecDeque<(u64, Snapshot)>,
    /// Clients' hashes of turns the server has not run yet.
    early_hashes: BTreeMap<u64, Vec<(PeerId, StateHash)>>,
    desync: desync::DesyncState,
    pause: Option<clock::Pause>,
    next_ping: Instant,
    ping_nonce: u64,
    empty_since: Option<Instant>,
    /// Taken up again at this time, and waiting for its players ([`RESUME_GRACE_MS`]).
    resume_wait: Option<Instant>,
    /// Suspended by an operator (over here, to go on elsewhere or after a restart).
    suspended: bool,
    /// Suspended, its state not yet saved (the sim still has closed turns to run).
    suspending: bool,
    actions: VecDeque<Action>,
    observed: VecDeque<Observed>,
    stats: MatchStats,
    /// The time as last told.
    now: Instant,
    /// The spectator side when the match has a spectator delay.
    delayed: Option<spectate::Delayed>,
    /// Browsers watching.
    watchers: BTreeSet<PeerId>,
}

impl Match {
    /// A match waiting in its lobby.
    pub fn new(
        settings: Settings,
        rules: Arc<Ruleset>,
        now: Instant,
    ) -> Result<Match, ConfigError> {
        let world = settings.config.world(rules.clone())?;
        let players = settings.config.players.len();
        let delay = InputDelay::new(settings.config.input_delay, settings.adaptive_delay);
        let delayed = (settings.spectator_delay_secs > 0).then(|| {
            spectate::Delayed::new(
                settings.spectator_delay_secs,
                settings.config.turn_ms(),
                settings.config.input_delay,
                world.clone(),
            )
        });
        Ok(Match {
            delayed,
            watchers: BTreeSet::new(),
            rules,
            checkpoints: VecDeque::from([(0, world.snapshot())]),
            world: Some(world),
            sim_out: false,
            delay_run: settings.config.input_delay,
            sim_failed_at: None,
            sim_behind_warned: false,
            waiting: VecDeque::new(),
            ending: None,
            report_jobs: VecDeque::new(),
            reports_out: 0,
            turns_run: 0,
            phase: Phase::Lobby,
            next_turn: 0,
            epoch: now,
            epoch_turn: 0,
            peers: BTreeMap::new(),
            slots: vec![
                Slot {
                    status: PlayerStatus::Playing,
                    peer: None,
                    pauses_used: 0,
                    joined_once: false,
                };
                players
            ],
            pending: BTreeMap::new(),
            events: Vec::new(),
            delay,
            unrun: VecDeque::new(),
            hashes: Vec::new(),
            tick_hashes: VecDeque::new(),
            records: RecordLog::default(),
            early_hashes: BTreeMap::new(),
            desync: desync::DesyncState::default(),
            pause: None,
            next_ping: now,
            ping_nonce: 0,
            empty_since: None,
            resume_wait: None,
            suspended: false,
            suspending: false,
            actions: VecDeque::new(),
            observed: VecDeque::new(),
            stats: MatchStats::default(),
            now,
            settings,
        })
    }

    pub fn id(&self) -> &str {
        &self.settings.config.match_id
    }

    pub fn config(&self) -> &MatchConfig {
        &self.settings.config
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The open turn (the next to close).
    pub fn next_turn(&self) -> u64 {
        self.next_turn
    }

    /// Turns the server's sim has run.
    pub fn turns_run(&self) -> u64 {
        self.turns_run
    }

    /// The server's hash after `turn`, once run.
    pub fn hash_after(&self, turn: u64) -> Option<StateHash> {
        self.hashes.get(turn as usize).copied()
    }

    /// The server's tick hash after each tick of `turn`, while it is one of the last
    /// [`cohort_protocol::limits::TICK_HASH_TURNS`] turns run.
    pub fn tick_hashes_of(&self, turn: u64) -> Option<&[TickHash]> {
        self.tick_hashes
            .iter()
            .find(|(t, _)| *t == turn)
            .map(|(_, h)| h.as_slice())
    }

    pub fn input_delay(&self) -> u32 {
        self.delay.current()
    }

    /// The state after [`Match::turns_run`] turns; none while a sim job has it.
    pub fn world(&self) -> Option<&World> {
        self.world.as_ref()
    }

    pub fn stats(&self) -> &MatchStats {
        &self.stats
    }

    pub fn is_paused(&self) -> bool {
        self.pause.is_some()
    }

    /// The next action to carry out.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// The next observation for the metrics.
    pub fn poll_observed(&mut self) -> Option<Observed> {
        self.observed.pop_front()
    }

    fn observe(&mut self, o: Observed) {
        if self.observed.len() == OBSERVATIONS_KEPT {
            self.observed.pop_front();
        }
        self.observed.push_back(o);
    }

    /// Takes one event.
    pub fn handle(&mut self, now: Instant, event: Event) {
        self.now = now;
        if self.waits_for_world(&event) {
            self.wait_for_world(event);
            return;
        }
        if self.phase == Phase::Ended {
            match event {
                // Suspended, the seat is still the player's: closed without a word, it tries
                // again (the match goes on elsewhere or after a restart).
                Event::Join { peer, .. } if self.suspended => {
                    self.actions.push_back(Action::CloseSuspended { peer })
                }
                Event::Join { peer, .. } => {
                    self.refuse_and_close(peer, ErrorCode::MatchOver, "the match is over");
                }
                Event::Watch { peer } => self.watch(peer),
                // A spectator watching on after the end (`spectate`): its acknowledgements
                // and pongs are no longer needed; leaving closes it.
                Event::Message {
                    peer,
                    message: ClientMessage::Leave { .. },
                } if self.peers.contains_key(&peer) => {
                    self.actions.push_back(Action::Close { peer });
                    self.after_end(peer, true);
                }
                Event::Message { peer, .. } if self.peers.contains_key(&peer) => {}
                Event::Message { peer, .. } => self.actions.push_back(Action::Close { peer }),
                Event::Disconnected { peer } => self.after_end(peer, true),
                Event::OutboxFull { peer } => {
                    self.actions.push_back(Action::Close { peer });
                    self.after_end(peer, true);
                }
                Event::Shutdown | Event::ShutdownSuspend if self.draining() => {
                    self.spectators_after_end(EndReason::ServerShutdown);
                    self.stop_draining();
                }
                Event::OutboxDrained { .. }
                | Event::Shutdown
                | Event::ShutdownSuspend
                | Event::End
                | Event::Suspend => {}
            }
            return;
        }
        match event {
            Event::Join { peer, role, hello } => self.join(peer, role, hello, now),
            Event::Message { peer, message } => self.message(peer, message, now),
            Event::Disconnected { peer } if self.unwatch(peer, false) => {}
            Event::Disconnected { peer } => self.disconnected(peer, now),
            Event::OutboxFull { peer } if self.unwatch(peer, true) => {}
            Event::OutboxFull { peer } => self.outbox_full(peer, now),
            Event::Watch { peer } => self.watch(peer),
            Event::OutboxDrained { peer } => self.outbox_drained(peer),
            Event::Shutdown => self.finish(EndReason::ServerShutdown),
            Event::End => self.finish(EndReason::Operator),
            Event::Suspend => self.suspend(EndReason::Operator),
            Event::ShutdownSuspend => self.suspend(EndReason::ServerShutdown),
        }
    }

    fn message(&mut self, peer: PeerId, message: ClientMessage, now: Instant) {
        let Some(p) = self.peers.get_mut(&peer) else {
            return;
        };
        if !p.messages.take(1, now) {
            self.over_rate(peer, "more messages than the rate limit allows");
            return;
        }
        match message {
            ClientMessage::Hello(_) => {
                self.refuse_and_close(peer, ErrorCode::Unexpected, "Hello was already received")
            }
            ClientMessage::Commands(c) => self.commands(peer, c, now),
            ClientMessage::TurnHash(h) => self.turn_hash(peer, h.turn, Some(h.hash)),
            ClientMessage::Ack { .. } if self.settings.require_hashes && p.player().is_some() => {
                self.refuse_and_close(
                    peer,
                    ErrorCode::Unexpected,
                    "this match requires state hashes: players send TurnHash, not Ack",
                )
            }
            ClientMessage::Ack { turn } => self.turn_hash(peer, turn, None),
            ClientMessage::Snapshot(chunk) => self.snapshot_chunk(peer, chunk),
            ClientMessage::SnapshotUnavailable { turn, reason } => {
                self.snapshot_unavailable(peer, turn, reason)
            }
            ClientMessage::Ping(Ping { nonce }) => {
                self.send(peer, ServerMessage::Pong(Pong { nonce }))
            }
            ClientMessage::Pong(Pong { nonce }) => {
                if let Some(rtt) = p.ponged(nonce, now) {
                    self.observe(Observed::RoundTrip(rtt));
                }
            }
            ClientMessage::Chat { text } => self.chat(peer, text),
            ClientMessage::Pause => self.pause(peer, now),
            ClientMessage::Resume => match self.peers[&peer].player() {
                None => self.refuse(peer, ErrorCode::NotAPlayer, "spectators cannot resume"),
                Some(_) if self.pause.is_none() => {
                    self.refuse(peer, ErrorCode::PauseRefused, "the match is not paused")
                }
                Some(p) => self.resume(Some(p), now),
            },
            ClientMessage::Leave { resign } => self.leave(peer, resign, now),
        }
    }

    fn send(&mut self, to: PeerId, message: ServerMessage) {
        self.actions.push_back(Action::Send { to, message });
    }

    /// Sends the match's stream to everyone in it: to the players and spectators, or with a
    /// spectator delay to the players now and to the spectators later ([`spectate`]).
    fn broadcast(&mut self, message: ServerMessage) {
        self.broadcast_due(message, None);
    }

    /// [`Match::broadcast`], saying when the message was due.
    fn broadcast_due(&mut self, message: ServerMessage, due: Option<Instant>) {
        let to = self.live_audience();
        let message = Arc::new(message);
        self.hold_for_spectators(&message);
        if !to.is_empty() {
            self.actions
                .push_back(Action::Broadcast { to, message, due });
        }
    }

    /// Sends to every peer at once, players and spectators, whatever the delay (pings).
    fn broadcast_all(&mut self, message: ServerMessage) {
        let to = self.peer_ids();
        if !to.is_empty() {
            self.actions.push_back(Action::Broadcast {
                to,
                message: Arc::new(message),
                due: None,
            });
        }
    }

    /// Whether closed turns wait for the server's sim ([`Match::sim_job`]), its own or the
    /// delayed world's.
    pub fn has_unrun(&self) -> bool {
        !self.unrun.is_empty() || self.delayed.as_ref().is_some_and(|d| d.has_unrun())
    }

    /// Refuses a message: an error the connection survives.
    fn refuse(&mut self, peer: PeerId, code: ErrorCode, text: impl Into<String>) {
        let text = text.into();
        tracing::debug!(match_id = %self.id(), peer, ?code, %text, "refused");
        self.stats.refused_messages += 1;
        self.send(peer, ServerMessage::error(code, text));
    }

    /// Refuses and closes the connection; a player in it is dropped.
    fn refuse_and_close(&mut self, peer: PeerId, code: ErrorCode, text: impl Into<String>) {
        let text = text.into();
        tracing::info!(match_id = %self.id(), peer, ?code, %text, "closing connection");
        if !self.peers.contains_key(&peer) {
            self.observe(Observed::JoinRefused(code));
        }
        self.send(peer, ServerMessage::error(code, text));
        self.actions.push_back(Action::Close { peer });
        if self.peers.contains_key(&peer) {
            self.remove_peer(peer, cohort_protocol::message::Membership::Dropped);
        }
    }

    fn over_rate(&mut self, peer: PeerId, text: &str) {
        let Some(p) = self.peers.get_mut(&peer) else {
            return;
        };
        p.strikes += 1;
        if p.strikes >= RATE_STRIKES {
            self.refuse_and_close(
                peer,
                ErrorCode::RateLimited,
                format!("{text}; {RATE_STRIKES} times over the limit, closing"),
            );
        } else {
            self.refuse(peer, ErrorCode::RateLimited, text);
        }
    }

    fn chat(&mut self, peer: PeerId, text: String) {
        if text.len() > MAX_CHAT_BYTES {
            self.refuse(
                peer,
                ErrorCode::OverLimit,
                format!("chat texts are at most {MAX_CHAT_BYTES} bytes"),
            );
            return;
        }
        let p = &self.peers[&peer];
        let line = ChatLine {
            from: p.role,
            name: p.name.clone(),
            text,
        };
        if p.role == Role::Spectator && self.delayed.is_some() {
            // Spectators talk among themselves; the players never hear them (`spectate`).
            let to = self.spectator_ids();
            self.actions.push_back(Action::Broadcast {
                to,
                message: Arc::new(ServerMessage::Chat(line)),
                due: None,
            });
            return;
        }
        self.broadcast(ServerMessage::Chat(line));
    }

    /// Ends the match from outside (shutdown, an operator): the open turn is closed first so
    /// its commands are played and recorded.
    fn finish(&mut self, reason: EndReason) {
        if self.phase == Phase::Running {
            self.close_turn();
        }
        self.end(reason);
    }

    /// Ends the match: everyone is told and closed; once everything closed is run and
    /// recorded, the driver is told ([`Match::end_when_run`]).
    fn end(&mut self, reason: EndReason) {
        if self.phase == Phase::Ended {
            return;
        }
        let last_turn = self.next_turn.saturating_sub(1);
        tracing::info!(match_id = %self.id(), turn = last_turn, ?reason, "match ended");
        self.broadcast(ServerMessage::MatchEnded(MatchEnded { last_turn, reason }));
        let closing: Vec<PeerId> = self.live_audience();
        for &peer in &closing {
            self.actions.push_back(Action::Close { peer });
            self.peers.remove(&peer);
        }
        // Spectators of a delayed match watch on to the end of their stream (`spectate`).
        for peer in self.spectators_after_end(reason) {
            self.actions.push_back(Action::Close { peer });
            self.peers.remove(&peer);
        }
        self.phase = Phase::Ended;
        self.ending = Some(reason);
        self.end_when_run();
    }
}
