//! The turn clocks' alarm: one thread that sleeps until the earliest deadline any match asked
//! for, on the OS's high-resolution timer, and wakes that match's task. tokio's timers tick in
//! whole milliseconds and round a deadline up to the next tick, which alone makes every turn
//! close 0–1 ms late; this thread wakes within tens of microseconds of the deadline.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Instant;
use tokio::sync::oneshot;

/// Alarms waiting before the ones nobody waits for any more are swept out.
pub const ALARMS_BEFORE_SWEEP: usize = 4096;

/// Sets alarms on the clock thread.
#[derive(Clone)]
pub struct Clock {
    alarms: mpsc::Sender<(Instant, oneshot::Sender<()>)>,
}

struct Alarm<R> {
    at: Instant,
    seq: u64,
    ring: R,
}

// The heap is a max-heap: the earliest alarm (then the first set) compares greatest.
impl<R> Ord for Alarm<R> {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}
impl<R> PartialOrd for Alarm<R> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<R> PartialEq for Alarm<R> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<R> Eq for Alarm<R> {}

/// The alarms set and not yet rung, sans IO: the time is always the caller's (`now`), so which
/// are due and in what order is the same on any machine, however slow. The clock thread runs
/// it on `Instant::now()`; its tests on instants of their own.
pub(crate) struct Alarms<R> {
    heap: BinaryHeap<Alarm<R>>,
    seq: u64,
}

impl<R> Alarms<R> {
    pub(crate) fn new() -> Alarms<R> {
        Alarms {
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// Sets an alarm for `at`; alarms for the same instant ring in the order they were set.
    pub(crate) fn set(&mut self, at: Instant, ring: R) {
        self.seq += 1;
        self.heap.push(Alarm {
            at,
            seq: self.seq,
            ring,
        });
    }

    /// The alarms due at `now` (at or before it), taken out, earliest first.
    pub(crate) fn due(&mut self, now: Instant) -> Vec<R> {
        let mut due = Vec::new();
        while self.heap.peek().is_some_and(|a| a.at <= now) {
            due.extend(self.heap.pop().map(|a| a.ring));
        }
        due
    }

    /// When the earliest alarm is due.
    pub(crate) fn next(&self) -> Option<Instant> {
        self.heap.peek().map(|a| a.at)
    }

    /// Past [`ALARMS_BEFORE_SWEEP`] alarms, drops those `gone` says nobody waits for.
    pub(crate) fn sweep(&mut self, gone: impl Fn(&R) -> bool) {
        if self.heap.len() > ALARMS_BEFORE_SWEEP {
            self.heap.retain(|a| !gone(&a.ring));
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.heap.len()
    }
}

impl Clock {
    /// Starts the clock thread; it ends when every `Clock` is dropped.
    pub fn start() -> Clock {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("cohort-clock".into())
            .spawn(move || run(rx))
            .expect("starting the clock thread");
        Clock { alarms: tx }
    }

    /// Resolves at `at` (at once when `at` is past). Dropping the receiver cancels it.
    /// Resolves with an error only if the clock thread is gone.
    pub fn alarm(&self, at: Instant) -> oneshot::Receiver<()> {
        let (ring, rx) = oneshot::channel();
        let _ = self.alarms.send((at, ring));
        rx
    }
}

fn run(rx: mpsc::Receiver<(Instant, oneshot::Sender<()>)>) {
    let mut alarms: Alarms<oneshot::Sender<()>> = Alarms::new();
    loop {
        let now = Instant::now();
        for ring in alarms.due(now) {
            let _ = ring.send(());
        }
        alarms.sweep(oneshot::Sender::is_closed);
        let next = match alarms.next() {
            Some(at) => rx.recv_timeout(at.saturating_duration_since(now)),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match next {
            Ok((at, ring)) => alarms.set(at, ring),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn alarms_come_due_in_deadline_order_and_not_before() {
        // Instants of the test's own: `t0` is "now"; nothing here waits or reads the clock.
        let t0 = Instant::now() + Duration::from_secs(1);
        let mut alarms = Alarms::new();
        alarms.set(t0 + ms(30), "late");
        alarms.set(t0 + ms(10), "early");
        alarms.set(t0 - ms(5), "past");
        alarms.set(t0 + ms(10), "early, set second");
        assert_eq!(alarms.next(), Some(t0 - ms(5)));
        assert_eq!(alarms.due(t0), vec!["past"]);
        assert_eq!(alarms.next(), Some(t0 + ms(10)));
        assert_eq!(alarms.due(t0 + ms(9)), Vec::<&str>::new());
        assert_eq!(alarms.due(t0 + ms(10)), vec!["early", "early, set second"]);
        assert_eq!(alarms.due(t0 + ms(29)), Vec::<&str>::new());
        assert_eq!(alarms.due(t0 + ms(30)), vec!["late"]);
        assert_eq!(alarms.next(), None);
    }

    #[test]
    fn alarms_long_overdue_ring_earliest_first_whatever_order_they_were_set_in() {
        let t0 = Instant::now();
        let mut alarms = Alarms::new();
        for (k, at) in [50u64, 10, 40, 20, 30].into_iter().enumerate() {
            alarms.set(t0 + ms(at), k);
        }
        // A clock thread woken late (a busy machine) finds all five due at once.
        assert_eq!(alarms.due(t0 + ms(1000)), vec![1, 3, 4, 2, 0]);
    }

    #[test]
    fn alarms_nobody_waits_for_are_swept_past_the_threshold_only() {
        let t0 = Instant::now();
        let mut alarms = Alarms::new();
        for k in 0..ALARMS_BEFORE_SWEEP {
            alarms.set(t0 + ms(10), k % 2 == 0);
        }
        // At the threshold, nothing is swept.
        alarms.sweep(|waited_for| !waited_for);
        assert_eq!(alarms.len(), ALARMS_BEFORE_SWEEP);
        alarms.set(t0 + ms(10), true);
        alarms.sweep(|waited_for| !waited_for);
        assert_eq!(alarms.len(), ALARMS_BEFORE_SWEEP / 2 + 1);
        assert!(alarms.due(t0 + ms(10)).into_iter().all(|w| w));
    }

    #[tokio::test]
    async fn the_thread_rings_what_is_due_and_ends_with_its_clocks() {
        let clock = Clock::start();
        // One nobody waits for any more does not stop the next from ringing.
        drop(clock.alarm(Instant::now()));
        let due = clock.alarm(Instant::now());
        assert_eq!(due.await, Ok(()));
        // Once every clock is dropped the thread ends: an alarm still set says so.
        let never = clock.alarm(Instant::now() + Duration::from_secs(3600));
        drop(clock);
        assert!(never.await.is_err(), "the thread let go of its alarms");
    }
}
