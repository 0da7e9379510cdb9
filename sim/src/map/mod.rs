//! Maps: the embedded default map's generator (and its full armies, `armies.rs`), the ASCII map
//! format and Moving AI `.map` files.
//!
//! A map file is read into a [`Layout`] — terrain per tile and the trees, mines and bushes on it —
//! which [`Layout::into_world`] lays out in a new [`World`]. Formats: docs/MAPS.md.

mod armies;
mod ascii;
mod generate;
pub mod movingai;

pub use armies::{raise_armies, ARMY_KINDS, MAX_ARMY};
pub use ascii::{parse_ascii, to_ascii, Legend, LegendEntry, DEFAULT_LEGEND};
pub use generate::{
    generate, start_tiles, turn_cos_sin, MapOptions, DEFAULT_MAP_SEED, DEFAULT_MAP_SIZE,
    MAX_PLAYERS, MAX_SIZE, MIN_PLAYERS, MIN_SIZE, START_CLEARING, START_VILLAGERS,
};
pub use movingai::{parse_scenarios, Cell, MovingAiError, MovingAiMap, Scenario};

use crate::grid::{Grid, TerrainId, MAX_MAP_SIDE};
use crate::position::Tile;
use crate::ruleset::{ResourceKindId, Ruleset};
use crate::state::Player;
use crate::world::World;
use std::sync::Arc;

/// What is wrong with a map file, and where (lines and columns count from 1 within the map text).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct MapError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl MapError {
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> MapError {
        MapError {
            line,
            column,
            message: message.into(),
        }
    }
}

/// A map as read from a file: terrain per tile (row by row) and the resources standing on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub width: i32,
    pub height: i32,
    /// Row by row, `y * width + x`.
    pub terrain: Vec<TerrainId>,
    /// Trees, mines and bushes, in reading order (left to right, top to bottom).
    pub resources: Vec<(Tile, ResourceKindId)>,
}

impl Layout {
    /// A Moving AI map as a layout: passable cells grass, water deep water, the rest cliff
    /// (as [`MovingAiMap::to_grid`]).
    pub fn from_movingai(text: &str, rules: &Ruleset) -> Result<Layout, MapError> {
        let m = MovingAiMap::parse(text).map_err(|e| match e {
            MovingAiError::Header { line, what } | MovingAiError::Row { line, what } => {
                MapError::new(line, 1, what)
            }
            other => MapError::new(1, 1, other.to_string()),
        })?;
        let terrain = |name: &str| {
            rules
                .terrain(name)
                .ok_or_else(|| MapError::new(1, 1, format!("the ruleset lacks terrain `{name}`")))
        };
        let (grass, water, cliff) = (terrain("grass")?, terrain("deep_water")?, terrain("cliff")?);
        let mut out = Vec::with_capacity((m.width * m.height) as usize);
        for y in 0..m.height {
            for x in 0..m.width {
                out.push(match m.cell(x, y) {
                    Some(Cell::Passable) => grass,
                    Some(Cell::Water) => water,
                    _ => cliff,
                });
            }
        }
        Ok(Layout {
            width: m.width,
            height: m.height,
            terrain: out,
            resources: Vec::new(),
        })
    }

    /// Checks a map's size against the limits ([`MAX_MAP_SIDE`]).
    pub fn check_size(width: usize, height: usize) -> Result<(i32, i32), String> {
        let side = MAX_MAP_SIDE as usize;
        if width == 0 || height == 0 {
            return Err("the map is empty".into());
        }
        if width > side || height > side {
            return Err(format!(
                "the map is {width}x{height} tiles; at most {side} a side (MAX_MAP_SIDE)"
            ));
        }
        Ok((width as i32, height as i32))
    }

    /// A new world on this map with `players`, its random generator seeded with `seed`: the
    /// terrain set, then the resources added in reading order (so their ids follow it).
    /// Fails when the layout's size or terrains do not fit the ruleset and the limits.
    pub fn into_world(
        self,
        rules: Arc<Ruleset>,
        players: Vec<Player>,
        seed: u64,
    ) -> Result<World, String> {
        let grid = Grid::from_terrain(&rules, self.width, self.height, self.terrain)
            .ok_or("the map's size or terrains do not fit the ruleset")?;
        let mut world = World::new(rules, grid, players, seed);
        for (tile, kind) in self.resources {
            world.add_resource(kind, tile);
        }
        world.prepare();
        Ok(world)
    }
}
