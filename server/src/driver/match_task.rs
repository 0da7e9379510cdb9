//! One match's task: feeds its `Match` inputs and timeouts, carries out its actions.

use super::{Clock, Host, MatchInput, Outgoing, SimPool};
use crate::lockstep::{Action, Event, Match, PeerId};
use cohort_protocol::message::EndReason;
use cohort_protocol::replay::ReplayWriter;
use cohort_protocol::report::encode_report;
use serde::Serialize;
use std::collections::HashMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

/// Where a match's files go.
#[derive(Clone, Debug)]
pub struct Files {
    pub replay_dir: PathBuf,
    pub report_dir: PathBuf,
}

/// What one match did, for the stats file.
#[derive(Debug, Serialize)]
pub struct MatchSummary {
    pub match_id: String,
    pub end: Option<EndReason>,
    pub replay: Option<PathBuf>,
    pub reports: Vec<PathBuf>,
    pub stats: crate::lockstep::MatchStats,
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

struct Driver {
    outs: HashMap<PeerId, mpsc::Sender<Outgoing>>,
    replay: Option<ReplayWriter<File>>,
    replay_path: Option<PathBuf>,
    reports: Vec<PathBuf>,
    files: Files,
    end: Option<EndReason>,
    /// Peers whose outbox was full or gone: told to the match as disconnected.
    gone: Vec<PeerId>,
    host: Arc<Host>,
}

impl Driver {
    fn push(&mut self, peer: PeerId, out: Outgoing) {
        if let Some(tx) = self.outs.get(&peer) {
            if tx.try_send(out).is_err() {
                tracing::warn!(peer, "client not reading its frames; dropping it");
                self.outs.remove(&peer);
                self.gone.push(peer);
            }
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
                Action::Close { peer } => {
                    if let Some(tx) = self.outs.remove(&peer) {
                        let _ = tx.try_send(Outgoing::Close);
                    }
                }
                Action::ReplayStart(header) => {
                    let name = format!("{}-{}.cohort-replay", m.id(), super::unix_now());
                    let path = self.files.replay_dir.join(name);
                    match File::create(&path)
                        .map_err(cohort_protocol::replay::ReplayError::from)
                        .and_then(|f| ReplayWriter::start(f, &header))
                    {
                        Ok(w) => {
                            tracing::info!(match_id = %m.id(), path = %path.display(), "replay started");
                            self.replay = Some(w);
                            self.replay_path = Some(path);
                        }
                        Err(e) => {
                            tracing::error!(match_id = %m.id(), path = %path.display(), error = %e, "cannot write the replay")
                        }
                    }
                }
                Action::ReplayRecord(record) => {
                    self.host.stats.turns.fetch_add(1, Ordering::Relaxed);
                    if let Some(w) = &mut self.replay {
                        if let Err(e) = w.append(&record) {
                            tracing::error!(match_id = %m.id(), turn = record.bundle.turn, error = %e, "replay write failed; replay stopped");
                            self.replay = None;
                        }
                    }
                }
                Action::Report(report) => {
                    self.host.stats.desyncs.fetch_add(1, Ordering::Relaxed);
                    let name = format!(
                        "{}-turn{}-{}.cohort-desync",
                        m.id(),
                        report.turn,
                        super::unix_now()
                    );
                    let path = self.files.report_dir.join(name);
                    let written = encode_report(&report)
                        .map_err(std::io::Error::other)
                        .and_then(|bytes| std::fs::write(&path, bytes));
                    match written {
                        Ok(()) => {
                            tracing::warn!(match_id = %m.id(), turn = report.turn, path = %path.display(), "desync report written");
                            self.reports.push(path);
                        }
                        Err(e) => {
                            tracing::error!(match_id = %m.id(), error = %e, "cannot write the desync report")
                        }
                    }
                }
                Action::Ended(reason) => self.end = Some(reason),
            }
        }
    }
}

/// Runs a match until it ends.
pub async fn run(
    mut m: Match,
    mut rx: mpsc::Receiver<MatchInput>,
    files: Files,
    host: Arc<Host>,
    sims: SimPool,
    clock: Clock,
    mut shutdown: watch::Receiver<bool>,
) -> MatchSummary {
    let mut d = Driver {
        outs: HashMap::new(),
        replay: None,
        replay_path: None,
        reports: Vec::new(),
        files,
        end: None,
        gone: Vec::new(),
        host: host.clone(),
    };
    let mut shutting_down = false;
    // The alarm set on the clock thread for the match's next deadline, and that deadline.
    let mut alarm: Option<(std::time::Instant, oneshot::Receiver<()>)> = None;
    while d.end.is_none() {
        let deadline = m.poll_timeout();
        if alarm.as_ref().map(|(at, _)| *at) != deadline {
            alarm = deadline.map(|at| (at, clock.alarm(at)));
        }
        tokio::select! {
            input = rx.recv() => {
                let now = Instant::now().into_std();
                match input {
                    Some(MatchInput::Join { peer, role, hello, out }) => {
                        d.outs.insert(peer, out);
                        m.handle(now, Event::Join { peer, role, hello });
                        host.stats.peers.fetch_add(1, Ordering::Relaxed);
                    }
                    Some(MatchInput::Message { peer, message }) => {
                        m.handle(now, Event::Message { peer, message })
                    }
                    Some(MatchInput::Disconnected { peer }) => {
                        d.outs.remove(&peer);
                        m.handle(now, Event::Disconnected { peer });
                    }
                    None => m.handle(now, Event::Shutdown),
                }
            }
            () = ring(&mut alarm) => {
                alarm = None;
                m.handle_timeout(Instant::now().into_std());
            }
            changed = shutdown.changed(), if !shutting_down => {
                shutting_down = true;
                if changed.is_err() || *shutdown.borrow() {
                    m.handle(Instant::now().into_std(), Event::Shutdown);
                }
            }
        }
        // Frames first (the turn's bundle goes out on time), then the sim, on a sim thread:
        // this task waits for it, but the runtime's threads stay free for the other matches'
        // clocks and for the network.
        d.carry_out(&mut m);
        if m.has_unrun() {
            // Only the id is kept aside (the stats grow with the match: not copied each turn).
            let id = m.id().to_string();
            match sims.run(m, Match::simulate).await {
                Some(back) => m = back,
                None => {
                    tracing::error!(match_id = %id, "the match's sim panicked; match abandoned");
                    host.stats.matches_running.fetch_sub(1, Ordering::Relaxed);
                    return MatchSummary {
                        match_id: id,
                        end: None,
                        replay: d.replay_path,
                        reports: d.reports,
                        close_lateness_us_p50: 0,
                        close_lateness_us_p99: 0,
                        close_lateness_us_max: 0,
                        stats: crate::lockstep::MatchStats::default(),
                        lateness_us: Vec::new(),
                    };
                }
            }
            d.carry_out(&mut m);
        }
        while let Some(peer) = d.gone.pop() {
            m.handle(Instant::now().into_std(), Event::Disconnected { peer });
            d.carry_out(&mut m);
        }
    }
    host.stats.matches_running.fetch_sub(1, Ordering::Relaxed);
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
        lateness_us: lateness,
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
