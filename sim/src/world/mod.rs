//! The world: the façade over a match's simulation (DESIGN.md, "The simulation"), above the
//! passes and below map, scenario, verify and soak (ARCHITECTURE.md, "Layers").
//!
//! [`State`] (the `state` layer) is the whole of what the next tick depends on: it is hashed
//! ([`World::hash`]) and snapshotted ([`World::snapshot`]). [`Caches`] are derived from the
//! state (regions, the route search's, navigation's), owned per world and rebuilt on load;
//! nothing in them may change what a tick does except as a pure function of the state.

mod hashing;
mod snapshot;

pub use crate::id::{find, EntityId, PlayerId};
pub use crate::state::{
    friends_of, Building, Counters, Formation, Order, PlaceError, Player, PlayerStatus, Progress,
    Push, Resource, Rng, Route, State, Unit, UnitState, TICK_MS,
};
pub use snapshot::{Snapshot, SnapshotError};

use crate::command::PlayerCommand;
use crate::grid::{Footprint, Grid, Keyed, PlayerMask, Regions};
use crate::nav::{Tick, View};
use crate::position::{Tile, Vec2};
use crate::ruleset::{BuildingKindId, ResourceKindId, Ruleset, UnitKindId};
use std::sync::Arc;

/// Derived data owned by one world: rebuilt from the state, never hashed. Each part belongs to
/// the layer that fills it.
#[derive(Clone, Debug, Default)]
pub struct Caches {
    /// Each layer's regions (the grid's), refreshed in tick step 1.
    pub regions: Regions,
    /// The route search's landmarks and scratch.
    pub search: crate::astar::SearchCaches,
    /// The survey, the marching group, and the walks and chases shared within a tick.
    pub nav: crate::nav::NavCaches,
}

/// A match's simulation.
#[derive(Clone, Debug)]
pub struct World {
    rules: Arc<Ruleset>,
    /// The sim's own layers read and write it; the crates above read it ([`World::state`]) and
    /// change it only by commands, ticks and snapshots.
    pub(crate) state: State,
    /// Read from above through [`World::caches`]; filled by the layers that own each part.
    pub(crate) caches: Caches,
    pub counters: Counters,
}

impl World {
    /// A world on `grid` with `players`, its random generator seeded with `seed`.
    pub fn new(rules: Arc<Ruleset>, grid: Grid, players: Vec<Player>, seed: u64) -> World {
        let mut w = World {
            rules,
            state: State {
                tick: 0,
                grid,
                players,
                units: Vec::new(),
                buildings: Vec::new(),
                resources: Vec::new(),
                next_id: 1,
                rng: Rng::new(seed),
                formations: Vec::new(),
                next_formation: 1,
            },
            caches: Caches::default(),
            counters: Counters::default(),
        };
        w.prepare();
        w
    }

    /// The state: what the next tick depends on, every field hashed.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The state to change directly, outside commands, ticks and snapshots: for tests and tools
    /// that set a scene up or tamper with one on purpose (a desync reproduced, every field
    /// perturbed). The caches follow on the next tick's prepare and survey, as after a load.
    pub fn state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    /// The caches derived from the state (regions, route search, navigation).
    pub fn caches(&self) -> &Caches {
        &self.caches
    }

    /// Files the survey of who stands where, as the tick's second step does.
    pub fn file_survey(&mut self) {
        crate::tick::file_survey(&mut self.parts());
    }

    /// The parts a step of the tick reads: the rules, the state and the caches derived from it.
    pub fn view(&self) -> View<'_> {
        View {
            rules: &self.rules,
            state: &self.state,
            regions: &self.caches.regions,
            nav: &self.caches.nav,
        }
    }

    /// The parts a step of the tick changes, for the tick itself and for tests and tools that
    /// call one of its functions directly (a route asked for, a scene's survey filed).
    pub fn parts(&mut self) -> Tick<'_> {
        Tick {
            rules: &self.rules,
            state: &mut self.state,
            regions: &mut self.caches.regions,
            search: &mut self.caches.search,
            nav: &mut self.caches.nav,
            counters: &mut self.counters,
        }
    }

    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }

    pub fn rules_arc(&self) -> Arc<Ruleset> {
        self.rules.clone()
    }

    pub fn tick(&self) -> u64 {
        self.state.tick
    }

    pub fn grid(&self) -> &Grid {
        &self.state.grid
    }

    /// Refreshes the caches that depend on the grid's revisions (tick step 1).
    pub fn prepare(&mut self) {
        crate::tick::prepare(&mut self.parts());
    }

    /// The players allied with `player`, itself included.
    pub fn friends(&self, player: PlayerId) -> PlayerMask {
        self.state.friends(player)
    }

    /// Whether two players are allies (or the same).
    pub fn allied(&self, a: PlayerId, b: PlayerId) -> bool {
        self.state.allied(a, b)
    }

    /// The keyed layer a unit moves on (the spec's `Navigation::LayerOf`).
    pub fn key_of(&self, unit: &Unit) -> Keyed {
        self.state.key_of(&self.rules, unit)
    }

    pub fn unit(&self, id: EntityId) -> Option<&Unit> {
        self.state.unit(id)
    }

    pub fn unit_mut(&mut self, id: EntityId) -> Option<&mut Unit> {
        self.state.unit_mut(id)
    }

    pub fn building(&self, id: EntityId) -> Option<&Building> {
        self.state.building(id)
    }

    pub fn resource(&self, id: EntityId) -> Option<&Resource> {
        self.state.resource(id)
    }

    /// Adds a unit at `at`. Returns its id.
    pub fn spawn_unit(&mut self, kind: UnitKindId, owner: PlayerId, at: Vec2) -> EntityId {
        self.state.spawn_unit(&self.rules, kind, owner, at)
    }

    /// The footprint a building of `kind` would cover at `origin`.
    pub fn footprint_of(&self, kind: BuildingKindId, origin: Tile, turned: bool) -> Footprint {
        Footprint::of_building(&self.rules, kind, origin, turned)
    }

    /// Lays a building and closes its ground ([`State::place_building`]).
    pub fn place_building(
        &mut self,
        kind: BuildingKindId,
        owner: PlayerId,
        origin: Tile,
        turned: bool,
        complete: bool,
    ) -> Result<EntityId, PlaceError> {
        let state = &mut self.state;
        state.place_building(&self.rules, kind, owner, origin, turned, complete)
    }

    /// Lays a building with its ground left open ([`State::lay_building`]).
    pub fn lay_building(
        &mut self,
        kind: BuildingKindId,
        owner: PlayerId,
        origin: Tile,
        turned: bool,
        complete: bool,
    ) -> Result<EntityId, PlaceError> {
        let state = &mut self.state;
        state.lay_building(&self.rules, kind, owner, origin, turned, complete)
    }

    /// Closes building `id`'s ground ([`State::close_ground`]).
    pub fn close_ground(&mut self, id: EntityId) {
        self.state.close_ground(&self.rules, id);
    }

    /// Whether building `id`'s ground is closed ([`State::ground_closed`]).
    pub fn ground_closed(&self, id: EntityId) -> bool {
        self.state.ground_closed(id)
    }

    /// Removes a building and frees its ground.
    pub fn remove_building(&mut self, id: EntityId) {
        self.state.remove_building(id);
    }

    /// Locks or unlocks a gate.
    pub fn set_gate_lock(&mut self, id: EntityId, locked: bool) {
        self.state.set_gate_lock(&self.rules, id, locked);
    }

    /// Adds a tree, mine or bush on `tile`, blocking it. Returns `None` when the tile is taken.
    pub fn add_resource(&mut self, kind: ResourceKindId, tile: Tile) -> Option<EntityId> {
        self.state.add_resource(&self.rules, kind, tile)
    }

    /// Removes a resource (a felled tree, an emptied mine), freeing its tile.
    pub fn remove_resource(&mut self, id: EntityId) {
        self.state.remove_resource(id);
    }

    /// The first layer that is not land (the sea), if the ruleset has one.
    pub fn water_layer(&self) -> Option<u8> {
        self.rules.water_layer()
    }

    /// Runs one tick, carrying out `commands` at its orders step. Same state and commands, same
    /// result on every machine.
    pub fn step(&mut self, commands: &[PlayerCommand]) {
        crate::tick::step(&mut self.parts(), commands);
    }

    /// Runs a network turn: `commands` at its first tick, then `ticks - 1` more.
    pub fn run_turn(&mut self, commands: &[PlayerCommand], ticks: u32) {
        for t in 0..ticks {
            self.step(if t == 0 { commands } else { &[] });
        }
    }

    /// Sets a player's status (joined, left, resigned, dropped): an event of the turn stream.
    pub fn set_player_status(&mut self, player: PlayerId, status: PlayerStatus) {
        self.state.set_player_status(player, status);
    }
}
