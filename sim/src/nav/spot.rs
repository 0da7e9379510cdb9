//! Standing spots (spec: "Standing spots", `Pathfinding::FindStandingSpot`): where a caller that
//! has to stand beside something rather than on it should stand.
//!
//! The caller gives the ground it approaches (a footprint, a tree's tile, a target's box), where
//! it stands now, how far outside the ground to stand (its reach plus its own half-width), how
//! much room it needs, and the spots already spoken for. Its own face is searched first, finely
//! (a quarter of the room per step), so a crowd fills the wall in front of it before anyone is
//! sent round a corner; only then is the whole edge walked, a worker's width at a step. Every
//! point is kept half a worker's width clear of the corners. The answer says found, full (all
//! open ground spoken for: a spot will come free) or blocked (it never will).
//!
//! Callers: villagers at a resource, a drop site or a foundation (`tick::work`); soldiers closing
//! on a target and a packed siege unit making for its range (`nav::chase`); a unit sent where it
//! cannot stand (`tick::orders`).

use super::View;
use crate::astar::K_BODY_SLACK;
use crate::grid::{Keyed, RegionId};
use crate::position::{Bounds, Fx, Vec2};

/// Spots a worker's width apart less this (a 256th of a tile) count as apart: steps of a
/// quarter of the room add up a few fixed-point bits short.
pub const K_ROUNDING: Fx = Fx::from_bits(1 << 8);

/// The answer of [`find_standing_spot`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spot {
    Found(Vec2),
    /// All the open ground is spoken for: a spot will come free.
    Full,
    /// No open ground round it at this distance: none ever will.
    Blocked,
}

/// What the caller approaches, and how.
#[derive(Clone, Copy, Debug)]
pub struct Approach<'a> {
    /// The ground approached.
    pub ground: Bounds,
    /// Where the caller stands now.
    pub from: Vec2,
    /// How far outside the ground to stand: reach plus the caller's half-width.
    pub outside: Fx,
    /// The room the caller needs (a worker's width).
    pub room: Fx,
    /// Spots spoken for: where others at work there stand, and where those walking are headed.
    pub taken: &'a [Vec2],
    /// Search the caller's own face only, never the rest of the edge (Cohort's choice, for those
    /// waiting a body's width out round a crowded target: waiting on their own side, they leave
    /// the way round the target open to those walking to a place on another side).
    pub own_face_only: bool,
}

/// One face of the ring round the ground: a side, with its fixed coordinate and its span.
#[derive(Clone, Copy)]
struct Face {
    /// Runs along x (top or bottom) rather than y.
    along_x: bool,
    fixed: Fx,
    lo: Fx,
    hi: Fx,
    /// The ground's own span along the face.
    ground_lo: Fx,
    ground_hi: Fx,
    /// Which way the ground lies from the face across it (+1 or −1).
    inward: Fx,
    /// How far the caller's body reaches out from its middle (half its room).
    half: Fx,
    /// How far the ring stands off the ground, body edge to ground edge.
    reach: Fx,
}

impl Face {
    /// The point `t` along the face. Past the ground's own span the ring is rounded (Cohort's
    /// choice): the point comes in towards the ground so the body stays `reach` off it as
    /// `reach_gap` measures across a corner, and a shooter at its range at a face's far end is
    /// still in range.
    fn point(&self, t: Fx) -> Vec2 {
        let beyond = (self.ground_lo - t).max(t - self.ground_hi) - self.half;
        let fixed = if beyond > Fx::ZERO && self.reach > Fx::ZERO {
            let (r, e) = (
                i128::from(self.reach.to_bits()),
                i128::from(beyond.min(self.reach).to_bits()),
            );
            let across = Fx::from_bits(
                i64::try_from(crate::position::isqrt_u128((r * r - e * e).unsigned_abs()))
                    .unwrap_or(i64::MAX),
            );
            self.fixed + self.inward * (self.reach - across)
        } else {
            self.fixed
        };
        if self.along_x {
            Vec2::new(t, fixed)
        } else {
            Vec2::new(fixed, t)
        }
    }
    fn length(&self) -> Fx {
        self.hi - self.lo
    }
}

/// Where to stand beside `approach.ground`; `stands(p)` says whether the caller can stand at `p`
/// and reach it. Same inputs, same spot, every machine.
pub fn find_standing_spot(approach: &Approach, stands: impl Fn(Vec2) -> bool) -> Spot {
    let ground = approach.ground;
    let ring = ground.widened(approach.outside);
    let half = approach.room / 2;
    let reach = approach.outside - half;
    let face = |along_x: bool, fixed: Fx, inward: Fx| {
        let (lo, hi, ground_lo, ground_hi) = if along_x {
            (ring.min.x, ring.max.x, ground.min.x, ground.max.x)
        } else {
            (ring.min.y, ring.max.y, ground.min.y, ground.max.y)
        };
        Face {
            along_x,
            fixed,
            lo,
            hi,
            ground_lo,
            ground_hi,
            inward,
            half,
            reach,
        }
    };
    let (one, back) = (Fx::ONE, -Fx::ONE);
    let faces = [
        face(true, ring.min.y, one),
        face(false, ring.max.x, back),
        face(true, ring.max.y, back),
        face(false, ring.min.x, one),
    ];
    let own = own_face(&approach.ground, approach.from);
    // Every point asked lies within the box holding the ring and the ground: a spot further than
    // the room from it can take none of them.
    let hull = Bounds {
        min: Vec2::new(
            ring.min.x.min(ring.max.x).min(ground.min.x),
            ring.min.y.min(ring.max.y).min(ground.min.y),
        ),
        max: Vec2::new(
            ring.max.x.max(ring.min.x).max(ground.max.x),
            ring.max.y.max(ring.min.y).max(ground.max.y),
        ),
    }
    .widened(approach.room.max(Fx::ZERO));
    let mut taken = Vec::with_capacity(approach.taken.len());
    taken.extend(approach.taken.iter().copied().filter(|t| {
        t.x >= hull.min.x && t.x <= hull.max.x && t.y >= hull.min.y && t.y <= hull.max.y
    }));
    let mut spoken_for = false;
    let mut check = |p: Vec2| -> bool {
        if taken
            .iter()
            .any(|t| t.chebyshev(p) < approach.room - K_ROUNDING)
        {
            // Once one is, whether another taken point is open changes nothing.
            if !spoken_for && stands(p) {
                spoken_for = true;
            }
            return false;
        }
        stands(p)
    };
    // The caller's own face, finely, outward from the nearest point.
    let face = faces[own];
    if let Some(p) = walk_face(&face, approach.from, half, approach.room / 4, &mut check) {
        return Spot::Found(p);
    }
    if approach.own_face_only {
        return if spoken_for {
            Spot::Full
        } else {
            Spot::Blocked
        };
    }
    // The whole edge, a worker's width at a step, nearest face points first.
    let mut best: Option<(i128, Vec2)> = None;
    for (k, face) in faces.iter().enumerate() {
        if k == own {
            continue;
        }
        let mut t = face.lo + half;
        while t <= face.hi - half {
            let p = face.point(t);
            let d = squared(p - approach.from);
            if best.is_none_or(|(bd, _)| d < bd) && check(p) {
                best = Some((d, p));
            }
            t += approach.room.max(Fx::from_bits(1));
        }
    }
    match best {
        Some((_, p)) => Spot::Found(p),
        None if spoken_for => Spot::Full,
        None => Spot::Blocked,
    }
}

/// Which face of `ground` a point at `from` looks at: 0 top, 1 right, 2 bottom, 3 left.
fn own_face(ground: &Bounds, from: Vec2) -> usize {
    let c = ground.middle();
    let (hw, hh) = (
        (ground.max.x - ground.min.x) / 2,
        (ground.max.y - ground.min.y) / 2,
    );
    let (dx, dy) = (from.x - c.x, from.y - c.y);
    if dx.abs() - hw > dy.abs() - hh {
        if dx > Fx::ZERO {
            1
        } else {
            3
        }
    } else if dy > Fx::ZERO {
        2
    } else {
        0
    }
}

/// Walks `face` from the point nearest `from` (kept `half` clear of its corners) outward both
/// ways by `step`, returning the first point `check` accepts.
fn walk_face(
    face: &Face,
    from: Vec2,
    half: Fx,
    step: Fx,
    check: &mut impl FnMut(Vec2) -> bool,
) -> Option<Vec2> {
    let (lo, hi) = (face.lo + half, face.hi - half);
    if lo > hi {
        let mid = face.lo + face.length() / 2;
        let p = face.point(mid);
        return check(p).then_some(p);
    }
    let start = if face.along_x { from.x } else { from.y }.clamp(lo, hi);
    let step = step.max(Fx::from_bits(1));
    let mut k = 0;
    loop {
        let (a, b) = (start + step * k, start - step * k);
        if a > hi && b < lo {
            return None;
        }
        if a <= hi && check(face.point(a)) {
            return Some(face.point(a));
        }
        if k > 0 && b >= lo && check(face.point(b)) {
            return Some(face.point(b));
        }
        k += 1;
    }
}

fn squared(v: Vec2) -> i128 {
    crate::position::squared(v)
}

/// Whether a unit of `radius` on `key` in `region` can stand at `p` and reach it: its tile is in
/// its region and its body touches no closed ground there (tested [`K_BODY_SLACK`] inside its
/// edge, as a walk's every step is: a spot the body cannot stand on is a spot its walk never
/// reaches). The usual `stands` for [`find_standing_spot`].
pub fn stands_in(
    view: View<'_>,
    key: Keyed,
    region: Option<RegionId>,
    p: Vec2,
    radius: Fx,
) -> bool {
    let grid = view.grid();
    grid.passable_box(key, p, (radius - K_BODY_SLACK).max(Fx::ZERO))
        && region.is_some()
        && view.regions.region_of(grid, key, p.tile()) == region
}
