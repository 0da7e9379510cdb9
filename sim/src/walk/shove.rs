//! Shoving friends aside (Cohort's choice, after the devlog's "Unit Pushing").
//!
//! Walkers keep apart and nobody walks through anyone, so a walker's own friends can hold it:
//! one of its player's walkers crossing its way, or standing idle in a gap. A walker held up
//! ([`K_SHOVE_AFTER_TICKS`] without getting on) shoves aside, before it steps, each body of its
//! own player that its straight step would crowd: a walker going elsewhere (its walk ending more
//! than [`super::held::K_SAME_WAY`] from the shover's) or marching in the shover's own formation
//! (its members go to places of their own, and fighters starting behind shooters must still
//! reach the front ranks); under the ruleset's `push_idle`, an idle one. Once the shover
//! presses ([`super::held::K_PRESS_AFTER_TICKS`] without a stride) it also shoves any walker of
//! any player, and its own player's standing units (idle or at work) but a formation's members
//! on their places: they make room. The shoved body moves sideways off the shover's line, to the
//! side it stands on, by as much as the shover needs to pass at the allowance, at most the
//! shover's own step: only onto open ground, never nearer than the allowance to anyone (the
//! shover aside) it was not already nearer to; those of its player in its way are shoved on by
//! the same, up to [`K_SHOVE_CHAIN`] deep. A body stepping out of another (a settle walk,
//! [`super::settle`]) shoves as one pressing does, from its first step. Nobody on hold and no standing unit of another
//! player is ever shoved, so a line of units on hold, or an enemy's, holds.
//!
//! Two walkers pressing, each making for where the other stands, give way by a right of way
//! (Cohort's choice): the one held longer shoves, the other does not shove it back. A pressing
//! walker shoves a walker coming at it that it has the right of way over *back*, straight away
//! from itself (sliding along an axis the line lies within [`K_NEAR_AN_AXIS`] of, where closed
//! ground refuses it), and its own player's standing units ahead of it on its line *on* before
//! it, by its step, where that finds room; aside where it does not: in a gap a body wide nobody
//! can step aside, and the walkers of one way back out for the other.

use super::apart::Stepper;
use super::held::{held_ticks, still_ticks, K_PRESS_AFTER_TICKS, K_SAME_WAY};
use super::speed_per_tick;
use crate::id::{find, EntityId};
use crate::nav::{Body, Tick};
use crate::position::{fx_ratio, squared, Fx, Vec2};
use crate::state::{Order, Route, TICK_MS};

/// A walker that has not got on for this long (a quarter of a second) shoves aside the friends
/// in its way.
pub const K_SHOVE_AFTER_TICKS: u64 = 250 / TICK_MS as u64;
/// A shoved body is moved this much further than the shover needs, so the shover's step clears
/// it (a 64th of a tile).
pub const K_SHOVE_SLACK: Fx = fx_ratio(1, 64);

/// Walker `i`, about to walk `route`, shoves aside the friends its straight step would crowd
/// (see the module). Changes only the shoved bodies' positions (and the survey's filing of them).
pub fn clear_way(tick: &mut Tick<'_>, i: usize, route: &Route, widest: Fx) {
    let now = tick.state.tick;
    if held_ticks(route, now) < K_SHOVE_AFTER_TICKS && !route.settle {
        return;
    }
    let Some(&corner) = route.waypoints.first() else {
        return;
    };
    let u = &tick.state.units[i];
    let at = u.position;
    if corner == at {
        return;
    }
    let step_len = speed_per_tick(super::pace_of(tick.view(), u, route));
    let line = corner - at;
    let to = if squared(line) <= squared(Vec2::new(step_len, Fx::ZERO)) {
        corner
    } else {
        at + line.with_length(step_len)
    };
    let (me, owner, radius) = (u.id, u.owner, tick.rules.radius_of(u.kind));
    // Marching to its place in a formation (a formation move caps its pace).
    let march = u.formation.filter(|_| route.speed_cap.is_some());
    // A body stepping out of another (a settle walk) makes room as one pressing does, at once
    // (Cohort's choice: nine placed on one point, the four in the middle were caged by the five
    // that had stepped out round them, none inside anyone, and stood inside each other for good).
    let presses = still_ticks(route, now) >= K_PRESS_AFTER_TICKS || route.settle;
    // Two walkers pressing, each making for where the other stands, shove each other back by
    // turns for good, each in the other's tick: the one held longer (its last stride the earlier,
    // the lower id on a tie) has the right of way, and the other does not shove it (Cohort's
    // choice: two knights left alone in the open after two blocks had crossed stood against
    // each other for 100 s, each shoved back by the other as far as it had stepped).
    let has_right_of_way = |r: &Route, there: Vec2, them: EntityId| {
        presses
            && heads_at(r, there, at)
            && still_ticks(r, now) >= K_PRESS_AFTER_TICKS
            && (r.progress.strode, them) < (route.progress.strode, me)
    };
    // A walker coming at the shover that may not give way sideways (a gap a body wide, a file
    // beside it) is shoved back, away from the shover, by the shover's step, when the shover
    // presses and has the right of way over it: held no shorter, and it not pressing or held
    // less long (Cohort's choice: four mangonels, two each way, met in a gap a mangonel wide
    // and stood there for 200 s, none able to step aside; the walkers of one way now back out
    // of the gap, those behind them shoved on, and the other way walks through).
    let backs_out = |r: &Route, there: Vec2, them: EntityId| {
        presses
            && heads_at(r, there, at)
            && (still_ticks(r, now) < K_PRESS_AFTER_TICKS
                || (route.progress.strode, me) < (r.progress.strode, them))
    };
    let push_idle = tick.rules.push_idle;
    let states = &tick.state.units;
    let shovable = |b: &Body| {
        if b.entity == me || Some(b.entity) == route.target {
            return false;
        }
        let Some(k) = find(states, b.entity, |v| v.id) else {
            return false;
        };
        let v = &states[k];
        if v.hit_points == 0 || v.pushed.is_some() {
            return false;
        }
        if v.route
            .as_ref()
            .is_some_and(|r| has_right_of_way(r, v.position, b.entity))
        {
            return false;
        }
        if b.owner != owner {
            // Pressing, it shoves another player's walker aside too; never one standing.
            return presses && v.route.is_some() && v.order != Order::Hold;
        }
        match (&v.order, &v.route) {
            (Order::Hold, _) => false,
            // Pressing, its own player's standing units make room (Cohort's choice), but a
            // formation's members standing on their places.
            (_, None) => {
                (presses && v.formation.is_none()) || (push_idle && v.order == Order::Idle)
            }
            (_, Some(r)) => {
                presses
                    || r.goal.chebyshev(route.goal) > K_SAME_WAY
                    || (march.is_some() && v.formation == march && r.speed_cap.is_some())
            }
        }
    };
    // The bodies a step to `to` would crowd: those it may shove, and whether any it may not.
    let survey = &tick.nav.survey;
    let crowded = |to: Vec2| {
        let step = to - at;
        let mut shoves: Vec<(EntityId, Vec2, Option<Vec2>, bool)> = Vec::new();
        let mut held = false;
        for b in survey.near(to, radius + widest) {
            let allow = (radius + b.radius) * super::K_KEEP_APART;
            let a = i128::from(allow.to_bits());
            let now_sq = squared(to - b.middle);
            if b.entity == me || now_sq >= a * a || now_sq >= squared(at - b.middle) {
                continue;
            }
            if !shovable(b) {
                held = true;
                continue;
            }
            let side = if step.cross(b.middle - at) >= Fx::ZERO {
                step.perp()
            } else {
                -step.perp()
            };
            let need = allow - (to - b.middle).length() + K_SHOVE_SLACK;
            // Only a body ahead of the shover on its line is shoved on along it.
            let ahead = (b.middle - at).dot(line) > Fx::ZERO;
            let back = find(states, b.entity, |v| v.id)
                .filter(|_| ahead)
                .filter(|&k| match &states[k].route {
                    Some(r) => backs_out(r, b.middle, b.entity),
                    // Its own player's standing unit, making room, goes on before it.
                    None => presses && b.owner == owner,
                })
                // Straight away from the shover (Cohort's choice: along the shover's line, a
                // walker whose first corner was a step of a detour a hundredth of a tile aside
                // shoved a mangonel in a gap into the gap's side, and the two stood 18 s:
                // `mangonels_meet_in_a_gap`).
                .map(|_| (b.middle - at).with_length(step_len + K_SHOVE_SLACK));
            shoves.push((
                b.entity,
                side.with_length(need.min(step_len)),
                back,
                b.owner != owner,
            ));
        }
        (shoves, held)
    };
    // Held by a body it may not shove (an enemy, a unit on hold, one at work), it steps to its
    // right instead, and shoves aside the friends there: so a block pressed front to front
    // against another gives way sideways, in lanes (`super::lane`).
    let (mut shoves, held) = crowded(to);
    if held {
        shoves = crowded(at + line.perp().with_length(step_len)).0;
    }
    for (id, aside, back, enemy) in shoves {
        let backed = back.is_some_and(|by| {
            shove(
                tick,
                me,
                id,
                by,
                widest,
                K_SHOVE_CHAIN,
                Manner {
                    presses,
                    slides: enemy || near_an_axis(by),
                },
            )
        });
        if !backed {
            shove(
                tick,
                me,
                id,
                aside,
                widest,
                K_SHOVE_CHAIN,
                Manner {
                    presses,
                    slides: false,
                },
            );
        }
    }
}

/// Whether `by` lies within about 7° of an axis (its lesser share at most [`K_NEAR_AN_AXIS`] of
/// its greater).
fn near_an_axis(by: Vec2) -> bool {
    let (a, b) = (by.x.abs(), by.y.abs());
    a.min(b) <= a.max(b) * K_NEAR_AN_AXIS
}

/// A friend shoved back along a line this near an axis (the lesser share of the greater) slides
/// along the axis where closed ground refuses the line (Cohort's choice: a mangonel in a gap a
/// body wide, its body a ten-thousandth of a tile inside its row, was shoved back along a line
/// that drifted a 2000th of a tile sideways for every 40th, so never backed out, and the one
/// coming the other way stood in the gap 205 s: `soak_469_…`).
pub const K_NEAR_AN_AXIS: Fx = fx_ratio(1, 8);

/// Whether a walker at `there` on `r` makes for `at`: its first corner lies on `at`'s side of it.
fn heads_at(r: &Route, there: Vec2, at: Vec2) -> bool {
    r.waypoints
        .first()
        .is_some_and(|&c| (c - there).dot(at - there) > Fx::ZERO)
}

/// How many bodies deep a shove passes on: a shoved body shoves those in its own way aside by
/// the same, up to this many deep (Cohort's choice: a block packed side by side gives way only
/// as a whole).
pub const K_SHOVE_CHAIN: u32 = 4;

/// How a shove is passed on: whether the first shover presses (then any standing unit of the
/// shoved one's player passes it on, [`passes_on`]), and whether the shoved bodies slide along
/// closed ground that refuses the shove (an enemy shoved back, [`shove`]).
#[derive(Clone, Copy)]
struct Manner {
    presses: bool,
    slides: bool,
}

/// Moves the body `id` by `by`, when the ground lets it and it comes nearer than the allowance to
/// nobody but `shover` that it was not already nearer to, once those of its own player in its
/// way that may be shoved on ([`passes_on`]) have been shoved by the same, up to `depth` deep;
/// sliding (`manner.slides`), by `by`'s share along its longer axis where closed ground refuses
/// `by`.
/// Whether it moved.
fn shove(
    tick: &mut Tick<'_>,
    shover: EntityId,
    id: EntityId,
    by: Vec2,
    widest: Fx,
    depth: u32,
    manner: Manner,
) -> bool {
    let Some(k) = find(&tick.state.units, id, |v| v.id) else {
        return false;
    };
    let v = &tick.state.units[k];
    let from = v.position;
    let owner = v.owner;
    let s = Stepper::of_unit(tick.view(), k, widest);
    // Held by closed ground, a body that slides goes by the shove's share along its longer axis
    // (Cohort's choice, for an enemy shoved back: two fleets met front to front in a two-tile
    // strait and stood 69.6 s, every shove back along the shover's line, a hair off the strait's
    // own, refused by the shore).
    let along = if by.x.abs() >= by.y.abs() {
        Vec2::new(by.x, Fx::ZERO)
    } else {
        Vec2::new(Fx::ZERO, by.y)
    };
    let ways = [Some(by), manner.slides.then_some(along)];
    let Some(by) = ways
        .into_iter()
        .flatten()
        .find(|&w| w != Vec2::ZERO && s.open_step(from, from + w) && s.body_open(from, from + w))
    else {
        return false;
    };
    let to = from + by;
    if s.crowds_but(from, to, shover) {
        if depth == 0 {
            return false;
        }
        // Those in its way, when every one may be shoved on.
        let mut next = Vec::new();
        for b in s.survey.near(to, s.radius + widest) {
            if b.entity == id || b.entity == shover || !s.too_near(from, to, b) {
                continue;
            }
            if !passes_on(tick, owner, b.entity, manner.presses) {
                return false;
            }
            next.push(b.entity);
        }
        for n in next {
            if !shove(tick, id, n, by, widest, depth - 1, manner) {
                return false;
            }
        }
        let s = Stepper::of_unit(tick.view(), k, widest);
        if s.crowds_but(from, to, shover) {
            return false;
        }
    }
    tick.state.units[k].position = to;
    tick.nav.survey.move_body(k, to);
    true
}

/// Whether a shove passes on to unit `id`: a walker of `owner`'s, or an idle one under
/// `push_idle`, or (the first shover pressing) any standing one of `owner`'s; never one on
/// hold, or pushed already.
fn passes_on(tick: &Tick<'_>, owner: crate::id::PlayerId, id: EntityId, presses: bool) -> bool {
    let Some(k) = find(&tick.state.units, id, |v| v.id) else {
        return false;
    };
    let v = &tick.state.units[k];
    if v.owner != owner || v.hit_points == 0 || v.pushed.is_some() {
        return false;
    }
    match (&v.order, &v.route) {
        (Order::Hold, _) => false,
        (_, None) => {
            (presses && v.formation.is_none()) || (tick.rules.push_idle && v.order == Order::Idle)
        }
        (_, Some(_)) => true,
    }
}
