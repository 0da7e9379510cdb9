//! A body left standing inside another steps out (Cohort's choice, not the spec's).
//!
//! Walkers keep apart and nobody standing is pushed, so two bodies that come to stand inside
//! each other's allowance stay so for good: two walkers given one free place round a point, a
//! follower stopping where every place round its friend is taken, units placed or spawned so. A unit with no walk,
//! not pushed and not holding its ground (the spec's hold stays put), that stands nearer than
//! the keep-apart allowance to a body standing still walks to the nearest free place round where
//! it stands, as a short walk of its own (a settle walk, which a soldier in range of its target
//! keeps), at [`K_SETTLE_PACE`] times its pace: it keeps its order, and the walk keeps apart and
//! off closed ground as every walk does (stepping away from the body it stands inside of, never
//! nearer to anyone); held up for a look's while, it ends, and the unit looks again from where
//! it stands.
//! A unit at work (a target to attack, gather or build) takes only a place that leaves it no
//! further from its target's box than [`K_SETTLE_SLACK`] beyond where it stands; a follower
//! takes any (it follows on from there). Each unit looks once every [`K_SETTLE_EVERY_TICKS`]
//! ticks (staggered by id, so an army standing looks over that many ticks, not in one), up to
//! [`K_SETTLE_RINGS`] rings out; a body walking, or given a walk earlier in the pass, is leaving,
//! and nobody settles away from it as from one standing ([`walks_off`]), but a unit inside the
//! allowance of one stepping out steps out too, the other way ([`settling_to`]). A unit standing
//! on a foundation that waits for its ground to clear steps off it the same way ([`step_off`],
//! called by `tick::foundation`).

use super::apart::Stepper;
use crate::astar::body_clear;
use crate::id::EntityId;
use crate::nav::{box_of, reach_gap, Tick, View};
use crate::nav::{find_standing_spot, region_here, spot::stands_in, Approach, Spot};
use crate::position::{squared, Bounds, Fx, Vec2};
use crate::state::{Order, Progress, Route, State, Unit};

/// A unit standing still looks whether it stands inside another body once in this many ticks.
pub const K_SETTLE_EVERY_TICKS: u64 = 16;
/// A settle walk goes at this many times the unit's pace (Cohort's choice: bodies found inside
/// each other step apart within a second, and six mangonels on one point, at 0.6 tiles a
/// second, need 1.1 s to come 0.9 of the allowance apart at their own pace).
pub const K_SETTLE_PACE: Fx = crate::position::fx(2);
/// It looks for a free place this many rings out, a body's half-width apart.
pub const K_SETTLE_RINGS: usize = 8;
/// A unit at work settles no further than this from its target's box beyond where it stands
/// (a quarter of a tile): it steps aside along the crowd at its target, not away from it.
pub const K_SETTLE_SLACK: Fx = crate::position::fx_ratio(1, 4);

/// What unit `u` works at, if anything: the target of its attack, its fight on an attack-move,
/// the friend it follows, the resource it gathers, the foundation it builds.
fn work_target(u: &Unit) -> Option<EntityId> {
    match u.order {
        Order::Attack { target }
        | Order::Follow { target }
        | Order::Gather { target }
        | Order::Build { target } => Some(target),
        Order::AttackMove { .. } => u.fight,
        _ => None,
    }
}

/// Unit `i` standing inside a standing body is given a walk to the nearest free place.
pub fn settle(tick: &mut Tick<'_>, i: usize, widest: Fx) {
    let now = tick.state.tick;
    let u = &tick.state.units[i];
    if u.order == Order::Hold
        || u.route.is_some()
        || u.pushed.is_some()
        || !(u.id.0.wrapping_add(now)).is_multiple_of(K_SETTLE_EVERY_TICKS)
    {
        return;
    }
    let radius = tick.rules.radius_of(u.kind);
    let s = Stepper::of_unit(tick.view(), i, widest);
    let at = u.position;
    // Away from the standing bodies it is inside of: where to look for a place first.
    let mut away = Vec2::ZERO;
    let mut inside = false;
    for b in s.survey.near(at, radius + widest) {
        if b.entity == u.id || squared(at - b.middle) >= s.allowance_sq(b) {
            continue;
        }
        let leaving = b.moving || walks_off(tick.state, b.entity);
        if !leaving {
            inside = true;
            away = away + (at - b.middle);
            continue;
        }
        // One stepping out of it steps out one way, this one the other: away from where that
        // one walks to (Cohort's choice: two mangonels placed on one point, the one that looked
        // first walked off alone, the other stood, and at a mangonel's pace they stood nearer
        // than 0.9 of the allowance 1.4 s; away from the walker itself, mangonels placed in a
        // row too close, each between two, all stepped out the same side together).
        if let Some(place) = settling_to(tick.state, b.entity) {
            inside = true;
            away = away + (at - place);
        }
    }
    if !inside {
        return;
    }
    // A follower takes a place no further from its friend than where it stands, or, with none
    // such, any free place (Cohort's choice: every place round its friend taken, it waits where
    // it stands, and four scouts round a knight at the map's edge stood stacked on one point for
    // good; apart, it follows on as soon as its friend moves. Settled out of its follow range, a
    // follower in a crowd round its friend walked back in, was held, walked through and settled
    // out again, by turns, for 12 s).
    let follows = matches!(u.order, Order::Follow { .. });
    let work = work_target(u).and_then(|t| box_of(tick.view(), t));
    let gap = |p: Vec2| work.map(|b| reach_gap(&Bounds::around(p, radius), &b));
    let slack = if follows { Fx::ZERO } else { K_SETTLE_SLACK };
    let most_gap = gap(at).map(|g| g + slack);
    let near = |p: Vec2| gap(p).zip(most_gap).is_none_or(|(g, most)| g <= most);
    let here = Bounds::around(at, Fx::ZERO);
    let place =
        free_place(tick.view(), &s, at, here, at + away, K_SETTLE_RINGS, near).or_else(|| {
            if follows {
                free_place(tick.view(), &s, at, here, at + away, K_SETTLE_RINGS, |_| {
                    true
                })
            } else {
                None
            }
        });
    if let Some(p) = place {
        walk_to_place(&mut tick.state.units[i], p, now);
    }
}

/// Whether the unit `id`, filed standing by this tick's survey, has been given a walk since
/// (a settle walk earlier in this pass): it is leaving, and nobody settles away from it
/// (Cohort's choice: two bodies on one point that looked on the same tick were both sent to the
/// same free place, stayed on one point, and did so again at every look, drifting across the
/// map for good: `two_on_one_point`, soak seed 3029).
fn walks_off(state: &State, id: EntityId) -> bool {
    state.unit(id).is_some_and(|u| u.route.is_some())
}

/// Where the unit `id` walks to step out of others, when it is on a settle walk.
fn settling_to(state: &State, id: EntityId) -> Option<Vec2> {
    let route = state.unit(id)?.route.as_ref().filter(|r| r.settle)?;
    route.waypoints.first().copied()
}

/// A unit standing off a foundation looks this many rings out round it, a body's half-width
/// apart, for a free place (Cohort's choice: enough to walk off a town center's middle).
pub const K_STEP_OFF_RINGS: usize = 32;

/// Unit `i`, standing on `ground` (a foundation waiting for its ground to clear,
/// `tick::foundation`), is given a walk to the nearest free place round it no nearer than
/// `clear` beyond its edge, as a settle walk, keeping apart from the places in `taken` (where
/// others already walk to settle) as from any body. Whether it got one.
pub fn step_off(
    tick: &mut Tick<'_>,
    i: usize,
    ground: Bounds,
    clear: Fx,
    widest: Fx,
    taken: &[Vec2],
) -> bool {
    let u = &tick.state.units[i];
    let s = Stepper::of_unit(tick.view(), i, widest);
    let ground = ground.widened(clear);
    let apart = i128::from(((s.radius + widest) * super::K_KEEP_APART).to_bits());
    let unclaimed = |p: Vec2| taken.iter().all(|&t| squared(p - t) >= apart * apart);
    let Some(p) = free_place(
        tick.view(),
        &s,
        u.position,
        ground,
        u.position,
        K_STEP_OFF_RINGS,
        unclaimed,
    ) else {
        return false;
    };
    walk_to_place(&mut tick.state.units[i], p, tick.state.tick);
    true
}

/// The nearest free place round `ground` for the walker `s` describes, standing at `at`, looked
/// for from `from`'s side a body's half-width out, then ring by ring a half-width further, up to
/// `rings`: its body stands on open ground of its region there, walks straight there (`body_clear`),
/// stands no nearer a body than keeping apart allows, and `fits`.
fn free_place(
    view: View<'_>,
    s: &Stepper,
    at: Vec2,
    ground: Bounds,
    from: Vec2,
    rings: usize,
    fits: impl Fn(Vec2) -> bool,
) -> Option<Vec2> {
    let (radius, key, widest) = (s.radius, s.key, s.widest);
    let region = region_here(view.regions, view.grid(), key, at.tile());
    let free = |p: Vec2| {
        fits(p)
            && stands_in(view, key, region, p, radius)
            && body_clear(view.grid(), key, at, p, radius)
            && s.survey
                .near(p, radius + widest)
                .all(|b| b.entity == s.me || squared(p - b.middle) >= s.allowance_sq(b))
    };
    let mut outside = radius;
    for _ in 0..rings {
        let ask = Approach {
            ground,
            from,
            outside,
            room: radius * 2,
            taken: &[],
            own_face_only: false,
        };
        if let Spot::Found(p) = find_standing_spot(&ask, free) {
            return Some(p);
        }
        outside += radius;
    }
    None
}

/// A unit's settle walk: a short walk of its own to `p`, its order kept.
fn walk_to_place(u: &mut Unit, p: Vec2, now: u64) {
    u.ring_tries = 0;
    u.route = Some(Route {
        waypoints: vec![p],
        goal: p,
        has_goal: true,
        speed_cap: None,
        target: None,
        range: Fx::ZERO,
        replans: 0,
        progress: Progress::from(now),
        fine: 0,
        legs: 0,
        settle: true,
    });
}
