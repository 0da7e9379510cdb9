//! The short way round (Cohort's choice, not the spec's): a walker held up among bodies finds
//! its way out through the gaps between them.
//!
//! The route search works in whole tiles and goes round standing units only by their cost; the
//! walk keeps apart from every body by the spec's allowance. Between the two a walker can wedge
//! itself into a hollow of a crowd — between two knights on hold, in the corner of a block —
//! where every step it may take brings it nearer someone, and the route it has goes straight
//! through them. [`short_way`] looks at the ground round the walker finely, in cells of
//! [`K_SHORT_CELL`] out to [`K_SHORT_REACH`] tiles: a cell is open when a body of the walker's
//! radius there stays the keep-apart allowance from every body about it (or no nearer than it
//! stands now, for those it is already nearer) and touches no closed ground it does not touch
//! now. An A* over those cells, eight ways round and never cutting a corner, finds the way from
//! the walker to the point it makes for, or to the open cell nearest it; the cells are pulled
//! into straight lines through open cells only. Same world, same way, every machine: integers
//! throughout.

use super::apart::Stepper;
use crate::position::{fx_ratio, squared, tile_of, Fx, Tile, Vec2, EIGHT_WAYS};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The finest the short way looks at the ground: an eighth of a tile.
pub const K_SHORT_CELL: Fx = fx_ratio(1, 8);
/// How far round the walker the short way looks: four tiles each way.
pub const K_SHORT_REACH: i32 = 4;

/// How far, in cells, the short way's first step may reach off the eight ways (half a tile;
/// Cohort's choice, [`first_steps`]).
pub const K_FIRST_STEP_CELLS: i64 = 4;

/// Cells a tile across.
const CELLS_PER_TILE: i64 = 8;
/// Cells from the walker to the window's edge, each way.
const HALF: i64 = K_SHORT_REACH as i64 * CELLS_PER_TILE;
/// Cells a side.
const SIDE: i64 = 2 * HALF + 1;
/// A straight step and a diagonal one, in the search's cost.
const STRAIGHT: u32 = 10;
const DIAGONAL: u32 = 14;
/// The cells round a walker, open or not.
struct Window {
    at: Vec2,
    open: Vec<bool>,
}

impl Window {
    /// The middle of cell (cx, cy), counted from the window's corner.
    fn point(&self, cx: i64, cy: i64) -> Vec2 {
        Vec2::new(
            self.at.x + K_SHORT_CELL * (cx - HALF),
            self.at.y + K_SHORT_CELL * (cy - HALF),
        )
    }

    fn index(cx: i64, cy: i64) -> Option<usize> {
        ((0..SIDE).contains(&cx) && (0..SIDE).contains(&cy)).then(|| (cy * SIDE + cx) as usize)
    }

    fn is_open(&self, cx: i64, cy: i64) -> bool {
        Window::index(cx, cy).is_some_and(|k| self.open[k])
    }

    /// The cell a point falls in, counted from the window's corner (it may lie outside).
    fn cell_of(&self, p: Vec2) -> (i64, i64) {
        let cell = K_SHORT_CELL.to_bits();
        let round = |d: Fx| (d.to_bits() + cell / 2).div_euclid(cell) + HALF;
        (round(p.x - self.at.x), round(p.y - self.at.y))
    }

    /// The open cells one step from cell `k`, the eight ways round, never cutting a corner, each
    /// with the step's cost.
    fn steps(&self, k: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let (cx, cy) = ((k as i64) % SIDE, (k as i64) / SIDE);
        EIGHT_WAYS
            .iter()
            .enumerate()
            .filter_map(move |(n, &(dx, dy))| {
                let (dx, dy) = (i64::from(dx), i64::from(dy));
                let (nx, ny) = (cx + dx, cy + dy);
                let corner_cut =
                    n >= 4 && !(self.is_open(cx + dx, cy) && self.is_open(cx, cy + dy));
                if !self.is_open(nx, ny) || corner_cut {
                    return None;
                }
                let m = Window::index(nx, ny)?;
                Some((m, if n < 4 { STRAIGHT } else { DIAGONAL }))
            })
    }

    /// Whether the straight line between the middles of two cells crosses open cells only
    /// (sampled at every half cell).
    fn sees(&self, a: (i64, i64), b: (i64, i64)) -> bool {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let n = 2 * dx.abs().max(dy.abs());
        (0..=n).all(|k| {
            let (x2, y2) = (2 * a.0 * n + 2 * dx * k, 2 * a.1 * n + 2 * dy * k);
            let d = 2 * n.max(1);
            // Round to the nearest cell, halves up.
            let (cx, cy) = ((x2 + n).div_euclid(d), (y2 + n).div_euclid(d));
            self.is_open(cx, cy)
        })
    }
}

/// The way for the walker of `s`, standing at `at`, toward `to` through the gaps about it:
/// straight legs through open cells, the last at `to` itself when it lies in an open cell the
/// way reaches, else at the reachable cell nearest it. `None` when the walker can get no nearer
/// `to` than it stands. `leaves_out(b)` names bodies the walk may pass (its target); with
/// `off_the_eight_ways`, a walker wedged where it stands may step out off the eight ways
/// ([`first_steps`]). Same inputs, same way, every machine.
pub fn short_way(
    s: &Stepper,
    at: Vec2,
    to: Vec2,
    leaves_out: impl Fn(&crate::nav::Body) -> bool,
    off_the_eight_ways: bool,
) -> Option<Vec<Vec2>> {
    let w = window(s, at, &leaves_out);
    let start = (HALF, HALF);
    let goal = w.cell_of(to);
    let estimate = |c: (i64, i64)| {
        let (dx, dy) = ((c.0 - goal.0).abs(), (c.1 - goal.1).abs());
        let (lo, hi) = (dx.min(dy), dx.max(dy));
        (DIAGONAL as i64 * lo + STRAIGHT as i64 * (hi - lo)) as u64
    };
    let cells = (SIDE * SIDE) as usize;
    let mut cost = vec![u32::MAX; cells];
    let mut parent = vec![u32::MAX; cells];
    let mut done = vec![false; cells];
    let mut heap = BinaryHeap::new();
    let s0 = Window::index(start.0, start.1)?;
    cost[s0] = 0;
    heap.push(Reverse((estimate(start), estimate(start), s0 as u32)));
    let (mut best, mut best_h) = (s0, estimate(start));
    while let Some(Reverse((_, h, k))) = heap.pop() {
        let k = k as usize;
        if done[k] {
            continue;
        }
        done[k] = true;
        if h < best_h {
            (best, best_h) = (k, h);
        }
        if h == 0 {
            break;
        }
        let base = cost[k];
        let w = &w;
        let neighbours = w.steps(k).map(|(m, c)| (m, base + c));
        let off_the_ways = (k == s0 && off_the_eight_ways)
            .then(|| first_steps(s, w, at))
            .into_iter()
            .flatten()
            .map(|(m, c)| (m, base + c));
        for (m, c) in neighbours.chain(off_the_ways) {
            if c < cost[m] {
                cost[m] = c;
                parent[m] = k as u32;
                let hn = estimate(((m as i64) % SIDE, (m as i64) / SIDE));
                heap.push(Reverse((u64::from(c) + hn, hn, m as u32)));
            }
        }
    }
    if best == s0 {
        return None;
    }
    let mut path = vec![best];
    while let Some(&k) = path.last() {
        let p = parent[k];
        if p == u32::MAX {
            break;
        }
        path.push(p as usize);
    }
    path.reverse();
    let cell = |k: usize| ((k as i64) % SIDE, (k as i64) / SIDE);
    // Pulled straight: from each kept cell to the furthest one after it in sight.
    let mut legs = Vec::new();
    let mut from = 0;
    while from + 1 < path.len() {
        let mut next = from + 1;
        for j in (from + 1..path.len()).rev() {
            if w.sees(cell(path[from]), cell(path[j])) {
                next = j;
                break;
            }
        }
        let (cx, cy) = cell(path[next]);
        legs.push(w.point(cx, cy));
        from = next;
    }
    if best_h == 0 && legs.last().is_some() {
        let last = legs.len() - 1;
        legs[last] = to;
    }
    Some(legs)
}

/// The open cells within [`K_FIRST_STEP_CELLS`] of the walker's own that it can walk to
/// straight from `at`, as its walk would ([`walks_straight`]), each with its cost from the
/// walker's cell (Cohort's
/// choice). A walker wedged between bodies at the allowance may have no neighbouring cell open
/// (each an eighth of a tile one of the eight ways), where a step a little off those ways is
/// clear: a scout pressed into a gap between two idle skirmishers a hair narrower than its
/// allowance, the way out beside it open, found no way and stood 211 s
/// (`soak_34_a_scout_inside_idle_skirmishers`).
fn first_steps<'w>(
    s: &'w Stepper,
    w: &'w Window,
    at: Vec2,
) -> impl Iterator<Item = (usize, u32)> + 'w {
    let n = K_FIRST_STEP_CELLS;
    (HALF - n..=HALF + n)
        .flat_map(move |cy| (HALF - n..=HALF + n).map(move |cx| (cx, cy)))
        .filter(move |&(cx, cy)| (cx - HALF).abs().max((cy - HALF).abs()) > 1 && w.is_open(cx, cy))
        .filter(move |&(cx, cy)| walks_straight(s, at, w.point(cx, cy)))
        .filter_map(|(cx, cy)| {
            let (dx, dy) = ((cx - HALF).abs(), (cy - HALF).abs());
            let (lo, hi) = (dx.min(dy), dx.max(dy));
            let cost = u32::try_from(DIAGONAL as i64 * lo + STRAIGHT as i64 * (hi - lo)).ok()?;
            Some((Window::index(cx, cy)?, cost))
        })
}

/// Whether the walker of `s` walks straight from `at` to `p` in eight equal steps (a sixteenth of
/// a tile along an axis, a tenth at most), each on open ground and crowding nobody it was not as
/// near before the step.
fn walks_straight(s: &Stepper, at: Vec2, p: Vec2) -> bool {
    let d = p - at;
    let steps = 2 * K_FIRST_STEP_CELLS;
    let mut from = at;
    (1..=steps).all(|k| {
        let to = at + Vec2::new(d.x * k / steps, d.y * k / steps);
        let ok = s.open_step(from, to) && s.body_open(from, to) && !s.crowds(from, to);
        from = to;
        ok
    })
}

/// The cells round `at`, each open or not for the walker of `s`.
fn window(s: &Stepper, at: Vec2, leaves_out: &impl Fn(&crate::nav::Body) -> bool) -> Window {
    let mut w = Window {
        at,
        open: vec![true; (SIDE * SIDE) as usize],
    };
    let r = s.radius - super::apart::K_BODY_SLACK;
    // Closed ground: a cell is shut when a body there would overlap a closed tile that the body
    // does not overlap where it stands.
    let reach = K_SHORT_REACH + 1;
    let centre = at.tile();
    for ty in centre.y - reach..=centre.y + reach {
        for tx in centre.x - reach..=centre.x + reach {
            let t = Tile::new(tx, ty);
            if s.grid.passable(s.key, t) || overlaps_now(at, r, t) {
                continue;
            }
            // Cells whose middles lie within half a tile plus the body of the tile's middle.
            let (lo, hi) = (
                w.cell_of(Vec2::new(
                    Fx::from_num(tx) - fx_ratio(1, 2) - r,
                    Fx::from_num(ty) - fx_ratio(1, 2) - r,
                )),
                w.cell_of(Vec2::new(
                    Fx::from_num(tx) + fx_ratio(1, 2) + r,
                    Fx::from_num(ty) + fx_ratio(1, 2) + r,
                )),
            );
            for cy in lo.1.max(0)..=hi.1.min(SIDE - 1) {
                for cx in lo.0.max(0)..=hi.0.min(SIDE - 1) {
                    let p = w.point(cx, cy);
                    if (p.x - Fx::from_num(tx)).abs() < fx_ratio(1, 2) + r
                        && (p.y - Fx::from_num(ty)).abs() < fx_ratio(1, 2) + r
                    {
                        w.open[(cy * SIDE + cx) as usize] = false;
                    }
                }
            }
        }
    }
    // Bodies: shut the cells nearer a body than the allowance, or for one the walker is already
    // nearer than that, nearer than it stands now.
    let look = Fx::from_num(K_SHORT_REACH) + s.radius + s.widest;
    for b in s.survey.near(at, look) {
        if b.entity == s.me || leaves_out(b) {
            continue;
        }
        let allow = i128::from(s.allowance(b).to_bits());
        let now = squared(at - b.middle);
        let keep = (allow * allow).min(now);
        let reach = s.allowance(b);
        let lo = w.cell_of(b.middle - Vec2::new(reach, reach));
        let hi = w.cell_of(b.middle + Vec2::new(reach, reach));
        for cy in lo.1.max(0)..=hi.1.min(SIDE - 1) {
            for cx in lo.0.max(0)..=hi.0.min(SIDE - 1) {
                if squared(w.point(cx, cy) - b.middle) < keep {
                    w.open[(cy * SIDE + cx) as usize] = false;
                }
            }
        }
    }
    w.open[(HALF * SIDE + HALF) as usize] = true;
    w
}

/// Whether a box reaching `r` round `at` overlaps tile `t` (touching is not overlapping).
fn overlaps_now(at: Vec2, r: Fx, t: Tile) -> bool {
    let half = fx_ratio(1, 2);
    (at.x - Fx::from_num(t.x)).abs() < half + r && (at.y - Fx::from_num(t.y)).abs() < half + r
        || (tile_of(at.x) == t.x && tile_of(at.y) == t.y)
}

/// Whether the walker of `s`, standing at `at`, is shut in where it stands by the bodies `holds`
/// names and the closed ground about it: no way through the gaps between them, cell by cell as
/// [`short_way`] walks (eight ways, never cutting a corner, its first step off them), comes to
/// the edge of the window [`K_SHORT_REACH`] tiles round it (Cohort's choice: the route search,
/// tile by tile, found a way out of a block of idle enemy scouts round a scout, whose gaps were
/// all narrower than the keep-apart allowance, and it pressed against them for good:
/// `soak_81_…`, `walkers_shut_in_where_they_stand`).
pub fn shut_in_by(s: &Stepper, at: Vec2, holds: impl Fn(&crate::nav::Body) -> bool) -> bool {
    let w = window(s, at, &|b: &crate::nav::Body| !holds(b));
    let Some(s0) = Window::index(HALF, HALF) else {
        return false;
    };
    let mut seen = vec![false; (SIDE * SIDE) as usize];
    seen[s0] = true;
    let mut todo: Vec<usize> = vec![s0];
    for (m, _) in first_steps(s, &w, at) {
        if !seen[m] {
            seen[m] = true;
            todo.push(m);
        }
    }
    while let Some(k) = todo.pop() {
        let (cx, cy) = ((k as i64) % SIDE, (k as i64) / SIDE);
        if cx == 0 || cy == 0 || cx == SIDE - 1 || cy == SIDE - 1 {
            return false;
        }
        for (m, _) in w.steps(k) {
            if !seen[m] {
                seen[m] = true;
                todo.push(m);
            }
        }
    }
    true
}
