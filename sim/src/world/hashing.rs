//! The world's hashes: those of its state (`crate::hash`), named on the façade.

use super::World;
use crate::hash::{Entry, StateHash, TickHash};

impl World {
    /// blake3 over the canonical encoding of the whole state ([`crate::state::State::hash`]).
    /// Same state, same hash, everywhere.
    pub fn hash(&self) -> StateHash {
        self.state.hash()
    }

    /// [`World::hash`] the slow way: the whole state through the canonical encoder, grid
    /// included. Always equal to `hash` (tested); for checks, not for every turn.
    pub fn hash_uncached(&self) -> StateHash {
        self.state.hash_uncached()
    }

    /// One hash per part of the state, in the order of [`crate::hash::Part::ALL`] (names in
    /// [`crate::hash::PARTS`]).
    pub fn part_hashes(&self) -> Vec<(&'static str, StateHash)> {
        self.state.part_hashes()
    }

    /// One hash per player, unit, building, resource and formation, in [`Entry`] order (by
    /// part, then id).
    pub fn entity_hashes(&self) -> Vec<(Entry, StateHash)> {
        self.state.entity_hashes()
    }

    /// The tick hash of the state: a fast digest of every field ([`TickHash`]), what every peer
    /// keeps after each tick of its recent turns.
    pub fn tick_hash(&self) -> TickHash {
        self.state.tick_hash()
    }
}
