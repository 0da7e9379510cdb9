//! Finding things in the state: entities by id, a player's friends, the keyed layer a unit moves
//! on, whether a building's ground is closed. Reads only.

use super::{Building, Resource, State, Unit};
use crate::grid::{Keyed, Occupant, PlayerMask};
use crate::id::{find, EntityId, PlayerId};
use crate::ruleset::Ruleset;

impl State {
    pub fn unit(&self, id: EntityId) -> Option<&Unit> {
        find(&self.units, id, |u| u.id).map(|i| &self.units[i])
    }

    pub fn unit_mut(&mut self, id: EntityId) -> Option<&mut Unit> {
        find(&self.units, id, |u| u.id).map(|i| &mut self.units[i])
    }

    pub fn building(&self, id: EntityId) -> Option<&Building> {
        find(&self.buildings, id, |b| b.id).map(|i| &self.buildings[i])
    }

    pub fn resource(&self, id: EntityId) -> Option<&Resource> {
        find(&self.resources, id, |r| r.id).map(|i| &self.resources[i])
    }

    /// The players allied with `player`, itself included.
    pub fn friends(&self, player: PlayerId) -> PlayerMask {
        super::friends_of(&self.players, player)
    }

    /// Whether two players are allies (or the same).
    pub fn allied(&self, a: PlayerId, b: PlayerId) -> bool {
        self.friends(a).contains(b)
    }

    /// The keyed layer a unit moves on (the spec's `Navigation::LayerOf`).
    pub fn key_of(&self, rules: &Ruleset, unit: &Unit) -> Keyed {
        Keyed::with_friends(rules.unit(unit.kind).layer, self.friends(unit.owner))
    }

    /// Whether building `id`'s ground is closed: false for a foundation laid where bodies stood
    /// until they have left it (`tick::foundation`).
    pub fn ground_closed(&self, id: EntityId) -> bool {
        self.building(id).is_some_and(|b| {
            matches!(self.grid.occupant(b.footprint.origin),
                Occupant::Building(e) | Occupant::Gate { entity: e, .. } if e == id)
        })
    }
}
