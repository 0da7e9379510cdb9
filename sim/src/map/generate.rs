//! The deterministic generator of the embedded default map: a seed, a size, 2 to 8 players.
//!
//! The map is grass with a lake in the middle (deep water, a ring of shallows, a beach), the
//! players' starts evenly round a circle, and forests scattered between them. Every start is laid
//! out the same way, turned to face the middle — a town center, three villagers and a scout, a
//! gold mine, a stone mine, berry bushes and a wood line behind — so the map is fair. Everything
//! is integer arithmetic and one seeded generator: same options and ruleset, same world on every
//! machine.

use crate::grid::{Grid, TerrainId};
use crate::position::{Tile, Vec2};
use crate::ruleset::Ruleset;
use crate::state::{Player, Rng};
use crate::world::World;
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
/// Villagers each player starts with.
pub const START_VILLAGERS: i32 = 3;
/// No random forest grows this close (in tiles, Chebyshev) to a start.
pub const START_CLEARING: i32 = 12;
/// The starts' circle, as a share of half the map's side, in percent.
const START_RING_PERCENT: i64 = 72;
/// The lake's radius, as a share of the map's side, in percent.
const LAKE_PERCENT: i64 = 9;
/// Random forest clumps per 1000 tiles of map.
const FORESTS_PER_1000_TILES: i64 = 2;

/// What the generator is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapOptions {
    pub seed: u64,
    /// The map's side in tiles (it is square), [`MIN_SIZE`] to [`MAX_SIZE`].
    pub size: i32,
    /// [`MIN_PLAYERS`] to [`MAX_PLAYERS`]; each starts with a town center, villagers and a scout.
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

/// Fixed-point scale of the generator's directions (millionths).
const UNIT: i64 = 1_000_000;

/// `(cos, sin)` of `num / den` of a full turn, in millionths, by an integer Taylor series:
/// exact to the last digit on every machine.
pub fn turn_cos_sin(num: i64, den: i64) -> (i64, i64) {
    // Work in 1e12 fixed point; π to 13 digits.
    const S: i128 = 1_000_000_000_000;
    const PI: i128 = 3_141_592_653_590;
    let mut x = 2 * PI * i128::from(num.rem_euclid(den)) / i128::from(den);
    if x > PI {
        x -= 2 * PI;
    }
    let series = |mut term: i128, first: i128| {
        // term_k+1 = -term_k * x² / ((n+1)(n+2)).
        let mut sum = term;
        let mut n = first;
        for _ in 0..14 {
            term = -term * x / S * x / S / ((n + 1) * (n + 2));
            sum += term;
            n += 2;
        }
        sum
    };
    let cos = series(S, 0);
    let sin = series(x, 1);
    let scale = S / i128::from(UNIT);
    let round = |v: i128| ((v + scale / 2).div_euclid(scale)) as i64;
    (round(cos), round(sin))
}

/// Where player `p`'s town center stands, and the unit direction from it to the map's middle.
fn start(size: i32, players: u8, p: u8) -> (Tile, (i64, i64)) {
    // A quarter turn of offset puts two players across the map from left to right.
    let (c, s) = turn_cos_sin(
        i64::from(p) * 4 + 2 * i64::from(players),
        4 * i64::from(players),
    );
    let half = i64::from(size) / 2;
    let r = half * START_RING_PERCENT / 100;
    let x = half + (r * c).div_euclid(UNIT);
    let y = half + (r * s).div_euclid(UNIT);
    (Tile::new(x as i32, y as i32), (-c, -s))
}

/// The tile `forward` tiles toward the middle and `right` tiles to the right of it from `at`.
fn beside(at: Tile, dir: (i64, i64), forward: i64, right: i64) -> Tile {
    let (fx, fy) = dir;
    // Right of facing (fx, fy) with y down is (-fy, fx).
    let dx = forward * fx - right * fy;
    let dy = forward * fy + right * fx;
    let r = |v: i64| (v + UNIT / 2).div_euclid(UNIT) as i32;
    Tile::new(at.x + r(dx), at.y + r(dy))
}

/// A new world on the generated map. Same options and ruleset, same world, on every machine.
pub fn generate(rules: Arc<Ruleset>, opts: MapOptions) -> World {
    let players = opts.players.clamp(MIN_PLAYERS, MAX_PLAYERS);
    let size = opts.size.clamp(MIN_SIZE, MAX_SIZE);
    let terrain = |name: &str| rules.terrain(name);
    let grass = terrain("grass").unwrap_or(0);
    let mut ground: Vec<TerrainId> = vec![grass; (size * size) as usize];
    let middle = i64::from(size) / 2;

    // The lake: deep water, a ring of shallows, a beach; squared distances in tiles.
    let lake = i64::from(size) * LAKE_PERCENT / 100;
    for y in 0..size {
        for x in 0..size {
            let (dx, dy) = (i64::from(x) - middle, i64::from(y) - middle);
            let d2 = dx * dx + dy * dy;
            let t = if d2 <= lake * lake {
                terrain("deep_water")
            } else if d2 <= (lake + 1) * (lake + 1) {
                terrain("shallows")
            } else if d2 <= (lake + 2) * (lake + 2) {
                terrain("beach")
            } else {
                None
            };
            if let Some(t) = t {
                ground[(y * size + x) as usize] = t;
            }
        }
    }
    let starts: Vec<(Tile, (i64, i64))> = (0..players).map(|p| start(size, players, p)).collect();

    // Each start's wood line: forest ground behind the town center (away from the middle).
    let forest = terrain("forest");
    let mut trees: Vec<Tile> = Vec::new();
    for &(at, dir) in &starts {
        for back in 8..11 {
            for side in -4..=4 {
                trees.push(beside(at, dir, -back, side));
            }
        }
    }
    // Random clumps of forest, clear of the starts and the lake.
    let mut rng = Rng::new(opts.seed ^ 0x5EED_F0E5_7000_0000);
    let clumps = i64::from(size) * i64::from(size) * FORESTS_PER_1000_TILES / 1000;
    for _ in 0..clumps {
        let cx = rng.range(2, i64::from(size) - 3) as i32;
        let cy = rng.range(2, i64::from(size) - 3) as i32;
        let near_start = starts
            .iter()
            .any(|(s, _)| (s.x - cx).abs().max((s.y - cy).abs()) < START_CLEARING + 3);
        let (dx, dy) = (i64::from(cx) - middle, i64::from(cy) - middle);
        if near_start || dx * dx + dy * dy <= (lake + 6) * (lake + 6) {
            continue;
        }
        let (w, h) = (rng.range(2, 5) as i32, rng.range(2, 5) as i32);
        for y in cy - h / 2..cy - h / 2 + h {
            for x in cx - w / 2..cx - w / 2 + w {
                trees.push(Tile::new(x, y));
            }
        }
    }
    let on_map = |t: Tile| t.x >= 0 && t.y >= 0 && t.x < size && t.y < size;
    if let Some(f) = forest {
        for &t in &trees {
            if on_map(t) && ground[(t.y * size + t.x) as usize] == grass {
                ground[(t.y * size + t.x) as usize] = f;
            }
        }
    }

    let grid = Grid::from_terrain(&rules, size, size, ground)
        .expect("the generator's sizes and terrains are the ruleset's");
    let list = (0..players).map(|p| Player::new(p, p)).collect();
    let mut world = World::new(rules.clone(), grid, list, opts.seed);

    // Town centers first, so nothing else takes their ground.
    let tc = rules.building_kind("town_center");
    for (p, &(at, _)) in starts.iter().enumerate() {
        if let Some(tc) = tc {
            let _ = world.place_building(tc, p as u8, at, false, true);
        }
    }
    // Each start's mines and bushes: the same blocks, anchored at the same turned offsets.
    let resource = |name: &str| rules.resource_kind(name);
    for &(at, dir) in &starts {
        let mut lay = |name: &str, (f, r): (i64, i64), (w, h): (i32, i32)| {
            let Some(kind) = resource(name) else { return };
            let anchor = beside(at, dir, f, r);
            for y in 0..h {
                for x in 0..w {
                    let t = anchor.offset(x, y);
                    if on_map(t) && world.grid().terrain(t) == Some(grass) {
                        world.add_resource(kind, t);
                    }
                }
            }
        };
        lay("gold_mine", (2, -8), (2, 2));
        lay("stone_mine", (2, 7), (2, 1));
        lay("berry_bush", (7, -1), (3, 2));
    }
    if let Some(tree) = resource("tree") {
        let mut laid: Vec<Tile> = trees.into_iter().filter(|&t| on_map(t)).collect();
        laid.sort_by_key(|t| (t.y, t.x));
        laid.dedup();
        for t in laid {
            if world.grid().terrain(t) == forest {
                world.add_resource(tree, t);
            }
        }
    }

    // Each player's villagers and scout in front of its town center.
    let villager = rules.unit_kind("villager");
    let scout = rules.unit_kind("scout_cavalry");
    for (p, &(at, dir)) in starts.iter().enumerate() {
        if let Some(v) = villager {
            for k in 0..START_VILLAGERS {
                let t = beside(at, dir, 4, i64::from(k - START_VILLAGERS / 2));
                if let Some(t) = open_tile_near(&world, t) {
                    world.spawn_unit(v, p as u8, Vec2::of_tile(t));
                }
            }
        }
        if let Some(s) = scout {
            if let Some(t) = open_tile_near(&world, beside(at, dir, 5, 3)) {
                world.spawn_unit(s, p as u8, Vec2::of_tile(t));
            }
        }
    }
    world.prepare();
    world
}

/// The nearest open land tile to `t` with nobody on it, rings outward (a fixed order).
fn open_tile_near(world: &World, t: Tile) -> Option<Tile> {
    let land = crate::grid::Keyed::unkeyed(0);
    let free = |c: Tile| {
        world.grid().passable(land, c) && !world.state.units.iter().any(|u| u.position.tile() == c)
    };
    (0..8i32).find_map(|ring| {
        (-ring..=ring)
            .flat_map(|dy| (-ring..=ring).map(move |dx| (dx, dy)))
            .filter(|&(dx, dy)| dx.abs().max(dy.abs()) == ring)
            .map(|(dx, dy)| t.offset(dx, dy))
            .find(|&c| free(c))
    })
}

/// Each player's start: the tile its town center stands on.
pub fn start_tiles(opts: MapOptions) -> Vec<Tile> {
    let players = opts.players.clamp(MIN_PLAYERS, MAX_PLAYERS);
    let size = opts.size.clamp(MIN_SIZE, MAX_SIZE);
    (0..players).map(|p| start(size, players, p).0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_are_exact_integers() {
        assert_eq!(turn_cos_sin(0, 4), (UNIT, 0));
        assert_eq!(turn_cos_sin(1, 4), (0, UNIT));
        assert_eq!(turn_cos_sin(1, 2), (-UNIT, 0));
        assert_eq!(turn_cos_sin(1, 8), (707_107, 707_107));
        assert_eq!(turn_cos_sin(1, 6), (500_000, 866_025));
        assert_eq!(turn_cos_sin(3, 4), (0, -UNIT));
    }
}
