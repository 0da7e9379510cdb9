//! One match's task: feeds its `Match` inputs and timeouts, carries out its actions, keeps
//! its view and metrics current, and hands its summary on when it ends.

use super::disk::{Disk, Queued};
use super::resume::snapshot_path;
use super::view::{reason_name, EndSummary, MatchView};
use super::{metrics, Clock, Closing, Host, MatchInput, Outgoing, PlayerChange, SimPool};
use crate::lockstep::{Action, Event, Match, Observed, PeerId, ReportDone, SimDone};
use cohort_protocol::message::EndReason;
use cohort_protocol::replay::ReplayWriter;
use cohort_protocol::resume::MatchSnapshot;
use cohort_sim::Ruleset;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

/// What a match's task needs besides its match: shared by every match of the process.
pub(crate) struct Kit {
    pub rules: Arc<Ruleset>,
    pub files: Files,
    sims: SimPool,
    /// The writer of every match's files.
    pub disk: Disk,
    clock: Clock,
    shutdown: watch::Receiver<bool>,
    pub max_matches: usize,
    pub token_ttl_secs: u64,
    /// The match tasks; and, for `--stats-file`, the summaries of those already joined.
    tasks: std::sync::Mutex<(tokio::task::JoinSet<MatchSummary>, VecDeque<MatchSummary>)>,
}

/// Summaries of ended matches kept for `--stats-file` on a long-running server.
pub const SUMMARIES_KEPT: usize = 1024;

impl Kit {
    pub fn new(
        rules: Arc<Ruleset>,
        files: Files,
        disk: Disk,
        shutdown: watch::Receiver<bool>,
        max_matches: usize,
        token_ttl_secs: u64,
    ) -> Kit {
        Kit {
            rules,
            files,
            disk,
            sims: SimPool::per_core(),
            clock: Clock::start(),
            shutdown,
            max_matches,
            token_ttl_secs,
            tasks: Default::default(),
        }
    }

    /// The ruleset, shared.
    pub fn rules_arc(&self) -> Arc<Ruleset> {
        self.rules.clone()
    }

    pub fn spawn(&self, task: impl std::future::Future<Output = MatchSummary> + Send + 'static) {
        let mut tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        let (set, done) = &mut *tasks;
        while let Some(finished) = set.try_join_next() {
            if let Ok(summary) = finished {
                if done.len() == SUMMARIES_KEPT {
                    done.pop_front();
                }
                done.push_back(summary);
            }
        }
        set.spawn(task);
    }

    /// Waits for every match task (they end on shutdown); their summaries, oldest first.
    pub async fn finish(&self) -> Vec<MatchSummary> {
        let (mut set, done) = {
            let mut tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::take(&mut *tasks)
        };
        let mut all: Vec<MatchSummary> = done.into();
        while let Some(finished) = set.join_next().await {
            if let Ok(summary) = finished {
                all.push(summary);
            }
        }
        all
    }
}

/// Where a match's files go.
#[derive(Clone, Debug)]
pub struct Files {
    pub replay_dir: PathBuf,
    pub report_dir: PathBuf,
    /// Whether matches save their state beside their replays (a state folder is set), to be
    /// taken up again after a restart.
    pub save_state: bool,
    /// Whether a shutdown (SIGTERM, ctrl-c) suspends every running match, to be taken up again
    /// at the next start, rather than ending it: a state folder is set and not
    /// `--end-on-shutdown`.
    pub suspend_on_shutdown: bool,
}

impl Files {
    /// What the server's shutdown is to its matches.
    fn shutdown(&self) -> Event {
        if self.suspend_on_shutdown {
            Event::ShutdownSuspend
        } else {
            Event::Shutdown
        }
    }
}

/// What one match did, for the stats file.
#[derive(Debug, Serialize)]
pub struct MatchSummary {
    pub match_id: String,
    pub end: Option<EndReason>,
    pub replay: Option<PathBuf>,
    pub reports: Vec<PathBuf>,
    pub stats: crate::lockstep::MatchStats,
    /// The server's sim panicked and the match was abandoned (`end` is none); its figures are
    /// as measured up to then.
    pub sim_panicked: bool,
    /// Suspended (`end` is none): its replay and snapshot kept to be taken up again.
    pub suspended: bool,
    /// The turn the server's sim failed at, when it did.
    pub sim_failed_turn: Option<u64>,
    /// How late turns closed after their deadline, in microseconds.
    pub close_lateness_us_p50: u32,
    pub close_lateness_us_p99: u32,
    pub close_lateness_us_max: u32,
    /// Every turn's lateness, sorted (merged across matches for the summary).
    #[serde(skip)]
    pub lateness_us: Vec<u32>,
}

pub(super) fn percentile(sorted: &[u32], p: usize) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) * p) / 100]
}

/// A connection's outbox: the channel to its writer, and the frames held back while it is
/// full (how long it may stay full is the match's rule, [`crate::lockstep::OUTBOX_FULL_DROP_MS`]).
struct Outbox {
    tx: mpsc::Sender<Outgoing>,
    /// Frames that found the outbox full, oldest first.
    held: VecDeque<Outgoing>,
    /// Closes the connection at once (a close cannot be queued behind held frames).
    cut: oneshot::Sender<Closing>,
}

impl Outbox {
    fn new(tx: mpsc::Sender<Outgoing>, cut: oneshot::Sender<Closing>) -> Outbox {
        Outbox {
            tx,
            held: VecDeque::new(),
            cut,
        }
    }
}

struct Driver {
    outs: BTreeMap<PeerId, Outbox>,
    disk: Disk,
    /// The match's replay, as handed to the disk writer; none if its start was dropped.
    replay_path: Option<PathBuf>,
    /// A record of the replay was dropped (the disk queue was full): the replay stops there.
    replay_stopped: bool,
    /// Suspended: over here, its files kept to take it up again.
    suspended: bool,
    /// Where the match goes on, when an operator suspending it said (told to its clients).
    moved_to: Option<Arc<cohort_protocol::close::MovedTo>>,
    created_at: u64,
    reports: Vec<PathBuf>,
    pub files: Files,
    end: Option<EndReason>,
    /// The turn the match's sim failed at ([`Action::SimFailed`]).
    sim_failed: Option<u64>,
    /// What the outboxes said (full, drained, gone), for the match.
    told_by_outboxes: Vec<Event>,
    host: Arc<Host>,
    told: Told,
    match_id: String,
}

impl Driver {
    /// Closes `peer`'s connection after the frames queued for it. Behind held frames (a full
    /// outbox) the close cannot be queued: the match is done with the peer, so they are
    /// dropped and the connection cut.
    fn close(&mut self, peer: PeerId, closing: Closing) {
        if let Some(o) = self.outs.remove(&peer) {
            if !o.held.is_empty() || o.tx.try_send(Outgoing::Close(closing.clone())).is_err() {
                let _ = o.cut.send(closing);
            }
        }
    }

    /// Queues a frame for `peer`; one that finds its outbox full is held back, and the match
    /// told.
    fn push(&mut self, peer: PeerId, out: Outgoing) {
        let Some(o) = self.outs.get_mut(&peer) else {
            return;
        };
        if !o.held.is_empty() {
            o.held.push_back(out);
            return;
        }
        match o.tx.try_send(out) {
            Ok(()) => {}
            Err(TrySendError::Full(out)) => {
                o.held.push_back(out);
                self.told_by_outboxes.push(Event::OutboxFull { peer });
            }
            Err(TrySendError::Closed(_)) => {
                self.outs.remove(&peer);
                self.told_by_outboxes.push(Event::Disconnected { peer });
            }
        }
    }

    /// Moves held frames into their outboxes as far as there is room; an outbox that takes
    /// all of them is told to the match as drained.
    fn flush(&mut self) {
        let mut gone = Vec::new();
        for (&peer, o) in &mut self.outs {
            if o.held.is_empty() {
                continue;
            }
            while let Some(out) = o.held.pop_front() {
                match o.tx.try_send(out) {
                    Ok(()) => {}
                    Err(TrySendError::Full(out)) => {
                        o.held.push_front(out);
                        break;
                    }
                    Err(TrySendError::Closed(_)) => {
                        gone.push(peer);
                        break;
                    }
                }
            }
            if o.held.is_empty() {
                self.told_by_outboxes.push(Event::OutboxDrained { peer });
            }
        }
        for peer in gone {
            self.outs.remove(&peer);
            self.told_by_outboxes.push(Event::Disconnected { peer });
        }
    }

    /// Flushes the held frames, then tells the match what the outboxes said and carries out
    /// its answers, until they have nothing more to say.
    fn settle(&mut self, m: &mut Match) {
        self.flush();
        while !self.told_by_outboxes.is_empty() {
            let now = Instant::now().into_std();
            for event in std::mem::take(&mut self.told_by_outboxes) {
                m.handle(now, event);
            }
            self.carry_out(m);
        }
    }

    fn carry_out(&mut self, m: &mut Match) {
        while let Some(action) = m.poll_action() {
            match action {
                Action::Send { to, message } => self.push(to, Outgoing::frame(&message)),
                Action::Broadcast { to, message, due } => {
                    let frame = match (Outgoing::frame(&message), due) {
                        (Outgoing::Frame(bytes), Some(due)) => Outgoing::Bundle(bytes, due),
                        (frame, _) => frame,
                    };
                    for p in to {
                        self.push(p, frame.clone());
                    }
                }
                Action::View { to, frame } => {
                    for p in to {
                        self.push(p, Outgoing::Frame(frame.clone()));
                    }
                }
                Action::Close { peer } => self.close(peer, Closing::Closed),
                Action::CloseSuspended { peer } => {
                    let closing = Closing::suspended(self.moved_to.as_ref());
                    self.close(peer, closing)
                }
                Action::ReplayStart(header) => {
                    let name = format!("{}-{}.cohort-replay", m.id(), super::unix_now());
                    let path = self.files.replay_dir.join(name);
                    if self.disk.replay_start(path.clone(), header) == Queued::Yes {
                        self.replay_path = Some(path);
                    }
                }
                Action::ReplayRecord(record) => {
                    self.host.metrics.turns.inc();
                    if let (Some(path), false) = (&self.replay_path, self.replay_stopped) {
                        let turn = record.bundle.turn;
                        if self.disk.replay_record(path.clone(), record) == Queued::Dropped {
                            tracing::error!(match_id = %m.id(), turn, "the disk queue is full; replay stopped before this turn");
                            self.replay_stopped = true;
                        }
                    }
                }
                Action::Report(report) => {
                    self.host.metrics.reports.inc();
                    let name = format!(
                        "{}-turn{}-{}.cohort-desync",
                        m.id(),
                        report.turn,
                        super::unix_now()
                    );
                    let path = self.files.report_dir.join(name);
                    if self.disk.report(path.clone(), report) == Queued::Yes {
                        self.reports.push(path);
                    }
                }
                Action::SaveState { turns_run, world } => {
                    // Written by the disk thread after every record queued before it (the
                    // replay flushed to disk first), so the replay holds its turn.
                    let Some(path) = &self.replay_path else {
                        continue;
                    };
                    let snapshot = MatchSnapshot {
                        settings: m.resume_settings(self.created_at),
                        replay: path
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                        turns_run,
                        world: world.map(|w| *w),
                    };
                    self.disk
                        .snapshot(path.clone(), snapshot_path(path), snapshot);
                }
                Action::Ended(reason) => self.end = Some(reason),
                Action::SimFailed { turn } => {
                    self.host.metrics.sim_failures.inc();
                    self.sim_failed = Some(turn);
                }
                Action::Suspended => self.suspended = true,
            }
        }
    }
}

impl Driver {
    /// The match is over: its replay is closed, and once its files are on disk (every write
    /// queued before, `disk`), its summary names those written. Waits without holding a
    /// runtime thread; a stalled disk delays this summary, no match's turns.
    async fn files_done(&mut self) {
        let replay = self.replay_path.take();
        if let Some(path) = &replay {
            self.disk.replay_end(path.clone());
        }
        let mut asked = std::mem::take(&mut self.reports);
        asked.extend(replay.clone());
        let mut written = self.disk.written(asked).await;
        if let Some(path) = replay {
            if let Some(at) = written.iter().position(|p| *p == path) {
                self.replay_path = Some(written.remove(at));
            }
        }
        self.reports = written;
    }
}

/// What a view depends on: phase, paused, open turn, connections, desyncs, drops, rejoins.
type ViewKey = (
    crate::lockstep::Phase,
    bool,
    u64,
    (usize, usize),
    u64,
    u64,
    u64,
);

/// What the view and the metrics were last told, to tell only changes.
#[derive(Default)]
struct Told {
    key: Option<ViewKey>,
    desyncs: u64,
    dropped: u64,
    rejoins: u64,
    hashes_compared: u64,
    /// The sim's lag last told.
    sim_behind: Option<u64>,
    /// Which slots were connected.
    connected: Vec<bool>,
}

impl Driver {
    /// After each step: the match's observations to the metrics, and its view, figures and
    /// connected players where they changed.
    fn refresh(&mut self, m: &mut Match, view: &watch::Sender<MatchView>, created_at: u64) {
        let metrics = &self.host.metrics;
        while let Some(o) = m.poll_observed() {
            match o {
                Observed::RoundTrip(rtt) => metrics.round_trip.observe(metrics::seconds(rtt)),
                Observed::JoinRefused(code) => metrics.refused(code),
            }
        }
        let s = m.stats();
        // Hashes arrive between turns: counted at every step, not only when the view changes.
        metrics
            .hashes_compared
            .inc_by(s.hashes_compared - self.told.hashes_compared);
        self.told.hashes_compared = s.hashes_compared;
        if self.told.sim_behind != Some(m.sim_behind()) {
            self.told.sim_behind = Some(m.sim_behind());
            metrics.match_sim_behind(m.id(), m.sim_behind());
        }
        let key = (
            m.phase(),
            m.is_paused(),
            m.next_turn(),
            m.connected(),
            s.desyncs,
            s.dropped,
            s.rejoins,
        );
        if self.told.key == Some(key) {
            return;
        }
        self.told.key = Some(key);
        metrics.desyncs.inc_by(s.desyncs - self.told.desyncs);
        metrics.drops.inc_by(s.dropped - self.told.dropped);
        metrics.rejoins.inc_by(s.rejoins - self.told.rejoins);
        (self.told.desyncs, self.told.dropped, self.told.rejoins) =
            (s.desyncs, s.dropped, s.rejoins);
        let now = MatchView::of(m, created_at);
        metrics.match_figures(m.id(), now.turn, now.players_connected);
        self.tell_players(&now);
        // An ended match's view is published once, with its summary ([`Driver::ended`]): a
        // reader that sees `ended` sees the summary too.
        if now.state != super::MatchState::Ended {
            view.send_replace(now);
        }
    }

    /// Tells the Agones SDK (if any) which slots connected or left since last time.
    fn tell_players(&mut self, now: &MatchView) {
        let connected: Vec<bool> = now.players.iter().map(|p| p.connected).collect();
        for (slot, &c) in connected.iter().enumerate() {
            if self.told.connected.get(slot).copied().unwrap_or(false) != c {
                self.host.player_change(PlayerChange {
                    match_id: now.match_id.clone(),
                    slot: u8::try_from(slot).unwrap_or(u8::MAX),
                    connected: c,
                });
            }
        }
        self.told.connected = connected;
    }

    /// The match is over: its summary to the metrics, the webhook and its view — the view
    /// turns `ended` here only, in one step with its summary.
    fn ended(
        &mut self,
        mut last: MatchView,
        turns: u64,
        sim_failed_turn: Option<u64>,
        view: &watch::Sender<MatchView>,
    ) {
        for p in &mut last.players {
            p.connected = false;
        }
        last.players_connected = 0;
        last.spectators = 0;
        let reason = if self.suspended {
            super::registry::SUSPENDED_REASON
        } else {
            reason_name(self.end)
        };
        let summary = EndSummary {
            match_id: last.match_id.clone(),
            reason,
            turns,
            created_at: last.created_at,
            ended_at: super::unix_now(),
            players: last.players.clone(),
            desyncs: last.desyncs,
            sim_panicked: sim_failed_turn.is_some(),
            sim_failed_turn,
            replay: self.replay_path.clone(),
            reports: self.reports.clone(),
            lost: None,
        };
        self.tell_players(&last);
        let host = &self.host;
        host.metrics.match_gone(&last.match_id);
        host.metrics.matches_running.dec();
        host.metrics
            .matches_ended
            .get_or_create(&metrics::Reason {
                reason: reason.to_string(),
            })
            .inc();
        tracing::info!(match_id = %last.match_id, reason, turns, "match summary");
        if let Some(w) = &host.webhook {
            w.post(summary.clone());
        }
        view.send_replace(MatchView {
            state: super::MatchState::Ended,
            summary: Some(summary),
            ..last
        });
        host.matches.ended(&self.match_id);
    }
}

/// A sim job out on the sim pool: its result and how long it took, or an error if it panicked.
type JobOut = oneshot::Receiver<(SimDone, Duration)>;

/// A desync report's job out on the sim pool (`lockstep::report_job`).
type ReportOut = oneshot::Receiver<ReportDone>;

/// Runs a match until it ends; `resumed`: a match taken up again, its replay to go on.
pub(super) async fn run(
    mut m: Match,
    mut rx: mpsc::Receiver<MatchInput>,
    host: Arc<Host>,
    view: watch::Sender<MatchView>,
    created_at: u64,
    resumed: Option<(ReplayWriter<File>, PathBuf)>,
) -> MatchSummary {
    let kit = &host.kit;
    let mut shutdown = kit.shutdown.clone();
    // A match taken up again goes on writing its replay (the disk thread takes the file over).
    let replay_path = resumed.and_then(|(writer, path)| {
        (kit.disk.replay_resume(path.clone(), writer) == Queued::Yes).then_some(path)
    });
    let mut d = Driver {
        outs: BTreeMap::new(),
        disk: kit.disk.clone(),
        replay_path,
        replay_stopped: false,
        suspended: false,
        moved_to: None,
        created_at,
        reports: Vec::new(),
        files: kit.files.clone(),
        end: None,
        sim_failed: None,
        told_by_outboxes: Vec::new(),
        host: host.clone(),
        told: Told::default(),
        match_id: m.id().to_string(),
    };
    let mut shutting_down = false;
    // The alarm set on the clock thread for the match's next deadline, and that deadline.
    let mut alarm: Option<(std::time::Instant, oneshot::Receiver<()>)> = None;
    // The match's sim job on the sim pool: the match goes on while it runs (`lockstep::sim_job`).
    let mut job: Option<JobOut> = None;
    let mut report: Option<ReportOut> = None;
    // A shutdown already under way when the match was set up.
    if *shutdown.borrow() {
        m.handle(Instant::now().into_std(), kit.files.shutdown());
        d.carry_out(&mut m);
    }
    // The match's summary once it has ended for its players; the task runs on while a delayed
    // match's spectators are released the rest of their stream (`Match::draining`).
    let mut summed_up = false;
    while !summed_up || (m.draining() && !d.suspended) {
        let deadline = m.poll_timeout();
        if alarm.as_ref().map(|(at, _)| *at) != deadline {
            alarm = deadline.map(|at| (at, kit.clock.alarm(at)));
        }
        tokio::select! {
            input = rx.recv() => {
                let now = Instant::now().into_std();
                match input {
                    Some(MatchInput::Join { peer, role, hello, out, cut }) => {
                        d.outs.insert(peer, Outbox::new(out, cut));
                        m.handle(now, Event::Join { peer, role, hello });
                        host.metrics.joins.inc();
                    }
                    Some(MatchInput::Watch { peer, out, cut }) => {
                        d.outs.insert(peer, Outbox::new(out, cut));
                        m.handle(now, Event::Watch { peer });
                    }
                    Some(MatchInput::Message { peer, message }) => {
                        m.handle(now, Event::Message { peer, message })
                    }
                    Some(MatchInput::Disconnected { peer }) => {
                        d.outs.remove(&peer);
                        m.handle(now, Event::Disconnected { peer });
                    }
                    Some(MatchInput::End) => m.handle(now, Event::End),
                    Some(MatchInput::Suspend { to }) => {
                        d.moved_to = to;
                        m.handle(now, Event::Suspend)
                    }
                    None => m.handle(now, kit.files.shutdown()),
                }
            }
            () = ring(&mut alarm) => {
                alarm = None;
                // An outbox that drained since is told before the match's deadlines.
                d.settle(&mut m);
                m.handle_timeout(Instant::now().into_std());
            }
            done = back(&mut job) => {
                job = None;
                let now = Instant::now().into_std();
                match done {
                    Ok((done, took)) => {
                        host.metrics.sim_time.observe(metrics::seconds(took));
                        m.sim_done(now, done);
                    }
                    Err(_) => m.sim_failed(now),
                }
            }
            done = back(&mut report) => {
                report = None;
                let now = Instant::now().into_std();
                match done {
                    Ok(done) => m.report_done(now, done),
                    Err(_) => m.report_failed(now),
                }
            }
            changed = shutdown.changed(), if !shutting_down => {
                shutting_down = true;
                if changed.is_err() || *shutdown.borrow() {
                    m.handle(Instant::now().into_std(), kit.files.shutdown());
                }
            }
        }
        // Frames first (the turn's bundle goes out on time), then the closed turns' sim goes to
        // a sim thread as a job: the match goes on without waiting for it. The job is handed
        // over only once the runtime thread has written those frames and QUIC sent them
        // (`after_the_sends`): a sim thread woken on the same core would otherwise hold it.
        d.carry_out(&mut m);
        if job.is_none() {
            if let Some(j) = m.sim_job() {
                after_the_sends().await;
                job = Some(kit.sims.submit(move || {
                    let begun = std::time::Instant::now();
                    let done = j.run();
                    (done, begun.elapsed())
                }));
            }
        }
        if report.is_none() {
            if let Some(r) = m.report_job() {
                report = Some(kit.sims.submit(move || r.run()));
            }
        }
        d.settle(&mut m);
        if !summed_up {
            d.refresh(&mut m, &view, created_at);
        }
        if (d.end.is_some() || d.sim_failed.is_some() || d.suspended) && !summed_up {
            summed_up = true;
            let snapshot = d.replay_path.as_deref().map(snapshot_path);
            d.files_done().await;
            // Over: its snapshot goes (after every write before it), so that a restart does not
            // take it up again; suspended, it is kept.
            if let (Some(path), false) = (snapshot, d.suspended) {
                let _ = tokio::task::spawn_blocking(move || std::fs::remove_file(path)).await;
            }
            let turns = m.turns_run();
            d.ended(MatchView::of(&m, created_at), turns, d.sim_failed, &view);
        }
    }
    let mut lateness = m.stats().close_lateness_us.clone();
    lateness.sort_unstable();
    MatchSummary {
        match_id: m.id().to_string(),
        end: d.end,
        replay: d.replay_path,
        reports: d.reports,
        close_lateness_us_p50: percentile(&lateness, 50),
        close_lateness_us_p99: percentile(&lateness, 99),
        close_lateness_us_max: lateness.last().copied().unwrap_or(0),
        stats: m.stats().clone(),
        sim_panicked: d.sim_failed.is_some(),
        suspended: d.suspended,
        sim_failed_turn: d.sim_failed,
        lateness_us: lateness,
    }
}

/// Resolves once the runtime thread has run every task already woken — the connections' writer
/// tasks given the turn's bundle, and the QUIC connection tasks they wake to send the packets
/// (tokio runs a task that yielded only after the rest of its thread's queue). The match task
/// calls it before handing a sim job to the pool. Woken first, a sim thread on the runtime
/// thread's core held the core while the bundles waited: with the server pinned to one core,
/// they went out 1.6–4.2 ms after their deadline at the median (the turn closed 0.1 ms after
/// it), whether the sim thread ran at nice 10 or `SCHED_IDLE`; 0.3 ms with this
/// (BENCHMARKS.md, "The sim on the server's core").
async fn after_the_sends() {
    tokio::task::yield_now().await;
}

/// Resolves when the job comes back (never without one).
async fn back<T>(job: &mut Option<oneshot::Receiver<T>>) -> Result<T, oneshot::error::RecvError> {
    match job {
        Some(rx) => rx.await,
        None => std::future::pending().await,
    }
}

/// Resolves when the alarm rings (never without one). Should the clock thread be gone, tokio's
/// own timer stands in.
async fn ring(alarm: &mut Option<(std::time::Instant, oneshot::Receiver<()>)>) {
    match alarm {
        Some((at, rx)) => {
            if rx.await.is_err() {
                tokio::time::sleep_until(Instant::from_std(*at)).await;
            }
        }
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// On one runtime thread: a task hands a frame to a connection's writer task, then waits
    /// `after_the_sends` before handing out its sim job. The writer — and the task it wakes in
    /// turn, as a writer wakes its QUIC connection's task — runs first.
    #[tokio::test(flavor = "current_thread")]
    async fn a_sim_job_is_handed_out_after_the_woken_writers_ran() {
        let order = Arc::new(Mutex::new(Vec::new()));
        let (frames, mut writer_rx) = tokio::sync::mpsc::channel::<u64>(8);
        let (packets, mut quic_rx) = tokio::sync::mpsc::channel::<u64>(8);
        let log = order.clone();
        let quic = tokio::spawn(async move {
            while let Some(turn) = quic_rx.recv().await {
                log.lock().unwrap().push(format!("sent {turn}"));
            }
        });
        let log = order.clone();
        let writer = tokio::spawn(async move {
            while let Some(turn) = writer_rx.recv().await {
                log.lock().unwrap().push(format!("written {turn}"));
                packets.try_send(turn).unwrap();
            }
        });
        // Both wait for their first frame.
        tokio::task::yield_now().await;
        for turn in 0..3 {
            frames.try_send(turn).unwrap();
            after_the_sends().await;
            order.lock().unwrap().push(format!("sim job {turn}"));
        }
        drop(frames);
        writer.await.unwrap();
        quic.await.unwrap();
        let order = order.lock().unwrap().clone();
        let expected: Vec<String> = (0..3)
            .flat_map(|t| {
                [
                    format!("written {t}"),
                    format!("sent {t}"),
                    format!("sim job {t}"),
                ]
            })
            .collect();
        assert_eq!(order, expected);
    }
}
