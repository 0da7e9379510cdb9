//! The turn clock: when turns close (their deadlines, catching up after a stall, setting the
//! clock anew after a pause or after a match taken up again has waited for its players), pings,
//! pausing and resuming, and what is due at a time
//! ([`Match::poll_timeout`], [`Match::handle_timeout`]).

use super::{Match, PeerId, Phase};
use cohort_protocol::limits::{MAX_PAUSE_MS, PING_INTERVAL_MS};
use cohort_protocol::message::{EndReason, ErrorCode, Paused, Ping, Resumed, ServerMessage};
use cohort_sim::PlayerId;
use std::time::{Duration, Instant};

/// The most overdue turns closed at once before the clock is set anew (after a stall).
pub const MAX_CATCH_UP_TURNS: u32 = 4;

/// Milliseconds without any player connected before a running match ends.
pub const EMPTY_MATCH_GRACE_MS: u64 = 30_000;

/// A pause in force.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pause {
    since: Instant,
}

impl Match {
    fn turn_length(&self) -> Duration {
        Duration::from_millis(self.settings.config.turn_ms())
    }

    /// When `turn` closes.
    pub(super) fn deadline(&self, turn: u64) -> Instant {
        self.epoch + self.turn_length() * (turn - self.epoch_turn + 1) as u32
    }

    /// When [`Match::handle_timeout`] should next be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.phase == Phase::Ended {
            return self.drain_deadline();
        }
        let mut t: Option<Instant> = None;
        let mut at = |i: Instant| t = Some(t.map_or(i, |t: Instant| t.min(i)));
        if !self.peers.is_empty() {
            at(self.next_ping);
        }
        if let Some(d) = self.resume_deadline() {
            at(d);
        } else if let Some(p) = self.pause {
            at(p.since + Duration::from_millis(MAX_PAUSE_MS));
        } else if self.phase == Phase::Running {
            at(self.deadline(self.next_turn));
        }
        if let Some(d) = self.desync.deadline() {
            at(d);
        }
        if let Some(d) = self.outbox_deadline() {
            at(d);
        }
        if let (Phase::Running, Some(e), None) = (self.phase, self.empty_since, self.resume_wait) {
            at(e + Duration::from_millis(EMPTY_MATCH_GRACE_MS));
        }
        t
    }

    /// Does what is due at `now`: dropping peers whose outbox stayed full, pings, resuming a
    /// pause that ran out, closing turns, giving up on a snapshot, ending an empty match.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        if self.phase == Phase::Ended {
            self.drain(now);
            return;
        }
        self.drop_full_outboxes(now);
        if self.phase == Phase::Ended {
            return;
        }
        if !self.peers.is_empty() && now >= self.next_ping {
            self.ping_all(now);
        }
        if let Some(p) = self.pause {
            if now >= p.since + Duration::from_millis(MAX_PAUSE_MS) {
                self.resume(None, now);
            }
        }
        if self.desync.deadline().is_some_and(|d| now >= d) {
            self.give_up_on_snapshot();
        }
        if self.resume_deadline().is_some_and(|d| now >= d) {
            self.go_on_if_back(now, true);
        }
        if self.phase == Phase::Running && self.pause.is_none() && self.resume_wait.is_none() {
            let mut closed = 0;
            while self.phase == Phase::Running && now >= self.deadline(self.next_turn) {
                let late = now.saturating_duration_since(self.deadline(self.next_turn));
                self.stats
                    .close_lateness_us
                    .push(late.as_micros().min(u32::MAX as u128) as u32);
                self.close_turn();
                closed += 1;
                if closed >= MAX_CATCH_UP_TURNS && now >= self.deadline(self.next_turn) {
                    tracing::warn!(match_id = %self.id(), turn = self.next_turn, "server stalled; turn clock set anew");
                    self.epoch = now;
                    self.epoch_turn = self.next_turn;
                    break;
                }
            }
        }
        if let (Phase::Running, Some(e), None) = (self.phase, self.empty_since, self.resume_wait) {
            if now >= e + Duration::from_millis(EMPTY_MATCH_GRACE_MS) {
                self.end(EndReason::NoPlayers);
            }
        }
    }

    fn ping_all(&mut self, now: Instant) {
        self.ping_nonce += 1;
        let nonce = self.ping_nonce;
        for p in self.peers.values_mut() {
            p.pinged(nonce, now);
        }
        self.broadcast_all(ServerMessage::Ping(Ping { nonce }));
        self.next_ping = now + Duration::from_millis(PING_INTERVAL_MS);
    }

    pub(super) fn pause(&mut self, peer: PeerId, now: Instant) {
        let Some(player) = self.peers[&peer].player() else {
            self.refuse(peer, ErrorCode::NotAPlayer, "spectators cannot pause");
            return;
        };
        if self.phase != Phase::Running || self.pause.is_some() {
            self.refuse(
                peer,
                ErrorCode::PauseRefused,
                "the match is not running unpaused",
            );
            return;
        }
        let slot = &mut self.slots[usize::from(player)];
        if slot.pauses_used >= cohort_protocol::limits::MAX_PAUSES_PER_PLAYER {
            self.refuse(peer, ErrorCode::PauseRefused, "no pauses left");
            return;
        }
        slot.pauses_used += 1;
        let pauses_left = cohort_protocol::limits::MAX_PAUSES_PER_PLAYER - slot.pauses_used;
        self.pause = Some(Pause { since: now });
        tracing::info!(match_id = %self.id(), player, turn = self.next_turn, "paused");
        self.broadcast(ServerMessage::Paused(Paused {
            by: player,
            pauses_left,
            resumes_in_ms: MAX_PAUSE_MS,
        }));
    }

    pub(super) fn resume(&mut self, by: Option<PlayerId>, now: Instant) {
        if self.pause.take().is_none() {
            return;
        }
        // The open turn gets a whole turn again from now.
        self.epoch = now;
        self.epoch_turn = self.next_turn;
        tracing::info!(match_id = %self.id(), player = ?by, turn = self.next_turn, "resumed");
        self.broadcast(ServerMessage::Resumed(Resumed { by }));
    }
}
