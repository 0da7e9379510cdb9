//! Can a body walk a straight line? (spec: "Pulling the route straight", `AStar::BodyClear` and
//! `AStar::MiddleClear`).
//!
//! [`middle_clear`] asks only about the line's middle: every tile the segment passes through,
//! but the tiles at either end, must be open. A line through the exact corner of four tiles also
//! asks about the two tiles beside the corner, so a line never cuts the corner of a closed tile.
//! [`body_clear`] also sweeps the walker's body along the line, a quarter of a tile at a time.
//! Everything is exact integer arithmetic on fixed-point bits: same answer on every machine.

use super::straighten::segment_enters;
use crate::grid::{Grid, Keyed};
use crate::position::{fx_ratio, Bounds, Fx, Tile, Vec2};

/// The thinnest body a line is tested for: an eighth of a tile.
pub const K_MIN_BODY_RADIUS: Fx = fx_ratio(1, 8);
/// How far apart along a line the body is tested: a quarter of a tile.
pub const K_BODY_STEP: Fx = fx_ratio(1, 4);
/// A body's box is tested this much inside its edge (a 32nd of a tile, more than `K_INSIDE`), so
/// a body standing against what it works at or fights does not count as touching it. The walk's
/// every step (`walk::Stepper::body_open`) and [`body_clear`] test the same box (Cohort's
/// choice): a line pulled straight from a body that only grazes a wall within this slack is one
/// the walk can step along, not one through the wall's corner it then refuses for good.
pub const K_BODY_SLACK: Fx = fx_ratio(1, 32);

/// How far each way from its middle a body of `radius` is tested against closed ground, by
/// [`body_clear`] and by every step of the walk alike: [`K_BODY_SLACK`] inside its edge, and
/// never thinner than [`K_MIN_BODY_RADIUS`].
pub fn tested_radius(radius: Fx) -> Fx {
    (radius - K_BODY_SLACK).max(K_MIN_BODY_RADIUS)
}

/// Whether a body of `radius` is wider than a tile as the walk tests it ([`tested_radius`] more
/// than half a tile): a gap one tile wide is closed to it (Cohort's choice; a trebuchet's 0.6,
/// not a mangonel's 0.5, which slips through a gap a body wide as the spec says).
pub fn wider_than_a_tile(radius: Fx) -> bool {
    tested_radius(radius) > Fx::from_num(1) / 2
}

/// One tile in fixed-point bits.
const ONE: i64 = 1 << 16;
/// Half a tile in fixed-point bits: tile edges lie at whole numbers plus a half.
const HALF: i64 = 1 << 15;

/// Whether the middle of a walk from `from` to `to` crosses no closed tile but at either end.
/// Off the map counts as closed. Same inputs, same answer on every machine.
pub fn middle_clear(grid: &Grid, key: Keyed, from: Vec2, to: Vec2) -> bool {
    let start = from.tile();
    let end = to.tile();
    let open = |x: i32, y: i32| grid.passable(key, crate::position::Tile::new(x, y));
    let is_end = |x: i32, y: i32| (x == start.x && y == start.y) || (x == end.x && y == end.y);
    let ok = |x: i32, y: i32| is_end(x, y) || open(x, y);
    walk_tiles(from, to, ok)
}

/// Whether a body of `radius` (at least [`K_MIN_BODY_RADIUS`]) can walk straight from `from` to
/// `to`: the middle is clear ([`middle_clear`]) and the body, tested every [`K_BODY_STEP`] along
/// the line, touches closed ground only where it already touches it at the start or comes up
/// against it at the end. Ground the body only grazes at the start (touched by its box, not by
/// its [`tested_radius`], the box each step of the walk tests) it may go on grazing, no deeper
/// than that: so the walk can step along every line found clear (Cohort's choice: a line from a
/// body grazing a wall had been let through the wall's corner, which the walk then refused at
/// every step, for good). Between two tests the box's sweep is checked exactly against every
/// closed tile it could reach, so no corner is clipped between tests. Same inputs, same answer on
/// every machine.
pub fn body_clear(grid: &Grid, key: Keyed, from: Vec2, to: Vec2, radius: Fx) -> bool {
    if !middle_clear(grid, key, from, to) {
        return false;
    }
    let r = radius.max(K_MIN_BODY_RADIUS).to_bits();
    let tested = tested_radius(radius).to_bits();
    let at_start = TileSpan::touched(from, tested);
    let grazed = TileSpan::touched(from, r);
    let at_end = TileSpan::touched(to, r);
    let length = (to - from).length();
    let steps = (length.to_bits() + K_BODY_STEP.to_bits() - 1) / K_BODY_STEP.to_bits();
    let steps = steps.max(1);
    let mut before = from;
    for k in 0..=steps {
        let p = from.lerp(to, Fx::from_num(k), Fx::from_num(steps));
        let here = TileSpan::touched(p, r);
        let here_tested = TileSpan::touched(p, tested);
        // Between two tests the box sweeps a little more than either covers (the corners of a
        // diagonal step): any closed tile in reach of the sweep is checked against it exactly.
        let swept = here.union(&TileSpan::touched(before, r));
        for y in swept.y0..=swept.y1 {
            for x in swept.x0..=swept.x1 {
                if at_start.contains(x, y) || at_end.contains(x, y) {
                    continue;
                }
                let t = Tile::new(x, y);
                if grid.passable(key, t) {
                    continue;
                }
                let (inside, reach) = if grazed.contains(x, y) {
                    (here_tested.contains(x, y), tested)
                } else {
                    (here.contains(x, y), r)
                };
                if inside
                    || segment_enters(before, p, &Bounds::of_tile(t).widened(Fx::from_bits(reach)))
                {
                    return false;
                }
            }
        }
        before = p;
    }
    true
}

/// The tiles a body's box overlaps (touching an edge exactly is not overlapping), inclusive.
#[derive(Clone, Copy, Debug)]
struct TileSpan {
    x0: i32,
    x1: i32,
    y0: i32,
    y1: i32,
}

impl TileSpan {
    /// Tiles overlapped by the box reaching `r` bits each way from `p`.
    fn touched(p: Vec2, r: i64) -> TileSpan {
        let (x0, x1) = overlapped(p.x.to_bits(), r);
        let (y0, y1) = overlapped(p.y.to_bits(), r);
        TileSpan { x0, x1, y0, y1 }
    }

    fn union(&self, o: &TileSpan) -> TileSpan {
        TileSpan {
            x0: self.x0.min(o.x0),
            x1: self.x1.max(o.x1),
            y0: self.y0.min(o.y0),
            y1: self.y1.max(o.y1),
        }
    }

    fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.x0 && x <= self.x1 && y >= self.y0 && y <= self.y1
    }
}

/// The first and last tile whose span (t − ½, t + ½) meets the open interval (c − r, c + r).
fn overlapped(c: i64, r: i64) -> (i32, i32) {
    // t > c - r - ½  and  t < c + r + ½, in whole tiles.
    let lo = ((c - r - HALF) >> 16) + 1;
    let hi = -((-(c + r + HALF)) >> 16) - 1;
    (lo as i32, hi as i32)
}

/// Visits, in order, every tile the segment passes through (a supercover: at an exact corner,
/// both tiles beside it too) until `ok` says no. Returns whether every tile was ok.
fn walk_tiles(from: Vec2, to: Vec2, mut ok: impl FnMut(i32, i32) -> bool) -> bool {
    // Shift by half a tile so a tile's span is [t, t + 1) and its index is a floor.
    let (ux, uy) = (from.x.to_bits() + HALF, from.y.to_bits() + HALF);
    let (vx, vy) = (to.x.to_bits() + HALF, to.y.to_bits() + HALF);
    let (mut tx, mut ty) = ((ux >> 16) as i32, (uy >> 16) as i32);
    let (ex, ey) = ((vx >> 16) as i32, (vy >> 16) as i32);
    let (dx, dy) = (i128::from(vx - ux), i128::from(vy - uy));
    let (sx, sy) = (dx.signum() as i32, dy.signum() as i32);
    if !ok(tx, ty) {
        return false;
    }
    let most = (ex - tx).abs() + (ey - ty).abs();
    for _ in 0..most {
        if tx == ex && ty == ey {
            break;
        }
        // Distance to the next tile edge on each axis, as a fraction of the axis's travel:
        // compare |bx - ux| / |dx| with |by - uy| / |dy| by cross-multiplying.
        let bx = if sx > 0 {
            i64::from(tx + 1) * ONE
        } else {
            i64::from(tx) * ONE
        };
        let by = if sy > 0 {
            i64::from(ty + 1) * ONE
        } else {
            i64::from(ty) * ONE
        };
        let nx = i128::from((bx - ux).abs());
        let ny = i128::from((by - uy).abs());
        let step_x = tx != ex && sx != 0;
        let step_y = ty != ey && sy != 0;
        let order = match (step_x, step_y) {
            (true, true) => (nx * dy.abs()).cmp(&(ny * dx.abs())),
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
            (false, false) => break,
        };
        match order {
            std::cmp::Ordering::Less => tx += sx,
            std::cmp::Ordering::Greater => ty += sy,
            std::cmp::Ordering::Equal => {
                // Through a corner exactly: both tiles beside it must be open too.
                if !ok(tx + sx, ty) || !ok(tx, ty + sy) {
                    return false;
                }
                tx += sx;
                ty += sy;
            }
        }
        if !ok(tx, ty) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Occupant;
    use crate::id::EntityId;
    use crate::position::{fx, Tile};
    use crate::ruleset::Ruleset;

    fn grid_with(closed: &[(i32, i32)]) -> Grid {
        let rules = Ruleset::default_rules();
        let grass = rules.terrain("grass").unwrap();
        let mut g = Grid::new(&rules, 10, 10, grass);
        for &(x, y) in closed {
            g.set_occupant(Tile::new(x, y), Occupant::Resource(EntityId(1)));
        }
        g
    }

    fn p(x: i32, y: i32) -> Vec2 {
        Vec2::new(fx(x), fx(y))
    }

    const LAND: Keyed = Keyed::unkeyed(0);

    #[test]
    fn a_closed_tile_across_the_middle_blocks_the_line() {
        let g = grid_with(&[(4, 2)]);
        assert!(!middle_clear(&g, LAND, p(1, 2), p(8, 2)));
        assert!(middle_clear(&g, LAND, p(1, 3), p(8, 3)));
    }

    #[test]
    fn the_middle_may_start_and_end_on_closed_tiles() {
        let g = grid_with(&[(1, 2), (8, 2)]);
        assert!(middle_clear(&g, LAND, p(1, 2), p(8, 2)));
    }

    #[test]
    fn a_line_never_cuts_the_corner_of_a_closed_tile() {
        let g = grid_with(&[(3, 2)]);
        assert!(!middle_clear(&g, LAND, p(2, 2), p(3, 3)));
        assert!(!body_clear(&g, LAND, p(2, 2), p(3, 3), fx_ratio(1, 5)));
        let open = grid_with(&[]);
        assert!(middle_clear(&open, LAND, p(2, 2), p(3, 3)));
    }

    #[test]
    fn off_the_map_is_closed() {
        let g = grid_with(&[]);
        assert!(!middle_clear(&g, LAND, p(1, 1), p(12, 1)));
        assert!(!body_clear(&g, LAND, p(1, 1), p(8, -3), fx_ratio(1, 5)));
        assert!(body_clear(&g, LAND, p(1, 1), p(8, 1), fx_ratio(1, 5)));
    }

    #[test]
    fn a_body_too_wide_for_a_gap_is_refused_where_its_middle_passes() {
        // A wall at x = 5 with a one-tile gap at y = 5; a line along y = 4.6 keeps its middle
        // in the gap's row, but a body of 0.2 reaches down into row 4, which is wall.
        let g = grid_with(&[(5, 3), (5, 4), (5, 6), (5, 7)]);
        let from = Vec2::new(fx(2), fx_ratio(46, 10));
        let to = Vec2::new(fx(8), fx_ratio(46, 10));
        assert!(middle_clear(&g, LAND, from, to));
        assert!(!body_clear(&g, LAND, from, to, fx_ratio(1, 5)));
        assert!(body_clear(&g, LAND, p(2, 5), p(8, 5), fx_ratio(1, 5)));
    }

    #[test]
    fn a_body_may_leave_ground_it_touches_at_the_start_and_come_against_it_at_the_end() {
        // A villager beside its tree at (3, 3), walking away along the tree's edge.
        let g = grid_with(&[(3, 3), (8, 4)]);
        let from = Vec2::new(fx(3), fx_ratio(37, 10));
        let to = Vec2::new(fx(8), fx_ratio(33, 10));
        assert!(body_clear(&g, LAND, from, to, fx_ratio(1, 4)));
        // The same line when the tree stands midway instead is refused.
        let g = grid_with(&[(5, 3)]);
        assert!(!body_clear(
            &g,
            LAND,
            Vec2::new(fx(2), fx_ratio(37, 10)),
            Vec2::new(fx(8), fx_ratio(37, 10)),
            fx_ratio(1, 4)
        ));
    }

    #[test]
    fn a_body_grazing_a_wall_within_the_slack_may_not_go_deeper_into_it() {
        // A mangonel (radius 1/2) whose box reaches 1/64 into the cliff at (5, 3): lines along
        // the wall, or away from it, are clear; a line through the cliff's corner is not (the
        // walk, testing the box K_BODY_SLACK inside its edge, could never step along it).
        let g = grid_with(&[(5, 3), (5, 2)]);
        let from = Vec2::new(fx(4) + fx_ratio(1, 64), fx(4) - fx_ratio(1, 10));
        let half = fx_ratio(1, 2);
        assert!(body_clear(&g, LAND, from, Vec2::new(from.x, fx(7)), half));
        assert!(body_clear(&g, LAND, from, Vec2::new(fx(1), from.y), half));
        assert!(!body_clear(&g, LAND, from, Vec2::new(fx(8), fx(3)), half));
        // Touching it deeper than the slack, it may walk on into the tile as the spec says (a
        // villager walking away from its tree).
        let deep = Vec2::new(fx(4) + fx_ratio(1, 8), from.y);
        assert!(body_clear(&g, LAND, deep, Vec2::new(deep.x, fx(7)), half));
    }

    #[test]
    fn a_thin_body_is_tested_as_an_eighth_of_a_tile() {
        // Passing 0.55 from a closed tile's middle leaves 0.05: an eighth-tile body touches it.
        let g = grid_with(&[(5, 3)]);
        let from = Vec2::new(fx(2), fx(4) - fx_ratio(45, 100));
        let to = Vec2::new(fx(8), fx(4) - fx_ratio(45, 100));
        assert!(middle_clear(&g, LAND, from, to));
        assert!(!body_clear(&g, LAND, from, to, Fx::ZERO));
    }

    #[test]
    fn a_gate_is_open_only_to_its_friends() {
        let rules = Ruleset::default_rules();
        let mut g = Grid::new(&rules, 10, 10, rules.terrain("grass").unwrap());
        for y in 0..10 {
            let o = if y == 5 {
                Occupant::Gate {
                    entity: EntityId(9),
                    owner: 0,
                    locked: false,
                }
            } else {
                Occupant::Building(EntityId(8))
            };
            g.set_occupant(Tile::new(5, y), o);
        }
        let friend = Keyed::with_friends(0, crate::grid::PlayerMask::of(0));
        let enemy = Keyed::with_friends(0, crate::grid::PlayerMask::of(1));
        assert!(body_clear(&g, friend, p(2, 5), p(8, 5), fx_ratio(1, 5)));
        assert!(!body_clear(&g, enemy, p(2, 5), p(8, 5), fx_ratio(1, 5)));
    }
}
