//! The state taken apart: every field of [`State`] under the part that holds it, and every
//! player, unit, building, resource and formation as an [`Entry`] of its part.
//!
//! [`visit`] is the one destructuring of `State` that every hash is built from — the state hash,
//! the part hashes, the entry hashes and the tick hash — so a field added to `State` does not
//! compile until it is placed in a part here, and then every hash covers it.

use crate::canon::Fold;
use crate::grid::Grid;
use crate::id::{EntityId, PlayerId};
use crate::state::{Building, Formation, Player, Resource, State, Unit};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A part of the state, hashed on its own to narrow a mismatch down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Part {
    /// Ticks run so far.
    Tick,
    /// Terrain, elevation and occupancy.
    Grid,
    Players,
    Units,
    Buildings,
    Resources,
    /// The next entity id to hand out.
    NextId,
    /// The random generator.
    Rng,
    /// The formations chosen and the next formation id.
    Formations,
}

impl Part {
    /// Every part, in the order of the state's fields.
    pub const ALL: [Part; 9] = [
        Part::Tick,
        Part::Grid,
        Part::Players,
        Part::Units,
        Part::Buildings,
        Part::Resources,
        Part::NextId,
        Part::Rng,
        Part::Formations,
    ];

    /// Its name in reports (`units`, `next_id`, …).
    pub fn name(self) -> &'static str {
        match self {
            Part::Tick => "tick",
            Part::Grid => "grid",
            Part::Players => "players",
            Part::Units => "units",
            Part::Buildings => "buildings",
            Part::Resources => "resources",
            Part::NextId => "next_id",
            Part::Rng => "rng",
            Part::Formations => "formations",
        }
    }

    /// The part named `name`.
    pub fn named(name: &str) -> Option<Part> {
        Part::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// One thing a part lists, by its id: a player, unit, building, resource or formation. Ordered
/// by part, then id (the order [`crate::World::entity_hashes`] lists them in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Entry {
    Player(PlayerId),
    Unit(EntityId),
    Building(EntityId),
    Resource(EntityId),
    Formation(u32),
}

impl Entry {
    /// The part that lists it.
    pub fn part(self) -> Part {
        match self {
            Entry::Player(_) => Part::Players,
            Entry::Unit(_) => Part::Units,
            Entry::Building(_) => Part::Buildings,
            Entry::Resource(_) => Part::Resources,
            Entry::Formation(_) => Part::Formations,
        }
    }

    /// Its id: an entity id, a player slot or a formation id.
    pub fn id(self) -> u64 {
        match self {
            Entry::Player(p) => u64::from(p),
            Entry::Unit(e) | Entry::Building(e) | Entry::Resource(e) => e.0,
            Entry::Formation(f) => u64::from(f),
        }
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self {
            Entry::Player(_) => "player",
            Entry::Unit(_) => "unit",
            Entry::Building(_) => "building",
            Entry::Resource(_) => "resource",
            Entry::Formation(_) => "formation",
        };
        write!(f, "{kind} {}", self.id())
    }
}

/// A thing listed in a part, which knows its entry.
pub(crate) trait Listed: Serialize + Fold {
    fn entry(&self) -> Entry;
}

macro_rules! listed {
    ($($t:ty => $entry:ident),*) => {$(
        impl Listed for $t {
            fn entry(&self) -> Entry {
                Entry::$entry(self.id)
            }
        }
    )*};
}

listed!(Player => Player, Unit => Unit, Building => Building, Resource => Resource, Formation => Formation);

/// What a hash does with each field of the state, in the state's field order.
pub(crate) trait Visit {
    /// A field that is one value.
    fn value<T: Serialize + Fold + ?Sized>(&mut self, part: Part, value: &T);
    /// A field that lists things with ids.
    fn list<T: Listed>(&mut self, part: Part, list: &[T]);
    /// The grid (its encoding is cached between changes).
    fn grid(&mut self, grid: &Grid);
}

/// Hands every field of `state` to `v`, in declaration order, each under its part.
pub(crate) fn visit(state: &State, v: &mut impl Visit) {
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
    } = state;
    v.value(Part::Tick, tick);
    v.grid(grid);
    v.list(Part::Players, players);
    v.list(Part::Units, units);
    v.list(Part::Buildings, buildings);
    v.list(Part::Resources, resources);
    v.value(Part::NextId, next_id);
    v.value(Part::Rng, rng);
    v.list(Part::Formations, formations);
    v.value(Part::Formations, next_formation);
}
