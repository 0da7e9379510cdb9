//! Sent where it cannot stand (spec: "Sent where it cannot stand", `Navigation::Toward`).
//!
//! A transport sent at the land, a villager sent into the sea, a soldier sent into a pocket of
//! open ground walled in by trees: the point is turned into the nearest one the unit can stand on
//! and reach. It is kept when the unit can stand there and it lies in the unit's own region.
//! Otherwise the rings round it are searched outward, up to [`K_TOWARD_REACH`] tiles, for the
//! point nearest the one asked for (by distance) where the unit's whole body stands on ground of
//! its region — each tile's point facing the one asked for — and of equal ones the nearest the
//! unit (Cohort's reading of the spec's "as near as the ground allows"), so the unit comes as near
//! as the ground allows rather than to a tile's middle.

use super::route::region_here;
use super::View;
use crate::id::EntityId;
use crate::position::{fx_ratio, tile_of, Fx, Tile, Vec2};

/// How many rings round the point are searched, in tiles.
pub const K_TOWARD_REACH: i32 = 32;

/// The point nearest `to` that `unit` can stand on and reach, or `None` when it has no region or
/// none of its region lies within [`K_TOWARD_REACH`] tiles of `to`. Same inputs, same point.
pub fn toward(view: View<'_>, unit: EntityId, to: Vec2) -> Option<Vec2> {
    nearest(view, unit, to, &[], false)
}

/// As [`toward`], for a formation's place: the point is kept only when the unit's whole body (a
/// box of its radius) stands on ground of its region, not just its middle, and when it has to be
/// moved, a point whose body would overlap one of `taken` (points spoken for, each with its
/// body's radius) is passed over for the next nearest, as the standing-spot planner passes over
/// "the spots already spoken for". A formation's places turned one by one would otherwise land
/// neighbours on one tile (Cohort's choice).
pub fn toward_clear_of(
    view: View<'_>,
    unit: EntityId,
    to: Vec2,
    taken: &[(Vec2, Fx)],
) -> Option<Vec2> {
    nearest(view, unit, to, taken, true)
}

/// [`toward`] (`whole_body` false: the point is kept when its tile is of the unit's region) and
/// [`toward_clear_of`] (`whole_body` true: when every tile the body covers is) in one.
fn nearest(
    view: View<'_>,
    unit: EntityId,
    to: Vec2,
    taken: &[(Vec2, Fx)],
    whole_body: bool,
) -> Option<Vec2> {
    let u = view.unit(unit)?;
    let key = view.key_of(u);
    let radius = view.rules.radius_of(u.kind);
    let grid = view.grid();
    let regions = &view.regions;
    let region = region_here(regions, grid, key, u.position.tile())?;
    let centre = to.tile();
    let ours = |t: Tile| regions.region_of(grid, key, t) == Some(region);
    let stands = if whole_body {
        body_tiles(to, radius).all(ours)
    } else {
        ours(centre)
    };
    if stands {
        return Some(to);
    }
    let clear = |p: Vec2| {
        taken.iter().all(|&(q, r)| {
            let reach = radius + r;
            (p.x - q.x).abs() >= reach || (p.y - q.y).abs() >= reach
        })
    };
    // The nearest by distance to `to`, then to the unit (Cohort's reading of "as near as the
    // ground allows": a square ring's corner lies 1.4 times as far as its sides, and of a
    // shore's tiles on the first ring that met it the one nearest the unit had sent a villager
    // 16.4 tiles from a point on an island where the shore straight across lay 11.7 off:
    // `sent_toward_an_island_in_a_lake`). A point on ring r lies at least r - 1 tiles from `to`:
    // the rings are searched until none can be nearer.
    let mut best: Option<(i128, i128, Vec2)> = None;
    for r in 1..=K_TOWARD_REACH {
        if best.is_some_and(|(d, _, _)| squared(Vec2::new(Fx::from_num(r - 1), Fx::ZERO)) > d) {
            break;
        }
        for t in ring(centre, r) {
            if !ours(t) {
                continue;
            }
            let p = facing(t, to, radius);
            if !clear(p) || !body_tiles(p, radius).all(ours) {
                continue;
            }
            let key = (squared(p - to), squared(p - u.position));
            if best.is_none_or(|(d, du, _)| key < (d, du)) {
                best = Some((key.0, key.1, p));
            }
        }
    }
    best.map(|b| b.2)
}

/// The tiles a body of `radius` at `at` covers inside (touching a tile's edge is not covering).
fn body_tiles(at: Vec2, radius: Fx) -> impl Iterator<Item = Tile> {
    let bit = Fx::from_bits(1);
    let (x0, x1) = (tile_of(at.x - radius + bit), tile_of(at.x + radius - bit));
    let (y0, y1) = (tile_of(at.y - radius + bit), tile_of(at.y + radius - bit));
    (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| Tile::new(x, y)))
}

/// The tiles of the square ring `r` tiles out from `c`, row by row (tile index order).
fn ring(c: Tile, r: i32) -> impl Iterator<Item = Tile> {
    (c.y - r..=c.y + r).flat_map(move |y| {
        let edge = y == c.y - r || y == c.y + r;
        let step = if edge { 1 } else { 2 * r };
        (0..)
            .map(move |k| c.x - r + k * step)
            .take_while(move |&x| x <= c.x + r)
            .map(move |x| Tile::new(x, y))
    })
}

/// The point of tile `t` nearest `to`, far enough inside for a body of `radius` to stand on the
/// tile alone.
fn facing(t: Tile, to: Vec2, radius: Fx) -> Vec2 {
    let inset = (fx_ratio(1, 2) - radius).max(Fx::ZERO);
    let c = Vec2::of_tile(t);
    Vec2::new(
        to.x.clamp(c.x - inset, c.x + inset),
        to.y.clamp(c.y - inset, c.y + inset),
    )
}

fn squared(v: Vec2) -> i128 {
    let (x, y) = (i128::from(v.x.to_bits()), i128::from(v.y.to_bits()));
    x * x + y * y
}
