//! The client core's clock: when to be woken, pings every [`PING_INTERVAL_MS`], and the
//! server's silence after [`SERVER_SILENCE_MS`] (the connection taken as lost).

use super::{ClientCore, Event, Phase, SERVER_SILENCE_MS};
use cohort_protocol::limits::PING_INTERVAL_MS;
use cohort_protocol::message::Ping;
use cohort_protocol::ClientMessage;
use std::time::{Duration, Instant};

impl ClientCore {
    /// When [`ClientCore::handle_timeout`] should next be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let silence = self.silence_deadline();
        match self.phase {
            Phase::Loading | Phase::Playing => match (self.next_ping, silence) {
                (Some(p), Some(s)) => Some(p.min(s)),
                (p, s) => p.or(s),
            },
            Phase::Joining => silence,
            _ => None,
        }
    }
    /// When the server's silence makes the connection lost.
    fn silence_deadline(&self) -> Option<Instant> {
        self.last_heard
            .map(|t| t + Duration::from_millis(SERVER_SILENCE_MS))
    }
    /// The time passed: pings go out every [`PING_INTERVAL_MS`]; after [`SERVER_SILENCE_MS`]
    /// without a word from the server the connection is lost ([`Event::ServerSilent`]).
    pub fn handle_timeout(&mut self, now: Instant) {
        if !matches!(self.phase, Phase::Joining | Phase::Loading | Phase::Playing) {
            return;
        }
        if self.silence_deadline().is_some_and(|t| t <= now) {
            self.phase = Phase::Over;
            self.rejoinable = true;
            self.events.push_back(Event::ServerSilent);
            return;
        }
        if self.phase == Phase::Joining {
            return;
        }
        if self.next_ping.is_some_and(|t| t <= now) {
            let nonce = self.next_nonce;
            self.next_nonce += 1;
            self.pings.insert(nonce, now);
            // Forget pings never answered, so the map stays small.
            while self.pings.len() > 16 {
                self.pings.pop_first();
            }
            self.send(ClientMessage::Ping(Ping { nonce }));
            self.next_ping = Some(now + Duration::from_millis(PING_INTERVAL_MS));
        }
    }
}
