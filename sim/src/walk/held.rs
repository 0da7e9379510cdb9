//! A walker held up by a crowd (Cohort's choice, not the spec's).
//!
//! The spec's walk bends a walker's own step away from the bodies it would crowd and turns it
//! aside where the bend would send it back, "so a crowd cannot hold it still for good". In
//! ordinary crowds that is not enough: two armies meeting head-on pack into a wall where every
//! step crowds someone, carriers leaving a mine jam against those coming in, a walker whose
//! straight way runs into units on hold wedges between them. Each walk keeps how it is getting
//! on ([`crate::state::Progress`]): it gets on when it comes [`K_PROGRESS`] nearer its first
//! corner, or reaches a corner, or stands [`K_HEADWAY`] from where it last got on (headway); it
//! strides when it stands [`K_HEADWAY`] from where it last strode. Held longer, it does more, in
//! this order (the detour counts from when it last got on; the squeeze and the press
//! from its last stride, as the watch counts a stall, so a walker jostled an eighth of a tile
//! nearer its corner now and then in a melee still gets through):
//!
//! 1. after [`K_DETOUR_AFTER_TICKS`] it makes a **detour**: it plans again from where it stands
//!    with the tiles of the bodies about it (within [`K_DETOUR_REACH`]) and of the units standing
//!    in its way as closed ground, so the search goes round them; at most once every
//!    [`K_DETOUR_EVERY_TICKS`], and never counted against the spec's `K_MOST_REPLANS` (being
//!    held up by units is not ground closing). No way round, or one from which the goal the
//!    walk reaches is shut out and that ends further than [`K_SHUT_OUT_REACH`] off keeps the
//!    walk it has.
//! 2. after [`K_SQUEEZE_AFTER_TICKS`] with no stride it **squeezes** past those on the move:
//!    it keeps only [`K_SQUEEZE_APART`] of their radii from walkers (still the whole allowance
//!    from anyone standing: nobody standing is pushed), until it stands [`K_SQUEEZE_THROUGH`]
//!    from where the squeeze began.
//! 3. after [`K_PRESS_AFTER_TICKS`] with no stride it **presses**: it shoves aside walkers of
//!    its own player going its own way too ([`super::shove`]).
//!
//! Nobody ever walks through anyone: a walker held long by bodies it cannot shove aside
//! ([`super::shove`]) waits, goes round them, or stops against them.
//!
//! Every tick also, movers meeting head-on both turn to the same side (their right:
//! [`crate::walk::Stepper::keep_apart`]), so two walkers coming at each other pass rather than
//! push each other aside by turns.

use super::short::{short_way, K_SHORT_REACH};
use super::stepper;
use crate::astar::{body_clear, Budget};
use crate::nav::{holds_ground, route_past_the_yielding, route_round, Ask, Tick};
use crate::position::{fx, fx_ratio, Distance, Fx, Tile, Vec2};
pub use crate::state::held_ticks;
use crate::state::{Progress, Route, TICK_MS};

/// A walker gets on when it comes this much nearer its first corner (an eighth of a tile).
pub const K_PROGRESS: Fx = fx_ratio(1, 8);
/// A walker on the last leg of a walk to a point that has not got on for this long (a second)
/// counts as held still there, as one that cannot step at all: it moves on to a free place round
/// the point, or stops against the crowd at it (the spec's "Someone on the goal").
pub const K_HELD_STILL_TICKS: u64 = 1000 / TICK_MS as u64;
/// A walker held this long (a second of game time) makes a detour.
pub const K_DETOUR_AFTER_TICKS: u64 = 1000 / TICK_MS as u64;
/// At most one detour this often (two seconds), so a held walker plans at most half as often as
/// a chaser.
pub const K_DETOUR_EVERY_TICKS: u64 = 2000 / TICK_MS as u64;
/// A walker with no stride this long (three seconds) squeezes past those on the move.
pub const K_SQUEEZE_AFTER_TICKS: u64 = 3000 / TICK_MS as u64;
/// A detour treats the tiles of the bodies within this many tiles of the walker as closed.
pub const K_DETOUR_REACH: Fx = fx(2);
/// A walker with no stride this long (four seconds) that finds no way round stops ([`Detour`]).
pub const K_STOP_AGAINST_TICKS: u64 = 4000 / TICK_MS as u64;
/// Only a walker within this many tiles of its walk's end stops against those standing round it
/// ([`Detour::ShutIn`]): further off, it keeps its walk (those standing may yet move).
pub const K_STOP_AGAINST_REACH: Fx = fx(4);
/// A detour also treats the tiles of other players' walkers within this many tiles as closed.
pub const K_DETOUR_OTHERS_REACH: Fx = fx(6);
/// A detour from which the goal is shut out, where the walk reaches it, is taken only when it
/// ends within this many tiles of the walker (Cohort's choice, [`detour`]): a step back out of a
/// jam at a gap, not a walk along the wall to the point nearest the goal.
pub const K_SHUT_OUT_REACH: Fx = fx(4);
/// Walkers whose walks end within this many tiles of each other go the same way: a walker
/// squeezes past traffic, never through its own group (which the spec's rules stop round their
/// point).
pub const K_SAME_WAY: Fx = fx(3);
/// A walker with no stride this long (six seconds, squeezing since the third) presses: it
/// shoves aside walkers of its own player going its own way too (Cohort's choice,
/// [`super::shove`]).
pub const K_PRESS_AFTER_TICKS: u64 = 6000 / TICK_MS as u64;
/// Squeezing past a walker keeps this share of their two radii between them (Cohort's choice:
/// 0.7, where keeping apart keeps 0.75; over 0.9 of the allowance, so squeezing past is never a
/// merge).
pub const K_SQUEEZE_APART: Fx = fx_ratio(7, 10);
/// A detour whose short way cannot reach the walk's first corner (a body stands on it) tries
/// the next corners, up to this many, within the short way's reach (Cohort's choice).
pub const K_CORNERS_PAST_A_TAKEN_ONE: usize = 2;

/// How many ticks the walker on `route` has not strode, at tick `now`: what its squeeze and its
/// press count (Cohort's choice: coming an eighth of a tile nearer a corner now and then,
/// as the crowd jostled it, held a mangonel in a melee 10.3 s while the squeeze waited on a
/// clock that kept starting afresh).
pub fn still_ticks(route: &Route, now: u64) -> u64 {
    now.saturating_sub(route.progress.strode)
}

/// Whether the walker on `route` squeezes past those on the move this tick.
pub fn squeezes(route: &Route, now: u64) -> bool {
    route.progress.squeeze_from.is_some() || still_ticks(route, now) >= K_SQUEEZE_AFTER_TICKS
}

/// A squeeze lasts until the walker stands this far from where it began
/// (a tile).
pub const K_SQUEEZE_THROUGH: Fx = fx(1);
/// A walker also gets on when it stands this far from where it last got on (half a tile, the
/// watch's `K_STALL_REACH`), and strides when it stands this far from where it last strode: so a
/// walker threading a crowd by a detour's many close corners gets on, and one jostled to and fro
/// on the spot does not.
pub const K_HEADWAY: Fx = fx_ratio(1, 2);

/// A stride is [`K_HEADWAY`] walked within this long (three seconds, the squeeze's wait;
/// Cohort's choice): a mangonel in a jam, jostled half a tile nearer its corner over five
/// seconds, had the six seconds to its walk through begun afresh and stood 10.9 s.
pub const K_STRIDE_WITHIN_TICKS: u64 = K_SQUEEZE_AFTER_TICKS;

/// Whether `v` is at least `d` long: squares compared, no root (the hottest test of a walk).
fn at_least(v: Vec2, d: Fx) -> bool {
    let d = i128::from(d.to_bits());
    crate::position::squared(v) >= d * d
}

/// Notes where the walker on `route` stands after its step at tick `now`: it got on if it came
/// [`K_PROGRESS`] nearer the first corner it had when it last got on, or stands [`K_HEADWAY`]
/// from where it last got on (after a detour: no further from its goal); it strode if it stands
/// [`K_HEADWAY`] from where it last strode (the same proviso). A new first corner is no headway
/// by itself (a detour's first may be where the walker stands, and walkers held on the spot
/// turn from corner to corner). With no stride for [`K_SQUEEZE_AFTER_TICKS`], it begins to
/// squeeze, until it stands [`K_SQUEEZE_THROUGH`] from where the squeeze began. A chase planned again to the same place keeps how it was getting on
/// (`tick::combat`), so a soldier's new corners are no headway either.
pub fn note(route: &mut Route, at: Vec2, now: u64) {
    let Some(&corner) = route.waypoints.first() else {
        return;
    };
    let corners = route.waypoints.len() as u32;
    // Its root is taken only when it is kept.
    let d = Distance::between(at, corner);
    let goal = route.goal;
    let p = &mut route.progress;
    if let Some(from) = p.squeeze_from {
        if at_least(at - from, K_SQUEEZE_THROUGH) {
            p.squeeze_from = None;
        }
    } else if now.saturating_sub(p.strode) >= K_SQUEEZE_AFTER_TICKS {
        p.squeeze_from = Some(at);
    }
    let nearer = corners == p.corners && d.at_most(p.nearest - K_PROGRESS);
    // Headway after a detour leads somewhere: a walker whose detour's corner lay behind it, and
    // that stepped back to it and forth again on the spot, does not get on.
    let detoured = p.detoured.is_some();
    let headway_from = |from: Vec2| {
        at_least(at - from, K_HEADWAY)
            && (!detoured
                || crate::position::squared(at - goal) <= crate::position::squared(from - goal))
    };
    let headway = headway_from(p.anchor);
    if nearer || headway {
        p.nearest = d.value();
        p.corners = corners;
        p.anchor = at;
        p.since = now;
    }
    // A stride is headway from where it last strode, not from where it last got on: coming an
    // eighth of a tile nearer its corner now and then, it has got on, but not strode. Half a
    // tile crept in longer than K_STRIDE_WITHIN_TICKS is no stride either: the walker goes on
    // measuring from there, still held since its last stride.
    if headway_from(p.strode_from) {
        p.strode_from = at;
        if now.saturating_sub(p.strode) <= K_STRIDE_WITHIN_TICKS {
            p.strode = now;
        }
    }
}

/// Whether the walker on `route`, standing at `at`, is due a detour at tick `now`. Never near
/// the point of a walk to a point: there the spec's own rules (someone on the goal, a crowd at
/// the goal) stop it against whoever stands there.
pub fn due_detour(u: &crate::state::Unit, route: &Route, at: Vec2, now: u64) -> bool {
    !super::goal::near_point(u, route, at)
        && held_ticks(route, now) >= K_DETOUR_AFTER_TICKS
        && route
            .progress
            .detoured
            .is_none_or(|t| now.saturating_sub(t) >= K_DETOUR_EVERY_TICKS)
}

/// Unit `i`, held at `at` on `route`, plans a detour round the bodies about it (see the module).
/// The new walk keeps the old one's order-wide figures (replans, legs, speed cap) and how long it has
/// been held; with no way round, the old walk stays. Counts a replan.
pub fn detour(tick: &mut Tick<'_>, i: usize, route: &mut Route, at: Vec2) -> Detour {
    let now = tick.state.tick;
    route.progress.detoured = Some(now);
    let u = &tick.state.units[i];
    let me = u.id;
    let survey = &tick.nav.survey;
    let others = |b: &&crate::nav::Body| b.entity != me && Some(b.entity) != route.target;
    // Walkers about it (those standing anywhere are closed to a detour's search already), but
    // one it stands stacked on (within a tenth of their radii: Cohort's choice): there is no
    // going round a body at its own place, and two walkers stacked beside a gap one tile wide,
    // each closing the other's tile, the gap's only way in, turned between the gap and a way
    // along the wall at every detour, for good.
    let radius = tick.rules.radius_of(u.kind);
    let stacked = |b: &crate::nav::Body| {
        let r = i128::from(((radius + b.radius) / 10).to_bits());
        crate::position::squared(b.middle - at) < r * r
    };
    // And every walker of another player further out (Cohort's choice): nobody walks through
    // anyone, and a block coming the other way is gone round whole, not met front to front.
    let owner = u.owner;
    let mut blocked: Vec<Tile> = survey
        .near(at, K_DETOUR_OTHERS_REACH)
        .filter(others)
        .filter(|b| {
            b.moving
                && !stacked(b)
                && (b.owner != owner || b.middle.chebyshev(at) <= K_DETOUR_REACH)
        })
        .map(|b| b.middle.tile())
        .collect();
    blocked.sort_unstable_by_key(|t| (t.y, t.x));
    blocked.dedup();
    // Pressed against a body, a walker's middle may lie on that body's tile: search from the
    // free tile beside it nearest its middle instead.
    let grid = tick.grid();
    let key = tick.key_of(u);
    let taken = |t: Tile| {
        grid.index(t)
            .is_some_and(|k| survey.on_tile(k as u32).iter().any(|b| others(&b)))
    };
    let here = at.tile();
    let start = if taken(here) {
        let mut best: Option<(i128, Tile)> = None;
        for t in here.round() {
            if grid.passable(key, t) && !taken(t) {
                let d = crate::position::squared(Vec2::of_tile(t) - at);
                if best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, t));
                }
            }
        }
        best.map_or(here, |b| b.1)
    } else {
        here
    };
    let ask = Ask {
        unit: me,
        from: at,
        to: route.goal,
        target: route.target,
        range: route.range,
    };
    tick.counters.replans += 1;
    // A way round from which the goal is shut out (the search looked at every tile open to it,
    // within its budget, and never came to the goal), where the walk it would replace reaches
    // the goal, and that ends further than K_SHUT_OUT_REACH off, is no way round (Cohort's
    // choice): with the one gap in a wall shut by those walking in it, the search's nearest
    // point to the goal lay along the wall, and a mangonel held at the gap walked fourteen tiles
    // off and back at every detour, for minutes. A step or two back out of the jam is taken; one
    // cut short by the budget is a leg of a long way round, planned on from where it ends.
    let expanded = tick.counters.node_expansions;
    let round = route_round(tick, &ask, start, &blocked);
    let expanded = tick.counters.node_expansions - expanded;
    let budget = u64::from(Budget::Spec.expansions(start, ask.to.tile()));
    let reaches_goal = route.has_goal;
    let wanders = |r: &Route| {
        let far = r
            .waypoints
            .last()
            .is_some_and(|&end| end.chebyshev(at) > K_SHUT_OUT_REACH);
        let cut_short = expanded >= budget;
        !r.has_goal && reaches_goal && !cut_short && far
    };
    let round = round.filter(|r| !wanders(r));
    let found = round.is_some();
    if let Some(mut r) = round {
        r.replans = route.replans;
        r.legs = route.legs;
        r.speed_cap = route.speed_cap;
        r.progress = route.progress;
        *route = r;
    }
    // Shut in: no way round even past the walkers (they move on), only bodies standing and
    // the ground about it. Not a chaser (Cohort's choice): its chase plans it a place again at
    // once, held afresh, and an archer a step from its firing place stopped and planned again
    // by turns for 42.7 s, never held long enough to press.
    if !found
        && route.target.is_none()
        && at.chebyshev(route.goal) <= K_STOP_AGAINST_REACH
        && still_ticks(route, now) >= K_STOP_AGAINST_TICKS
        && !beside_walkers(tick, i, at)
        && route_round(tick, &ask, start, &[])
            .filter(|r| !wanders(r))
            .is_none()
    {
        return Detour::ShutIn;
    }
    if still_ticks(route, now) >= K_STOP_AGAINST_TICKS
        && (shut_out(tick, i, &ask) || shut_in_where_it_stands(tick, i, route, at))
    {
        return Detour::ShutIn;
    }
    // Out of the hollow it stands in, to the walk's first corner, through the gaps; or, with
    // that corner taken, to one after it.
    if let Some((way, passed)) = way_through_the_gaps(tick, i, route, at) {
        for _ in 0..passed {
            route.pass_corner();
        }
        route.fine = u8::try_from(way.len()).unwrap_or(u8::MAX);
        route.waypoints.splice(0..0, way);
    }
    // Held as long as before; coming nearer the detour's first corner is no headway (a detour
    // every two seconds would otherwise make a walker held on the spot look as though it got
    // on): only standing K_HEADWAY from where it last got on is.
    route.progress = Progress {
        detoured: Some(now),
        ..held_as_before(&route.progress)
    };
    Detour::Made
}

/// The way through the gaps about the walker `i` at `at` ([`short_way`]) to the first corner of
/// `route`, and how many of its corners it passes. With no way to the first corner itself (a
/// body stands on it), the way to the first of the next [`K_CORNERS_PAST_A_TAKEN_ONE`] corners
/// within the short way's reach that it comes to, those before it passed (Cohort's choice: two
/// knights at a gap's mouth, both routed through the tile before it, each stood on the other's
/// way there for minutes while the gap itself lay open to both); with none, the way as near the
/// first corner as it gets.
fn way_through_the_gaps(
    tick: &Tick<'_>,
    i: usize,
    route: &Route,
    at: Vec2,
) -> Option<(Vec<Vec2>, usize)> {
    let target = route.target;
    let s = stepper(tick.view(), i, route);
    let leaves_out = |b: &crate::nav::Body| Some(b.entity) == target;
    let &first = route.waypoints.first()?;
    // Held long enough to press, a walker wedged where it stands steps out off the eight ways
    // (Cohort's choice: sooner, walkers in a jam at a gap stepped into each other's ways).
    let pressing = still_ticks(route, tick.state.tick) >= K_PRESS_AFTER_TICKS;
    let way = short_way(&s, at, first, leaves_out, pressing);
    if way.as_ref().is_some_and(|w| w.last() == Some(&first)) {
        return way.map(|w| (w, 1));
    }
    let reach = Fx::from_num(K_SHORT_REACH - 1);
    let later = route
        .waypoints
        .iter()
        .enumerate()
        .skip(1)
        .take(K_CORNERS_PAST_A_TAKEN_ONE)
        .take_while(|(_, c)| c.chebyshev(at) <= reach);
    for (k, &corner) in later {
        if let Some(past) = short_way(&s, at, corner, leaves_out, pressing) {
            if past.last() == Some(&corner) {
                return Some((past, k + 1));
            }
        }
    }
    // A way that ends short of the corner ends where the corner lies straight ahead of the body
    // (Cohort's choice: the point of a mangonel's short way nearest its corner, twenty tiles on
    // past a tree line, lay back through the gap it stood in, and it walked the tree line's far
    // side for good, its corner straight through the trees: `soak_277_…`).
    let (grid, key, radius) = (tick.grid(), s.key, s.radius);
    way.filter(|w| {
        w.last()
            .is_some_and(|&end| body_clear(grid, key, end, first, radius))
    })
    .map(|w| (w, 0))
}

/// Whether the goal of `ask` is shut out by bodies that hold their ground against the walker
/// (units on hold, other players' units standing): searched from tile `start` past everyone
/// else, the search, not cut short by its budget, finds no way there (Cohort's choice: ten
/// knights sent through a gap that a line of spearmen on hold closed, their goal thirteen tiles
/// on, pressed against the line for good, each beside the others).
fn shut_out(tick: &mut Tick<'_>, i: usize, ask: &Ask) -> bool {
    // Searched from the nearest tile about the walker (its own among them) that nobody holding
    // their ground stands on: its middle may lie on the tile of one it is pressed against.
    let owner = tick.state.units[i].owner;
    let (grid, survey, units) = (tick.grid(), &tick.nav.survey, &tick.state.units);
    let key = tick.key_of(&units[i]);
    let at = ask.from;
    let held_by = |t: Tile| {
        grid.index(t).is_some_and(|k| {
            survey
                .on_tile(k as u32)
                .iter()
                .any(|b| b.entity != ask.unit && !b.moving && holds_ground(units, owner, b))
        })
    };
    let here = at.tile();
    let start = std::iter::once(here)
        .chain(here.round())
        .filter(|&t| grid.passable(key, t) && !held_by(t))
        .min_by_key(|&t| crate::position::squared(Vec2::of_tile(t) - at));
    let Some(start) = start else {
        return false;
    };
    let expanded = tick.counters.node_expansions;
    let way = route_past_the_yielding(tick, ask, start);
    let expanded = tick.counters.node_expansions - expanded;
    let cut_short = expanded >= u64::from(Budget::Spec.expansions(start, ask.to.tile()));
    !cut_short && way.is_none_or(|r| !r.has_goal)
}

/// Whether unit `i`, standing at `at` on `route`, is shut in where it stands by those who hold
/// their ground against it (units on hold, other players' units standing) and the closed ground
/// about it ([`short::shut_in_by`]): the gaps between them all narrower than its allowance.
fn shut_in_where_it_stands(tick: &Tick<'_>, i: usize, route: &Route, at: Vec2) -> bool {
    let s = stepper(tick.view(), i, route);
    let (units, owner, target) = (&tick.state.units, tick.state.units[i].owner, route.target);
    super::short::shut_in_by(&s, at, |b| {
        !b.moving && Some(b.entity) != target && holds_ground(units, owner, b)
    })
}

/// Whether unit `i` at `at` stands beside a walker: one nearer than the keep-apart allowance
/// and a quarter again. Walkers move on; only bodies standing shut a walker in.
fn beside_walkers(tick: &Tick<'_>, i: usize, at: Vec2) -> bool {
    let u = &tick.state.units[i];
    let radius = tick.rules.radius_of(u.kind);
    let widest = tick.nav.survey.widest();
    tick.nav.survey.near(at, radius + widest).any(|b| {
        let reach = (radius + b.radius) * super::K_KEEP_APART * fx_ratio(5, 4);
        let r = i128::from(reach.to_bits());
        b.entity != u.id && b.moving && crate::position::squared(b.middle - at) < r * r
    })
}

/// What a detour came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detour {
    /// A way round, or the walk it had kept.
    Made,
    /// No way round, no stride for [`K_STOP_AGAINST_TICKS`], no walker beside it and its walk's
    /// end within [`K_STOP_AGAINST_REACH`] (a walk to a point, not a chase); or, anywhere, no stride for as long and its goal
    /// shut out by those who hold their ground against it ([`shut_out`]): the walker stops
    /// against those standing round it,
    /// its walk over (Cohort's choice: nobody walks through anyone, and a
    /// walker shut in by bodies it may not shove stops, as the spec's walker stops against
    /// whoever holds its goal).
    ShutIn,
}

/// How a detour of a walker held on `old` is getting on: held as long as before, squeezing or
/// pressing as before; only standing [`K_HEADWAY`] from where it last got on is headway
/// (its new first corner is none by itself).
pub fn held_as_before(old: &Progress) -> Progress {
    Progress {
        nearest: Fx::MAX,
        corners: u32::MAX,
        ..*old
    }
}

/// How a chase planned again to another place, walked by a walker at `at` held on `old`, is
/// getting on: held as long as before, squeezing or pressing as before; it gets on by
/// coming [`K_PROGRESS`] nearer the new walk's first corner, or by headway (Cohort's choice: a
/// chaser whose place flipped between two as the crowd round its target shifted had a fresh walk
/// every half second, never held long enough to detour or press, and stood for good).
pub fn held_on_a_new_walk(old: &Progress, route: &Route, at: Vec2) -> Progress {
    let Some(&corner) = route.waypoints.first() else {
        return *old;
    };
    Progress {
        nearest: at.distance(corner),
        corners: route.waypoints.len() as u32,
        ..*old
    }
}
