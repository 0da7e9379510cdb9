//! The lockstep rules, with a fake clock and no sockets: the harness here, the tests by topic.

mod control;
mod desync;
mod lag;
mod membership;
mod resume;
mod sim_job;
mod spectate;
mod turns;

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

/// The most timeouts a Match may have due at one instant before the harness calls it a spin.
const TIMEOUTS_AT_ONE_INSTANT: u32 = 1000;

struct Harness {
    m: Match,
    t0: Instant,
    now: Instant,
    rules: Arc<Ruleset>,
    /// Everything each peer was sent, in order.
    inbox: BTreeMap<PeerId, Vec<ServerMessage>>,
    /// Every view frame each browser watching was sent, in order.
    views: BTreeMap<PeerId, Vec<Arc<Vec<u8>>>>,
    closed: Vec<PeerId>,
    /// The peers closed with the close code `suspended` (also in `closed`).
    closed_suspended: Vec<PeerId>,
    replay: Vec<TurnRecord>,
    replay_started: bool,
    reports: Vec<DesyncReport>,
    ended: Option<EndReason>,
    sim_failed: Option<u64>,
    /// Runs the sim after every step (off: the test holds its jobs, `sim_job`).
    auto_sim: bool,
    /// The states saved ([`Action::SaveState`]): turns run, and the world after them.
    saved: Vec<(u64, Option<Box<Snapshot>>)>,
    suspended: bool,
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
            views: BTreeMap::new(),
            closed: Vec::new(),
            closed_suspended: Vec::new(),
            replay: Vec::new(),
            replay_started: false,
            reports: Vec::new(),
            ended: None,
            sim_failed: None,
            auto_sim: true,
            saved: Vec::new(),
            suspended: false,
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
                Action::View { to, frame } => {
                    for p in to {
                        self.views.entry(p).or_default().push(frame.clone());
                    }
                }
                Action::Close { peer } => self.closed.push(peer),
                Action::CloseSuspended { peer } => {
                    self.closed.push(peer);
                    self.closed_suspended.push(peer);
                }
                Action::ReplayStart(_) => self.replay_started = true,
                Action::ReplayRecord(r) => self.replay.push(r),
                Action::Report(r) => self.reports.push(*r),
                Action::SaveState { turns_run, world } => self.saved.push((turns_run, world)),
                Action::Ended(r) => self.ended = Some(r),
                Action::SimFailed { turn } => self.sim_failed = Some(turn),
                Action::Suspended => self.suspended = true,
            }
        }
    }

    fn event(&mut self, e: Event) {
        self.m.handle(self.now, e);
        if self.auto_sim {
            self.m.simulate();
        }
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
        let mut at_one_instant = 0;
        while let Some(t) = self.m.poll_timeout().filter(|t| *t <= end) {
            // Handling a due timeout must move the Match's next deadline on: one left due would
            // spin the driver as it spins this loop. A test fails here rather than hang.
            at_one_instant = if t <= self.now { at_one_instant + 1 } else { 0 };
            assert!(
                at_one_instant < TIMEOUTS_AT_ONE_INSTANT,
                "handle_timeout left a timeout due at {t:?}: a driver would spin on it"
            );
            self.now = t.max(self.now);
            self.m.handle_timeout(self.now);
            if self.auto_sim {
                self.m.simulate();
            }
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
            .expect("the world is home between steps")
            .state()
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

/// Runs the replay's bundles from the configuration's world and checks every hash.
fn resimulates(h: &Harness) -> bool {
    let mut w = h.m.config().world(h.rules.clone()).unwrap();
    h.replay.iter().enumerate().all(|(i, r)| {
        run_bundle(&mut w, &r.bundle, h.m.config().turn_ticks);
        r.bundle.turn == i as u64 && w.hash() == r.hash
    })
}
