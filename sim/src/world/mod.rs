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
    friends_of, Building, Counters, Formation, Order, Player, PlayerStatus, Progress, Push,
    Resource, Rng, Route, State, Unit, UnitState, TICK_MS,
};
pub use snapshot::{Snapshot, SnapshotError};

use crate::command::PlayerCommand;
use crate::grid::{Footprint, Grid, Keyed, Occupant, PlayerMask, Regions};
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

/// Why a building could not be placed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlaceError {
    #[error("no building kind `{0}` in the ruleset")]
    UnknownKind(String),
    #[error("the footprint leaves the map")]
    OffMap,
    #[error("the ground at ({0}, {1}) is taken or of the wrong terrain")]
    Blocked(i32, i32),
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
        let mut survey = std::mem::take(&mut self.caches.nav.survey);
        survey.file(self);
        self.caches.nav.survey = survey;
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
        self.caches.regions.prepare(&self.state.grid);
        self.caches.search.landmarks.prepare(&self.state.grid);
    }

    fn next_id(&mut self) -> EntityId {
        let id = EntityId(self.state.next_id);
        self.state.next_id += 1;
        id
    }

    /// The players allied with `player`, itself included.
    pub fn friends(&self, player: PlayerId) -> PlayerMask {
        friends_of(&self.state.players, player)
    }

    /// Whether two players are allies (or the same).
    pub fn allied(&self, a: PlayerId, b: PlayerId) -> bool {
        self.friends(a).contains(b)
    }

    /// The keyed layer a unit moves on (the spec's `Navigation::LayerOf`).
    pub fn key_of(&self, unit: &Unit) -> Keyed {
        let kind = &self.rules.unit(unit.kind);
        Keyed::with_friends(kind.layer, self.friends(unit.owner))
    }

    pub fn unit(&self, id: EntityId) -> Option<&Unit> {
        find(&self.state.units, id, |u| u.id).map(|i| &self.state.units[i])
    }

    pub fn unit_mut(&mut self, id: EntityId) -> Option<&mut Unit> {
        find(&self.state.units, id, |u| u.id).map(|i| &mut self.state.units[i])
    }

    pub fn building(&self, id: EntityId) -> Option<&Building> {
        find(&self.state.buildings, id, |b| b.id).map(|i| &self.state.buildings[i])
    }

    pub fn resource(&self, id: EntityId) -> Option<&Resource> {
        find(&self.state.resources, id, |r| r.id).map(|i| &self.state.resources[i])
    }

    /// Adds a unit at `at`. Returns its id.
    pub fn spawn_unit(&mut self, kind: UnitKindId, owner: PlayerId, at: Vec2) -> EntityId {
        let id = self.next_id();
        let hit_points = self.rules.unit(kind).hit_points;
        self.state.units.push(Unit {
            id,
            kind,
            owner,
            position: at,
            previous_position: at,
            hit_points,
            order: Order::Idle,
            state: UnitState::Idle,
            route: None,
            reload_ticks: 0,
            carrying: None,
            gather_progress: Default::default(),
            formation: None,
            fight: None,
            ring_tries: 0,
            replan_at_ms: 0,
            chase_waits: false,
            work_spot: None,
            pushed: None,
            hit_by: None,
        });
        id
    }

    /// The footprint a building of `kind` would cover at `origin`.
    pub fn footprint_of(&self, kind: BuildingKindId, origin: Tile, turned: bool) -> Footprint {
        Footprint::of(
            self.rules.buildings[kind as usize].half_extent,
            origin,
            turned,
        )
    }

    /// Lays a building (complete or as a foundation) and closes its ground ([`World::lay_building`]
    /// then [`World::close_ground`]).
    pub fn place_building(
        &mut self,
        kind: BuildingKindId,
        owner: PlayerId,
        origin: Tile,
        turned: bool,
        complete: bool,
    ) -> Result<EntityId, PlaceError> {
        let id = self.lay_building(kind, owner, origin, turned, complete)?;
        self.close_ground(id);
        Ok(id)
    }

    /// Lays a building (complete or as a foundation) with its ground left open: the ground must
    /// be open to an unkeyed ask on land (on water for a dock) on every tile, and no other
    /// building's footprint may cover any (a foundation whose ground is still open among them).
    pub fn lay_building(
        &mut self,
        kind: BuildingKindId,
        owner: PlayerId,
        origin: Tile,
        turned: bool,
        complete: bool,
    ) -> Result<EntityId, PlaceError> {
        let rules = self.rules.clone();
        let spec = &rules.buildings[kind as usize];
        let footprint = Footprint::of(spec.half_extent, origin, turned);
        let water = self.water_layer();
        for t in footprint.tiles() {
            let i = self.state.grid.index(t).ok_or(PlaceError::OffMap)?;
            let open = if spec.on_water {
                water.is_some_and(|l| self.state.grid.open_at(l, i))
            } else {
                self.state.grid.open_at(0, i)
            };
            let covered = self.state.buildings.iter().any(|b| b.footprint.covers(t));
            if !open || covered {
                return Err(PlaceError::Blocked(t.x, t.y));
            }
        }
        let hit_points = spec.hit_points;
        let id = self.next_id();
        self.state.buildings.push(Building {
            id,
            kind,
            owner,
            footprint,
            turned,
            hit_points: if complete { hit_points } else { 1 },
            built_ms: if complete { spec.build_ms } else { 0 },
            complete,
            locked: false,
        });
        Ok(id)
    }

    /// Closes building `id`'s ground: its footprint's tiles are taken by it (a gate's open to its
    /// owner and allies while unlocked). Nothing when it is gone.
    pub fn close_ground(&mut self, id: EntityId) {
        let Some(b) = self.building(id) else { return };
        let occupant = if self.rules.buildings[b.kind as usize].gate {
            Occupant::Gate {
                entity: id,
                owner: b.owner,
                locked: b.locked,
            }
        } else {
            Occupant::Building(id)
        };
        let footprint = b.footprint;
        for t in footprint.tiles() {
            self.state.grid.set_occupant(t, occupant);
        }
    }

    /// Whether building `id`'s ground is closed: false for a foundation laid where bodies stood
    /// until they have left it (`tick::foundation`).
    pub fn ground_closed(&self, id: EntityId) -> bool {
        self.building(id).is_some_and(|b| {
            matches!(self.state.grid.occupant(b.footprint.origin),
                Occupant::Building(e) | Occupant::Gate { entity: e, .. } if e == id)
        })
    }

    /// Removes a building and frees its ground.
    pub fn remove_building(&mut self, id: EntityId) {
        if let Some(i) = find(&self.state.buildings, id, |b| b.id) {
            let b = self.state.buildings.remove(i);
            for t in b.footprint.tiles() {
                self.state.grid.set_occupant(t, Occupant::Nothing);
            }
        }
    }

    /// Locks or unlocks a gate.
    pub fn set_gate_lock(&mut self, id: EntityId, locked: bool) {
        let Some(i) = find(&self.state.buildings, id, |b| b.id) else {
            return;
        };
        let b = &mut self.state.buildings[i];
        if !self.rules.buildings[b.kind as usize].gate {
            return;
        }
        b.locked = locked;
        let (owner, tiles): (PlayerId, Vec<Tile>) = (b.owner, b.footprint.tiles().collect());
        // A gate whose ground is still open keeps it open: its lock is written when it closes.
        if !self.ground_closed(id) {
            return;
        }
        for t in tiles {
            self.state.grid.set_occupant(
                t,
                Occupant::Gate {
                    entity: id,
                    owner,
                    locked,
                },
            );
        }
    }

    /// Adds a tree, mine or bush on `tile`, blocking it. Returns `None` when the tile is taken.
    pub fn add_resource(&mut self, kind: ResourceKindId, tile: Tile) -> Option<EntityId> {
        let i = self.state.grid.index(tile)?;
        if !self.state.grid.occupant_at(i).is_nothing() {
            return None;
        }
        let id = self.next_id();
        let amount = self.rules.resources[kind as usize].amount;
        self.state.grid.set_occupant(tile, Occupant::Resource(id));
        self.state.resources.push(Resource {
            id,
            kind,
            tile,
            amount,
        });
        Some(id)
    }

    /// Removes a resource (a felled tree, an emptied mine), freeing its tile.
    pub fn remove_resource(&mut self, id: EntityId) {
        if let Some(i) = find(&self.state.resources, id, |r| r.id) {
            let r = self.state.resources.remove(i);
            self.state.grid.set_occupant(r.tile, Occupant::Nothing);
        }
    }

    /// The first layer that is not land (the sea), if the ruleset has one.
    pub fn water_layer(&self) -> Option<u8> {
        (1..self.rules.layers.len()).next().map(|l| l as u8)
    }

    /// Runs one tick, carrying out `commands` at its orders step. Same state and commands, same
    /// result on every machine.
    pub fn step(&mut self, commands: &[PlayerCommand]) {
        crate::tick::step(self, commands);
    }

    /// Runs a network turn: `commands` at its first tick, then `ticks - 1` more.
    pub fn run_turn(&mut self, commands: &[PlayerCommand], ticks: u32) {
        for t in 0..ticks {
            self.step(if t == 0 { commands } else { &[] });
        }
    }

    /// Sets a player's status (joined, left, resigned, dropped): an event of the turn stream.
    pub fn set_player_status(&mut self, player: PlayerId, status: PlayerStatus) {
        if let Some(p) = self.state.players.iter_mut().find(|p| p.id == player) {
            p.status = status;
        }
    }
}
