//! Pushing idle friends aside (devlog: "Unit Pushing"), only under the ruleset's `push_idle`;
//! off, the spec's rule holds and nobody standing is pushed.
//!
//! A pushed unit moves only onto open ground and never into anyone (it keeps the keep-apart
//! allowance from all but its pusher, as a shove does: [`super::shove`]).
//!
//! A mover pushes idle friendly units in a cone of ±60° ahead of it ([`K_PUSH_CONE_COS`]), each
//! sideways by the side it stands on. A pushed unit may push others in turn; a chain ends when the
//! pusher has passed (more than [`K_PUSH_REACH`] of their radii apart) or stopped.

use super::apart::Stepper;
use crate::id::find;
use crate::nav::Tick;
use crate::position::{fx, fx_ratio, squared, Fx, Vec2};
use crate::state::{Order, Push};

/// The cosine of the push cone's half-angle, 60°: a body ahead within it is pushed.
pub const K_PUSH_CONE_COS: Fx = fx_ratio(1, 2);
/// A push lasts while pusher and pushed are within this many times their radii together.
pub const K_PUSH_REACH: Fx = fx(2);

/// Mover `i` (which just stepped) pushes the idle friends touching it in its cone ahead.
pub fn push_ahead(tick: &mut Tick<'_>, i: usize, widest: Fx) {
    let u = &tick.state.units[i];
    let step = u.position - u.previous_position;
    if step == Vec2::ZERO {
        return;
    }
    let (me, owner, at) = (u.id, u.owner, u.position);
    let radius = tick.rules.radius_of(u.kind);
    let len = step.length();
    let mut pushes = Vec::new();
    for b in tick.nav.survey.near(at, radius + widest) {
        if b.entity == me || b.moving || !tick.state.allied(owner, b.owner) {
            continue;
        }
        let to_b = b.middle - at;
        let reach = i128::from((radius + b.radius).to_bits());
        if squared(to_b) > reach * reach {
            continue;
        }
        // Inside the cone: cos(angle) = step·to_b / (|step| |to_b|) ≥ cos 60°.
        if step.dot(to_b) < K_PUSH_CONE_COS * len * to_b.length() {
            continue;
        }
        let side = if step.cross(to_b) >= Fx::ZERO {
            step.perp()
        } else {
            -step.perp()
        };
        pushes.push((b.entity, side.with_length(len)));
    }
    for (id, nudge) in pushes {
        if let Some(v) = tick.state.unit_mut(id) {
            if v.order == Order::Idle && v.route.is_none() {
                v.pushed = Some(Push { by: me, nudge });
            }
        }
    }
}

/// A pushed unit `i` steps aside by its nudge, onto open ground only, and pushes on in turn;
/// the push ends once the pusher has passed or stopped.
pub fn pushed_step(tick: &mut Tick<'_>, i: usize, widest: Fx) {
    let Some(push) = tick.state.units[i].pushed else {
        return;
    };
    let u = &tick.state.units[i];
    let radius = tick.rules.radius_of(u.kind);
    let pusher = find(&tick.state.units, push.by, |p| p.id).map(|k| &tick.state.units[k]);
    let going = pusher.is_some_and(|p| {
        let pr = tick.rules.radius_of(p.kind);
        let moving = p.route.is_some() || p.pushed.is_some();
        let reach = i128::from(((radius + pr) * K_PUSH_REACH).to_bits());
        moving
            && p.position != p.previous_position
            && squared(p.position - u.position) <= reach * reach
    });
    if !going || u.order != Order::Idle || u.route.is_some() {
        tick.state.units[i].pushed = None;
        return;
    }
    let s = Stepper::of_unit(tick.view(), i, widest);
    let to = u.position + push.nudge;
    // Onto open ground, and never nearer than the allowance to anyone but its pusher it was not
    // nearer to already (nobody is pushed into anyone).
    if !s.open_step(u.position, to)
        || !s.body_open(u.position, to)
        || s.crowds_but(u.position, to, push.by)
    {
        tick.state.units[i].pushed = None;
        return;
    }
    tick.state.units[i].position = to;
    tick.nav.survey.move_body(i, to);
    push_ahead(tick, i, widest);
}
