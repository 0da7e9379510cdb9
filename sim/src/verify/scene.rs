//! Scenes for the checks: a world on open ground with two players, and helpers to lay ground,
//! place units, give orders and run ticks.

use crate::command::{Command, PlayerCommand};
use crate::grid::Grid;
use crate::position::{Fx, Tile, Vec2};
use crate::ruleset::Ruleset;
use crate::walk::{apart::squared, K_KEEP_APART};
use crate::world::{EntityId, Player, PlayerId, World};
use std::sync::Arc;

/// A world being checked.
pub struct Scene {
    pub world: World,
}

impl Scene {
    /// A `width` × `height` map of grass with players 0 and 1 (enemies).
    pub fn open(width: i32, height: i32) -> Scene {
        let rules = Arc::new(Ruleset::default_rules());
        let grass = rules.terrain("grass").unwrap_or(0);
        let grid = Grid::new(&rules, width, height, grass);
        let players = vec![Player::new(0, 0), Player::new(1, 1)];
        Scene {
            world: World::new(rules, grid, players, 7),
        }
    }

    /// Lays `terrain` on every tile from `min` to `max` (inclusive).
    pub fn terrain(&mut self, terrain: &str, min: Tile, max: Tile) {
        let t = self.world.rules().terrain(terrain).unwrap_or(0);
        for y in min.y..=max.y {
            for x in min.x..=max.x {
                self.world.state.grid.set_terrain(Tile::new(x, y), t);
            }
        }
        self.world.prepare();
    }

    /// A unit of the kind named.
    pub fn unit(&mut self, kind: &str, owner: PlayerId, at: Vec2) -> EntityId {
        let k = self.world.rules().unit_kind(kind).unwrap_or(0);
        self.world.spawn_unit(k, owner, at)
    }

    /// A block of `cols` × `rows` units, `spacing` apart, its first at `corner`.
    pub fn block(
        &mut self,
        kind: &str,
        owner: PlayerId,
        corner: Vec2,
        cols: i64,
        rows: i64,
        spacing: Fx,
    ) -> Vec<EntityId> {
        let mut ids = Vec::new();
        for j in 0..rows {
            for i in 0..cols {
                let at = Vec2::new(corner.x + spacing * i, corner.y + spacing * j);
                ids.push(self.unit(kind, owner, at));
            }
        }
        ids
    }

    /// Runs one tick with `command` from `player`.
    pub fn order(&mut self, player: PlayerId, command: Command) {
        self.world.step(&[PlayerCommand { player, command }]);
    }

    /// Runs ticks until `done` holds or `most` ticks have run. Returns the ticks run.
    pub fn run_until(&mut self, most: u32, mut done: impl FnMut(&World) -> bool) -> u32 {
        for t in 0..most {
            if done(&self.world) {
                return t;
            }
            self.world.step(&[]);
        }
        most
    }

    /// Whether every unit of `ids` has stopped walking.
    pub fn all_stopped(world: &World, ids: &[EntityId]) -> bool {
        ids.iter()
            .all(|&id| world.unit(id).is_none_or(|u| u.route.is_none()))
    }

    /// The smallest share of the keep-apart allowance any two of `ids` stand apart, in
    /// thousandths (1000: exactly the allowance).
    pub fn closest_share(world: &World, ids: &[EntityId]) -> i64 {
        let units: Vec<_> = ids.iter().filter_map(|&id| world.unit(id)).collect();
        let mut worst = i64::MAX;
        for (k, a) in units.iter().enumerate() {
            let ra = world.rules().units[a.kind as usize].radius;
            for b in &units[k + 1..] {
                let rb = world.rules().units[b.kind as usize].radius;
                let allow = (ra + rb) * K_KEEP_APART;
                let d = (a.position - b.position).length();
                worst = worst.min((d * 1000 / allow).to_num::<i64>());
            }
        }
        worst
    }

    /// Whether two of `ids` stand on the very same point (stacked).
    pub fn stacked(world: &World, ids: &[EntityId]) -> bool {
        let mut at: Vec<(i64, i64)> = ids
            .iter()
            .filter_map(|&id| world.unit(id))
            .map(|u| (u.position.x.to_bits(), u.position.y.to_bits()))
            .collect();
        at.sort_unstable();
        at.windows(2).any(|w| w[0] == w[1])
    }

    /// The squared distance between two points, raw bits.
    pub fn squared(v: Vec2) -> i128 {
        squared(v)
    }
}
