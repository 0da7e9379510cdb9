//! State hashing (DESIGN.md, "Hashing"): `World::hash()` is blake3 over the canonical encoding
//! of the whole state; per-part and per-entity hashes narrow a mismatch down without shipping the
//! state.

mod canon;

pub use canon::{encode, CanonError, Sink};

use crate::world::{EntityId, State, World};
use serde::Serialize;
use std::fmt;

/// A blake3 hash, shown as hex.
#[derive(
    Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct StateHash(pub [u8; 32]);

impl fmt::Display for StateHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for StateHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// blake3 of a value's canonical encoding.
///
/// Panics only if the value holds a float, which no sim type does.
pub fn hash_of<T: Serialize + ?Sized>(value: &T) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    encode(value, &mut h).expect("sim state holds no floats");
    *h.finalize().as_bytes()
}

/// Feeds a value's canonical encoding to a hasher.
fn put<T: Serialize + ?Sized>(h: &mut blake3::Hasher, value: &T) {
    encode(value, h).expect("sim state holds no floats");
}

/// The canonical bytes of a value.
pub fn canonical_bytes<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut v = Vec::new();
    encode(value, &mut v).expect("sim state holds no floats");
    v
}

/// The named parts of the state, each hashed on its own.
pub const PARTS: [&str; 7] = [
    "tick",
    "grid",
    "players",
    "units",
    "buildings",
    "resources",
    "rng",
];

impl World {
    /// blake3 over the canonical encoding of the whole state. Same state, same hash, everywhere.
    ///
    /// The bytes are exactly those of encoding `State` whole ([`World::hash_uncached`]), field
    /// by field in declaration order, except that the grid's encoding comes from its cache
    /// ([`crate::grid::Grid::canonical`], taken again only after the grid changed). The
    /// destructuring names every field: a field added to `State` does not compile until it is
    /// hashed here.
    pub fn hash(&self) -> StateHash {
        let State {
            tick,
            grid,
            players,
            units,
            buildings,
            resources,
            next_id,
            rng,
            formations,
            next_formation,
        } = &self.state;
        let mut h = blake3::Hasher::new();
        put(&mut h, tick);
        h.update(&grid.canonical());
        put(&mut h, players);
        put(&mut h, units);
        put(&mut h, buildings);
        put(&mut h, resources);
        put(&mut h, next_id);
        put(&mut h, rng);
        put(&mut h, formations);
        put(&mut h, next_formation);
        StateHash(*h.finalize().as_bytes())
    }

    /// [`World::hash`] the slow way: the whole state through the canonical encoder, grid
    /// included. Always equal to `hash` (tested); for checks, not for every turn.
    pub fn hash_uncached(&self) -> StateHash {
        StateHash(hash_of(&self.state))
    }

    /// One hash per part of the state, in the order of [`PARTS`] (with `next_id` under `tick`).
    pub fn part_hashes(&self) -> Vec<(&'static str, StateHash)> {
        let s = &self.state;
        vec![
            ("tick", StateHash(hash_of(&(s.tick, s.next_id)))),
            (
                "grid",
                StateHash(*blake3::hash(&s.grid.canonical()).as_bytes()),
            ),
            ("players", StateHash(hash_of(&s.players))),
            ("units", StateHash(hash_of(&s.units))),
            ("buildings", StateHash(hash_of(&s.buildings))),
            ("resources", StateHash(hash_of(&s.resources))),
            ("rng", StateHash(hash_of(&s.rng))),
        ]
    }

    /// One hash per entity, in id order.
    pub fn entity_hashes(&self) -> Vec<(EntityId, StateHash)> {
        let s = &self.state;
        let mut out: Vec<(EntityId, StateHash)> = s
            .units
            .iter()
            .map(|u| (u.id, StateHash(hash_of(u))))
            .chain(s.buildings.iter().map(|b| (b.id, StateHash(hash_of(b)))))
            .chain(s.resources.iter().map(|r| (r.id, StateHash(hash_of(r)))))
            .collect();
        out.sort_by_key(|(id, _)| *id);
        out
    }
}
