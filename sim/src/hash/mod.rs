//! State hashing (DESIGN.md, "Hashing"): `World::hash()` is blake3 over the canonical encoding
//! of the whole state; per-part and per-entry hashes narrow a mismatch down without shipping the
//! state; the tick hash (`fold.rs`) is a fast digest of the whole state taken after every tick.
//! All of them are built from one destructuring of `State` (`parts.rs`).

mod fold;
mod parts;

pub use crate::canon::{canonical_bytes, encode, hash_of, CanonError, Fold, Mixer, Sink, TickHash};
pub use parts::{Entry, Part};

use crate::canon::{put, Buffered};
use crate::grid::Grid;
use crate::state::State;
use parts::{visit, Listed, Visit};
use serde::Serialize;

/// A blake3 hash, shown as hex.
#[derive(
    Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct StateHash(pub [u8; 32]);

crate::canon::shown_as_hex!(StateHash);

/// The names of the parts of the state, each hashed on its own ([`Part::name`], in
/// [`Part::ALL`]'s order).
pub const PARTS: [&str; 9] = [
    "tick",
    "grid",
    "players",
    "units",
    "buildings",
    "resources",
    "next_id",
    "rng",
    "formations",
];

/// The state hash: every field into one hasher, in order.
struct Whole(Buffered);

impl Visit for Whole {
    fn value<T: Serialize + Fold + ?Sized>(&mut self, _: Part, value: &T) {
        put(&mut self.0, value);
    }
    fn list<T: Listed>(&mut self, _: Part, list: &[T]) {
        put(&mut self.0, list);
    }
    fn grid(&mut self, grid: &Grid) {
        self.0.put(&grid.canonical());
    }
}

/// The part hashes: each field into its part's hasher.
struct ByPart(Vec<(Part, Buffered)>);

impl ByPart {
    fn of(&mut self, part: Part) -> &mut Buffered {
        let i = match self.0.iter().position(|(p, _)| *p == part) {
            Some(i) => i,
            None => {
                self.0.push((part, Buffered::new()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }
}

impl Visit for ByPart {
    fn value<T: Serialize + Fold + ?Sized>(&mut self, part: Part, value: &T) {
        put(self.of(part), value);
    }
    fn list<T: Listed>(&mut self, part: Part, list: &[T]) {
        put(self.of(part), list);
    }
    fn grid(&mut self, grid: &Grid) {
        self.of(Part::Grid).put(&grid.canonical());
    }
}

/// The entry hashes: one per thing listed.
struct ByEntry(Vec<(Entry, StateHash)>);

impl Visit for ByEntry {
    fn value<T: Serialize + Fold + ?Sized>(&mut self, _: Part, _: &T) {}
    fn list<T: Listed>(&mut self, _: Part, list: &[T]) {
        self.0
            .extend(list.iter().map(|x| (x.entry(), StateHash(hash_of(x)))));
    }
    fn grid(&mut self, _: &Grid) {}
}

/// The tick hash: every field folded in order.
struct Folded(Mixer);

impl Visit for Folded {
    #[inline]
    fn value<T: Serialize + Fold + ?Sized>(&mut self, _: Part, value: &T) {
        value.fold(&mut self.0);
    }
    #[inline]
    fn list<T: Listed>(&mut self, _: Part, list: &[T]) {
        list.fold(&mut self.0);
    }
    fn grid(&mut self, grid: &Grid) {
        grid.fold(&mut self.0);
    }
}

impl State {
    /// blake3 over the canonical encoding of the whole state. Same state, same hash, everywhere.
    ///
    /// The bytes are exactly those of encoding `State` whole ([`State::hash_uncached`]), field
    /// by field in declaration order, except that the grid's encoding comes from its cache
    /// ([`crate::grid::Grid::canonical`], taken again only after the grid changed).
    pub fn hash(&self) -> StateHash {
        let mut whole = Whole(Buffered::new());
        visit(self, &mut whole);
        StateHash(whole.0.finish())
    }

    /// [`State::hash`] the slow way: the whole state through the canonical encoder, grid
    /// included. Always equal to `hash` (tested); for checks, not for every turn.
    pub fn hash_uncached(&self) -> StateHash {
        StateHash(hash_of(self))
    }

    /// One hash per part of the state, in the order of [`Part::ALL`] (names in [`PARTS`]).
    pub fn part_hashes(&self) -> Vec<(&'static str, StateHash)> {
        let mut by = ByPart(Vec::with_capacity(Part::ALL.len()));
        visit(self, &mut by);
        by.0.sort_by_key(|(p, _)| *p);
        by.0.into_iter()
            .map(|(p, h)| (p.name(), StateHash(h.finish())))
            .collect()
    }

    /// One hash per player, unit, building, resource and formation, in [`Entry`] order (by
    /// part, then id).
    pub fn entity_hashes(&self) -> Vec<(Entry, StateHash)> {
        let mut by = ByEntry(Vec::new());
        visit(self, &mut by);
        by.0.sort_by_key(|(e, _)| *e);
        by.0
    }

    /// The tick hash of the state: a fast digest of every field ([`TickHash`]), what every peer
    /// keeps after each tick of its recent turns.
    pub fn tick_hash(&self) -> TickHash {
        let mut folded = Folded(Mixer::default());
        visit(self, &mut folded);
        folded.0.finish()
    }
}
