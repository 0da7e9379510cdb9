//! Landmarks (spec: "The estimate and landmarks").
//!
//! Each layer keeps eight tiles round the map's edge — the corners and the middles of the edges,
//! each moved to the nearest tile of the layer's terrain — and, for each, every tile's distance
//! from it over the terrain alone at the search's own step costs. Buildings, trees and crowds only
//! ever make a route longer than the terrain alone, so the difference of two tiles' distances from
//! a landmark never overestimates the way between them, yet it knows about the water and cliffs a
//! straight line crosses.
//!
//! Measured when a map is set up and again only when a tile's terrain changes whether the layer
//! may cross it (the layer's terrain revision): never for buildings, trees or units.

use super::board::{DIAGONAL_SIDES, STEPS};
use super::search::{K_DIAGONAL, K_STRAIGHT};
use crate::grid::{Grid, LayerId};

/// Landmarks per layer.
pub const K_LANDMARKS: usize = 8;
/// Landmarks chosen for one search: those whose bound is largest for its start and goal.
pub const K_CHOSEN_LANDMARKS: usize = 3;
/// A tile the landmark cannot reach over the terrain.
pub const K_FAR: u16 = u16::MAX;
/// Distances are kept in 16 bits and saturate here; saturating never makes a bound too high.
const K_NEAREST_FAR: u32 = K_FAR as u32 - 1;

/// One layer's landmarks.
#[derive(Clone, Debug, Default)]
pub struct LayerLandmarks {
    /// The terrain revision they were measured at.
    pub revision: u32,
    width: i32,
    height: i32,
    /// Padded row length (`width + 2`), as the search's board.
    pitch: usize,
    /// Each landmark's tile, or `None` when the layer has no tile of its terrain at all.
    tiles: [Option<(i32, i32)>; K_LANDMARKS],
    /// Per padded tile, its distance from each landmark: `distance[p * K_LANDMARKS + k]`.
    distance: Vec<u16>,
}

impl LayerLandmarks {
    /// Measures the layer's landmarks over the grid's terrain alone.
    pub fn measure(grid: &Grid, layer: LayerId) -> LayerLandmarks {
        let (w, h) = (grid.width(), grid.height());
        let pitch = (w + 2) as usize;
        let padded_len = pitch * (h + 2) as usize;
        let mut ground = vec![false; padded_len];
        for y in 0..h {
            for x in 0..w {
                let i = (y * w + x) as usize;
                ground[(y as usize + 1) * pitch + x as usize + 1] = grid.terrain_allows(layer, i);
            }
        }
        let mut tiles = [None; K_LANDMARKS];
        let mut distance = vec![K_FAR; padded_len * K_LANDMARKS];
        let mut scratch = Dial::new(padded_len);
        for (k, wanted) in edge_points(w, h).into_iter().enumerate() {
            tiles[k] = nearest_ground(grid, layer, wanted);
            if let Some((x, y)) = tiles[k] {
                let from = (y as usize + 1) * pitch + x as usize + 1;
                scratch.measure(&ground, pitch, from);
                for (p, &d) in scratch.dist.iter().enumerate() {
                    if d != u32::MAX {
                        distance[p * K_LANDMARKS + k] = d.min(K_NEAREST_FAR) as u16;
                    }
                }
            }
        }
        LayerLandmarks {
            revision: grid.terrain_revision(layer),
            width: w,
            height: h,
            pitch,
            tiles,
            distance,
        }
    }

    /// Each landmark's tile.
    pub fn tiles(&self) -> [Option<(i32, i32)>; K_LANDMARKS] {
        self.tiles
    }

    /// Each landmark's distance of the tile at (`x`, `y`), [`K_FAR`] when out of its reach.
    pub fn distances_of(&self, x: i32, y: i32) -> [u16; K_LANDMARKS] {
        let p = (y as usize + 1) * self.pitch + x as usize + 1;
        let mut out = [K_FAR; K_LANDMARKS];
        out.copy_from_slice(&self.distance[p * K_LANDMARKS..(p + 1) * K_LANDMARKS]);
        out
    }

    /// The distances, eight per padded tile.
    #[inline]
    pub(crate) fn table(&self) -> &[u16] {
        &self.distance
    }

    fn fits(&self, grid: &Grid, layer: LayerId) -> bool {
        self.revision == grid.terrain_revision(layer)
            && self.width == grid.width()
            && self.height == grid.height()
    }

    /// The [`K_CHOSEN_LANDMARKS`] landmarks whose bound is largest between two padded tiles,
    /// largest first (ties to the lower landmark), with the goal's distance from each.
    pub(crate) fn choose(&self, start: usize, goal: usize) -> Chosen {
        let mut best: [(u32, usize); K_CHOSEN_LANDMARKS] = [(0, usize::MAX); K_CHOSEN_LANDMARKS];
        for k in 0..K_LANDMARKS {
            let a = self.distance[start * K_LANDMARKS + k];
            let b = self.distance[goal * K_LANDMARKS + k];
            if a == K_FAR || b == K_FAR {
                continue;
            }
            let bound = u32::from(a.abs_diff(b));
            // Insert into the sorted top list: larger bound first, then lower landmark.
            let mut slot = K_CHOSEN_LANDMARKS;
            for (s, &(v, kk)) in best.iter().enumerate() {
                if kk == usize::MAX || bound > v {
                    slot = s;
                    break;
                }
            }
            if slot < K_CHOSEN_LANDMARKS {
                for s in (slot + 1..K_CHOSEN_LANDMARKS).rev() {
                    best[s] = best[s - 1];
                }
                best[slot] = (bound, k);
            }
        }
        let mut chosen = Chosen::default();
        for &(_, k) in &best {
            if k != usize::MAX {
                chosen.landmark[chosen.count] = k;
                chosen.goal_from[chosen.count] = self.distance[goal * K_LANDMARKS + k];
                chosen.count += 1;
            }
        }
        chosen
    }
}

/// The landmarks chosen for one search.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Chosen {
    pub count: usize,
    pub landmark: [usize; K_CHOSEN_LANDMARKS],
    pub goal_from: [u16; K_CHOSEN_LANDMARKS],
}

/// Every layer's landmarks, refreshed by [`Landmarks::prepare`].
#[derive(Clone, Debug, Default)]
pub struct Landmarks {
    layers: Vec<Option<LayerLandmarks>>,
    /// How many times each layer has been measured (for reports and tests).
    measured: Vec<u32>,
}

impl Landmarks {
    /// Measures again the landmarks of every layer whose terrain changed since last time (or that
    /// were never measured). Cheap when nothing changed. Returns how many layers were measured.
    pub fn prepare(&mut self, grid: &Grid) -> usize {
        self.layers.resize(grid.layers(), None);
        self.measured.resize(grid.layers(), 0);
        let mut redone = 0;
        for l in 0..grid.layers() {
            let layer = l as LayerId;
            let stale = match &self.layers[l] {
                Some(m) => !m.fits(grid, layer),
                None => true,
            };
            if stale {
                self.layers[l] = Some(LayerLandmarks::measure(grid, layer));
                self.measured[l] += 1;
                redone += 1;
            }
        }
        redone
    }

    /// The layer's landmarks when they fit the grid as it is now; `None` when they were never
    /// measured or the terrain changed since (a search then uses the octile estimate alone).
    pub fn layer(&self, grid: &Grid, layer: LayerId) -> Option<&LayerLandmarks> {
        self.layers
            .get(layer as usize)?
            .as_ref()
            .filter(|m| m.fits(grid, layer))
    }

    /// How many times the layer's landmarks have been measured.
    pub fn times_measured(&self, layer: LayerId) -> u32 {
        self.measured.get(layer as usize).copied().unwrap_or(0)
    }
}

/// The corners and the middles of the edges, clockwise from the top left.
fn edge_points(w: i32, h: i32) -> [(i32, i32); K_LANDMARKS] {
    let (r, b) = (w - 1, h - 1);
    [
        (0, 0),
        (r / 2, 0),
        (r, 0),
        (r, b / 2),
        (r, b),
        (r / 2, b),
        (0, b),
        (0, b / 2),
    ]
}

/// The tile of the layer's terrain nearest `wanted` (straight-line distance, then lower index).
fn nearest_ground(grid: &Grid, layer: LayerId, wanted: (i32, i32)) -> Option<(i32, i32)> {
    let w = grid.width();
    let mut best: Option<(i64, i32, i32)> = None;
    for i in 0..grid.len() {
        if !grid.terrain_allows(layer, i) {
            continue;
        }
        let (x, y) = (i as i32 % w, i as i32 / w);
        let (dx, dy) = (i64::from(x - wanted.0), i64::from(y - wanted.1));
        let d = dx * dx + dy * dy;
        if best.is_none_or(|(bd, _, _)| d < bd) {
            best = Some((d, x, y));
        }
    }
    best.map(|(_, x, y)| (x, y))
}

/// Dijkstra over the terrain with a ring of buckets (steps cost 10 or 14, so fifteen buckets
/// cover every cost still open): linear in the tiles, and the same order on every machine.
struct Dial {
    dist: Vec<u32>,
    buckets: Vec<Vec<u32>>,
}

impl Dial {
    fn new(len: usize) -> Dial {
        Dial {
            dist: vec![u32::MAX; len],
            buckets: vec![Vec::new(); K_DIAGONAL as usize + 1],
        }
    }

    fn measure(&mut self, ground: &[bool], pitch: usize, from: usize) {
        self.dist.fill(u32::MAX);
        let offsets = STEPS.map(|(dx, dy)| dy as isize * pitch as isize + dx as isize);
        let ring = self.buckets.len() as u32;
        self.dist[from] = 0;
        self.buckets[0].push(from as u32);
        let mut pending = 1usize;
        let mut cost = 0u32;
        while pending > 0 {
            let slot = (cost % ring) as usize;
            while let Some(p) = self.buckets[slot].pop() {
                pending -= 1;
                let p = p as usize;
                if self.dist[p] != cost {
                    continue;
                }
                let mut straight_open = [false; 4];
                for (s, open) in straight_open.iter_mut().enumerate() {
                    let n = (p as isize + offsets[s]) as usize;
                    *open = ground[n];
                    if *open {
                        self.relax(n, cost + K_STRAIGHT, ring, &mut pending);
                    }
                }
                for (d, &(a, b)) in DIAGONAL_SIDES.iter().enumerate() {
                    if !(straight_open[a] && straight_open[b]) {
                        continue;
                    }
                    let n = (p as isize + offsets[4 + d]) as usize;
                    if ground[n] {
                        self.relax(n, cost + K_DIAGONAL, ring, &mut pending);
                    }
                }
            }
            cost += 1;
        }
    }

    #[inline]
    fn relax(&mut self, n: usize, d: u32, ring: u32, pending: &mut usize) {
        if d < self.dist[n] {
            self.dist[n] = d;
            self.buckets[(d % ring) as usize].push(n as u32);
            *pending += 1;
        }
    }
}
