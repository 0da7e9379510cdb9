//! Someone on the goal (spec: "Walking a route", "Someone on the goal").
//!
//! A unit sent to a point another already stands on stops as it comes up against them, then
//! moves on to the nearest free place round the point that it can walk straight to: on square
//! rings [`K_RING_SPACING`] apart, out to [`K_RINGS`] rings, at most [`K_MOST_RING_TRIES`] times.
//! A villager walking to its work keeps the spot its work gave it (its walk has a target, and
//! this is never asked for it).

use super::apart::{Stepper, K_BODY_SLACK};
use crate::astar::body_clear;
use crate::grid::TileMarks;
use crate::id::find;
use crate::nav::{Body, View};
use crate::position::{fx, fx_ratio, squared, Fx, Tile, Vec2};

/// Rings round a taken goal lie this far apart: the spacing of a formation, 0.7 of a tile.
pub const K_RING_SPACING: Fx = fx_ratio(7, 10);
/// How many rings round a taken goal are tried.
pub const K_RINGS: i32 = 4;
/// How many times one order moves on to a free place round its goal.
pub const K_MOST_RING_TRIES: u8 = 4;
/// Walkers within this many tiles of a place are asked whether they are headed there. Cohort's
/// choice, not the spec's: the spec says only that the free place is one nobody is walking to,
/// and names no distance; walkers further off are not asked.
pub const K_HEADED_REACH: Fx = fx(6);

/// The point a walk on `route` by `u` was sent to: its move's point (the walk may be making
/// for a free place round it), else where the walk goes.
pub fn point_of(u: &crate::state::Unit, route: &crate::state::Route) -> Vec2 {
    match u.order {
        crate::state::Order::Move { to } | crate::state::Order::AttackMove { to }
            if route.target.is_none() =>
        {
            to
        }
        _ => route.goal,
    }
}

/// Whether a walker at `at` on `route`, a walk to a point, is within the rings round the point
/// ([`K_RINGS`] × [`K_RING_SPACING`]): where someone on the goal, or a crowd at it, stops it.
pub fn near_point(u: &crate::state::Unit, route: &crate::state::Route, at: Vec2) -> bool {
    route.target.is_none()
        && at.chebyshev(point_of(u, route)) <= K_RING_SPACING * i64::from(K_RINGS)
}

/// The standing body whose box a walker of the stepper's radius at `goal` would overlap.
pub fn taken_by<'a>(s: &'a Stepper<'a>, goal: Vec2) -> Option<&'a Body> {
    s.survey
        .near(goal, s.radius + s.widest)
        .find(|b| b.entity != s.me && !b.moving && goal.chebyshev(b.middle) < s.radius + b.radius)
}

/// Whether a walker at `at` has come up against `b`: their bodies touch.
pub fn up_against(s: &Stepper, at: Vec2, b: &Body) -> bool {
    let reach = i128::from((s.radius + b.radius).to_bits());
    squared(at - b.middle) <= reach * reach
}

/// The most tiles [`against_crowd_at`] looks over for the crowd to join the goal (Cohort's
/// choice: more than any crowd's tiles between a walker and its point, far fewer than a map's).
pub const K_CROWD_LOOK: usize = 1024;

/// Whether a walker at `at` has come up against a crowd standing at `goal`: a body standing,
/// touching it, on a tile joined (eight ways round, over tiles with someone standing) to the
/// goal's tile or one beside it — the spec's "a crowd at the goal", which a walker stops
/// against. Someone standing on the way, not joined to the goal, is walked round instead.
pub fn against_crowd_at(s: &Stepper, at: Vec2, goal: Vec2) -> bool {
    let Some(b) = s
        .survey
        .near(at, s.radius + s.widest)
        .find(|b| b.entity != s.me && !b.moving && up_against(s, at, b))
    else {
        return false;
    };
    let goal = goal.tile();
    // The tile's grid index when someone stands on it.
    let standing = |t: Tile| {
        let i = s.grid.index(t)? as u32;
        s.survey.on_tile(i).iter().any(|o| !o.moving).then_some(i)
    };
    // Tiles in the order they were found (a breadth-first look), and the same as a set.
    let first = b.middle.tile();
    let mut seen = vec![first];
    let mut found = TileMarks::new();
    if let Some(i) = s.grid.index(first) {
        found.insert(i as u32);
    }
    let mut k = 0;
    while k < seen.len() && seen.len() <= K_CROWD_LOOK {
        let t = seen[k];
        if (t.x - goal.x).abs() <= 1 && (t.y - goal.y).abs() <= 1 {
            return true;
        }
        for n in t.round() {
            if let Some(i) = standing(n) {
                if found.insert(i) {
                    seen.push(n);
                }
            }
        }
        k += 1;
    }
    false
}

/// The nearest free place round `goal` on the rings that a walker at `at` can walk straight to:
/// open ground, no body standing there, and no other walker headed there. `None` when every
/// ring is taken. Same world, same place.
pub fn free_place(view: View<'_>, s: &Stepper, at: Vec2, goal: Vec2) -> Option<Vec2> {
    for ring in 1..=K_RINGS {
        let mut places: Vec<(i128, i128, i32, i32, Vec2)> = Vec::new();
        for j in -ring..=ring {
            for i in -ring..=ring {
                if i.abs().max(j.abs()) != ring {
                    continue;
                }
                let p = Vec2::new(
                    goal.x + K_RING_SPACING * i64::from(i),
                    goal.y + K_RING_SPACING * i64::from(j),
                );
                places.push((squared(p - goal), squared(p - at), j, i, p));
            }
        }
        places.sort_unstable_by_key(|a| (a.0, a.1, a.2, a.3));
        for &(_, _, _, _, p) in &places {
            if free(view, s, p) && body_clear(s.grid, s.key, at, p, s.radius) {
                return Some(p);
            }
        }
    }
    None
}

/// Whether a body of the stepper's radius could stand at `p`: on open ground (the whole body,
/// tested [`K_BODY_SLACK`] inside its edge as every step is), nobody's box there, and nobody
/// walking there.
fn free(view: View<'_>, s: &Stepper, p: Vec2) -> bool {
    if !s
        .grid
        .passable_box(s.key, p, (s.radius - K_BODY_SLACK).max(Fx::ZERO))
    {
        return false;
    }
    let room_for = |b: &Body| s.radius + b.radius;
    let clear_of_bodies = s
        .survey
        .near(p, s.radius + s.widest + s.widest)
        .all(|b| b.entity == s.me || p.chebyshev(b.middle) >= room_for(b));
    clear_of_bodies
        && s.survey
            .near(p, K_HEADED_REACH)
            .filter(|b| b.moving && b.entity != s.me)
            .all(|b| {
                let headed = find(&view.state.units, b.entity, |u| u.id)
                    .and_then(|k| view.state.units[k].route.as_ref())
                    .and_then(|r| r.waypoints.last().copied());
                headed.is_none_or(|h| p.chebyshev(h) >= room_for(b))
            })
}
