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

use super::apart::Stepper;
use crate::position::{fx, fx_ratio, squared, Fx, Vec2};

/// How far ahead a walker looks for walkers coming at it (five tiles).
pub const K_LANE_LOOK: Fx = fx(5);
/// How much wider than the allowance a lane is (an eighth of a tile): walkers whose lines pass
/// nearer than that turn.
pub const K_LANE_MARGIN: Fx = fx_ratio(1, 8);
/// The share of its step a walker turns sideways (a half: about 27°).
pub const K_LANE_TURN: Fx = fx_ratio(1, 2);

/// The step from `at` to `to` turned aside for a walker coming the other way (see the module);
/// `to` when none comes, or the ground refuses the turned step.
pub fn keep_lane(s: &Stepper, at: Vec2, to: Vec2) -> Vec2 {
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
    // The nearest walker coming at it on its line: (how far along, how far to its right, room).
    let mut nearest: Option<(Fx, Fx, Fx)> = None;
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
            nearest = Some((along, right, room));
        }
    }
    let Some((_, right, room)) = nearest else {
        return to;
    };
    let side = if right * 2 > room {
        -step.perp()
    } else {
        step.perp()
    };
    let turned = at + (step + side * K_LANE_TURN).with_length(len);
    let fits = squared(turned - at) > 0
        && s.open_step(at, turned)
        && s.body_open(at, turned)
        && !s.crowds(at, turned);
    if fits {
        turned
    } else {
        to
    }
}
