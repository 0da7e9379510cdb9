//! The server's sim as a job: the lockstep never waits for it (issue 37).
//!
//! When turns have closed, [`Match::sim_job`] lends its world out (and a delayed match's
//! spectator world, `spectate`) with the bundles to run. The driver runs [`SimJob::run`]
//! wherever it likes — a sim thread — and hands the [`SimDone`] back through
//! [`Match::sim_done`], which records the turns, keeps their hashes and tick hashes and
//! compares the clients' hashes that were waiting for them. While the job is out the match goes
//! on as before: turns close on their deadlines, commands and hashes arrive, pings go out; the
//! turn clock never depends on a sim finishing. Only what needs the world itself waits for it to
//! come home, in arrival order: a join (its snapshot) and a browser starting to watch (its
//! first view), with what their connections say meanwhile (at most [`MAX_WAITING_FOR_WORLD`]
//! events).
//!
//! A sim that falls behind (a slow machine, a huge order) is measured — [`Match::sim_behind`],
//! the turns closed and not yet run, and `MatchStats::sim_behind_max` — and warned about once
//! it is past [`SIM_BEHIND_WARN_TURNS`]; it never delays a bundle. A job that panics loses the
//! world: [`Match::sim_failed`] ends the match, telling everyone in it why and at which turn.
//!
//! [`Match::simulate`] runs every outstanding job in place, for callers without threads (the
//! tests, `tests/tests/long_match.rs`).

use super::turns::CHECKPOINT_TURNS;
use super::{Action, Event, Match, PeerId, Phase};
use crate::watch::frame;
use cohort_protocol::limits::TICK_HASH_TURNS;
use cohort_protocol::message::{ErrorCode, ServerMessage, TurnBundle};
use cohort_protocol::replay::TurnRecord;
use cohort_protocol::setup::run_bundle_hashed;
use cohort_sim::hash::TickHash;
use cohort_sim::world::Snapshot;
use cohort_sim::{StateHash, World};
use std::time::Instant;

/// Turns closed and not yet run by the server's sim past which the match logs a warning (once,
/// until the sim is back within the bound). Eight turns are a second at the default 125 ms
/// turn: a sim that far behind cannot keep up with its clients, which run the same world.
pub const SIM_BEHIND_WARN_TURNS: u64 = 8;

/// Events kept waiting for the world to come home (joins and browsers starting to watch, and
/// what their connections say meanwhile). Past this many, the connection of the next one is
/// closed with `Internal` ("the server is busy; try again").
pub const MAX_WAITING_FOR_WORLD: usize = 256;

/// The turns a job runs, and what it is to make after each.
pub struct SimJob {
    world: World,
    bundles: Vec<TurnBundle>,
    turn_ticks: u32,
    /// Turns the world had run when lent out.
    turns_run: u64,
    /// Every this many turns run, the state is kept for the match's snapshot file too
    /// (`Settings::snapshot_every`).
    save_every: Option<u64>,
    /// Players of the match, when browsers watch this world (each turn's view is made in the
    /// job, from the world after the turn).
    views_for: Option<usize>,
    delayed: Option<DelayedJob>,
}

/// The spectator world's share of a job.
struct DelayedJob {
    world: World,
    bundles: Vec<TurnBundle>,
    views_for: Option<usize>,
}

/// What a job gives back: the worlds, and each turn's hashes.
pub struct SimDone {
    world: World,
    turns: Vec<TurnRun>,
    delayed: Option<(World, Vec<DelayedRun>)>,
}

/// One turn run in the match's world.
struct TurnRun {
    bundle: TurnBundle,
    hash: StateHash,
    ticks: Vec<TickHash>,
    /// The state after the turn, every [`CHECKPOINT_TURNS`] turns run (and every
    /// `save_every`).
    checkpoint: Option<Snapshot>,
    views: Vec<Vec<u8>>,
}

/// One turn run in the spectator world.
struct DelayedRun {
    turn: u64,
    hash: StateHash,
    views: Vec<Vec<u8>>,
}

impl SimJob {
    /// The turns in the job.
    pub fn turns(&self) -> usize {
        self.bundles.len() + self.delayed.as_ref().map_or(0, |d| d.bundles.len())
    }

    /// Runs the turns. Same inputs, same output on every machine; no I/O.
    pub fn run(self) -> SimDone {
        let SimJob {
            mut world,
            bundles,
            turn_ticks,
            turns_run,
            save_every,
            views_for,
            delayed,
        } = self;
        let mut turns = Vec::with_capacity(bundles.len());
        for (n, bundle) in (turns_run + 1..).zip(bundles) {
            let ticks = run_bundle_hashed(&mut world, &bundle, turn_ticks);
            let hash = world.hash();
            let kept = n.is_multiple_of(CHECKPOINT_TURNS)
                || save_every.is_some_and(|s| n.is_multiple_of(s.max(1)));
            let checkpoint = kept.then(|| world.snapshot());
            let views = views_for.map_or_else(Vec::new, |p| views_of(&world, p, bundle.turn));
            turns.push(TurnRun {
                bundle,
                hash,
                ticks,
                checkpoint,
                views,
            });
        }
        let delayed = delayed.map(|d| {
            let mut w = d.world;
            let runs = d
                .bundles
                .into_iter()
                .map(|b| {
                    run_bundle_hashed(&mut w, &b, turn_ticks);
                    DelayedRun {
                        turn: b.turn,
                        hash: w.hash(),
                        views: d
                            .views_for
                            .map_or_else(Vec::new, |p| views_of(&w, p, b.turn)),
                    }
                })
                .collect();
            (w, runs)
        });
        SimDone {
            world,
            turns,
            delayed,
        }
    }
}

/// What browsers watching are sent after `turn`: its view, and every
/// [`frame::RESOURCES_EVERY_TURNS`] turns the resources first.
fn views_of(world: &World, players: usize, turn: u64) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if turn.is_multiple_of(frame::RESOURCES_EVERY_TURNS) {
        out.push(frame::resources(world, turn));
    }
    out.push(frame::turn(world, players, turn));
    out
}

impl Match {
    /// The closed turns for the server's sim, with the world to run them in, when there are
    /// some and no job is out. The match goes on without its world until [`Match::sim_done`]
    /// (or [`Match::sim_failed`]).
    pub fn sim_job(&mut self) -> Option<SimJob> {
        if self.sim_out || self.sim_failed_at.is_some() || !self.has_unrun() {
            return None;
        }
        let world = self.world.take()?;
        let watched = (!self.watchers.is_empty()).then_some(self.slots.len());
        let delayed = self.delayed.as_mut().and_then(|d| {
            if d.unrun.is_empty() {
                return None;
            }
            Some(DelayedJob {
                world: d.world.take()?,
                bundles: d.unrun.drain(..).collect(),
                views_for: watched,
            })
        });
        self.sim_out = true;
        Some(SimJob {
            world,
            bundles: self.unrun.drain(..).collect(),
            turn_ticks: self.settings.config.turn_ticks,
            turns_run: self.turns_run,
            save_every: self.settings.snapshot_every,
            views_for: watched.filter(|_| self.delayed.is_none()),
            delayed,
        })
    }

    /// Whether a sim job is out (the world is away).
    pub fn sim_out(&self) -> bool {
        self.sim_out
    }

    /// Turns closed that the server's sim has not run yet.
    pub fn sim_behind(&self) -> u64 {
        self.next_turn.saturating_sub(self.turns_run)
    }

    /// The turn whose sim failed, once one has ([`Match::sim_failed`]).
    pub fn sim_failed_at(&self) -> Option<u64> {
        self.sim_failed_at
    }

    /// A job came back: its turns are recorded, their hashes kept and compared with the
    /// clients' that were waiting, browsers watching are shown them; then what waited for the
    /// world is handled.
    pub fn sim_done(&mut self, now: Instant, done: SimDone) {
        self.now = now;
        self.sim_out = false;
        self.world = Some(done.world);
        for run in done.turns {
            self.turn_run(run);
        }
        if let Some((world, runs)) = done.delayed {
            for run in runs {
                if self
                    .hashes
                    .get(run.turn as usize)
                    .is_some_and(|h| *h != run.hash)
                {
                    tracing::error!(match_id = %self.settings.config.match_id, turn = run.turn, "the delayed world differs from the match's own");
                }
                self.show_watchers(run.views);
            }
            if let Some(d) = &mut self.delayed {
                d.world = Some(world);
            }
        }
        if self.sim_behind() <= SIM_BEHIND_WARN_TURNS {
            self.sim_behind_warned = false;
        }
        self.end_when_run();
        while !self.sim_out {
            let Some(event) = self.waiting.pop_front() else {
                break;
            };
            self.handle(now, event);
        }
    }

    /// Records one turn the sim ran, keeps its hashes and compares the clients' waiting.
    fn turn_run(&mut self, run: TurnRun) {
        let TurnRun {
            bundle,
            hash,
            ticks,
            checkpoint,
            views,
        } = run;
        let turn = bundle.turn;
        if let Some(d) = bundle.input_delay {
            self.delay_run = d;
        }
        self.hashes.push(hash);
        self.tick_hashes.push_back((turn, ticks));
        while self.tick_hashes.len() as u64 > TICK_HASH_TURNS {
            self.tick_hashes.pop_front();
        }
        self.turns_run += 1;
        let record = TurnRecord { bundle, hash };
        if let Err(e) = self.records.push(&record) {
            // Not reachable with the bounded commands of a turn; the file replay still gets
            // the record, only re-simulating past this turn is lost.
            tracing::error!(match_id = %self.id(), turn, error = %e, "turn record not kept");
        }
        self.actions.push_back(Action::ReplayRecord(record));
        if let Some(snapshot) = checkpoint {
            if self
                .settings
                .snapshot_every
                .is_some_and(|s| self.turns_run.is_multiple_of(s.max(1)))
            {
                // After the turn's record: the file holds every turn the snapshot has.
                self.actions.push_back(Action::SaveState {
                    turns_run: self.turns_run,
                    world: Some(Box::new(snapshot.clone())),
                });
            }
            if self.turns_run.is_multiple_of(CHECKPOINT_TURNS) {
                if self.checkpoints.len() > super::turns::CHECKPOINTS_KEPT {
                    // Keep the start (index 0) for re-simulating from the beginning.
                    self.checkpoints.remove(1);
                }
                self.checkpoints.push_back((self.turns_run, snapshot));
            }
        }
        for (peer, h) in self.early_hashes.remove(&turn).unwrap_or_default() {
            if self.peers.contains_key(&peer) {
                self.compare(peer, turn, h, hash);
            }
        }
        if self.delayed.is_none() {
            self.show_watchers(views);
        }
    }

    /// A job panicked: its world is lost and the match cannot go on. Everyone in it is told
    /// why and at which turn (the first the job was to run), and closed; the driver is told
    /// with [`Action::SimFailed`]. The match's figures stay as measured.
    pub fn sim_failed(&mut self, now: Instant) {
        self.now = now;
        self.sim_out = false;
        if self.sim_failed_at.is_some() {
            return;
        }
        let turn = self.turns_run;
        self.sim_failed_at = Some(turn);
        tracing::error!(match_id = %self.id(), turn, "the server's sim failed; the match is over");
        let text = format!("the server's sim failed at turn {turn}; the match cannot go on");
        let everyone: Vec<PeerId> = self.peers.keys().copied().collect();
        for &peer in &everyone {
            self.send(
                peer,
                ServerMessage::error(ErrorCode::Internal, text.clone()),
            );
            self.actions.push_back(Action::Close { peer });
        }
        self.peers.clear();
        self.close_watchers(&text);
        if let Some(d) = &mut self.delayed {
            d.draining = false;
        }
        for event in std::mem::take(&mut self.waiting) {
            let peer = match event {
                Event::Join { peer, .. } | Event::Watch { peer } => peer,
                _ => continue,
            };
            self.send(
                peer,
                ServerMessage::error(ErrorCode::Internal, text.clone()),
            );
            self.actions.push_back(Action::Close { peer });
        }
        self.phase = Phase::Ended;
        self.actions.push_back(Action::SimFailed { turn });
    }

    /// Runs every outstanding job in place, until the sim has run every closed turn and every
    /// desync report is made (`report_job`).
    pub fn simulate(&mut self) {
        loop {
            let now = self.now;
            if let Some(job) = self.sim_job() {
                let done = job.run();
                self.sim_done(now, done);
            } else if let Some(job) = self.report_job() {
                let done = job.run();
                self.report_done(now, done);
            } else {
                return;
            }
        }
    }

    /// Whether `event` must wait for the world: a join or a browser starting to watch while a
    /// job is out, and anything said by a connection whose join waits.
    pub(super) fn waits_for_world(&self, event: &Event) -> bool {
        if !self.sim_out {
            return false;
        }
        match event {
            Event::Join { .. } | Event::Watch { .. } => true,
            Event::Message { peer, .. }
            | Event::Disconnected { peer }
            | Event::OutboxFull { peer }
            | Event::OutboxDrained { peer } => self.waiting.iter().any(|e| {
                matches!(e, Event::Join { peer: p, .. } | Event::Watch { peer: p } if p == peer)
            }),
            Event::Shutdown | Event::ShutdownSuspend | Event::End | Event::Suspend => false,
        }
    }

    /// Keeps `event` until the world is home; past [`MAX_WAITING_FOR_WORLD`] its connection is
    /// closed instead.
    pub(super) fn wait_for_world(&mut self, event: Event) {
        if self.waiting.len() < MAX_WAITING_FOR_WORLD {
            self.waiting.push_back(event);
            return;
        }
        let peer = match event {
            Event::Join { peer, .. } | Event::Watch { peer } => peer,
            Event::Message { peer, .. }
            | Event::OutboxFull { peer }
            | Event::OutboxDrained { peer }
            | Event::Disconnected { peer } => peer,
            Event::Shutdown | Event::ShutdownSuspend | Event::End | Event::Suspend => return,
        };
        tracing::warn!(match_id = %self.id(), peer, "too many connections waiting for the world; closing");
        self.waiting.retain(
            |e| !matches!(e, Event::Join { peer: p, .. } | Event::Watch { peer: p } if *p == peer),
        );
        self.send(
            peer,
            ServerMessage::error(ErrorCode::Internal, "the server is busy; try again"),
        );
        self.actions.push_back(Action::Close { peer });
    }

    /// Once the match has ended for its players and every closed turn is run and recorded
    /// (and every desync report made, `report_job`), the driver is told ([`Action::Ended`]).
    pub(super) fn end_when_run(&mut self) {
        if self.sim_out || !self.unrun.is_empty() || self.reports_pending() {
            return;
        }
        if let Some(reason) = self.ending.take() {
            self.actions.push_back(Action::Ended(reason));
        }
        self.suspend_when_run();
    }

    /// After a turn closes: the sim's lag measured, and warned about past the bound.
    pub(super) fn note_sim_behind(&mut self) {
        let behind = self.sim_behind();
        self.stats.sim_behind_max = self.stats.sim_behind_max.max(behind);
        if behind > SIM_BEHIND_WARN_TURNS && !self.sim_behind_warned {
            self.sim_behind_warned = true;
            self.stats.sim_behind_warnings += 1;
            tracing::warn!(match_id = %self.id(), turn = self.next_turn, behind, bound = SIM_BEHIND_WARN_TURNS, "the server's sim is behind the turn clock");
        }
    }
}
