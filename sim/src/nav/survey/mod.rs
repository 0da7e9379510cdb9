//! The survey (spec: "Who stands in the way", `Navigation::Survey`): at the start of every tick,
//! before any order is carried out, every unit's body — its middle, its radius, and whether it is
//! on its way somewhere — is filed by the tile it stands on, then by entity, in one array.
//! Everything that asks who stands near a point reads a few runs of it: routes, arrivals and
//! the spacing of a walk.

mod near;
#[cfg(test)]
mod tests;

use crate::grid::{Grid, PlayerMask};
use crate::id::{EntityId, PlayerId};
use crate::nav::View;
use crate::position::{fx_ratio, Fx, Tile, Vec2};
pub use near::Near;

/// A walker keeps at least this share of its and another body's radii together between them
/// (spec: "Keeping apart"; the walk's own rule, `crate::walk::apart`).
pub const K_KEEP_APART: Fx = fx_ratio(3, 4);

/// One unit's body as filed at the start of the tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Body {
    /// Index of the tile its middle stands on.
    pub tile: u32,
    pub entity: EntityId,
    pub owner: PlayerId,
    pub middle: Vec2,
    pub radius: Fx,
    /// On its way somewhere (it has a route).
    pub moving: bool,
    /// Which way it is walking: from its middle to its route's first corner (not of unit
    /// length); zero when it stands.
    pub heading: Vec2,
    /// Where its walk ends (its route's goal); its middle when it stands.
    pub goal: Vec2,
}

/// A body as filed again by owner and patch ([`Survey::owned_in_patch`]): what a look for an
/// enemy reads of it, packed close, so a patch's bodies of one owner lie side by side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Owned {
    pub middle: Vec2,
    pub radius: Fx,
    pub entity: EntityId,
    /// Index of the tile its middle stands on.
    pub tile: u32,
    pub owner: PlayerId,
}

/// How far `p` lies outside tile (`x`, `y`), box distance; zero on it.
fn outside_tile(x: i32, y: i32, p: Vec2) -> Fx {
    let (x, y) = (Fx::from_num(x), Fx::from_num(y));
    let half = fx_ratio(1, 2);
    ((p.x - x).abs() - half)
        .max((p.y - y).abs() - half)
        .max(Fx::ZERO)
}

/// A member of a formation as filed at the start of the tick: kept apart from the bodies, which
/// every near-point question reads, so that array stays small.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    pub entity: EntityId,
    pub formation: u32,
    /// Where it is headed: its route's goal, or where it stands when it walks nowhere.
    pub headed: Vec2,
}

/// Whose bodies stand where is also filed by patches this many tiles square (Cohort's choice, for
/// speed alone): a look for an enemy in a box asks the few patches it covers before any body,
/// and finds the same bodies when one may be there.
pub const K_OWNER_PATCH: i32 = 8;

/// Owner buckets of [`Survey::owned_in_patch`]: players 0 to 7, and one for every other owner.
pub const K_OWNER_BUCKETS: usize = 9;

/// An owner's bucket ([`K_OWNER_BUCKETS`]).
pub fn owner_bucket(owner: PlayerId) -> usize {
    usize::from(owner).min(K_OWNER_BUCKETS - 1)
}

/// The box of tiles that bodies are filed on (every unit's tile lies in it): `across` × `down`
/// tiles from (`x0`, `y0`); empty with no units.
#[derive(Clone, Copy, Debug, Default)]
struct Filed {
    x0: i32,
    y0: i32,
    across: i32,
    down: i32,
}

impl Filed {
    /// Whether (`x`, `y`) lies in the box.
    fn contains(&self, x: i32, y: i32) -> bool {
        (self.x0..self.x0 + self.across).contains(&x) && (self.y0..self.y0 + self.down).contains(&y)
    }

    /// The box of [`K_OWNER_PATCH`]-tile patches holding this box of tiles (empty when it is).
    fn patches(&self) -> Filed {
        if self.across <= 0 || self.down <= 0 {
            return Filed::default();
        }
        let (x0, y0) = (self.x0 / K_OWNER_PATCH, self.y0 / K_OWNER_PATCH);
        let (x1, y1) = (
            (self.x0 + self.across - 1) / K_OWNER_PATCH,
            (self.y0 + self.down - 1) / K_OWNER_PATCH,
        );
        Filed {
            x0,
            y0,
            across: x1 - x0 + 1,
            down: y1 - y0 + 1,
        }
    }

    /// The place of tile (`x`, `y`), inside the box, in its row-by-row order (the map's order
    /// too, so a run of the box's tiles holds bodies in (tile, entity) order).
    fn index(&self, x: i32, y: i32) -> usize {
        ((y - self.y0) * self.across + (x - self.x0)) as usize
    }
}

/// Every body, sorted by (tile index, entity id).
#[derive(Clone, Debug, Default)]
pub struct Survey {
    /// For each patch of [`K_OWNER_PATCH`] tiles square in the box of patches the bodies are
    /// filed in, row by row, the owners of the bodies filed on its tiles (an owner past the
    /// eighth counts as every player).
    owners: Vec<u8>,
    /// The box of patches bodies are filed in (in patches, not tiles).
    patched: Filed,
    /// The bodies filed again by owner and patch, for looks for an enemy: those of owner bucket
    /// `o` (a player below [`K_OWNER_BUCKETS`]` - 1`, every other owner in the last) in patch
    /// `k` are `by_owner[owner_starts[o * patches + k]..]` up to the next start, in (tile,
    /// entity) order.
    by_owner: Vec<Owned>,
    /// For each body (by its slot in `bodies`), where its copy in `by_owner` lies: a body walked
    /// during the tick is moved in both.
    owned_at: Vec<u32>,
    owner_starts: Vec<u32>,
    bodies: Vec<Body>,
    /// For each unit, by its index in the state's list, where its body is filed.
    slots: Vec<u32>,
    /// Every unit in a formation, in entity order.
    members: Vec<Member>,
    /// The box of tiles bodies are filed on.
    filed: Filed,
    /// Where the run of bodies of each tile of the box begins, row by row (one more entry than
    /// tiles).
    starts: Vec<u32>,
    /// Scratch: each unit's tile while filing (clamped to the map).
    tile_of: Vec<Tile>,
    /// Scratch: each filed body's key in the filing by owner and patch (by its slot).
    owner_keys: Vec<u32>,
    /// How far any body's middle lies outside the tile it is filed on (box distance): bodies
    /// stay filed where the tick began as they walk, and units off the map are filed on its
    /// edge. [`Survey::near`] looks this much further round.
    spill: Fx,
    /// The widest radius of any body filed: no body nearer a point than its radius and a walker's
    /// together lies further from it than this and the walker's radius.
    widest: Fx,
    width: i32,
    height: i32,
}

impl Survey {
    /// Files every unit of the world. Units off the map are filed on the nearest edge tile.
    /// A counting sort by tile over the box of tiles bodies stand on (never the whole map: one
    /// knight on a 480 × 480 map spent its tick clearing and summing 230,400 tile counts): units
    /// are visited in id order, so each tile's run is in entity order, and `starts` says where
    /// each tile's run begins.
    pub fn file(&mut self, view: View<'_>) {
        let grid: &Grid = view.grid();
        let rules = view.rules;
        self.width = grid.width();
        self.height = grid.height();
        self.tile_of.clear();
        let (mut lo, mut hi) = (Tile::new(i32::MAX, i32::MAX), Tile::new(i32::MIN, i32::MIN));
        for u in &view.state.units {
            let t = u.position.tile();
            let t = Tile::new(t.x.clamp(0, self.width - 1), t.y.clamp(0, self.height - 1));
            (lo.x, lo.y, hi.x, hi.y) = (lo.x.min(t.x), lo.y.min(t.y), hi.x.max(t.x), hi.y.max(t.y));
            self.tile_of.push(t);
        }
        self.filed = if self.tile_of.is_empty() {
            Filed::default()
        } else {
            Filed {
                x0: lo.x,
                y0: lo.y,
                across: hi.x - lo.x + 1,
                down: hi.y - lo.y + 1,
            }
        };
        let tiles = (self.filed.across * self.filed.down) as usize;
        self.starts.clear();
        self.starts.resize(tiles + 1, 0);
        for t in &self.tile_of {
            self.starts[self.filed.index(t.x, t.y) + 1] += 1;
        }
        for k in 0..tiles {
            self.starts[k + 1] += self.starts[k];
        }
        self.patched = self.filed.patches();
        self.owners.clear();
        self.owners
            .resize((self.patched.across * self.patched.down) as usize, 0);
        for (i, u) in view.state.units.iter().enumerate() {
            let t = self.tile_of[i];
            let patch = self.patched.index(t.x / K_OWNER_PATCH, t.y / K_OWNER_PATCH);
            let bit = match PlayerMask::of(u.owner) {
                PlayerMask::NONE => u8::MAX,
                m => m.0,
            };
            self.owners[patch] |= bit;
        }
        let mut next = self.starts.clone();
        self.bodies.clear();
        self.bodies.resize(view.state.units.len(), Body::default());
        self.slots.clear();
        self.slots.resize(view.state.units.len(), 0);
        self.owner_keys.clear();
        self.owner_keys.resize(view.state.units.len(), 0);
        let patches = self.owners.len();
        self.members.clear();
        self.spill = Fx::ZERO;
        self.widest = Fx::ZERO;
        for (i, u) in view.state.units.iter().enumerate() {
            let Tile { x, y } = self.tile_of[i];
            let tile = (y * self.width + x) as u32;
            let at = self.filed.index(x, y);
            let k = next[at];
            next[at] += 1;
            self.slots[i] = k;
            let patch = self.patched.index(x / K_OWNER_PATCH, y / K_OWNER_PATCH);
            self.owner_keys[k as usize] = (owner_bucket(u.owner) * patches + patch) as u32;
            self.spill = self.spill.max(outside_tile(x, y, u.position));
            let radius = rules.radius_of(u.kind);
            self.widest = self.widest.max(radius);
            self.bodies[k as usize] = Body {
                tile,
                entity: u.id,
                owner: u.owner,
                middle: u.position,
                radius,
                moving: u.route.is_some(),
                heading: u
                    .route
                    .as_ref()
                    .and_then(|r| r.waypoints.first())
                    .map_or(Vec2::ZERO, |&c| c - u.position),
                goal: u.route.as_ref().map_or(u.position, |r| r.goal),
            };
            if let Some(formation) = u.formation {
                self.members.push(Member {
                    entity: u.id,
                    formation,
                    headed: u.route.as_ref().map_or(u.position, |r| r.goal),
                });
            }
        }
        self.file_by_owner();
    }

    /// Files the bodies again by owner bucket and patch, keeping their order (a counting sort).
    fn file_by_owner(&mut self) {
        let patches = self.owners.len();
        self.owner_starts.clear();
        self.owner_starts.resize(K_OWNER_BUCKETS * patches + 1, 0);
        for &k in &self.owner_keys {
            self.owner_starts[k as usize + 1] += 1;
        }
        for k in 0..K_OWNER_BUCKETS * patches {
            self.owner_starts[k + 1] += self.owner_starts[k];
        }
        let mut next = self.owner_starts.clone();
        self.by_owner.clear();
        self.by_owner.resize(self.bodies.len(), Owned::default());
        self.owned_at.clear();
        self.owned_at.resize(self.bodies.len(), 0);
        for (slot, (b, &k)) in self.bodies.iter().zip(&self.owner_keys).enumerate() {
            let k = k as usize;
            self.owned_at[slot] = next[k];
            self.by_owner[next[k] as usize] = Owned {
                middle: b.middle,
                radius: b.radius,
                entity: b.entity,
                tile: b.tile,
                owner: b.owner,
            };
            next[k] += 1;
        }
    }

    /// The bodies of owner bucket `bucket` ([`owner_bucket`]) filed in patch (`px`, `py`), in
    /// (tile, entity) order, where they stand now ([`Survey::move_body`]); none off the map (nor in
    /// a patch no body is filed near).
    pub fn owned_in_patch(&self, bucket: usize, px: i32, py: i32) -> &[Owned] {
        let run = if self.patched.contains(px, py) && bucket < K_OWNER_BUCKETS {
            let k = bucket * self.owners.len() + self.patched.index(px, py);
            self.owner_starts[k] as usize..self.owner_starts[k + 1] as usize
        } else {
            0..0
        };
        &self.by_owner[run]
    }

    /// The owners of the bodies filed in patch (`px`, `py`) (an owner past the eighth counts as
    /// every player); none off the box of patches.
    pub fn patch_owners(&self, px: i32, py: i32) -> PlayerMask {
        if !self.patched.contains(px, py) {
            return PlayerMask::NONE;
        }
        PlayerMask(self.owners[self.patched.index(px, py)])
    }

    /// The formation `entity` belongs to and where it is headed, if it is in one.
    pub fn member(&self, entity: EntityId) -> Option<&Member> {
        self.members
            .binary_search_by_key(&entity, |m| m.entity)
            .ok()
            .map(|k| &self.members[k])
    }

    /// Unit `unit_index` (its place in the state's list) has walked to `middle` this tick: its
    /// body stays filed on its tile (near-point questions look a tile further round), but later
    /// walkers see where it is now.
    pub fn move_body(&mut self, unit_index: usize, middle: Vec2) {
        if let Some(&k) = self.slots.get(unit_index) {
            if let Some(b) = self.bodies.get_mut(k as usize) {
                b.middle = middle;
                if let Some(o) = self.owned_at.get(k as usize) {
                    self.by_owner[*o as usize].middle = middle;
                }
                let tile = b.tile;
                self.spill = self.spill.max(self.outside_tile(tile, middle));
            }
        }
    }

    /// Tile `tile`'s (its index's) column and row; a row past the map's for an index past it.
    fn xy(&self, tile: u32) -> (i32, i32) {
        let t = i32::try_from(tile).unwrap_or(i32::MAX);
        let width = self.width.max(1);
        (t % width, t / width)
    }

    /// How far `p` lies outside tile `tile` (its index), box distance; zero on it.
    fn outside_tile(&self, tile: u32, p: Vec2) -> Fx {
        let (x, y) = self.xy(tile);
        outside_tile(x, y, p)
    }

    /// The widest radius of any body filed (zero with none).
    pub fn widest(&self) -> Fx {
        self.widest
    }

    /// Every body filed, in (tile, entity) order.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// The bodies filed on one tile, in entity order.
    pub fn on_tile(&self, tile: u32) -> &[Body] {
        let (x, y) = self.xy(tile);
        if !self.filed.contains(x, y) {
            return &[];
        }
        let t = self.filed.index(x, y);
        &self.bodies[self.starts[t] as usize..self.starts[t + 1] as usize]
    }

    /// The bodies filed on tiles from `min` to `max` (inclusive, clipped to the map), row by row:
    /// one run of the array per row.
    pub fn in_tiles(&self, min: Tile, max: Tile) -> impl Iterator<Item = &Body> + '_ {
        // Clipped to the box bodies are filed in (within the map).
        let f = &self.filed;
        let (x0, x1) = (min.x.max(f.x0), max.x.min(f.x0 + f.across - 1));
        let (y0, y1) = (min.y.max(f.y0), max.y.min(f.y0 + f.down - 1));
        let rows = if x0 > x1 || y0 > y1 { 0..0 } else { y0..y1 + 1 };
        rows.flat_map(move |y| {
            let a = self.starts[f.index(x0, y)] as usize;
            let b = self.starts[f.index(x1, y) + 1] as usize;
            self.bodies[a..b].iter()
        })
    }

    /// The owners of the bodies filed on tiles from `min` to `max` (clipped to the map), or more:
    /// of every body filed in the patches those tiles lie in.
    pub fn owners_in(&self, min: Tile, max: Tile) -> PlayerMask {
        let (x0, x1) = (min.x.max(0), max.x.min(self.width - 1));
        let (y0, y1) = (min.y.max(0), max.y.min(self.height - 1));
        if x0 > x1 || y0 > y1 {
            return PlayerMask::NONE;
        }
        let f = &self.patched;
        let (px0, px1) = (
            (x0 / K_OWNER_PATCH).max(f.x0),
            (x1 / K_OWNER_PATCH).min(f.x0 + f.across - 1),
        );
        let (py0, py1) = (
            (y0 / K_OWNER_PATCH).max(f.y0),
            (y1 / K_OWNER_PATCH).min(f.y0 + f.down - 1),
        );
        let mut mask = 0u8;
        for py in py0..=py1 {
            for px in px0..=px1 {
                mask |= self.owners[f.index(px, py)];
            }
        }
        PlayerMask(mask)
    }

    /// The bodies whose middle lies within `reach` (box distance) of `p`, in (tile, entity)
    /// order. Its tiles are those a body within `reach` may be filed on: within half a tile and the
    /// spill more.
    pub fn near(&self, p: Vec2, reach: Fx) -> Near<'_> {
        self.near_box(p, Vec2::new(reach, reach))
    }

    /// The bodies whose middle lies within `reach.x` across and `reach.y` down of `p`, in (tile,
    /// entity) order: [`Survey::near`] of a box that need not be square.
    pub fn near_box(&self, p: Vec2, reach: Vec2) -> Near<'_> {
        let spill = self.spill + fx_ratio(1, 2);
        let (far_x, far_y) = (reach.x + spill, reach.y + spill);
        let lo = Vec2::new(p.x - far_x, p.y - far_y).tile();
        let hi = Vec2::new(p.x + far_x, p.y + far_y).tile();
        // Clipped to the box bodies are filed in (within the map).
        let f = &self.filed;
        let (x0, x1) = (lo.x.max(f.x0), hi.x.min(f.x0 + f.across - 1));
        let (y0, y1) = (lo.y.max(f.y0), hi.y.min(f.y0 + f.down - 1));
        Near {
            survey: Some(self),
            p,
            reach,
            x0,
            x1,
            row: y0,
            last_row: if x0 > x1 { y0 - 1 } else { y1 },
            run: [].iter(),
        }
    }
}
