//! Pulling the route straight (spec: "Pulling the route straight", "Who stands in the way").
//!
//! The search gives a chain of tile centres. Starting from the unit's own position, each point
//! kept is joined to the furthest of the following points it can see, one after another, so the
//! route becomes the fewest straight lines the body can walk; the last is the exact destination
//! when it was reached. "Can see" is [`body_clear`], and a line may go through a standing unit
//! only if the search walked across its tile or it stands where the walk starts or ends; past any
//! other, the line keeps half the walker's radius clear of that unit's box.

use super::clear::body_clear;
use crate::grid::{Grid, Keyed};
use crate::position::{Bounds, Fx, Tile, Vec2};
use std::cmp::Ordering;

/// A unit standing in the way, as the straightening sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StandingBody {
    /// The tile its middle stands on.
    pub tile: Tile,
    /// Its body.
    pub bounds: Bounds,
}

/// The walker and what it walks past.
#[derive(Clone, Copy, Debug)]
pub struct Walker<'a> {
    pub key: Keyed,
    /// The walker's radius.
    pub radius: Fx,
    /// Everyone standing in the way (the search's standing units).
    pub standing: &'a [StandingBody],
}

/// The straight legs of a route found over `path` (tiles from the start's to the end's),
/// walked from `from`; `goal` is the exact destination when the search reached it. Empty when
/// the path is a single tile and the goal was not reached. Same inputs, same legs, every machine.
pub fn straighten(
    grid: &Grid,
    walker: &Walker,
    from: Vec2,
    path: &[Tile],
    goal: Option<Vec2>,
) -> Vec<Vec2> {
    // The tile centres after the start's, then the exact goal when it was reached. The goal
    // tile's centre stays as a point of its own: a body that cannot see the exact goal from
    // further off walks to its tile's middle first.
    let mut points: Vec<Vec2> = path.iter().skip(1).map(|&t| Vec2::of_tile(t)).collect();
    if let Some(g) = goal {
        if points.last() != Some(&g) {
            points.push(g);
        }
    }
    // Standing units a line must keep clear of: all but those on the walked tiles.
    let margin = walker.radius / 2;
    let keep_clear: Vec<Bounds> = walker
        .standing
        .iter()
        .filter(|s| !path.contains(&s.tile))
        .map(|s| s.bounds.widened(margin))
        .collect();
    let sees = |a: Vec2, b: Vec2| {
        body_clear(grid, walker.key, a, b, walker.radius)
            && !keep_clear.iter().any(|bx| segment_enters(a, b, bx))
    };

    let mut legs = Vec::new();
    let mut at = from;
    let mut next = 0;
    while next < points.len() {
        let seen = furthest_in_sight(&points[next..], |p| sees(at, p)).map(|j| next + j);
        if seen.is_none() {
            // Nothing in sight (a body standing off its tile's middle, against closed ground):
            // first to the middle of the tile it stands on, from which the search's steps are
            // walkable, and look again from there.
            let centre = Vec2::of_tile(at.tile());
            if centre != at && sees(at, centre) {
                legs.push(centre);
                at = centre;
                continue;
            }
        }
        // The next point at worst.
        let chosen = seen.unwrap_or(next);
        legs.push(points[chosen]);
        at = points[chosen];
        next = chosen + 1;
    }
    legs
}

/// How many following points a kept point looks over at a time for the furthest in sight (a
/// stretch; Cohort's choice, not the walk's `K_LOOK_AHEAD`).
pub const K_STRETCH_POINTS: usize = 32;
/// How many stretches of [`K_STRETCH_POINTS`] points in a row with their far end hidden a kept point
/// looks past before it stops looking further.
pub const K_HIDDEN_STRETCHES: usize = 8;

/// The furthest of `points` that `sees` (an index into them), `None` when none is in sight.
///
/// The last is asked first. Otherwise the points are looked over in stretches of
/// [`K_STRETCH_POINTS`], asking each stretch's far end: one in sight is the furthest so far, and
/// the look goes on; the first stretch after it whose far end is hidden is looked over from its
/// far end back for the furthest point in sight in it, and the look goes on past it, asking
/// only the far ends of the stretches beyond, until one is in sight again or
/// [`K_HIDDEN_STRETCHES`] in a row are hidden. So a route that goes behind something and comes
/// back into sight is joined to where it comes back, and a kept point asks about a bounded
/// number of points near it plus one for every stretch it sees past.
fn furthest_in_sight(points: &[Vec2], mut sees: impl FnMut(Vec2) -> bool) -> Option<usize> {
    let last = points.len().checked_sub(1)?;
    if sees(points[last]) {
        return Some(last);
    }
    let mut seen = None;
    let mut hidden = 0;
    let mut start = 0;
    while start < last {
        let end = (start + K_STRETCH_POINTS).min(last) - 1;
        if sees(points[end]) {
            seen = Some(end);
            hidden = 0;
        } else {
            if hidden == 0 {
                if let Some(j) = (start..end).rev().find(|&j| sees(points[j])) {
                    seen = Some(j);
                }
            }
            hidden += 1;
            if hidden == K_HIDDEN_STRETCHES {
                break;
            }
        }
        start = end + 1;
    }
    seen
}

/// Whether the segment from `a` to `b` passes through the inside of box `bx` (touching its edge
/// is not entering). Exact: compares parameters along the segment as fractions in 128 bits.
pub fn segment_enters(a: Vec2, b: Vec2, bx: &Bounds) -> bool {
    // The segment's parameter t runs 0..1; keep [lo, hi] as fractions num/den with den > 0.
    let (mut lo_n, mut lo_d) = (0i128, 1i128);
    let (mut hi_n, mut hi_d) = (1i128, 1i128);
    for (p0, p1, min, max) in [
        (a.x, b.x, bx.min.x, bx.max.x),
        (a.y, b.y, bx.min.y, bx.max.y),
    ] {
        let (p0, p1) = (i128::from(p0.to_bits()), i128::from(p1.to_bits()));
        let (min, max) = (i128::from(min.to_bits()), i128::from(max.to_bits()));
        let d = p1 - p0;
        if d == 0 {
            if p0 <= min || p0 >= max {
                return false;
            }
            continue;
        }
        // Entering and leaving the open slab (min, max) along this axis.
        let (mut en, mut ex) = ((min - p0, d), (max - p0, d));
        if d < 0 {
            std::mem::swap(&mut en, &mut ex);
        }
        let (en, ex) = (positive_den(en), positive_den(ex));
        if less(lo_n, lo_d, en.0, en.1) {
            (lo_n, lo_d) = en;
        }
        if less(ex.0, ex.1, hi_n, hi_d) {
            (hi_n, hi_d) = ex;
        }
    }
    less(lo_n, lo_d, hi_n, hi_d)
}

fn positive_den((n, d): (i128, i128)) -> (i128, i128) {
    if d < 0 {
        (-n, -d)
    } else {
        (n, d)
    }
}

/// Whether a/b < c/d for positive b and d.
fn less(a: i128, b: i128, c: i128, d: i128) -> bool {
    (a * d).cmp(&(c * b)) == Ordering::Less
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::astar::K_MIN_BODY_RADIUS;
    use crate::grid::Occupant;
    use crate::id::EntityId;
    use crate::position::{fx, fx_ratio};
    use crate::ruleset::Ruleset;

    fn p(x: i32, y: i32) -> Vec2 {
        Vec2::new(fx(x), fx(y))
    }

    #[test]
    fn a_segment_through_a_box_enters_it_and_one_beside_it_does_not() {
        let bx = Bounds::around(p(5, 5), fx(1));
        assert!(segment_enters(p(0, 5), p(10, 5), &bx));
        assert!(segment_enters(p(0, 0), p(10, 10), &bx));
        assert!(!segment_enters(p(0, 6), p(10, 6), &bx), "along an edge");
        assert!(!segment_enters(p(0, 8), p(10, 7), &bx));
        assert!(!segment_enters(p(0, 5), p(3, 5), &bx), "stops short");
        assert!(segment_enters(p(5, 5), p(5, 5), &bx), "a point inside");
    }

    #[test]
    fn an_open_field_is_one_straight_leg_to_the_exact_goal() {
        let rules = Ruleset::default_rules();
        let g = Grid::new(&rules, 12, 12, rules.terrain("grass").unwrap());
        let path: Vec<Tile> = (1..=9).map(|i| Tile::new(i, 1 + i / 2)).collect();
        let walker = Walker {
            key: Keyed::unkeyed(0),
            radius: fx_ratio(1, 5),
            standing: &[],
        };
        let goal = Vec2::new(fx_ratio(93, 10), fx_ratio(52, 10));
        let legs = straighten(&g, &walker, p(1, 1), &path, Some(goal));
        assert_eq!(legs, vec![goal]);
    }

    #[test]
    fn a_kept_point_looks_past_a_hidden_point_to_the_furthest_in_sight() {
        // A chain that goes round a closed tile and back up: from the start its fourth and
        // fifth points are hidden behind the tile, its sixth and seventh in sight again, the
        // rest hidden. The first leg goes to the seventh, not to the third (the last before
        // the first hidden one).
        let rules = Ruleset::default_rules();
        let mut g = Grid::new(&rules, 12, 4, rules.terrain("grass").unwrap());
        g.set_occupant(Tile::new(4, 2), Occupant::Building(EntityId(1)));
        let path: Vec<Tile> = [
            (1, 2),
            (2, 2),
            (3, 1),
            (4, 1),
            (5, 1),
            (6, 1),
            (7, 0),
            (8, 0),
            (9, 1),
            (10, 2),
        ]
        .map(|(x, y)| Tile::new(x, y))
        .to_vec();
        let walker = Walker {
            key: Keyed::unkeyed(0),
            radius: K_MIN_BODY_RADIUS,
            standing: &[],
        };
        let from = p(1, 2);
        let points: Vec<Vec2> = path[1..].iter().map(|&t| Vec2::of_tile(t)).collect();
        let sees = |q: Vec2| body_clear(&g, walker.key, from, q, walker.radius);
        let first_hidden = points.iter().position(|&q| !sees(q)).unwrap();
        let furthest = points.iter().rposition(|&q| sees(q)).unwrap();
        assert_eq!((first_hidden, furthest), (3, 6), "the chain is as drawn");
        let legs = straighten(&g, &walker, from, &path, Some(p(10, 2)));
        assert_eq!(legs[0], p(8, 0), "{legs:?}");
        assert_eq!(*legs.last().unwrap(), p(10, 2));
        let mut at = from;
        for &l in &legs {
            assert!(body_clear(&g, walker.key, at, l, walker.radius));
            at = l;
        }
    }

    #[test]
    fn the_furthest_in_sight_is_found_past_stretches_and_hidden_points() {
        // Points in a row, `sees` told which are in sight: the look goes past hidden points and
        // past whole stretches whose far end is hidden, and stops after K_HIDDEN_STRETCHES.
        let pts: Vec<Vec2> = (0..400).map(|i| p(i, 0)).collect();
        let find = |seen: &dyn Fn(usize) -> bool, n: usize| {
            furthest_in_sight(&pts[..n], |q| seen(q.x.to_num::<i32>() as usize))
        };
        assert_eq!(find(&|i| i == 9, 400), Some(9));
        assert_eq!(find(&|i| i == 9 || i == 399, 400), Some(399));
        assert_eq!(find(&|i| i < 3 || i == 7, 20), Some(7));
        assert_eq!(find(&|_| false, 20), None);
        assert_eq!(find(&|_| false, 0), None);
        // Back in sight at the far end of the fourth stretch, three hidden stretches past.
        let end_4 = 4 * K_STRETCH_POINTS - 1;
        assert_eq!(find(&|i| i < 5 || i == end_4, 400), Some(end_4));
        // Past K_HIDDEN_STRETCHES hidden far ends the look stops.
        let beyond = (K_HIDDEN_STRETCHES + 1) * K_STRETCH_POINTS - 1;
        assert_eq!(find(&|i| i < 5 || i == beyond, 400), Some(4));
    }

    #[test]
    fn a_route_round_a_wall_bends_once_at_its_end() {
        let rules = Ruleset::default_rules();
        let mut g = Grid::new(&rules, 12, 12, rules.terrain("grass").unwrap());
        for y in 0..8 {
            g.set_occupant(Tile::new(5, y), Occupant::Building(EntityId(1)));
        }
        // Down beside the wall, round its end, and back up.
        let mut path = vec![];
        for y in 2..=8 {
            path.push(Tile::new(4, y));
        }
        path.push(Tile::new(5, 8));
        for y in (2..=8).rev() {
            path.push(Tile::new(6, y));
        }
        let walker = Walker {
            key: Keyed::unkeyed(0),
            radius: fx_ratio(1, 5),
            standing: &[],
        };
        let legs = straighten(&g, &walker, p(4, 2), &path, Some(p(6, 2)));
        assert!(legs.len() >= 2 && legs.len() <= 3, "{legs:?}");
        assert_eq!(*legs.last().unwrap(), p(6, 2));
        let mut at = p(4, 2);
        for &l in &legs {
            assert!(body_clear(&g, walker.key, at, l, walker.radius));
            at = l;
        }
    }

    #[test]
    fn a_line_keeps_clear_of_a_unit_standing_off_the_walked_tiles() {
        let rules = Ruleset::default_rules();
        let g = Grid::new(&rules, 12, 12, rules.terrain("grass").unwrap());
        // An L-shaped chain of tiles; a unit stands inside the bend, off the chain.
        let mut path: Vec<Tile> = (1..=6).map(|x| Tile::new(x, 1)).collect();
        path.extend((2..=6).map(|y| Tile::new(6, y)));
        let standing = [StandingBody {
            tile: Tile::new(4, 4),
            bounds: Bounds::around(p(4, 4), fx_ratio(1, 5)),
        }];
        let free = Walker {
            key: Keyed::unkeyed(0),
            radius: fx_ratio(1, 5),
            standing: &[],
        };
        assert_eq!(
            straighten(&g, &free, p(1, 1), &path, Some(p(6, 6))),
            vec![p(6, 6)]
        );
        let blocked = Walker {
            standing: &standing,
            ..free
        };
        let legs = straighten(&g, &blocked, p(1, 1), &path, Some(p(6, 6)));
        assert!(legs.len() >= 2, "{legs:?}");
        let mut at = p(1, 1);
        for &l in &legs {
            assert!(!segment_enters(
                at,
                l,
                &standing[0].bounds.widened(fx_ratio(1, 10))
            ));
            at = l;
        }
    }
}
