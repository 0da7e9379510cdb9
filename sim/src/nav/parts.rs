//! The parts of a world a step of the tick borrows (ARCHITECTURE.md, "Layers"): a [`View`] to
//! read, a [`Tick`] to change. The passes of nav, walk, formation and tick take one of these
//! rather than the `World` above them, so a signature says whether a step writes: a function
//! given a `View` changes nothing, and one given a `Tick` names in its body which of the state,
//! the caches and the counters it changes.

use super::NavCaches;
use crate::astar::SearchCaches;
use crate::grid::{Grid, Keyed, Regions};
use crate::id::EntityId;
use crate::ruleset::Ruleset;
use crate::state::{Counters, State, Unit};

/// What a step reads: the rules, the state, and the caches derived from it. Holding one is the
/// promise of changing nothing.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub rules: &'a Ruleset,
    pub state: &'a State,
    /// Each layer's regions (the grid's), refreshed in tick step 1.
    pub regions: &'a Regions,
    /// The survey, the marching group, and the walks and chases shared within the tick.
    pub nav: &'a NavCaches,
}

/// What a step that changes things borrows: the rules to read, the state to change, the caches
/// it fills (regions in step 1, the route search's scratch and landmarks, navigation's), and the
/// counters it adds to.
#[derive(Debug)]
pub struct Tick<'a> {
    pub rules: &'a Ruleset,
    pub state: &'a mut State,
    pub regions: &'a mut Regions,
    pub search: &'a mut SearchCaches,
    pub nav: &'a mut NavCaches,
    pub counters: &'a mut Counters,
}

impl<'a> View<'a> {
    pub fn grid(&self) -> &'a Grid {
        &self.state.grid
    }

    pub fn unit(&self, id: EntityId) -> Option<&'a Unit> {
        self.state.unit(id)
    }

    /// The keyed layer a unit moves on (the spec's `Navigation::LayerOf`).
    pub fn key_of(&self, unit: &Unit) -> Keyed {
        self.state.key_of(self.rules, unit)
    }
}

impl Tick<'_> {
    /// The same parts, to read.
    pub fn view(&self) -> View<'_> {
        View {
            rules: self.rules,
            state: self.state,
            regions: self.regions,
            nav: self.nav,
        }
    }

    pub fn grid(&self) -> &Grid {
        &self.state.grid
    }

    pub fn unit(&self, id: EntityId) -> Option<&Unit> {
        self.state.unit(id)
    }

    /// The keyed layer a unit moves on (the spec's `Navigation::LayerOf`).
    pub fn key_of(&self, unit: &Unit) -> Keyed {
        self.state.key_of(self.rules, unit)
    }
}
