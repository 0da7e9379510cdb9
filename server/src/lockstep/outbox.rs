//! A connection that does not take its frames: when its outbox (the frames waiting for its
//! connection, `OUTBOX_FRAMES` of them in the driver) is full, the driver holds the rest back
//! and says so ([`Event::OutboxFull`]); the match warns the peer (`Error Lagging`) and drops it
//! for lag ([`ErrorCode::DroppedForLag`], a `Dropped` event for a player, as a lost
//! connection) if its outbox is still full [`OUTBOX_FULL_DROP_MS`] later. An outbox that
//! drains in time ([`Event::OutboxDrained`]) keeps the peer; filling again starts anew.
//!
//! [`Event::OutboxFull`]: super::Event::OutboxFull
//! [`Event::OutboxDrained`]: super::Event::OutboxDrained

use super::{Action, Match, PeerId};
use cohort_protocol::message::{ErrorCode, ServerMessage};
use std::time::{Duration, Instant};

/// Milliseconds a peer's outbox may stay full before the peer is dropped for lag.
pub const OUTBOX_FULL_DROP_MS: u64 = 10_000;

impl Match {
    /// The driver could not queue a frame for `peer`: it is warned, and the count starts.
    pub(super) fn outbox_full(&mut self, peer: PeerId, now: Instant) {
        let Some(p) = self.peers.get_mut(&peer) else {
            return;
        };
        if p.outbox_full_since.is_some() {
            return;
        }
        p.outbox_full_since = Some(now);
        tracing::warn!(match_id = %self.id(), peer, turn = self.next_turn, "client not reading its frames");
        self.send(
            peer,
            ServerMessage::error(
                ErrorCode::Lagging,
                format!(
                    "not reading your frames; dropped if they are still waiting in {OUTBOX_FULL_DROP_MS} ms"
                ),
            ),
        );
    }

    /// Every frame held back for `peer` has gone into its outbox: it is kept.
    pub(super) fn outbox_drained(&mut self, peer: PeerId) {
        let Some(p) = self.peers.get_mut(&peer) else {
            return;
        };
        if p.outbox_full_since.take().is_some() {
            tracing::info!(match_id = %self.id(), peer, turn = self.next_turn, "client reading its frames again");
        }
    }

    /// When the first peer whose outbox stays full is to be dropped.
    pub(super) fn outbox_deadline(&self) -> Option<Instant> {
        self.peers
            .values()
            .filter_map(|p| p.outbox_full_since)
            .min()
            .map(|since| since + Duration::from_millis(OUTBOX_FULL_DROP_MS))
    }

    /// Drops, for lag, every peer whose outbox has been full for [`OUTBOX_FULL_DROP_MS`].
    pub(super) fn drop_full_outboxes(&mut self, now: Instant) {
        let limit = Duration::from_millis(OUTBOX_FULL_DROP_MS);
        let stuck: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| p.outbox_full_since.is_some_and(|s| now >= s + limit))
            .map(|(&id, _)| id)
            .collect();
        for peer in stuck {
            // Dropping one may end the match (its last player gone), which forgets the rest.
            let Some(role) = self.peers.get(&peer).map(|p| p.role) else {
                continue;
            };
            tracing::warn!(match_id = %self.id(), peer, ?role, turn = self.next_turn, "client dropped for lag: its outbox stayed full");
            self.send(
                peer,
                ServerMessage::error(
                    ErrorCode::DroppedForLag,
                    format!("not reading your frames for {OUTBOX_FULL_DROP_MS} ms; dropped"),
                ),
            );
            self.actions.push_back(Action::Close { peer });
            // What other players see is what a lost connection gives: a `Dropped` event.
            self.disconnected(peer, now);
        }
    }
}
