//! Chases (spec: "Chases"): the routing of a soldier closing on a moving enemy. Combat decides
//! when a chase starts and ends; a chase plans as soon as it starts, then again after
//! [`replan_wait`] (about [`K_CHASE_REPLAN_MS`]), or at once when its walk has run out.
//!
//! Far chasers (beyond [`K_CHASE_NEAR`]) plan less: they keep their walk while the target stays
//! within [`K_CHASE_DRIFT`] of its end or is a building, else turn the last leg straight to the
//! target when the body can go straight, and only then search — sharing a chase planned in this
//! combat pass when they may, and marching abreast in lanes ([`keep_lane`]). Within
//! [`K_SURROUND_NEAR`] of a unit it fights hand to hand, a chaser makes for a place of its own
//! round the target's body through the standing-spot planner; a building, or a unit standing
//! where the chaser cannot go, is reached the same way at its edge.

use super::beside::{may_share, SharedWalk};
use super::reach::{box_of, reach_gap, K_INSIDE};
use super::route::{region_here, route_for, Ask};
use super::spot::{find_standing_spot, stands_in, Approach, Spot, K_ROUNDING};
use super::{Tick, View};
use crate::astar::body_clear;
use crate::id::EntityId;
use crate::position::{fx, squared, tile_of, Bounds, Fx, Vec2};
use crate::state::{Order, Route};

/// A chase plans again about this often, in milliseconds.
pub const K_CHASE_REPLAN_MS: u64 = 500;
/// Chase waits are staggered by patches of this many tiles square.
pub const K_CHASE_PATCH: i32 = 4;
/// Each of a patch's eight places in the cycle waits this much less, in milliseconds (a tick).
pub const K_CHASE_STAGGER_MS: u64 = 16;
/// A chaser further than this from its target (tiles) plans less.
pub const K_CHASE_NEAR: Fx = fx(5);
/// A far chaser keeps its walk while its target stays this near the walk's end (tiles).
pub const K_CHASE_DRIFT: Fx = fx(1);
/// Chasers of one far target within this many tiles of each other march as a group.
pub const K_GROUP_REACH: Fx = fx(8);
/// A lane lies at most this many tiles to the side.
pub const K_WIDEST_LANE: Fx = fx(4);
/// Within this many tiles of the target, lanes close up.
pub const K_LANES_CLOSE: Fx = fx(6);
/// Within this many tiles of a unit it fights hand to hand (of its range, for a shooter), a
/// chaser makes for its own place.
pub const K_SURROUND_NEAR: Fx = fx(3);
/// Every place round a target taken, a chaser (a worker at its work too) waits a body's width
/// further out, and failing that another body's width out, up to this many rings (Cohort's
/// choice: the spec names one; a hundred soldiers round one building fill more). Past the spec's ring a chaser waits on its
/// own face only, leaving the way round open to those walking to a place on another side.
pub const K_WAITING_RINGS: usize = 3;
/// A chaser held up this long on its way (two seconds) no longer keeps the place it walks to
/// from the others (Cohort's choice).
pub const K_CLAIM_HELD_TICKS: u64 = 2000 / crate::state::TICK_MS as u64;
/// A group marches in lanes only when it is at least this many chasers.
pub const K_LANE_GROUP: usize = 3;
/// A chase planned again to a place within this of the one it walks to (half a tile, either
/// way) is the same walk, held up as long as before; a chaser told to wait at a place within
/// this of where it stands waits where it stands, with no walk to plan (Cohort's choice).
pub const K_SAME_PLACE: Fx = crate::position::fx_ratio(1, 2);

/// How long a chaser standing at `at` waits before planning again, in milliseconds: the spec's
/// `ReplanWait`, 500 ms less a tick for each of eight places its patch takes in a cycle.
pub fn replan_wait(at: Vec2) -> u64 {
    let px = tile_of(at.x) / K_CHASE_PATCH;
    let py = tile_of(at.y) / K_CHASE_PATCH;
    K_CHASE_REPLAN_MS - ((px + 3 * py) & 7) as u64 * K_CHASE_STAGGER_MS
}

/// A chase planned in this tick's combat pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedChase {
    pub target: EntityId,
    pub walk: SharedWalk,
}

/// What a unit is set on: the enemy it fights (on an attack-move or hold) and the target its
/// order attacks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetOn {
    fight: Option<EntityId>,
    attacks: Option<EntityId>,
}

impl SetOn {
    pub fn of(u: &crate::state::Unit) -> SetOn {
        let attacks = match u.order {
            Order::Attack { target } => Some(target),
            _ => None,
        };
        SetOn {
            fight: u.fight,
            attacks,
        }
    }

    /// Whether it is set on `target`.
    pub fn on(self, target: EntityId) -> bool {
        self.fight == Some(target) || self.attacks == Some(target)
    }
}

/// The places in the state's list of the units set on `target`, in order, from the combat
/// pass's filing ([`crate::nav::NavCaches::set_on`]), but for unit `i`, the one fighting, whose
/// own record is read (it may have just been set on `target`).
fn set_on_target(view: View<'_>, i: usize, target: EntityId) -> impl Iterator<Item = usize> + '_ {
    let set = &view.nav.set_on;
    debug_assert_eq!(
        set.len(),
        view.state.units.len(),
        "filed by the combat pass"
    );
    let me = SetOn::of(&view.state.units[i]);
    (0..set.len()).filter(move |&k| if k == i { me } else { set[k] }.on(target))
}

/// What a chase's planning came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChasePlan {
    /// The walk; `None` when there is no way.
    pub route: Option<Route>,
    /// The walk leads to a waiting place a body's width further out, every place round the
    /// target being taken: standing there is not a walk run out, and the chaser plans again only
    /// when its [`replan_wait`] is over.
    pub waits: bool,
    /// Whether a walk was planned: searched, shared or turned. A far chaser that keeps its walk,
    /// or one told to wait where it stands, plans nothing, and is no replan.
    pub planned: bool,
}

impl ChasePlan {
    fn walk(route: Option<Route>) -> ChasePlan {
        ChasePlan {
            route,
            waits: false,
            planned: true,
        }
    }
}

/// Plans unit `i`'s chase of `target`, to end within `range` of its box. Same world, same plan.
pub fn plan_chase(tick: &mut Tick<'_>, i: usize, target: EntityId, range: Fx) -> ChasePlan {
    plan_route(tick, i, target, range).unwrap_or(ChasePlan::walk(None))
}

fn plan_route(tick: &mut Tick<'_>, i: usize, target: EntityId, range: Fx) -> Option<ChasePlan> {
    let u = &tick.state.units[i];
    let kind = &tick.rules.unit(u.kind);
    let (me, at, radius, melee, packs) = (u.id, u.position, kind.radius, kind.melee, kind.packs);
    let key = tick.key_of(u);
    let tbox = box_of(tick.view(), target)?;
    let tmid = tbox.middle();
    let gap = reach_gap(&Bounds::around(at, radius), &tbox);
    let building = tick.state.building(target).is_some();
    let region = region_here(tick.regions, tick.grid(), key, at.tile());
    // A building, or a unit standing where the chaser cannot go, is reached at its edge.
    let at_its_edge = packs || building || !stands_in(tick.view(), key, region, tmid, radius);
    let ask = Ask {
        unit: me,
        from: at,
        to: tmid,
        target: Some(target),
        range,
    };
    if gap > K_CHASE_NEAR && !packs {
        if let Some(r) = u.route.as_ref().filter(|r| !r.waypoints.is_empty()) {
            if (building && still_stands(tick.view(), i, r.goal))
                || r.goal.distance(tmid) <= K_CHASE_DRIFT
            {
                return Some(ChasePlan {
                    planned: false,
                    ..ChasePlan::walk(Some(r.clone()))
                });
            }
            let n = r.waypoints.len();
            let leg_from = if n >= 2 { r.waypoints[n - 2] } else { at };
            if !at_its_edge && body_clear(tick.grid(), key, leg_from, tmid, radius) {
                let mut r = r.clone();
                r.waypoints[n - 1] = tmid;
                r.goal = tmid;
                return Some(ChasePlan::walk(Some(r)));
            }
        }
        let grid = tick.grid();
        let shared = tick.nav.shared_chases.iter().find(|s| {
            s.target == target
                && may_share(&s.walk, at, s.walk.to, key, radius)
                && s.walk
                    .route
                    .waypoints
                    .first()
                    .is_some_and(|&bend| body_clear(grid, key, at, bend, radius))
        });
        if let Some(s) = shared {
            tick.counters.shared_walks += 1;
            return Some(ChasePlan::walk(Some(s.walk.route.clone())));
        }
        let (to, waits) = if at_its_edge {
            place_round(tick.view(), i, target, &tbox, range)?
        } else {
            (tmid, false)
        };
        let mut route = route_for(tick, &Ask { to, ..ask })?;
        keep_lane(tick.view(), i, target, &mut route);
        tick.nav.shared_chases.push(SharedChase {
            target,
            walk: SharedWalk {
                from: at,
                to: tmid,
                key,
                radius,
                route: route.clone(),
            },
        });
        return Some(ChasePlan {
            route: Some(route),
            waits,
            planned: true,
        });
    }
    // Within its range and a little of a unit, a shooter makes for a place of its own at its
    // range as a soldier does hand to hand (Cohort's choice: walking straight at the target,
    // those behind stop against the first to stand in range, out of range, for good).
    let surround_near = if melee {
        K_SURROUND_NEAR
    } else {
        range + K_SURROUND_NEAR
    };
    // One making for a place already goes on making for one while it stands within
    // K_CHASE_NEAR (Cohort's choice: at the edge of surround_near a chaser jostled to and fro
    // turned between its place, round one side of what stood between, and the target's middle,
    // round the other, every half second; allowed K_CHASE_DRIFT beyond the edge, followers whose
    // place lay round a clump of idle friends walked the way round out past it, turned back to
    // the middle, and so on to the scene's end: soak seed 532).
    let making_for_a_place = tick.state.units[i]
        .route
        .as_ref()
        .is_some_and(|r| r.target == Some(target) && !r.settle && r.goal != tmid);
    if at_its_edge || gap <= surround_near || making_for_a_place {
        if let Some((p, waits)) = place_round(tick.view(), i, target, &tbox, range) {
            if waits && p.chebyshev(at) <= K_SAME_PLACE {
                return Some(ChasePlan {
                    route: None,
                    waits,
                    planned: false,
                });
            }
            let route = route_for(tick, &Ask { to: p, ..ask });
            return Some(ChasePlan {
                route,
                waits,
                planned: true,
            });
        }
    }
    Some(ChasePlan::walk(route_for(tick, &ask)))
}

/// Whether unit `i` could still stand at `p`, a place planned earlier: its ground may have
/// closed since (Cohort's choice: a mangonel sent at a town centre kept its walk to a place a
/// house was built on meanwhile, and stood against the house for good: soak seed 5032,
/// `soak_5032_a_mangonel_whose_place_a_house_took`).
pub fn still_stands(view: View<'_>, i: usize, p: Vec2) -> bool {
    let u = &view.state.units[i];
    let key = view.key_of(u);
    let radius = view.rules.radius_of(u.kind);
    let region = region_here(view.regions, view.grid(), key, u.position.tile());
    stands_in(view, key, region, p, radius)
}

/// A place of unit `i`'s own round `target`'s box, `range` out: clear of where the others set on
/// it stand or are headed; every spot taken, a body's width further out, to wait (then `true`).
fn place_round(
    view: View<'_>,
    i: usize,
    target: EntityId,
    tbox: &Bounds,
    range: Fx,
) -> Option<(Vec2, bool)> {
    let u = &view.state.units[i];
    let radius = view.rules.radius_of(u.kind);
    let key = view.key_of(u);
    let region = region_here(view.regions, view.grid(), key, u.position.tile());
    // Where the others stand, or are headed while they get on: one held up on its way keeps no
    // claim (Cohort's choice: a place spoken for by a chaser stuck in the crowd behind would
    // stay empty for good, and those waiting beside it wait for good).
    let now = view.state.tick;
    let mut taken: Vec<Vec2> = set_on_target(view, i, target)
        .filter(|&k| k != i)
        .map(|k| &view.state.units[k])
        .filter(|o| o.hit_points > 0)
        .map(|o| match &o.route {
            Some(r) if crate::state::held_ticks(r, now) < K_CLAIM_HELD_TICKS => r.goal,
            _ => o.position,
        })
        .collect();
    let room = radius * 2;
    // Where anyone else stands still round the target is taken too, friend or enemy (Cohort's
    // choice: a place behind an enemy standing beside the target is one the chaser never
    // reaches, and it would walk at it for good). A friend's place is spoken for, a chaser's
    // width round its middle; a place is clear of an enemy by their two radii, body beside body
    // (Cohort's choice: counted as spoken for, every place round an archer in a clump of archers
    // was taken, and scouts waited beside the clump for good: `attack_movers_at_a_clump`).
    let reach = (tbox.max.x - tbox.min.x).max(tbox.max.y - tbox.min.y)
        + range.max(Fx::ZERO)
        + room * Fx::from_num(K_WAITING_RINGS + 2);
    let friends = view.state.friends(u.owner);
    let mut standing: Vec<(Vec2, i128)> = Vec::new();
    for b in view.nav.survey.near(tbox.middle(), reach) {
        if b.moving || b.entity == u.id || b.entity == target {
            continue;
        }
        if friends.contains(b.owner) {
            taken.push(b.middle);
        } else {
            let apart = i128::from((radius + b.radius).to_bits());
            standing.push((b.middle, apart * apart));
        }
    }
    let clear = |p: Vec2| standing.iter().all(|&(m, apart)| squared(p - m) >= apart);
    // The place it walks to, still free and in range, is kept (Cohort's choice, as the spec's
    // standing spots are chosen "so the answer stays stable while they walk": asked again from
    // a step further on, the nearest free point of the edge may be another, and a chaser in a
    // crowd turned from one to the other every half second).
    let walked_to = u
        .route
        .as_ref()
        .filter(|r| r.target == Some(target) && !r.settle)
        .map(|r| r.goal)
        .filter(|&p| {
            !taken.iter().any(|t| t.chebyshev(p) < room - K_ROUNDING)
                && clear(p)
                && stands_in(view, key, region, p, radius)
        });
    let gap = |p: Vec2| reach_gap(&Bounds::around(p, radius), tbox);
    if let Some(p) = walked_to.filter(|&p| gap(p) <= range) {
        return Some((p, false));
    }
    // So is a waiting place it walks to, still free and within the waiting rings, while no place
    // to fight from is free (Cohort's choice, as above: asked again every half second from a
    // step further on, a scout walking to a waiting place took the one on the other side of
    // its target each time, and walked to and fro between the two for 13 s).
    let waiting_at = walked_to
        .filter(|&p| gap(p) > range && gap(p) <= range + room * Fx::from_num(K_WAITING_RINGS));
    let mut outside = range.max(Fx::ZERO) + radius - K_INSIDE;
    // A shooter looks first nearer in than its range line, a body's width in and on inwards, for
    // open ground within its range that it can walk to straight; only with none there does it
    // take a place on the line itself (the rings below, the first), then wait (Cohort's choice,
    // the orders issue's "a firing place in range": a trebuchet whose range line ran through a
    // block of its own idle infantry waited out of range while the lane between the line and the
    // target stood empty). Looking at the line first is the order the issue reads more naturally;
    // this order is the one measured (BENCHMARKS.md).
    if let Some(p) = nearer_in(view, i, tbox, outside, room, &taken, &clear) {
        return Some((p, false));
    }
    for ring in 0..=K_WAITING_RINGS {
        let waits = ring > 0;
        if let Some(p) = waiting_at.filter(|_| waits) {
            return Some((p, true));
        }
        let approach = Approach {
            ground: *tbox,
            from: u.position,
            outside,
            room,
            taken: &taken,
            own_face_only: ring > 1,
        };
        // A place to fight from is within range of the target; one to wait at need not be.
        let stands = |p: Vec2| {
            (waits || reach_gap(&Bounds::around(p, radius), tbox) <= range)
                && clear(p)
                && stands_in(view, key, region, p, radius)
        };
        if let Spot::Found(p) = find_standing_spot(&approach, stands) {
            return Some((p, waits));
        }
        outside += room;
    }
    None
}

/// A place for unit `i` to fight `tbox` from nearer in than its range line (`outside` from the
/// box): on the rings a body's width (`room`) at a time further in, down to the box's edge, on
/// the side it comes from first, clear of `taken` and of the bodies `clear` keeps it from, and
/// with nobody standing on the straight way there ([`way_open`]: a place behind those already
/// shooting is none to walk to). `None` when none is free, or the unit fights hand to hand (its
/// range line is the edge).
fn nearer_in(
    view: View<'_>,
    i: usize,
    tbox: &Bounds,
    outside: Fx,
    room: Fx,
    taken: &[Vec2],
    clear: &impl Fn(Vec2) -> bool,
) -> Option<Vec2> {
    let u = &view.state.units[i];
    let radius = view.rules.radius_of(u.kind);
    let key = view.key_of(u);
    let region = region_here(view.regions, view.grid(), key, u.position.tile());
    let edge = radius - K_INSIDE;
    let mut inner = outside - room;
    while inner >= edge {
        let approach = Approach {
            ground: *tbox,
            from: u.position,
            outside: inner,
            room,
            taken,
            own_face_only: false,
        };
        let stands =
            |p: Vec2| clear(p) && stands_in(view, key, region, p, radius) && way_open(view, i, p);
        if let Spot::Found(p) = find_standing_spot(&approach, stands) {
            return Some(p);
        }
        inner -= room;
    }
    None
}

/// Whether unit `i` can walk straight to `p` past everyone standing: no standing body lies
/// nearer the line than the keep-apart allowance of their two radii.
fn way_open(view: View<'_>, i: usize, p: Vec2) -> bool {
    let u = &view.state.units[i];
    let (at, radius) = (u.position, view.rules.radius_of(u.kind));
    let line = p - at;
    let along = line.dot(line);
    let half = Vec2::new((p.x - at.x).abs() / 2, (p.y - at.y).abs() / 2);
    let middle = Vec2::new((at.x + p.x) / 2, (at.y + p.y) / 2);
    let widest = view.nav.survey.widest();
    let reach = half + Vec2::new(radius + widest, radius + widest);
    view.nav.survey.near_box(middle, reach).all(|b| {
        if b.moving || b.entity == u.id {
            return true;
        }
        let t = if along == Fx::ZERO {
            Fx::ZERO
        } else {
            ((b.middle - at).dot(line) / along).clamp(Fx::ZERO, fx(1))
        };
        let apart = (radius + b.radius) * super::survey::K_KEEP_APART;
        let a = i128::from(apart.to_bits());
        squared(at + line * t - b.middle) >= a * a
    })
}

/// Lays a far chaser's bends off to the side when it is one of a group of [`K_LANE_GROUP`] or
/// more set on one far target within [`K_GROUP_REACH`] of each other (the spec's `KeepLane`): by
/// where it stands across the group, up to [`K_WIDEST_LANE`], less and less towards the target
/// and not at all within [`K_LANES_CLOSE`] of it, only where the ground lets the body go straight
/// to and from the moved bend.
pub fn keep_lane(view: View<'_>, i: usize, target: EntityId, route: &mut Route) {
    let u = &view.state.units[i];
    let Some(tbox) = box_of(view, target) else {
        return;
    };
    let tmid = tbox.middle();
    let at = u.position;
    let group: Vec<Vec2> = set_on_target(view, i, target)
        .map(|k| &view.state.units[k])
        .filter(|o| {
            o.hit_points > 0
                && o.position.chebyshev(at) <= K_GROUP_REACH
                && o.position.distance(tmid) > K_CHASE_NEAR
        })
        .map(|o| o.position)
        .collect();
    if group.len() < K_LANE_GROUP || route.waypoints.len() < 2 {
        return;
    }
    let n = Fx::from_num(group.len() as i64);
    let sum = group.iter().fold(Vec2::ZERO, |s, &p| s + p);
    let middle = Vec2::new(sum.x / n, sum.y / n);
    let across = (tmid - middle).perp().with_length(fx(1));
    if across == Vec2::ZERO {
        return;
    }
    let offset = (at - middle)
        .dot(across)
        .clamp(-K_WIDEST_LANE, K_WIDEST_LANE);
    let total = at.distance(tmid) - K_LANES_CLOSE;
    if total <= Fx::ZERO {
        return;
    }
    let u_kind = &view.rules.unit(u.kind);
    let key = view.key_of(u);
    let last = route.waypoints.len() - 1;
    for k in 0..last {
        let bend = route.waypoints[k];
        let d = bend.distance(tmid) - K_LANES_CLOSE;
        if d <= Fx::ZERO {
            continue;
        }
        let share = (d / total).min(fx(1));
        let moved = bend + across * (offset * share);
        let prev = if k == 0 { at } else { route.waypoints[k - 1] };
        let next = route.waypoints[k + 1];
        let grid = view.grid();
        if body_clear(grid, key, prev, moved, u_kind.radius)
            && body_clear(grid, key, moved, next, u_kind.radius)
        {
            route.waypoints[k] = moved;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replan_wait_matches_the_spec_table() {
        let table = [
            [500, 484, 468, 452],
            [452, 436, 420, 404],
            [404, 388, 500, 484],
            [484, 468, 452, 436],
        ];
        for (py, row) in table.iter().enumerate() {
            for (px, &want) in row.iter().enumerate() {
                let at = Vec2::new(fx(px as i32 * 4 + 1), fx(py as i32 * 4 + 2));
                assert_eq!(replan_wait(at), want, "patch ({px}, {py})");
            }
        }
    }
}
