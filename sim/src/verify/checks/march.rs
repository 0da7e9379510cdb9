//! The `march` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use super::common::*;
use crate::nav::{box_of, in_range, reach_gap, K_INSIDE};
use crate::position::{Bounds, Fx, Vec2};
use crate::scenario::Files;
use crate::state::TICK_MS;
use crate::verify::scene::Scene;
use crate::verify::{Outcome, APART_PER_MILLE};
use crate::walk::goal::{K_RINGS, K_RING_SPACING};

/// march: soldiers keep their width (never nearer than the keep-apart allowance, walking or
/// standing), do not stack (sent to one point, they take places round it), stand round a target
/// (every place round its body taken, on every side) and spread along a wall (the face in front
/// filled before any goes round a corner).
pub fn march(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("march");
    march_width(files, &mut o);
    march_no_stack(files, &mut o);
    march_surround(files, &mut o);
    march_wall(files, &mut o);
    o
}

fn march_width(files: &dyn Files, o: &mut Outcome) {
    let Some(mut s) = o.scene(files, "march_width.toml") else {
        return;
    };
    let Some(ids) = o.group(&s, "width.", "block", 24) else {
        return;
    };
    let mut closest = Scene::closest_share(s.world(), &ids);
    let mut ticks = 0;
    while ticks < s.ticks && !(ticks > 0 && Scene::all_stopped(s.world(), &ids)) {
        s.step();
        ticks += 1;
        closest = closest.min(Scene::closest_share(s.world(), &ids));
    }
    o.require(
        "width.arrived_ms",
        ticks * u64::from(TICK_MS),
        ticks < s.ticks,
    );
    o.require(
        "width.closest_pair_per_mille_of_allowance_any_tick",
        closest,
        closest >= APART_PER_MILLE,
    );
}

fn march_no_stack(files: &dyn Files, o: &mut Outcome) {
    let Some(mut s) = o.scene(files, "march_no_stack.toml") else {
        return;
    };
    let Some(ids) = o.group(&s, "no_stack.", "block", 20) else {
        return;
    };
    let Some(goal) = move_point(&s) else {
        o.require("no_stack.sent_to_a_point", false, false);
        return;
    };
    let most = s.ticks;
    let ticks = 1 + s.run_until(most, |w| w.tick() > 0 && Scene::all_stopped(w, &ids));
    let w = s.world();
    let furthest = ids
        .iter()
        .filter_map(|&id| w.unit(id))
        .map(|u| u.position.chebyshev(goal))
        .max()
        .unwrap_or_default();
    o.require(
        "no_stack.stopped_ms",
        ticks * u64::from(TICK_MS),
        ticks < most,
    );
    o.require(
        "no_stack.furthest_from_the_point",
        furthest,
        furthest <= K_RING_SPACING * i64::from(K_RINGS),
    );
    o.kept_apart("no_stack.", w, &ids);
}

fn march_surround(files: &dyn Files, o: &mut Outcome) {
    let Some(mut s) = o.scene(files, "march_surround.toml") else {
        return;
    };
    let (Some(ids), Some(enemy)) = (
        o.group(&s, "surround.", "attackers", 12),
        o.one(&s, "surround.", "enemy"),
    ) else {
        return;
    };
    // The places round the target's body the planner offers the attackers as they come (the
    // first ring, then a body's width further out).
    let (first_ring, second_ring) = {
        let w = s.world();
        let (radius, range) =
            ids.first()
                .and_then(|&id| w.unit(id))
                .map_or((Fx::ZERO, Fx::ZERO), |u| {
                    let k = &w.rules().unit(u.kind);
                    (k.radius, k.range)
                });
        let outside = range + radius - K_INSIDE;
        let first = ids
            .first()
            .map_or(Vec::new(), |&a| every_spot(w, a, enemy, outside, &[]));
        let second = ids.first().map_or(Vec::new(), |&a| {
            every_spot(w, a, enemy, outside + radius * 2, &first)
        });
        (first.len(), second.len())
    };
    let ticks = s.ticks;
    s.runner.run(ticks, |_| {});
    let w = s.world();
    let Some(target) = box_of(w.view(), enemy) else {
        o.require("surround.enemy_alive", false, false);
        return;
    };
    let radius = ids
        .first()
        .and_then(|&id| w.unit(id))
        .map_or(Fx::ZERO, |u| w.rules().radius_of(u.kind));
    let range = ids
        .first()
        .and_then(|&id| w.unit(id))
        .map_or(Fx::ZERO, |u| w.rules().unit(u.kind).range);
    let fighting: Vec<Vec2> = ids
        .iter()
        .filter_map(|&id| w.unit(id))
        .filter(|u| in_range(w.view(), u.position, radius, enemy, range))
        .map(|u| u.position)
        .collect();
    let mut sides = [false; 4];
    for u in ids.iter().filter_map(|&id| w.unit(id)) {
        sides[side_of(target.middle(), u.position)] = true;
    }
    let sides = sides.iter().filter(|&&b| b).count();
    let furthest = ids
        .iter()
        .filter_map(|&id| w.unit(id))
        .map(|u| reach_gap(&Bounds::around(u.position, radius), &target))
        .max()
        .unwrap_or_default();
    o.figure("surround.places_round_the_body", first_ring);
    o.figure("surround.places_a_body_further_out", second_ring);
    o.require(
        "surround.fighting",
        fighting.len(),
        fighting.len() >= first_ring.min(ids.len()),
    );
    o.require("surround.sides_stood_on", sides, sides == 4);
    // Every spot taken, the rest stand a body's width further out — and, both rings taken
    // where the others actually stopped (a walk to a target ends wherever it comes in range),
    // further still: a figure, not a rule of the spec's.
    o.figure("surround.furthest_gap", furthest);
    o.kept_apart("surround.", w, &ids);
}

fn march_wall(files: &dyn Files, o: &mut Outcome) {
    let Some(mut s) = o.scene(files, "march_wall.toml") else {
        return;
    };
    let (Some(ids), Some(barracks)) = (
        o.group(&s, "wall.", "attackers", 12),
        o.one(&s, "wall.", "barracks"),
    ) else {
        return;
    };
    // How many the planner puts on the face in front before it sends anyone round a corner.
    let face_holds = {
        let w = s.world();
        let outside = ids
            .first()
            .and_then(|&id| w.unit(id))
            .map_or(Fx::ZERO, |u| {
                let k = &w.rules().unit(u.kind);
                k.range + k.radius - K_INSIDE
            });
        let spots = ids
            .first()
            .map_or(Vec::new(), |&a| every_spot(w, a, barracks, outside, &[]));
        let ring = box_of(w.view(), barracks).map(|g| g.widened(outside));
        spots
            .iter()
            .position(|p| ring.is_none_or(|r| p.x != r.min.x))
            .unwrap_or(spots.len())
    };
    let ticks = s.ticks;
    s.runner.run(ticks, |_| {});
    let w = s.world();
    let Some(ground) = box_of(w.view(), barracks) else {
        o.require("wall.barracks_standing", false, false);
        return;
    };
    let (radius, range) =
        ids.first()
            .and_then(|&id| w.unit(id))
            .map_or((Fx::ZERO, Fx::ZERO), |u| {
                let k = &w.rules().unit(u.kind);
                (k.radius, k.range)
            });
    let at_wall: Vec<Vec2> = ids
        .iter()
        .filter_map(|&id| w.unit(id))
        .filter(|u| in_range(w.view(), u.position, radius, barracks, range))
        .map(|u| u.position)
        .collect();
    let ring = ground.widened(range + radius - K_INSIDE);
    // Those standing west of the wall, along it (a walk to it ends wherever it comes in range,
    // a little short of the spot it made for).
    let mut west: Vec<Fx> = at_wall
        .iter()
        .filter(|p| p.x < ground.min.x && p.y >= ring.min.y && p.y <= ring.max.y)
        .map(|p| p.y)
        .collect();
    west.sort_unstable();
    let round_a_corner = at_wall.len() - west.len();
    let spread = west
        .last()
        .zip(west.first())
        .map_or(Fx::ZERO, |(a, b)| *a - *b);
    o.require("wall.fighting", at_wall.len(), at_wall.len() == ids.len());
    // Nobody is round a corner while the face in front has room for one more (at the
    // planner's fineness) between those standing there.
    let full = west_face_full(&ring, radius * 2, &west);
    // The planner puts them on the face in front first, and some stand there.
    o.require(
        "wall.the_planner_puts_on_the_face_in_front",
        face_holds,
        face_holds > 0,
    );
    o.require("wall.on_the_face_in_front", west.len(), !west.is_empty());
    o.require(
        "wall.round_a_corner",
        round_a_corner,
        round_a_corner == 0 || full,
    );
    o.figure("wall.spread_along_it_tiles", spread);
    o.kept_apart("wall.", w, &ids);
}
