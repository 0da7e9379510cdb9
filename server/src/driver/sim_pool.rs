//! The threads that run the matches' sims, apart from the runtime's threads that keep the turn
//! clocks and move bytes. A match task sends its turn's sim here right after the turn's bundle
//! left, so one match's sim never delays another match's deadline on a runtime thread. The
//! pool is bounded (one thread per core by default) and its threads run at a lower OS priority
//! ([`SIM_NICE`]), so when the cores are short the clock and the network get the larger share.
//! A lower priority does not make the kernel hand over a core at once: a sim thread woken just
//! before a turn's bundles went out held the core they shared while the bundles waited, so a
//! match hands its job over only after its sends (`match_task::after_the_sends`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// The OS priority (Linux `nice`) of the sim threads: the clock and network threads run at the
/// process's own (0), so on a core shared with a sim they get the larger share of it. A thread
/// that wakes while a sim runs may still wait for it: the kernel does not always preempt at
/// once. `SCHED_IDLE` sim threads were tried instead and not kept: with the server on one core
/// of a busy machine they gave the bundles no earlier a send (p99 5.8–6.2 ms against 3.1–5.5
/// at nice 10, one match), and with four matches their sims fell 54 turns behind (6 at nice 10,
/// in a run that had lost more of its bots, so cheaper sims) — `SCHED_IDLE` threads get
/// almost nothing of a core any other process wants (BENCHMARKS.md, "The sim on the server's
/// core").
pub const SIM_NICE: i32 = 10;

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of sim threads fed from one queue.
#[derive(Clone)]
pub struct SimPool {
    jobs: mpsc::Sender<Job>,
}

impl SimPool {
    /// Starts `threads` sim threads (at least one).
    pub fn start(threads: usize) -> SimPool {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..threads.max(1) {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("cohort-sim-{i}"))
                .spawn(move || work(rx))
                .expect("starting a sim thread");
        }
        SimPool { jobs: tx }
    }

    /// One thread per core.
    pub fn per_core() -> SimPool {
        SimPool::start(std::thread::available_parallelism().map_or(2, |n| n.get()))
    }

    /// Runs `f` on a sim thread; its result comes on the receiver. The receiver's error (the
    /// sender dropped) means `f` panicked, or the pool is gone; the thread lives on.
    pub fn submit<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> oneshot::Receiver<T> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            if let Ok(v) = catch_unwind(AssertUnwindSafe(f)) {
                let _ = tx.send(v);
            }
        });
        // A pool whose threads are gone drops the job, and with it the sender.
        let _ = self.jobs.send(job);
        rx
    }

    /// Runs `f(value)` on a sim thread and gives the value back. `None` if `f` panicked (the
    /// value is lost; the thread lives on).
    pub async fn run<T: Send + 'static>(&self, mut value: T, f: fn(&mut T)) -> Option<T> {
        self.submit(move || {
            f(&mut value);
            value
        })
        .await
        .ok()
    }
}

fn work(rx: Arc<Mutex<mpsc::Receiver<Job>>>) {
    lower_priority();
    loop {
        let job = match rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        match job {
            Ok(job) => job(),
            Err(_) => return, // the pool is gone
        }
    }
}

/// Puts the calling thread at [`SIM_NICE`] (on Linux the nice value is per thread).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: setpriority with PRIO_PROCESS and who = 0 only changes the calling thread's
        // nice value; it reads and writes no memory of ours.
        let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, SIM_NICE) };
        if rc != 0 {
            tracing::debug!("could not lower the sim thread's priority");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn runs_on_a_pool_thread_and_gives_the_value_back() {
        let pool = SimPool::start(2);
        let v = pool.run(vec![1u32], |v| v.push(2)).await;
        assert_eq!(v, Some(vec![1, 2]));
    }

    #[tokio::test]
    async fn a_panicking_job_loses_its_value_but_not_the_pool() {
        let pool = SimPool::start(1);
        let lost = pool.run(0u8, |_| panic!("boom")).await;
        assert_eq!(lost, None);
        assert_eq!(pool.run(1u8, |v| *v += 1).await, Some(2));
    }
}

#[cfg(test)]
mod match_tests {
    use super::*;
    use crate::driver::running_test_match as running;
    use crate::lockstep::Action;
    use cohort_sim::Ruleset;
    use std::time::Instant;

    /// Two matches on one pool, their jobs on its threads as the match tasks send them; the
    /// first's job panics at its third turn. It ends saying so; the other plays on.
    #[tokio::test]
    async fn a_panicking_sim_ends_its_match_and_the_other_plays_on() {
        let rules = Arc::new(Ruleset::default_rules());
        let pool = SimPool::start(1);
        let t0 = Instant::now();
        let (mut a, mut b) = (running("a", &rules, t0), running("b", &rules, t0));
        let mut failed = None;
        for _ in 0..10 {
            let now = [a.poll_timeout(), b.poll_timeout()]
                .into_iter()
                .flatten()
                .min()
                .unwrap();
            for (m, doomed) in [(&mut a, true), (&mut b, false)] {
                if m.sim_failed_at().is_some() {
                    continue;
                }
                m.handle_timeout(now);
                let Some(job) = m.sim_job() else { continue };
                let third = m.turns_run() == 2;
                let back = pool
                    .submit(move || {
                        assert!(!(doomed && third), "a sim bug");
                        job.run()
                    })
                    .await;
                match back {
                    Ok(done) => m.sim_done(now, done),
                    Err(_) => m.sim_failed(now),
                }
                while let Some(action) = m.poll_action() {
                    if let Action::SimFailed { turn } = action {
                        failed = Some(turn);
                    }
                }
            }
        }
        assert_eq!(failed, Some(2));
        assert_eq!(a.sim_failed_at(), Some(2));
        assert_eq!(b.sim_failed_at(), None);
        assert!(b.turns_run() > a.turns_run(), "the other match played on");
        assert_eq!(b.turns_run(), b.stats().turns_closed);
    }
}
