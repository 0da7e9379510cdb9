//! Desync reports built apart from the match (issue 37): re-simulating the server's world from
//! a checkpoint to the failing turn, and loading the diverging client's states, are sims. They
//! run as a job ([`Match::report_job`], [`ReportJob::run`], [`Match::report_done`]), like the
//! turns' sim (`sim_job`), and the match goes on meanwhile; the report's other parts — the
//! replay so far, every peer's hash, the server's tick hashes — are taken when the job is made,
//! as they are at the failing turn's report.

use super::{Action, Match, PeerId, Phase};
use cohort_protocol::codec::decode_evidence;
use cohort_protocol::message::{EndReason, ErrorCode};
use cohort_protocol::replay::TurnRecord;
use cohort_protocol::report::{ClientSide, DesyncReport, PeerHash, StateView};
use cohort_protocol::setup::run_bundle;
use cohort_sim::world::Snapshot;
use cohort_sim::{PlayerId, Ruleset, World};
use std::sync::Arc;
use std::time::Instant;

/// A report to finish: the server's state after the failing turn to re-simulate, the client's
/// evidence to load.
pub struct ReportJob {
    rules: Arc<Ruleset>,
    turn_ticks: u32,
    /// The checkpoint to start from, and the turns from it to the failing one.
    checkpoint: Snapshot,
    records: Vec<TurnRecord>,
    client: Option<Evidence>,
    /// Every part but the two states (the server's `server` is a placeholder until run).
    parts: Parts,
}

/// The diverging client's evidence, as it came.
struct Evidence {
    peer: PeerId,
    player: PlayerId,
    name: String,
    bytes: Vec<u8>,
}

/// The report's parts known when the job is made.
struct Parts {
    header: cohort_protocol::replay::ReplayHeader,
    turn: u64,
    diverged: Vec<PlayerId>,
    peer_hashes: Vec<PeerHash>,
    records: Vec<TurnRecord>,
    server_tick_hashes: Vec<cohort_sim::hash::TickHash>,
}

/// What a report job gives back.
pub struct ReportDone {
    /// None when the server could not re-simulate to the turn (a bug, logged).
    report: Option<DesyncReport>,
    /// The client whose evidence did not load (it is told).
    refused: Option<PeerId>,
}

impl ReportJob {
    /// Re-simulates and loads. Same inputs, same output on every machine; no I/O.
    pub fn run(self) -> ReportDone {
        let ReportJob {
            rules,
            turn_ticks,
            checkpoint,
            records,
            client,
            parts,
        } = self;
        let turn = parts.turn;
        let server = World::from_snapshot(rules.clone(), checkpoint)
            .ok()
            .map(|mut w| {
                for r in &records {
                    run_bundle(&mut w, &r.bundle, turn_ticks);
                }
                StateView::of(&w, turn)
            });
        let mut refused = None;
        let client = client.and_then(|e| {
            let side = client_side(&rules, turn, &e);
            if side.is_none() {
                refused = Some(e.peer);
            }
            side
        });
        let report = server.map(|server| DesyncReport {
            header: parts.header,
            turn,
            diverged: parts.diverged,
            peer_hashes: parts.peer_hashes,
            records: parts.records,
            server,
            server_tick_hashes: parts.server_tick_hashes,
            client,
        });
        ReportDone { report, refused }
    }
}

/// The diverging client's side from its evidence's bytes. Its state after the turn must load;
/// a start or tick state that does not is left out, with a note.
fn client_side(rules: &Arc<Ruleset>, turn: u64, e: &Evidence) -> Option<ClientSide> {
    let evidence = decode_evidence(&e.bytes).ok()?;
    let world = World::from_snapshot(rules.clone(), evidence.end).ok()?;
    let mut notes = evidence.notes;
    let mut loads = |snapshot: Option<Snapshot>, what: &str| {
        let snapshot = snapshot?;
        match World::from_snapshot(rules.clone(), snapshot.clone()) {
            Ok(_) => Some(snapshot),
            Err(err) => {
                notes.push(format!(
                    "the server could not load the client's {what}: {err}"
                ));
                None
            }
        }
    };
    let start = loads(evidence.start, "state at the turn's start");
    let at_tick = loads(evidence.at_tick, "state at its first differing tick");
    Some(ClientSide {
        player: e.player,
        name: e.name.clone(),
        view: StateView::of(&world, turn),
        tick_hashes: evidence.tick_hashes,
        start,
        at_tick,
        notes,
    })
}

impl Match {
    /// Makes the report of a desync at `turn` as a job; `evidence`: the diverging client's
    /// (its peer and bytes), when it sent it.
    pub(super) fn write_report(
        &mut self,
        turn: u64,
        diverged: Vec<PlayerId>,
        evidence: Option<(PeerId, Vec<u8>)>,
    ) {
        let Some((checkpoint, records)) = self.resim_from(turn) else {
            tracing::error!(match_id = %self.id(), turn, "could not re-simulate to the failing turn");
            return self.report_finished();
        };
        let client = evidence.and_then(|(peer, bytes)| {
            let p = self.peers.get(&peer)?;
            Some(Evidence {
                peer,
                player: p.player()?,
                name: p.name.clone(),
                bytes,
            })
        });
        let peer_hashes = self
            .peers
            .values()
            .filter_map(|p| {
                Some(PeerHash {
                    player: p.player()?,
                    name: p.name.clone(),
                    hash: p.hash_at(turn),
                })
            })
            .collect();
        let parts = Parts {
            header: cohort_protocol::replay::ReplayHeader {
                config: self.settings.config.clone(),
                writer: self.settings.writer.clone(),
            },
            turn,
            diverged,
            peer_hashes,
            records: self.records.all().unwrap_or_default(),
            server_tick_hashes: self.tick_hashes_of(turn).unwrap_or_default().to_vec(),
        };
        self.desync.reports += 1;
        self.stats.reports += 1;
        self.report_jobs.push_back(ReportJob {
            rules: self.rules.clone(),
            turn_ticks: self.settings.config.turn_ticks,
            checkpoint,
            records,
            client,
            parts,
        });
    }

    /// The next report to finish, when one waits. The match goes on while it runs.
    pub fn report_job(&mut self) -> Option<ReportJob> {
        let job = self.report_jobs.pop_front()?;
        self.reports_out += 1;
        Some(job)
    }

    /// A report job came back: the report goes to the driver.
    pub fn report_done(&mut self, now: Instant, done: ReportDone) {
        self.now = now;
        self.reports_out = self.reports_out.saturating_sub(1);
        if let Some(peer) = done.refused.filter(|p| self.peers.contains_key(p)) {
            self.refuse(peer, ErrorCode::BadSnapshot, "the snapshot did not load");
        }
        match done.report {
            Some(report) => {
                tracing::info!(match_id = %self.id(), turn = report.turn, with_client = report.client.is_some(), "desync report ready");
                self.actions.push_back(Action::Report(Box::new(report)));
            }
            None => {
                tracing::error!(match_id = %self.id(), "could not re-simulate to the failing turn")
            }
        }
        self.report_finished();
    }

    /// A report job panicked: the report is lost (logged); the match goes on, or ends if it
    /// was stopping for it.
    pub fn report_failed(&mut self, now: Instant) {
        self.now = now;
        self.reports_out = self.reports_out.saturating_sub(1);
        tracing::error!(match_id = %self.id(), "a desync report's job failed; report lost");
        self.report_finished();
    }

    /// Whether reports are being made (the end waits for them, [`Match::end_when_run`]).
    pub(super) fn reports_pending(&self) -> bool {
        self.reports_out > 0 || !self.report_jobs.is_empty()
    }

    /// A report is done (or lost): a match stopping for a desync ends once every report is.
    fn report_finished(&mut self) {
        if self.phase == Phase::Stopping && !self.reports_pending() {
            self.end(EndReason::Desync);
        }
        self.end_when_run();
    }

    /// The checkpoint nearest before the state after `turn`, and the records from it to `turn`.
    fn resim_from(&self, turn: u64) -> Option<(Snapshot, Vec<TurnRecord>)> {
        let runs = turn + 1;
        if runs > self.turns_run {
            return None;
        }
        let (from, snap) = self.checkpoints.iter().rev().find(|(n, _)| *n <= runs)?;
        let records = self.records.records(*from as usize..runs as usize)?;
        Some((snap.clone(), records))
    }

    /// The server's world after `turn`, re-simulated from the nearest checkpoint (in place:
    /// for tests and tools; the match's reports do it in a [`ReportJob`]).
    pub fn world_after(&self, turn: u64) -> Option<World> {
        let (snap, records) = self.resim_from(turn)?;
        let mut world = World::from_snapshot(self.rules.clone(), snap).ok()?;
        for r in records {
            run_bundle(&mut world, &r.bundle, self.settings.config.turn_ticks);
        }
        Some(world)
    }
}
