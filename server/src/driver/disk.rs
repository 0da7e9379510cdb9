//! The matches' files — replays and desync reports — written on a thread of their own, so a
//! match task never waits for a disk (issue 37): a disk that stalls delays files, never turns.
//!
//! A match task hands its writes over with [`Disk::replay_start`], [`Disk::replay_record`],
//! [`Disk::replay_end`] and [`Disk::report`]; none of them blocks. They go into one bounded
//! queue ([`DISK_QUEUE_WRITES`]) that the writer thread empties in order. Back-pressure: a
//! write that finds the queue full is dropped, never waited for — counted
//! (`cohort_disk_writes_dropped_total`) and logged; a replay that loses a record stops there
//! (the writer keeps the file a valid replay of the turns before the gap, and the match its
//! summary's path), a report that is dropped is not written. A write the disk refuses is logged
//! and counted (`cohort_disk_write_failures_total`); a replay that fails stops, the match plays on.
//!
//! The stats file (`--stats-file`) is written once, after the runtime has stopped and every
//! match has ended (`main.rs`), so it never shares the runtime with a match.

use cohort_protocol::replay::{ReplayError, ReplayHeader, ReplayWriter, TurnRecord};
use cohort_protocol::report::{encode_report, DesyncReport};
use cohort_protocol::resume::{encode_match_snapshot, MatchSnapshot};
use prometheus_client::metrics::counter::Counter;
use std::collections::BTreeMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::mpsc;

/// Writes queued for the disk thread, over every match. At 8 turns a second (the default
/// 125 ms turn) this is over four minutes of one match's replay records, or 25 s of 20
/// matches', before a stalled disk drops anything.
pub const DISK_QUEUE_WRITES: usize = 4096;

/// One write for the disk thread.
enum Write {
    ReplayStart {
        path: PathBuf,
        header: ReplayHeader,
    },
    ReplayRecord {
        path: PathBuf,
        record: TurnRecord,
    },
    /// The match is over: its replay is closed.
    ReplayEnd {
        path: PathBuf,
    },
    Report {
        path: PathBuf,
        report: Box<DesyncReport>,
    },
    /// A match taken up again: its replay, opened after its last whole record, goes on.
    ReplayResume {
        path: PathBuf,
        writer: ReplayWriter<File>,
    },
    /// A match's snapshot (`--state-dir`, a suspension): the replay at `replay` flushed to disk,
    /// then the snapshot written atomically at `path`.
    Snapshot {
        replay: PathBuf,
        path: PathBuf,
        snapshot: Box<MatchSnapshot>,
    },
    /// Answers once every write queued before it is done.
    Flush(std::sync::mpsc::SyncSender<()>),
    /// Answers, once every write queued before it is done, which of these files could not be
    /// written at all (a replay that could not start, a report that failed).
    Failed {
        paths: Vec<PathBuf>,
        answer: std::sync::mpsc::SyncSender<Vec<PathBuf>>,
    },
}

/// What a write handed over came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queued {
    /// In the queue.
    Yes,
    /// The queue was full (or the writer gone): the write was dropped.
    Dropped,
}

/// The disk thread's counters.
#[derive(Clone, Default)]
pub struct DiskCounters {
    pub dropped: Counter,
    pub failed: Counter,
}

/// The handle match tasks write through. Cloning it shares the thread and the queue.
#[derive(Clone)]
pub struct Disk {
    tx: mpsc::SyncSender<Write>,
    counters: DiskCounters,
}

/// A test seam: the writer thread takes a token from here before each write, so a test holds
/// the disk "stalled" for as long as it likes, with no clock.
pub type Gate = mpsc::Receiver<()>;

impl Disk {
    /// Starts the writer thread with a queue of [`DISK_QUEUE_WRITES`].
    pub fn start(counters: DiskCounters) -> Disk {
        Disk::start_with(DISK_QUEUE_WRITES, None, counters)
    }

    /// Starts the writer thread with a queue of `capacity` writes, each waiting for a token of
    /// `gate` first when there is one (tests).
    pub fn start_with(capacity: usize, gate: Option<Gate>, counters: DiskCounters) -> Disk {
        let (tx, rx) = mpsc::sync_channel(capacity);
        let failed = counters.failed.clone();
        std::thread::Builder::new()
            .name("cohort-disk".into())
            .spawn(move || write_all(rx, gate, failed))
            .expect("starting the disk thread");
        Disk { tx, counters }
    }

    fn queue(&self, w: Write, what: &str) -> Queued {
        match self.tx.try_send(w) {
            Ok(()) => Queued::Yes,
            Err(_) => {
                self.counters.dropped.inc();
                tracing::error!(
                    what,
                    "the disk queue is full (or its writer gone): write dropped"
                );
                Queued::Dropped
            }
        }
    }

    /// Starts a replay file at `path`.
    pub fn replay_start(&self, path: PathBuf, header: ReplayHeader) -> Queued {
        self.queue(Write::ReplayStart { path, header }, "replay start")
    }

    /// Appends a turn to the replay at `path` (and flushes it). A record dropped stops the
    /// replay at its turn: the writer appends nothing after a gap.
    pub fn replay_record(&self, path: PathBuf, record: TurnRecord) -> Queued {
        self.queue(Write::ReplayRecord { path, record }, "replay record")
    }

    /// Closes the replay at `path`.
    pub fn replay_end(&self, path: PathBuf) -> Queued {
        self.queue(Write::ReplayEnd { path }, "replay end")
    }

    /// Goes on writing the replay at `path` with `writer` (a match taken up again).
    pub fn replay_resume(&self, path: PathBuf, writer: ReplayWriter<File>) -> Queued {
        self.queue(Write::ReplayResume { path, writer }, "replay resume")
    }

    /// Writes a match's snapshot at `path`, after the replay at `replay` is on disk. One
    /// dropped (the queue full) leaves the last one: the match is taken up from further back.
    pub fn snapshot(&self, replay: PathBuf, path: PathBuf, snapshot: MatchSnapshot) -> Queued {
        let snapshot = Box::new(snapshot);
        self.queue(
            Write::Snapshot {
                replay,
                path,
                snapshot,
            },
            "match snapshot",
        )
    }

    /// Writes a desync report at `path`.
    pub fn report(&self, path: PathBuf, report: Box<DesyncReport>) -> Queued {
        self.queue(Write::Report { path, report }, "desync report")
    }

    /// Waits (blocking: from a thread that may, such as `spawn_blocking`) until every write
    /// queued before has been done. False if the writer is gone.
    pub fn flush_blocking(&self) -> bool {
        let (tx, rx) = mpsc::sync_channel(1);
        self.tx.send(Write::Flush(tx)).is_ok() && rx.recv().is_ok()
    }

    /// Waits until every write queued before has been done, without holding a runtime thread.
    pub async fn flush(&self) -> bool {
        let disk = self.clone();
        tokio::task::spawn_blocking(move || disk.flush_blocking())
            .await
            .unwrap_or(false)
    }

    /// Waits until every write queued before has been done, without holding a runtime thread,
    /// and keeps of `paths` those written (a replay that started; a report written whole).
    /// With the writer gone, none. A match asks once, at its end: the writer forgets the
    /// failures it answered, so what it keeps does not grow.
    pub async fn written(&self, paths: Vec<PathBuf>) -> Vec<PathBuf> {
        let tx = self.tx.clone();
        let asked = paths.clone();
        let failed = tokio::task::spawn_blocking(move || {
            let (answer, rx) = mpsc::sync_channel(1);
            tx.send(Write::Failed { paths, answer }).ok()?;
            rx.recv().ok()
        })
        .await
        .ok()
        .flatten();
        match failed {
            Some(failed) => asked.into_iter().filter(|p| !failed.contains(p)).collect(),
            None => Vec::new(),
        }
    }
}

/// The writer thread: every write in queue order, until every handle is gone.
fn write_all(rx: mpsc::Receiver<Write>, gate: Option<Gate>, failed: Counter) {
    // The open replays, each with the turn due next; a replay that failed or saw a gap is
    // dropped from here, and its later records are ignored.
    let mut replays: BTreeMap<PathBuf, ReplayWriter<File>> = BTreeMap::new();
    let mut stopped: std::collections::BTreeSet<PathBuf> = Default::default();
    // Files that could not be written at all, until their match asks (`Write::Failed`).
    let mut failed_files: std::collections::BTreeSet<PathBuf> = Default::default();
    while let Ok(w) = rx.recv() {
        if let (Some(g), false) = (&gate, matches!(w, Write::Flush(_) | Write::Failed { .. })) {
            // A gate whose sender is gone holds nothing: writes go on unheld.
            let _ = g.recv();
        }
        match w {
            Write::ReplayStart { path, header } => {
                match File::create(&path)
                    .map_err(ReplayError::from)
                    .and_then(|f| ReplayWriter::start(f, &header))
                {
                    Ok(writer) => {
                        tracing::info!(path = %path.display(), "replay started");
                        replays.insert(path, writer);
                    }
                    Err(e) => {
                        failed.inc();
                        tracing::error!(path = %path.display(), error = %e, "cannot write the replay");
                        failed_files.insert(path.clone());
                        stopped.insert(path);
                    }
                }
            }
            Write::ReplayRecord { path, record } => {
                if stopped.contains(&path) {
                    continue;
                }
                let Some(writer) = replays.get_mut(&path) else {
                    continue;
                };
                // A record dropped from a full queue leaves a gap: the writer refuses the turn
                // after it, and the replay stops, a valid replay of the turns before.
                if let Err(e) = writer.append(&record) {
                    failed.inc();
                    tracing::error!(path = %path.display(), turn = record.bundle.turn, error = %e, "replay write failed; replay stopped");
                    replays.remove(&path);
                    stopped.insert(path);
                }
            }
            Write::ReplayEnd { path } => {
                replays.remove(&path);
                stopped.remove(&path);
            }
            Write::ReplayResume { path, writer } => {
                tracing::info!(path = %path.display(), turn = writer.turns(), "replay goes on");
                stopped.remove(&path);
                replays.insert(path, writer);
            }
            Write::Snapshot {
                replay,
                path,
                snapshot,
            } => {
                let written = replays
                    .get(&replay)
                    .map_or(Ok(()), |w| w.get_ref().sync_data())
                    .map_err(anyhow::Error::from)
                    .and_then(|()| Ok(encode_match_snapshot(&snapshot)?))
                    .and_then(|bytes| crate::state::write_atomically(&path, &bytes, false));
                match written {
                    Ok(()) => {
                        tracing::debug!(path = %path.display(), turns_run = snapshot.turns_run, "match snapshot written")
                    }
                    Err(e) => {
                        failed.inc();
                        tracing::error!(path = %path.display(), error = %format!("{e:#}"), "cannot write the match snapshot");
                    }
                }
            }
            Write::Report { path, report } => {
                let written = encode_report(&report)
                    .map_err(std::io::Error::other)
                    .and_then(|bytes| std::fs::write(&path, bytes));
                match written {
                    Ok(()) => {
                        tracing::warn!(turn = report.turn, path = %path.display(), "desync report written")
                    }
                    Err(e) => {
                        failed.inc();
                        tracing::error!(path = %path.display(), error = %e, "cannot write the desync report");
                        failed_files.insert(path);
                    }
                }
            }
            Write::Flush(done) => {
                let _ = done.send(());
            }
            Write::Failed { paths, answer } => {
                let failed = paths
                    .into_iter()
                    .filter(|p| failed_files.remove(p))
                    .collect();
                let _ = answer.send(failed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::running_test_match as running;
    use crate::lockstep::{Action, Match};
    use cohort_protocol::replay::read_replay;
    use cohort_sim::Ruleset;
    use std::sync::Arc;
    use std::time::Instant;

    /// Hands a match's file actions to the disk, as the match task does.
    fn carry_out(m: &mut Match, disk: &Disk, dir: &std::path::Path) -> Vec<Queued> {
        let path = dir.join(format!("{}.cohort-replay", m.id()));
        let mut queued = Vec::new();
        while let Some(a) = m.poll_action() {
            match a {
                Action::ReplayStart(h) => queued.push(disk.replay_start(path.clone(), h)),
                Action::ReplayRecord(r) => queued.push(disk.replay_record(path.clone(), r)),
                _ => {}
            }
        }
        queued
    }

    #[test]
    fn a_stalled_disk_delays_no_matchs_turns_and_loses_nothing_it_queued() {
        let dir = std::env::temp_dir().join(format!("cohort-disk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rules = Arc::new(Ruleset::default_rules());
        let (release, gate) = mpsc::channel();
        let disk = Disk::start_with(64, Some(gate), DiskCounters::default());
        let t0 = Instant::now();
        let mut a = running("a", &rules, t0);
        let mut b = running("b", &rules, t0);
        // The disk writes nothing while 20 turns of two matches close on the test's clock: no
        // hand-over waits for it (a blocking one would hang this test).
        let mut queued = Vec::new();
        while a.stats().turns_closed < 20 {
            let now = a.poll_timeout().unwrap().min(b.poll_timeout().unwrap());
            for m in [&mut a, &mut b] {
                m.handle_timeout(now);
                m.simulate();
                queued.extend(carry_out(m, &disk, &dir));
            }
        }
        for m in [&a, &b] {
            assert_eq!(m.stats().turns_closed, 20);
            assert!(m.stats().close_lateness_us.iter().all(|&l| l == 0));
        }
        assert_eq!(queued.len(), 42, "two starts and 40 records");
        assert!(queued.iter().all(|q| *q == Queued::Yes));
        // The disk comes back: every write queued lands, in order.
        for _ in 0..queued.len() {
            release.send(()).unwrap();
        }
        assert!(disk.flush_blocking());
        for id in ["a", "b"] {
            let bytes = std::fs::read(dir.join(format!("{id}.cohort-replay"))).unwrap();
            let replay = read_replay(&bytes).unwrap();
            assert_eq!(replay.records.len(), 20);
            assert_eq!(replay.ignored_bytes, 0);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_full_queue_drops_writes_and_stops_the_replay_at_the_gap() {
        let dir = std::env::temp_dir().join(format!("cohort-disk-full-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rules = Arc::new(Ruleset::default_rules());
        let (release, gate) = mpsc::channel();
        let counters = DiskCounters::default();
        let disk = Disk::start_with(4, Some(gate), counters.clone());
        let t0 = Instant::now();
        let mut m = running("full", &rules, t0);
        let mut queued = Vec::new();
        while m.stats().turns_closed < 10 {
            let now = m.poll_timeout().unwrap();
            m.handle_timeout(now);
            m.simulate();
            queued.extend(carry_out(&mut m, &disk, &dir));
        }
        assert_eq!(m.stats().turns_closed, 10, "the match played on");
        let dropped = queued.iter().filter(|q| **q == Queued::Dropped).count();
        assert!(dropped > 0);
        assert_eq!(counters.dropped.get(), dropped as u64);
        drop(release);
        assert!(disk.flush_blocking());
        let bytes = std::fs::read(dir.join("full.cohort-replay")).unwrap();
        let replay = read_replay(&bytes).unwrap();
        assert!(replay.records.len() < 10, "stopped at the gap");
        assert_eq!(
            replay.ignored_bytes, 0,
            "a valid replay of the turns before"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_summary_names_only_the_files_written() {
        let dir = std::env::temp_dir().join(format!("cohort-disk-named-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rules = Arc::new(Ruleset::default_rules());
        let disk = Disk::start(DiskCounters::default());
        let mut m = running("named", &rules, Instant::now());
        let header = loop {
            if let Some(Action::ReplayStart(h)) = m.poll_action() {
                break h;
            }
        };
        let good = dir.join("good.cohort-replay");
        let bad = dir.join("no-such-folder").join("bad.cohort-replay");
        assert_eq!(disk.replay_start(good.clone(), header.clone()), Queued::Yes);
        assert_eq!(disk.replay_start(bad.clone(), header), Queued::Yes);
        let written = disk.written(vec![good.clone(), bad.clone()]).await;
        assert_eq!(written, vec![good]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
