//! Regions (spec: "Regions"): the connected stretches of passable ground of each layer, four
//! ways connected, so that a route which cannot exist is refused at once, without a search.
//!
//! Labels are worked out with every gate shut, and again only when the layer's walk revision has
//! changed. An unlocked gate then joins the land on either side of it for its owner and allies:
//! a keyed question unions, on the fly, the labels each such gate touches. Owned by the world
//! (never global), so worlds run side by side keep their own.

use super::{Grid, Keyed, LayerId, Occupant};
use crate::id::EntityId;
use crate::position::Tile;

/// A region's label; the same label means the same connected ground for that key.
pub type RegionId = u32;

/// The labels of one layer.
#[derive(Clone, Debug, Default)]
struct LayerRegions {
    /// The walk revision the labels were worked out at.
    revision: u32,
    /// Per tile: 0 when closed (gates shut), else a label from 1.
    labels: Vec<RegionId>,
    /// Tiles per label (index 0 unused).
    sizes: Vec<u32>,
    /// Unlocked gates: their owner, own label (after every ordinary label) and the labels beside.
    gates: Vec<GateLink>,
}

#[derive(Clone, Debug)]
struct GateLink {
    entity: EntityId,
    owner: u8,
    label: RegionId,
    tiles: u32,
    touches: Vec<RegionId>,
}

/// Every layer's regions, refreshed by [`Regions::prepare`].
#[derive(Clone, Debug, Default)]
pub struct Regions {
    layers: Vec<Option<LayerRegions>>,
}

impl Regions {
    /// Works out again the labels of every layer whose walkability changed since last time.
    /// Cheap when nothing changed. Returns how many layers were relabelled.
    pub fn prepare(&mut self, grid: &Grid) -> usize {
        self.layers.resize(grid.layers(), None);
        let mut redone = 0;
        for l in 0..grid.layers() {
            let layer = l as LayerId;
            let stale = match &self.layers[l] {
                Some(r) => r.revision != grid.walk_revision(layer) || r.labels.len() != grid.len(),
                None => true,
            };
            if stale {
                self.layers[l] = Some(label_layer(grid, layer));
                redone += 1;
            }
        }
        redone
    }

    fn layer(&self, layer: LayerId) -> &LayerRegions {
        self.layers[layer as usize]
            .as_ref()
            .expect("Regions::prepare runs before any question")
    }

    /// The region a tile is in for a mover asking with `key`, or `None` when it cannot stand
    /// there (the spec's `Navigation::RegionOf`).
    pub fn region_of(&self, grid: &Grid, key: Keyed, t: Tile) -> Option<RegionId> {
        let i = grid.index(t)?;
        let r = self.layer(key.layer());
        let label = r.labels[i];
        if label != 0 {
            return Some(canonical(r, label, key));
        }
        match grid.occupant_at(i) {
            Occupant::Gate {
                entity,
                owner,
                locked: false,
            } if key.friends().contains(owner) => {
                let g = gate_label_of(r, entity)?;
                Some(canonical(r, g, key))
            }
            _ => None,
        }
    }

    /// Whether ground at `t` can be walked up to from `region`: the tile or one beside it (eight
    /// ways) is in the region (the spec's `Pathfinding::Approachable`).
    pub fn approachable(&self, grid: &Grid, key: Keyed, region: RegionId, t: Tile) -> bool {
        (-1..=1).any(|dy| {
            (-1..=1).any(|dx| self.region_of(grid, key, t.offset(dx, dy)) == Some(region))
        })
    }

    /// How many tiles a region covers for `key` (the spec's `Pathfinding::RegionSize`).
    pub fn region_size(&self, key: Keyed, region: RegionId) -> u32 {
        let r = self.layer(key.layer());
        let members = component(r, region, key);
        members
            .iter()
            .map(|&l| match r.sizes.get(l as usize) {
                Some(&s) => s,
                None => r.gates.iter().find(|g| g.label == l).map_or(0, |g| g.tiles),
            })
            .sum()
    }

    /// Whether a route can exist between two tiles for `key`.
    pub fn connected(&self, grid: &Grid, key: Keyed, a: Tile, b: Tile) -> bool {
        match (self.region_of(grid, key, a), self.region_of(grid, key, b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }
}

fn gate_label_of(r: &LayerRegions, entity: EntityId) -> Option<RegionId> {
    r.gates.iter().find(|g| g.entity == entity).map(|g| g.label)
}

/// The labels joined to `label` through the gates open to `key`, smallest first.
fn component(r: &LayerRegions, label: RegionId, key: Keyed) -> Vec<RegionId> {
    let mut set = vec![label];
    loop {
        let mut grew = false;
        for g in r.gates.iter().filter(|g| key.friends().contains(g.owner)) {
            let touches = set.contains(&g.label) || g.touches.iter().any(|t| set.contains(t));
            if !touches {
                continue;
            }
            for &l in std::iter::once(&g.label).chain(g.touches.iter()) {
                if !set.contains(&l) {
                    set.push(l);
                    grew = true;
                }
            }
        }
        if !grew {
            set.sort_unstable();
            return set;
        }
    }
}

/// The smallest label joined to `label` for `key`: the region's name for that key.
fn canonical(r: &LayerRegions, label: RegionId, key: Keyed) -> RegionId {
    if r.gates.is_empty() || key.friends().0 == 0 {
        return label;
    }
    component(r, label, key)[0]
}

fn label_layer(grid: &Grid, layer: LayerId) -> LayerRegions {
    let n = grid.len();
    let mut labels = vec![0 as RegionId; n];
    let mut sizes = vec![0u32];
    let mut stack = Vec::new();
    for start in 0..n {
        if labels[start] != 0 || !grid.open_at(layer, start) {
            continue;
        }
        let label = sizes.len() as RegionId;
        let mut size = 0u32;
        labels[start] = label;
        stack.push(start);
        while let Some(i) = stack.pop() {
            size += 1;
            let t = grid.tile(i);
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                if let Some(j) = grid.index(t.offset(dx, dy)) {
                    if labels[j] == 0 && grid.open_at(layer, j) {
                        labels[j] = label;
                        stack.push(j);
                    }
                }
            }
        }
        sizes.push(size);
    }
    let gates = link_gates(grid, layer, &labels, sizes.len() as RegionId);
    LayerRegions {
        revision: grid.walk_revision(layer),
        labels,
        sizes,
        gates,
    }
}

/// Every unlocked gate on this layer's terrain, in order of its first tile, with the ordinary
/// labels its tiles touch four ways.
fn link_gates(
    grid: &Grid,
    layer: LayerId,
    labels: &[RegionId],
    first_label: RegionId,
) -> Vec<GateLink> {
    let mut links: Vec<GateLink> = Vec::new();
    for i in 0..grid.len() {
        let Occupant::Gate {
            entity,
            owner,
            locked: false,
        } = grid.occupant_at(i)
        else {
            continue;
        };
        if !grid.terrain_allows(layer, i) {
            continue;
        }
        let pos = match links.iter().position(|g| g.entity == entity) {
            Some(p) => p,
            None => {
                let label = first_label + links.len() as RegionId;
                links.push(GateLink {
                    entity,
                    owner,
                    label,
                    tiles: 0,
                    touches: Vec::new(),
                });
                links.len() - 1
            }
        };
        let link = &mut links[pos];
        link.tiles += 1;
        let t = grid.tile(i);
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            if let Some(j) = grid.index(t.offset(dx, dy)) {
                let l = labels[j];
                if l != 0 && !link.touches.contains(&l) {
                    link.touches.push(l);
                }
            }
        }
    }
    links
}
