//! The tile grid (spec: "Positions and tiles", "Passability layers").
//!
//! Each tile keeps its terrain and elevation and, stored apart because they change apart, what
//! stands on it (a tree, a mine, a building or a gate). Which ground a mover may use is a
//! passability layer per distinct set of allowed terrains; each layer counts its own changes
//! ([`Grid::walk_revision`]) so a tree felled on land leaves what was worked out for the sea
//! standing. The per-layer "open" bitmaps are derived from terrain and occupancy, kept up to date
//! by every change, and never serialized.

mod footprint;
mod key;
mod marks;
mod regions;

pub use footprint::{Footprint, GATE_ACROSS, GATE_ALONG};
pub use key::{Keyed, PlayerMask};
pub use marks::TileMarks;
pub use regions::{RegionId, Regions};
// The ruleset names terrains and layers; the grid is laid out in them.
pub use crate::ruleset::{LayerId, TerrainId, TerrainMask, MAX_LAYERS};

use crate::id::EntityId;
use crate::position::{tile_of, Fx, Tile, Vec2};
use crate::ruleset::Ruleset;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// The largest map side, in tiles: keeps every tile index and route cost well inside 32 bits.
pub const MAX_MAP_SIDE: i32 = 2048;

/// What stands on a tile, apart from its terrain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Occupant {
    #[default]
    Nothing,
    /// A tree, mine or bush.
    Resource(EntityId),
    /// A building or its foundation.
    Building(EntityId),
    /// A gate: blocked like a building, but open to its owner and allies while unlocked.
    Gate {
        entity: EntityId,
        owner: u8,
        locked: bool,
    },
}

impl Occupant {
    pub fn is_nothing(self) -> bool {
        matches!(self, Occupant::Nothing)
    }
}

/// The ground: terrain, elevation and occupancy per tile, plus each layer's walk revision.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Grid {
    width: i32,
    height: i32,
    terrain: Vec<TerrainId>,
    elevation: Vec<i8>,
    occupant: Vec<Occupant>,
    /// Each layer's allowed terrains (copied from the ruleset).
    layer_terrains: Vec<TerrainMask>,
    /// Each layer's count of changes to its walkability.
    walk_revision: Vec<u32>,
    /// Each layer's count of changes to its terrain alone (what landmarks depend on).
    terrain_revision: Vec<u32>,
    /// Derived: per layer, whether each tile is open with every gate shut. Rebuilt on load.
    #[serde(skip)]
    open: Vec<Vec<bool>>,
    /// Not state: counts every change to what the grid serializes (terrain, elevation,
    /// occupancy), so its canonical encoding is cached between changes.
    #[serde(skip)]
    revision: u64,
    /// Derived: the canonical encoding at some revision (see [`Grid::canonical`]).
    #[serde(skip)]
    canon: CanonCache,
}

/// The grid's canonical encoding and its tick hash, and the revision they were taken at. Behind
/// a mutex because it is filled through `&self` (hashing); an uncontended lock is all it ever
/// costs.
#[derive(Debug, Default)]
struct CanonCache(Mutex<Option<Canonical>>);

/// The grid's canonical encoding and its tick hash, at a revision.
type Canonical = (u64, Arc<[u8]>, crate::canon::TickHash);

impl Clone for CanonCache {
    fn clone(&self) -> CanonCache {
        let cached = self.0.lock().map(|c| c.clone()).unwrap_or(None);
        CanonCache(Mutex::new(cached))
    }
}

impl Grid {
    /// A grid of `width` × `height` tiles of one terrain.
    pub fn new(rules: &Ruleset, width: i32, height: i32, fill: TerrainId) -> Grid {
        assert!(width > 0 && height > 0 && width <= MAX_MAP_SIDE && height <= MAX_MAP_SIDE);
        let n = (width * height) as usize;
        let layers = rules.layers.len();
        let mut g = Grid {
            width,
            height,
            terrain: vec![fill; n],
            elevation: vec![0; n],
            occupant: vec![Occupant::Nothing; n],
            layer_terrains: rules.layers.clone(),
            walk_revision: vec![0; layers],
            terrain_revision: vec![0; layers],
            open: Vec::new(),
            revision: 0,
            canon: CanonCache::default(),
        };
        g.rebuild_open();
        g
    }

    /// A grid of `width` × `height` tiles with the given terrain, row by row (`y * width + x`).
    /// Returns `None` when the sizes disagree or are out of bounds, or a terrain is unknown.
    pub fn from_terrain(
        rules: &Ruleset,
        width: i32,
        height: i32,
        terrain: Vec<TerrainId>,
    ) -> Option<Grid> {
        if width <= 0 || height <= 0 || width > MAX_MAP_SIDE || height > MAX_MAP_SIDE {
            return None;
        }
        if terrain.len() != (width * height) as usize
            || terrain.iter().any(|&t| t as usize >= rules.terrains.len())
        {
            return None;
        }
        let mut g = Grid::new(rules, width, height, 0);
        g.terrain = terrain;
        g.rebuild_open();
        Some(g)
    }

    /// Checks a grid that came from outside (a snapshot): sizes and layer tables agree, and
    /// every tile's terrain is one of the ruleset's `terrains`.
    pub fn check(&self, terrains: usize) -> Result<(), String> {
        let n = (self.width as i64) * (self.height as i64);
        if self.width <= 0
            || self.height <= 0
            || self.width > MAX_MAP_SIDE
            || self.height > MAX_MAP_SIDE
        {
            return Err(format!(
                "grid of {}x{} tiles is out of bounds",
                self.width, self.height
            ));
        }
        if self.terrain.len() as i64 != n
            || self.elevation.len() as i64 != n
            || self.occupant.len() as i64 != n
        {
            return Err("grid tile arrays do not match its size".into());
        }
        let l = self.layer_terrains.len();
        if l == 0
            || l > MAX_LAYERS
            || self.walk_revision.len() != l
            || self.terrain_revision.len() != l
        {
            return Err("grid layer tables do not agree".into());
        }
        if self.terrain.iter().any(|t| usize::from(*t) >= terrains) {
            return Err("a tile of a terrain the ruleset lacks".into());
        }
        Ok(())
    }

    /// Recomputes the derived open bitmaps (after loading a snapshot).
    pub fn rebuild_open(&mut self) {
        self.open = (0..self.layer_terrains.len())
            .map(|l| {
                (0..self.terrain.len())
                    .map(|i| self.compute_open(l as LayerId, i))
                    .collect()
            })
            .collect();
    }

    fn compute_open(&self, layer: LayerId, i: usize) -> bool {
        self.terrain_allows(layer, i) && self.occupant[i].is_nothing()
    }

    pub fn width(&self) -> i32 {
        self.width
    }

    pub fn height(&self) -> i32 {
        self.height
    }

    pub fn len(&self) -> usize {
        self.terrain.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terrain.is_empty()
    }

    pub fn layers(&self) -> usize {
        self.layer_terrains.len()
    }

    /// The index of a tile, or `None` off the map.
    #[inline]
    pub fn index(&self, t: Tile) -> Option<usize> {
        if t.x < 0 || t.y < 0 || t.x >= self.width || t.y >= self.height {
            None
        } else {
            Some((t.y * self.width + t.x) as usize)
        }
    }

    /// The tile at an index.
    #[inline]
    pub fn tile(&self, i: usize) -> Tile {
        Tile::new(i as i32 % self.width, i as i32 / self.width)
    }

    pub fn contains(&self, t: Tile) -> bool {
        self.index(t).is_some()
    }

    pub fn terrain(&self, t: Tile) -> Option<TerrainId> {
        self.index(t).map(|i| self.terrain[i])
    }

    pub fn terrain_at(&self, i: usize) -> TerrainId {
        self.terrain[i]
    }

    pub fn elevation(&self, t: Tile) -> Option<i8> {
        self.index(t).map(|i| self.elevation[i])
    }

    pub fn occupant(&self, t: Tile) -> Occupant {
        self.index(t).map(|i| self.occupant[i]).unwrap_or_default()
    }

    pub fn occupant_at(&self, i: usize) -> Occupant {
        self.occupant[i]
    }

    /// Whether the layer's terrain allows a mover on tile `i`, whatever stands there.
    #[inline]
    pub fn terrain_allows(&self, layer: LayerId, i: usize) -> bool {
        self.layer_terrains[layer as usize] & (1 << self.terrain[i]) != 0
    }

    /// Whether tile `i` is open on an unkeyed layer (gates shut): the hot path of every search.
    #[inline]
    pub fn open_at(&self, layer: LayerId, i: usize) -> bool {
        self.open[layer as usize][i]
    }

    /// Whether a mover asking with `key` may stand on tile `t`. Off the map is closed.
    #[inline]
    pub fn passable(&self, key: Keyed, t: Tile) -> bool {
        match self.index(t) {
            Some(i) => self.passable_at(key, i),
            None => false,
        }
    }

    /// As [`Grid::passable`], by index.
    #[inline]
    pub fn passable_at(&self, key: Keyed, i: usize) -> bool {
        if self.open[key.layer() as usize][i] {
            return true;
        }
        match self.occupant[i] {
            Occupant::Gate {
                owner,
                locked: false,
                ..
            } => key.friends().contains(owner) && self.terrain_allows(key.layer(), i),
            _ => false,
        }
    }

    /// Whether the point's tile is passable for `key`.
    pub fn passable_point(&self, key: Keyed, p: Vec2) -> bool {
        self.passable(key, p.tile())
    }

    /// Whether every tile the square `half` either side of `p` touches is passable for `key`:
    /// a body of that half-width can stand there (the spec's body_clear, at one point).
    pub fn passable_box(&self, key: Keyed, p: Vec2, half: Fx) -> bool {
        let (x0, x1) = (tile_of(p.x - half), tile_of(p.x + half));
        let (y0, y1) = (tile_of(p.y - half), tile_of(p.y + half));
        (y0..=y1).all(|y| (x0..=x1).all(|x| self.passable(key, Tile::new(x, y))))
    }

    /// Each layer's count of changes to its walkability (the spec's `Grid::WalkRevision`).
    pub fn walk_revision(&self, layer: LayerId) -> u32 {
        self.walk_revision[layer as usize]
    }

    /// Each layer's count of changes to which terrains it may cross (landmarks depend on this).
    pub fn terrain_revision(&self, layer: LayerId) -> u32 {
        self.terrain_revision[layer as usize]
    }

    /// Counts every change to terrain, elevation or occupancy since this grid was made or
    /// loaded. Not part of the state (never serialized): it only keys the cached encoding.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The grid's canonical encoding (what `World::hash` feeds the hasher for it), taken again
    /// only after a change: between changes every turn's hash reuses it.
    pub fn canonical(&self) -> Arc<[u8]> {
        self.cached().0
    }

    /// The tick hash of the grid's canonical encoding (what `World::tick_hash` folds for it),
    /// cached with it.
    pub fn canonical_tick_hash(&self) -> crate::canon::TickHash {
        self.cached().1
    }

    fn cached(&self) -> (Arc<[u8]>, crate::canon::TickHash) {
        let mut cache = self.canon.0.lock().unwrap_or_else(|e| e.into_inner());
        match &*cache {
            Some((revision, bytes, digest)) if *revision == self.revision => {
                (bytes.clone(), *digest)
            }
            _ => {
                let bytes: Arc<[u8]> = crate::canon::canonical_bytes(self).into();
                let mut m = crate::canon::Mixer::default();
                m.bytes(&bytes);
                let digest = m.finish();
                *cache = Some((self.revision, bytes.clone(), digest));
                (bytes, digest)
            }
        }
    }

    /// Changes a tile's terrain. Bumps the walk and terrain revisions of exactly the layers whose
    /// answer for this tile changed.
    pub fn set_terrain(&mut self, t: Tile, terrain: TerrainId) {
        let Some(i) = self.index(t) else { return };
        let before: Vec<bool> = (0..self.layers())
            .map(|l| self.terrain_allows(l as LayerId, i))
            .collect();
        self.terrain[i] = terrain;
        self.revision += 1;
        for (l, was) in before.into_iter().enumerate() {
            if self.terrain_allows(l as LayerId, i) != was {
                self.terrain_revision[l] += 1;
            }
        }
        self.refresh(i);
    }

    pub fn set_elevation(&mut self, t: Tile, e: i8) {
        if let Some(i) = self.index(t) {
            self.elevation[i] = e;
            self.revision += 1;
        }
    }

    /// Puts something on a tile, or clears it with [`Occupant::Nothing`]. Bumps the walk revision
    /// of the layers whose walkability changed.
    pub fn set_occupant(&mut self, t: Tile, o: Occupant) {
        let Some(i) = self.index(t) else { return };
        let before = self.occupant[i];
        self.occupant[i] = o;
        self.revision += 1;
        // A gate's lock changes keyed passability but not the unkeyed bitmap: count it too.
        let gate_changed =
            matches!(before, Occupant::Gate { .. }) || matches!(o, Occupant::Gate { .. });
        if !self.refresh(i) && gate_changed && before != o {
            for l in 0..self.layers() {
                if self.terrain_allows(l as LayerId, i) {
                    self.walk_revision[l] += 1;
                }
            }
        }
    }

    /// Recomputes tile `i`'s open bits; bumps the walk revision of each layer that changed.
    /// Returns whether any layer changed.
    fn refresh(&mut self, i: usize) -> bool {
        let mut any = false;
        for l in 0..self.layers() {
            let now = self.compute_open(l as LayerId, i);
            if self.open[l][i] != now {
                self.open[l][i] = now;
                self.walk_revision[l] += 1;
                any = true;
            }
        }
        any
    }

    /// Whether a tile is closed for `key` (off the map counts as closed).
    #[inline]
    pub fn closed(&self, key: Keyed, t: Tile) -> bool {
        !self.passable(key, t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::Ruleset;

    #[test]
    fn a_change_on_land_leaves_the_seas_revision_alone() {
        let rules = Ruleset::default_rules();
        let grass = rules.terrain("grass").unwrap();
        let mut g = Grid::new(&rules, 8, 8, grass);
        let sea = rules.units[rules.unit_kind("galley").unwrap() as usize].layer;
        let (land0, sea0) = (g.walk_revision(0), g.walk_revision(sea));
        g.set_occupant(Tile::new(3, 3), Occupant::Resource(EntityId(1)));
        assert_eq!(g.walk_revision(0), land0 + 1);
        assert_eq!(g.walk_revision(sea), sea0);
        g.set_occupant(Tile::new(3, 3), Occupant::Nothing);
        assert_eq!(g.walk_revision(0), land0 + 2);
        assert_eq!(
            g.terrain_revision(0),
            0,
            "occupancy never touches the terrain revision"
        );
    }

    #[test]
    fn terrain_change_bumps_only_layers_whose_answer_changed() {
        let rules = Ruleset::default_rules();
        let grass = rules.terrain("grass").unwrap();
        let forest = rules.terrain("forest").unwrap();
        let deep = rules.terrain("deep_water").unwrap();
        let mut g = Grid::new(&rules, 4, 4, grass);
        g.set_terrain(Tile::new(1, 1), forest);
        assert_eq!(g.terrain_revision(0), 0);
        assert_eq!(g.terrain_revision(1), 0);
        g.set_terrain(Tile::new(1, 1), deep);
        assert_eq!(g.terrain_revision(0), 1);
        assert_eq!(g.terrain_revision(1), 1);
    }
}
