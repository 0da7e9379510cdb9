//! Turn send jitter: for every turn bundle handed to a client's QUIC stream, how long after the
//! turn's scheduled deadline that happened. Kept as a fixed histogram (bounded memory however
//! long the server runs), read as percentiles for `--stats-file`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Width of one bucket, in microseconds.
pub const BUCKET_US: u64 = 10;

/// Buckets kept: lateness up to `BUCKETS × BUCKET_US` (100 ms) is resolved to a bucket; later
/// sends are counted in the last bucket (the maximum is kept exactly).
pub const BUCKETS: usize = 10_000;

/// A histogram of send lateness.
pub struct Lateness {
    counts: Vec<AtomicU64>,
    max_us: AtomicU64,
    sum_us: AtomicU64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            counts: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            max_us: AtomicU64::new(0),
            sum_us: AtomicU64::new(0),
        }
    }
}

impl std::fmt::Debug for Lateness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lateness({} sends)", self.count())
    }
}

impl Lateness {
    pub fn record(&self, late: Duration) {
        let us = u64::try_from(late.as_micros()).unwrap_or(u64::MAX);
        let bucket = ((us / BUCKET_US) as usize).min(BUCKETS - 1);
        self.counts[bucket].fetch_add(1, Ordering::Relaxed);
        self.max_us.fetch_max(us, Ordering::Relaxed);
        self.sum_us.fetch_add(us, Ordering::Relaxed);
    }

    /// The sum of every lateness recorded, in microseconds.
    pub fn sum_us(&self) -> u64 {
        self.sum_us.load(Ordering::Relaxed)
    }

    pub fn count(&self) -> u64 {
        self.counts.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    pub fn max_us(&self) -> u64 {
        self.max_us.load(Ordering::Relaxed)
    }

    /// The `p`th percentile (0–100), as the upper edge of its bucket, in microseconds (capped at
    /// the maximum seen); 0 when nothing was recorded.
    pub fn percentile_us(&self, p: u64) -> u64 {
        let total = self.count();
        if total == 0 {
            return 0;
        }
        let rank = (total * p).div_ceil(100).max(1);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c.load(Ordering::Relaxed);
            if seen >= rank {
                if i == BUCKETS - 1 {
                    return self.max_us(); // the overflow bucket
                }
                return ((i as u64 + 1) * BUCKET_US).min(self.max_us());
            }
        }
        self.max_us()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_come_from_the_buckets() {
        let l = Lateness::default();
        assert_eq!(l.percentile_us(99), 0);
        for us in 1..=100u64 {
            l.record(Duration::from_micros(us * 100));
        }
        assert_eq!(l.count(), 100);
        assert_eq!(l.sum_us(), 505_000);
        assert_eq!(
            l.percentile_us(50),
            5_010,
            "the upper edge of 5,000 µs's bucket"
        );
        assert_eq!(l.percentile_us(99), 9_910);
        assert_eq!(l.max_us(), 10_000);
        l.record(Duration::from_secs(3));
        assert_eq!(l.max_us(), 3_000_000);
        assert_eq!(l.percentile_us(100), 3_000_000);
    }
}
