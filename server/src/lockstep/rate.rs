//! Token buckets: how many commands or messages a client may send, sustained and in a burst.

use std::time::Instant;

/// A bucket of `burst` tokens refilled at `per_second`; counted in thousandths so whole
/// milliseconds refill exactly.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    per_second: u64,
    burst_milli: u64,
    milli: u64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(per_second: u32, burst: u32, now: Instant) -> TokenBucket {
        TokenBucket {
            per_second: u64::from(per_second),
            burst_milli: u64::from(burst) * 1000,
            milli: u64::from(burst) * 1000,
            last: now,
        }
    }

    /// Takes `n` tokens if there are that many; otherwise takes none.
    pub fn take(&mut self, n: u32, now: Instant) -> bool {
        let elapsed_ms = now.saturating_duration_since(self.last).as_millis() as u64;
        if elapsed_ms > 0 {
            self.milli = (self.milli + elapsed_ms * self.per_second).min(self.burst_milli);
            self.last = now;
        }
        let want = u64::from(n) * 1000;
        if self.milli >= want {
            self.milli -= want;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_burst_then_the_sustained_rate() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(10, 5, t0);
        assert!(b.take(5, t0));
        assert!(!b.take(1, t0));
        assert!(b.take(1, t0 + Duration::from_millis(100)));
        assert!(!b.take(1, t0 + Duration::from_millis(150)));
        assert!(b.take(5, t0 + Duration::from_secs(10)));
        assert!(!b.take(1, t0 + Duration::from_secs(10)));
    }
}
