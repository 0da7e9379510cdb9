//! Changing the state outside a pass's own fields: entities added and removed (with the ground
//! they close and free), gates locked, players' statuses set. Every change a command, a tick, a
//! scenario or a map makes to who exists goes through here.

use super::{Building, Order, PlayerStatus, Resource, State, Unit, UnitState};
use crate::grid::{Footprint, Occupant};
use crate::id::{find, EntityId, PlayerId};
use crate::position::{Tile, Vec2};
use crate::ruleset::{BuildingKindId, ResourceKindId, Ruleset, UnitKindId};

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

impl State {
    /// Hands out the next entity id; ids are never reused.
    pub(crate) fn next_id(&mut self) -> EntityId {
        let id = EntityId(self.next_id);
        self.next_id += 1;
        id
    }

    /// Adds a unit at `at`. Returns its id.
    pub fn spawn_unit(
        &mut self,
        rules: &Ruleset,
        kind: UnitKindId,
        owner: PlayerId,
        at: Vec2,
    ) -> EntityId {
        let id = self.next_id();
        let hit_points = rules.unit(kind).hit_points;
        self.units.push(Unit {
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

    /// Lays a building (complete or as a foundation) and closes its ground ([`State::lay_building`]
    /// then [`State::close_ground`]).
    pub fn place_building(
        &mut self,
        rules: &Ruleset,
        kind: BuildingKindId,
        owner: PlayerId,
        origin: Tile,
        turned: bool,
        complete: bool,
    ) -> Result<EntityId, PlaceError> {
        let id = self.lay_building(rules, kind, owner, origin, turned, complete)?;
        self.close_ground(rules, id);
        Ok(id)
    }

    /// Lays a building (complete or as a foundation) with its ground left open: the ground must
    /// be open to an unkeyed ask on land (on water for a dock) on every tile, and no other
    /// building's footprint may cover any (a foundation whose ground is still open among them).
    pub fn lay_building(
        &mut self,
        rules: &Ruleset,
        kind: BuildingKindId,
        owner: PlayerId,
        origin: Tile,
        turned: bool,
        complete: bool,
    ) -> Result<EntityId, PlaceError> {
        let spec = &rules.buildings[kind as usize];
        let footprint = Footprint::of_building(rules, kind, origin, turned);
        let water = rules.water_layer();
        for t in footprint.tiles() {
            let i = self.grid.index(t).ok_or(PlaceError::OffMap)?;
            let open = if spec.on_water {
                water.is_some_and(|l| self.grid.open_at(l, i))
            } else {
                self.grid.open_at(0, i)
            };
            let covered = self.buildings.iter().any(|b| b.footprint.covers(t));
            if !open || covered {
                return Err(PlaceError::Blocked(t.x, t.y));
            }
        }
        let id = self.next_id();
        self.buildings.push(Building {
            id,
            kind,
            owner,
            footprint,
            turned,
            hit_points: if complete { spec.hit_points } else { 1 },
            built_ms: if complete { spec.build_ms } else { 0 },
            complete,
            locked: false,
        });
        Ok(id)
    }

    /// Closes building `id`'s ground: its footprint's tiles are taken by it (a gate's open to its
    /// owner and allies while unlocked). Nothing when it is gone.
    pub fn close_ground(&mut self, rules: &Ruleset, id: EntityId) {
        let Some(b) = self.building(id) else { return };
        let occupant = if rules.buildings[b.kind as usize].gate {
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
            self.grid.set_occupant(t, occupant);
        }
    }

    /// Removes a building and frees its ground.
    pub fn remove_building(&mut self, id: EntityId) {
        if let Some(i) = find(&self.buildings, id, |b| b.id) {
            let b = self.buildings.remove(i);
            for t in b.footprint.tiles() {
                self.grid.set_occupant(t, Occupant::Nothing);
            }
        }
    }

    /// Locks or unlocks a gate.
    pub fn set_gate_lock(&mut self, rules: &Ruleset, id: EntityId, locked: bool) {
        let Some(i) = find(&self.buildings, id, |b| b.id) else {
            return;
        };
        let b = &mut self.buildings[i];
        if !rules.buildings[b.kind as usize].gate {
            return;
        }
        b.locked = locked;
        let (owner, tiles): (PlayerId, Vec<Tile>) = (b.owner, b.footprint.tiles().collect());
        // A gate whose ground is still open keeps it open: its lock is written when it closes.
        if !self.ground_closed(id) {
            return;
        }
        for t in tiles {
            self.grid.set_occupant(
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
    pub fn add_resource(
        &mut self,
        rules: &Ruleset,
        kind: ResourceKindId,
        tile: Tile,
    ) -> Option<EntityId> {
        let i = self.grid.index(tile)?;
        if !self.grid.occupant_at(i).is_nothing() {
            return None;
        }
        let id = self.next_id();
        let amount = rules.resources[kind as usize].amount;
        self.grid.set_occupant(tile, Occupant::Resource(id));
        self.resources.push(Resource {
            id,
            kind,
            tile,
            amount,
        });
        Some(id)
    }

    /// Removes a resource (a felled tree, an emptied mine), freeing its tile.
    pub fn remove_resource(&mut self, id: EntityId) {
        if let Some(i) = find(&self.resources, id, |r| r.id) {
            let r = self.resources.remove(i);
            self.grid.set_occupant(r.tile, Occupant::Nothing);
        }
    }

    /// Sets a player's status (joined, left, resigned, dropped): an event of the turn stream.
    pub fn set_player_status(&mut self, player: PlayerId, status: PlayerStatus) {
        if let Some(p) = self.players.iter_mut().find(|p| p.id == player) {
            p.status = status;
        }
    }
}
