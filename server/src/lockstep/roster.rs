//! The roster: who plays each slot and who is connected, as the driver and operators read it.

use super::{Match, PeerId, Phase};
use cohort_sim::world::PlayerStatus;
use cohort_sim::PlayerId;

/// A player slot as the operator sees it ([`Match::roster`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotView {
    pub slot: PlayerId,
    pub name: String,
    pub team: u8,
    /// Playing, or how it left (left, resigned, dropped).
    pub status: PlayerStatus,
    /// Whether a connection plays it now.
    pub connected: bool,
    /// Whether it ever joined.
    pub joined: bool,
}

impl Match {
    /// The connected peers.
    pub fn peer_ids(&self) -> Vec<PeerId> {
        self.peers.keys().copied().collect()
    }

    /// Every player slot: who, how it stands, whether it is connected.
    pub fn roster(&self) -> Vec<SlotView> {
        self.settings
            .config
            .players
            .iter()
            .zip(&self.slots)
            .map(|(p, s)| SlotView {
                slot: p.slot,
                name: p.name.clone(),
                team: p.team,
                status: s.status,
                connected: s.peer.is_some() && self.phase != Phase::Ended,
                joined: s.joined_once,
            })
            .collect()
    }

    /// Connections in the match: (players, spectators and browsers watching).
    pub fn connected(&self) -> (usize, usize) {
        let players = self.peers.values().filter(|p| p.player().is_some()).count();
        (players, self.peers.len() - players + self.watchers.len())
    }
}
