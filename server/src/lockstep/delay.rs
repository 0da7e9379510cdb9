//! Adaptive input delay (DESIGN.md, "Lockstep"): how many turns ahead a client schedules its
//! commands, from the round-trip times the server measures, as Age of Empires' communication
//! turns did. A change travels in the next bundle, so every peer applies it on the same turn.

use cohort_protocol::limits::{MAX_INPUT_DELAY, MIN_INPUT_DELAY};

/// Added to the measured round trip before turning it into turns, in milliseconds: room for
/// jitter.
pub const JITTER_MARGIN_MS: u64 = 20;

/// Turns the wanted delay must stay below the current one before the delay comes down a turn.
pub const LOWER_AFTER_TURNS: u32 = 32;

/// The input delay in force, and whether it is adaptive.
#[derive(Clone, Debug)]
pub struct InputDelay {
    current: u32,
    adaptive: bool,
    lower_for: u32,
}

/// The delay a round trip of `rtt_ms` asks for: a command sent on receiving bundle T reaches
/// the server a round trip later, when it collects turn T + 1 + rtt / turn; one more turn of
/// margin for jitter.
pub fn wanted_delay(rtt_ms: u64, turn_ms: u64) -> u32 {
    let turns = (rtt_ms + JITTER_MARGIN_MS).div_ceil(turn_ms.max(1));
    (1 + turns).clamp(u64::from(MIN_INPUT_DELAY), u64::from(MAX_INPUT_DELAY)) as u32
}

impl InputDelay {
    pub fn new(initial: u32, adaptive: bool) -> InputDelay {
        InputDelay {
            current: initial.clamp(MIN_INPUT_DELAY, MAX_INPUT_DELAY),
            adaptive,
            lower_for: 0,
        }
    }

    pub fn current(&self) -> u32 {
        self.current
    }

    /// Called as a turn closes with the worst round trip among the players (none when no
    /// player has been measured yet). Returns the new delay when it changes: up at once, down
    /// one turn at a time after [`LOWER_AFTER_TURNS`] turns of wanting less.
    pub fn on_turn(&mut self, worst_rtt_ms: Option<u64>, turn_ms: u64) -> Option<u32> {
        let rtt = worst_rtt_ms.filter(|_| self.adaptive)?;
        let want = wanted_delay(rtt, turn_ms);
        if want > self.current {
            self.current = want;
            self.lower_for = 0;
            return Some(want);
        }
        if want < self.current {
            self.lower_for += 1;
            if self.lower_for >= LOWER_AFTER_TURNS {
                self.current -= 1;
                self.lower_for = 0;
                return Some(self.current);
            }
        } else {
            self.lower_for = 0;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wanted_delay_grows_with_the_round_trip() {
        assert_eq!(wanted_delay(0, 128), 2);
        assert_eq!(wanted_delay(100, 128), 2);
        assert_eq!(wanted_delay(120, 128), 3);
        assert_eq!(wanted_delay(10_000, 128), MAX_INPUT_DELAY);
    }

    #[test]
    fn up_at_once_down_slowly() {
        let mut d = InputDelay::new(2, true);
        assert_eq!(d.on_turn(Some(300), 128), Some(4));
        for _ in 0..LOWER_AFTER_TURNS - 1 {
            assert_eq!(d.on_turn(Some(10), 128), None);
        }
        assert_eq!(d.on_turn(Some(10), 128), Some(3));
        assert_eq!(d.current(), 3);
    }

    #[test]
    fn a_fixed_delay_never_changes() {
        let mut d = InputDelay::new(5, false);
        assert_eq!(d.on_turn(Some(3000), 128), None);
        assert_eq!(d.current(), 5);
    }
}
