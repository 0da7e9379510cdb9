//! The deterministic generator of the embedded default map: a seed, a size, 2 to 8 players.

use crate::grid::Grid;
use crate::position::{Tile, Vec2};
use crate::ruleset::Ruleset;
use crate::world::{Player, World};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The default map's seed.
pub const DEFAULT_MAP_SEED: u64 = 0xC0_4027;
/// The default map's side, in tiles.
pub const DEFAULT_MAP_SIZE: i32 = 120;

/// The fewest players the generator lays out.
pub const MIN_PLAYERS: u8 = 2;
/// The most players the generator lays out.
pub const MAX_PLAYERS: u8 = 8;
/// The smallest map side the generator makes, in tiles.
pub const MIN_SIZE: i32 = 48;
/// The largest map side the generator makes, in tiles.
pub const MAX_SIZE: i32 = 512;

/// What the generator is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapOptions {
    pub seed: u64,
    /// The map's side in tiles (it is square), 48 to 512.
    pub size: i32,
    /// 2 to 8 players; each starts with a town center and villagers.
    pub players: u8,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions {
            seed: DEFAULT_MAP_SEED,
            size: DEFAULT_MAP_SIZE,
            players: 2,
        }
    }
}

/// A new world on the generated map. Same options and ruleset, same world, on every machine.
pub fn generate(rules: Arc<Ruleset>, opts: MapOptions) -> World {
    let players = opts.players.clamp(2, 8);
    let size = opts.size.clamp(48, 512);
    let grass = rules.terrain("grass").unwrap_or(0);
    let grid = Grid::new(&rules, size, size, grass);
    let list = (0..players).map(|p| Player::new(p, p)).collect();
    let mut world = World::new(rules.clone(), grid, list, opts.seed);
    let tc = rules.building_kind("town_center");
    let villager = rules.unit_kind("villager").unwrap_or(0);
    for p in 0..players {
        let (x, y) = start_position(size, players, p);
        if let Some(tc) = tc {
            let _ = world.place_building(tc, p, Tile::new(x, y), false, true);
        }
        for v in 0..3 {
            let at = Vec2::of_tile(Tile::new(x - 1 + v, y + 3));
            world.spawn_unit(villager, p, at);
        }
    }
    world.prepare();
    world
}

/// Where player `p`'s town center stands: evenly round a circle inside the map's edge.
fn start_position(size: i32, players: u8, p: u8) -> (i32, i32) {
    // Integer points round a circle, from a fixed table of cosines in thousandths (8 places).
    const COS: [i64; 8] = [1000, 707, 0, -707, -1000, -707, 0, 707];
    const SIN: [i64; 8] = [0, 707, 1000, 707, 0, -707, -1000, -707];
    let step = 8 / i64::from(players.max(1)).min(8);
    let k = ((i64::from(p) * step) % 8) as usize;
    let half = i64::from(size) / 2;
    let r = half * 7 / 10;
    (
        (half + r * COS[k] / 1000) as i32,
        (half + r * SIN[k] / 1000) as i32,
    )
}
