//! Keeping to a lane (Cohort's choice, not the spec's): walkers meeting head-on give way to one
//! side before they touch.
//!
//! The spec's keep-apart bends a walker's step only once it would come too near someone, and
//! two blocks marching into each other then press into one knot that nobody can get through
//! (nobody walks through anyone). So a walker looks [`K_LANE_LOOK`] ahead along its step for
//! walkers coming the other way (their ways more than 135° apart) whose middles lie within the
//! allowance and [`K_LANE_MARGIN`] of its line, and turns its step toward its right by a share
//! of it ([`K_LANE_TURN`]) — or toward its left when the nearest of them already stands well to
//! its right (more than half that width), so two walkers offset that way pass left to left
//! rather than cross. Both sides of a head-on meeting do the same, so the blocks slide past each
//! other in lanes instead of meeting front to front. Only onto open ground: a turned step the
//! ground refuses is taken straight.
//!
//! **Queueing behind its own file** (Cohort's choice). In a narrow way — a strait, a corridor —
//! the second and later walkers of a file find the turn to their right crowded by their own
//! file, and walking straight on takes them into the lane of those coming out: two fleets met
//! front to front in both lanes of a strait and stood there for good
//! (`galleys_four_a_side_in_a_strait`, `galleys_strait_three_wide_both_ways`). So a walker whose
//! turn is crowded only by walkers going its own way holds its step, and falls in behind them,
//! when the one coming at it is within [`K_QUEUE_REACH`], keeps to its lane (closed ground at its
//! right, where it stands and a tile back: it is in the narrow way, with nowhere further to give
//! way) and is getting on ([`K_QUEUE_FOR_GETTING_ON_TICKS`]). Only while the walker itself has
//! got on within [`K_QUEUE_WHILE_HELD_TICKS`] and does not squeeze: a queue never holds anyone
//! for good, and two walkers that queue for each other stop within a quarter of a second.

use super::apart::Stepper;
use crate::id::EntityId;
use crate::nav::Body;
use crate::position::{fx, fx_ratio, squared, Fx, Vec2};
use crate::state::TICK_MS;

/// How far ahead a walker looks for walkers coming at it (five tiles).
pub const K_LANE_LOOK: Fx = fx(5);
/// How much wider than the allowance a lane is (an eighth of a tile): walkers whose lines pass
/// nearer than that turn.
pub const K_LANE_MARGIN: Fx = fx_ratio(1, 8);
/// The share of its step a walker turns sideways (a half: about 27°).
pub const K_LANE_TURN: Fx = fx_ratio(1, 2);
/// A walker queues behind its own file for one coming at it within this many tiles (two).
pub const K_QUEUE_REACH: Fx = fx(2);
/// A walker queues only while it has got on within this long (a second, the detour's wait);
/// held longer, it walks on as it would have.
pub const K_QUEUE_WHILE_HELD_TICKS: u64 = 1000 / TICK_MS as u64;
/// A walker queues only for one that has got on within this long (a quarter of a second, the
/// shove's wait): never for one held itself.
pub const K_QUEUE_FOR_GETTING_ON_TICKS: u64 = 250 / TICK_MS as u64;

/// Whether a walker may queue this tick, and how to ask whether another gets on: `None` when it
/// has been held [`K_QUEUE_WHILE_HELD_TICKS`] or more.
pub type Queue<'a> = Option<&'a dyn Fn(EntityId) -> bool>;

/// The step from `at` to `to` turned aside for a walker coming the other way (see the module);
/// `to` when none comes, or the ground refuses the turned step; `at` when it queues behind its
/// own file (`queue`: whether it may, and whether a walker gets on).
pub fn keep_lane(s: &Stepper, at: Vec2, to: Vec2, queue: Queue<'_>) -> Vec2 {
    let step = to - at;
    let len = step.length();
    if len == Fx::ZERO {
        return to;
    }
    let half = K_LANE_LOOK / 2;
    let centre = at + step.with_length(half);
    // Only the box round the strip it looks along is read, within the square round the strip's
    // middle it once read: middles at most K_LANE_LOOK along and the widest room across (a 64th
    // more, for rounding), for a step along a row or a column a seventh of that square. The same
    // walkers are found, in the same order.
    let rounding = fx_ratio(1, 64);
    let widest_room = (s.radius + s.widest) * super::K_KEEP_APART + K_LANE_MARGIN + rounding;
    let long = half + rounding;
    let (ux, uy) = ((step.x / len).abs(), (step.y / len).abs());
    let square = half + s.radius + s.widest;
    let reach = Vec2::new(
        (long * ux + widest_room * uy + rounding).min(square),
        (long * uy + widest_room * ux + rounding).min(square),
    );
    // The nearest walker coming at it on its line: (how far along, how far to its right, room,
    // the walker).
    let mut nearest: Option<(Fx, Fx, Fx, &Body)> = None;
    for b in s.survey.near_box(centre, reach) {
        if b.entity == s.me || !b.moving || !super::apart::meets_head_on(step, b.heading) {
            continue;
        }
        // Those coming at it but surely behind it, past the look or off its lane are passed over
        // before any division (they would fail the exact tests below too: a division is the look's dearest
        // step).
        let off = b.middle - at;
        let dot = off.dot(step);
        let room = (s.radius + b.radius) * super::K_KEEP_APART + K_LANE_MARGIN;
        let cross = step.cross(off);
        if dot <= Fx::ZERO
            || dot > (K_LANE_LOOK + fx(1)) * len
            || cross.abs() > (room + rounding) * len
        {
            continue;
        }
        let along = dot / len;
        if along <= Fx::ZERO || along > K_LANE_LOOK {
            continue;
        }
        let right = cross / len;
        if right.abs() >= room {
            continue;
        }
        if nearest.is_none_or(|n| along < n.0) {
            nearest = Some((along, right, room, b));
        }
    }
    let Some((along, right, room, oncoming)) = nearest else {
        return to;
    };
    let side = if right * 2 > room {
        -step.perp()
    } else {
        step.perp()
    };
    let turned = at + (step + side * K_LANE_TURN).with_length(len);
    let open = squared(turned - at) > 0 && s.open_step(at, turned) && s.body_open(at, turned);
    if open && !s.crowds(at, turned) {
        return turned;
    }
    let queues = open
        && s.squeeze.is_none()
        && along <= K_QUEUE_REACH
        && queue.is_some_and(|getting_on| getting_on(oncoming.entity))
        && keeps_to_its_lane(s, oncoming)
        && behind_its_own_file(s, at, turned);
    if queues {
        at
    } else {
        to
    }
}

/// Whether every body a walker at `at` would crowd at `turned` walks its way (heading less than
/// 90° off its step), and there is one.
fn behind_its_own_file(s: &Stepper, at: Vec2, turned: Vec2) -> bool {
    let step = turned - at;
    let mut any = false;
    for b in s.near(turned) {
        if !s.too_near(at, turned, b) {
            continue;
        }
        if !b.moving || b.heading.dot(step) <= Fx::ZERO {
            return false;
        }
        any = true;
    }
    any
}

/// Whether the walker `b` keeps to its lane in a narrow way: the ground at its right, a body of
/// the asking walker's width beyond its own, is closed where it stands and a tile back.
fn keeps_to_its_lane(s: &Stepper, b: &Body) -> bool {
    let right = b.heading.perp().with_length(b.radius + s.radius * 2);
    let back = b.heading.with_length(fx(1));
    right != Vec2::ZERO
        && !s.grid.passable_point(s.key, b.middle + right)
        && !s.grid.passable_point(s.key, b.middle - back + right)
}
