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
    alarms: mpsc::Sender<Alarm>,
}

struct Alarm {
    at: Instant,
    seq: u64,
    ring: oneshot::Sender<()>,
}

// The heap is a max-heap: the earliest alarm (then the first set) compares greatest.
impl Ord for Alarm {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}
impl PartialOrd for Alarm {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Alarm {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Alarm {}

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
        let _ = self.alarms.send(Alarm { at, seq: 0, ring });
        rx
    }
}

fn run(rx: mpsc::Receiver<Alarm>) {
    let mut heap: BinaryHeap<Alarm> = BinaryHeap::new();
    let mut seq = 0u64;
    loop {
        let now = Instant::now();
        while heap.peek().is_some_and(|a| a.at <= now) {
            let a = heap.pop().expect("peeked");
            let _ = a.ring.send(());
        }
        if heap.len() > ALARMS_BEFORE_SWEEP {
            heap.retain(|a| !a.ring.is_closed());
        }
        let next = match heap.peek() {
            Some(a) => rx.recv_timeout(a.at.saturating_duration_since(now)),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match next {
            Ok(mut a) => {
                seq += 1;
                a.seq = seq;
                heap.push(a);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn alarms_ring_in_deadline_order_and_not_before() {
        let clock = Clock::start();
        let start = Instant::now();
        let late = clock.alarm(start + Duration::from_millis(30));
        let early = clock.alarm(start + Duration::from_millis(10));
        let past = clock.alarm(start - Duration::from_millis(5));
        past.await.unwrap();
        early.await.unwrap();
        assert!(Instant::now() >= start + Duration::from_millis(10));
        late.await.unwrap();
        assert!(Instant::now() >= start + Duration::from_millis(30));
    }

    #[tokio::test]
    async fn a_dropped_alarm_is_cancelled_without_harm() {
        let clock = Clock::start();
        drop(clock.alarm(Instant::now() + Duration::from_millis(1)));
        clock
            .alarm(Instant::now() + Duration::from_millis(2))
            .await
            .unwrap();
    }
}
