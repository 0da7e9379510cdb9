//! One connection in a match: its role, what it has acknowledged, its round trip and its
//! rate limits.

use super::rate::TokenBucket;
use cohort_protocol::limits::{
    COMMAND_BURST, COMMAND_RATE_PER_SECOND, MESSAGE_BURST, MESSAGE_RATE_PER_SECOND,
};
use cohort_protocol::message::Role;
use cohort_sim::StateHash;
use std::collections::VecDeque;
use std::time::Instant;

/// Hashes kept per peer, for reports.
pub const PEER_HASHES_KEPT: usize = 256;

/// Pings awaiting their pong, per peer.
pub const PINGS_KEPT: usize = 8;

/// A connection's state in a match.
#[derive(Debug)]
pub struct Peer {
    pub role: Role,
    pub name: String,
    /// Every turn before this one is acknowledged (by a hash or an ack).
    pub acked: u64,
    /// Whether it has been warned for lagging since it last caught up.
    pub warned: bool,
    /// Since when its outbox has been full (none: the driver holds nothing back for it).
    pub outbox_full_since: Option<Instant>,
    /// Smoothed round trip and its variation, in microseconds (RFC 6298's estimator).
    pub srtt_us: Option<u64>,
    pub rttvar_us: u64,
    pings: VecDeque<(u64, Instant)>,
    pub commands: TokenBucket,
    pub messages: TokenBucket,
    pub strikes: u32,
    /// Its most recent hashes, by turn.
    pub hashes: VecDeque<(u64, StateHash)>,
    pub bytes_in: u64,
}

impl Peer {
    pub fn new(role: Role, name: String, acked: u64, now: Instant) -> Peer {
        Peer {
            role,
            name,
            acked,
            warned: false,
            outbox_full_since: None,
            srtt_us: None,
            rttvar_us: 0,
            pings: VecDeque::new(),
            commands: TokenBucket::new(COMMAND_RATE_PER_SECOND, COMMAND_BURST, now),
            messages: TokenBucket::new(MESSAGE_RATE_PER_SECOND, MESSAGE_BURST, now),
            strikes: 0,
            hashes: VecDeque::new(),
            bytes_in: 0,
        }
    }

    pub fn player(&self) -> Option<cohort_sim::PlayerId> {
        match self.role {
            Role::Player(p) => Some(p),
            Role::Spectator => None,
        }
    }

    /// Notes a ping sent.
    pub fn pinged(&mut self, nonce: u64, now: Instant) {
        if self.pings.len() == PINGS_KEPT {
            self.pings.pop_front();
        }
        self.pings.push_back((nonce, now));
    }

    /// Takes a pong's round trip into the estimate and returns it; unknown nonces are ignored.
    pub fn ponged(&mut self, nonce: u64, now: Instant) -> Option<std::time::Duration> {
        let i = self.pings.iter().position(|(n, _)| *n == nonce)?;
        let (_, sent) = self.pings.remove(i).expect("position found");
        self.pings.drain(..i);
        let round_trip = now.saturating_duration_since(sent);
        let sample = u64::try_from(round_trip.as_micros()).unwrap_or(u64::MAX);
        match self.srtt_us {
            None => {
                self.srtt_us = Some(sample);
                self.rttvar_us = sample / 2;
            }
            Some(s) => {
                self.rttvar_us = (3 * self.rttvar_us + s.abs_diff(sample)) / 4;
                self.srtt_us = Some((7 * s + sample) / 8);
            }
        }
        Some(round_trip)
    }

    /// The round trip to plan for: smoothed plus twice the variation, in milliseconds.
    pub fn planning_rtt_ms(&self) -> Option<u64> {
        self.srtt_us
            .map(|s| (s + 2 * self.rttvar_us).div_ceil(1000))
    }

    /// Notes the peer's hash after `turn`.
    pub fn hashed(&mut self, turn: u64, hash: StateHash) {
        if self.hashes.len() == PEER_HASHES_KEPT {
            self.hashes.pop_front();
        }
        self.hashes.push_back((turn, hash));
    }

    pub fn hash_at(&self, turn: u64) -> Option<StateHash> {
        self.hashes
            .iter()
            .find(|(t, _)| *t == turn)
            .map(|(_, h)| *h)
    }
}
