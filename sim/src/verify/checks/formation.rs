//! The `formation` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use crate::formation::K_SPACING;
use crate::id::EntityId;
use crate::position::{Fx, Vec2};
use crate::scenario::Files;
use crate::state::{Order, TICK_MS};
use crate::verify::scene::Scene;
use crate::verify::Outcome;
use crate::walk::speed_of;
use crate::world::World;

/// Members of a formation arrive "together" when the first and the last reach their places
/// within this many milliseconds (a second: less than the slowest member takes to walk one
/// rank and a half, 0.7 tiles apart, at 0.9 tiles a second).
pub const K_TOGETHER_MS: u64 = 1000;

/// formation: a formation of mixed speeds walks at its slowest member's pace and arrives
/// together (within [`K_TOGETHER_MS`]).
pub fn formation(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("formation");
    let Some(mut s) = o.scene(files, "formation_mixed_speeds.toml") else {
        return o;
    };
    // Eight of each speed, or the formation is not the one measured.
    let mut ids: Vec<EntityId> = Vec::new();
    for name in ["knights", "militia", "archers"] {
        let Some(group) = o.group(&s, "", name, 8) else {
            return o;
        };
        ids.extend(group);
    }
    let slowest = {
        let w = s.world();
        ids.iter()
            .filter_map(|&id| w.unit(id))
            .map(|u| speed_of(w.view(), u))
            .min()
            .unwrap_or_default()
    };
    // Through the tick the move is given (the set_formation and the move: ticks 0 and 1).
    let given = s.runner.commands.iter().map(|c| c.tick).max().unwrap_or(0);
    while s.world().tick() <= given {
        s.step();
    }
    let caps: Vec<Option<Fx>> = ids
        .iter()
        .map(|&id| {
            s.world()
                .unit(id)
                .and_then(|u| u.route.as_ref().and_then(|r| r.speed_cap))
        })
        .collect();
    // At the slowest speed, or below it for a shorter walk (so all arrive together).
    let all_capped = caps.iter().all(|c| c.is_some_and(|c| c <= slowest));
    // The place each was dealt: where its move order sends it.
    let places: Vec<Option<Vec2>> = ids
        .iter()
        .map(|&id| match s.world().unit(id).map(|u| &u.order) {
            Some(Order::Move { to }) => Some(*to),
            _ => None,
        })
        .collect();
    let start = s.world().tick();
    let mut arrived: Vec<Option<u64>> = vec![None; ids.len()];
    // How near any two members come on the march is printed (kept apart as every walker is,
    // `crate::walk::apart`; the run's watch holds every scene to it).
    let mut on_the_march = i64::MAX;
    let most = s.ticks;
    let ran = s.run_until(most, |w: &World| {
        on_the_march = on_the_march.min(Scene::closest_share(w, &ids));
        for (k, &id) in ids.iter().enumerate() {
            if arrived[k].is_none() && w.unit(id).is_some_and(|u| u.route.is_none()) {
                arrived[k] = Some(w.tick() - start);
            }
        }
        arrived.iter().all(|a| a.is_some())
    });
    let first = arrived.iter().flatten().min().copied().unwrap_or(0);
    let last = arrived.iter().flatten().max().copied().unwrap_or(0);
    let spread_ms = (last - first) * u64::from(TICK_MS);
    o.figure("members", ids.len());
    o.require("capped_at_slowest", slowest, all_capped);
    o.require("all_arrived", ran < most, ran < most);
    o.figure("first_arrival_ms", first * u64::from(TICK_MS));
    o.require("arrival_spread_ms", spread_ms, spread_ms <= K_TOGETHER_MS);
    // "So a formation arrives without anyone shuffling apart": each stands on its place, within
    // half the spacing of a formation.
    let off_place = ids
        .iter()
        .zip(&places)
        .filter(|(&id, place)| {
            let at = s.world().unit(id).map(|u| u.position);
            at.zip(**place)
                .is_none_or(|(a, p)| a.distance(p) > K_SPACING / 2)
        })
        .count();
    o.require("off_their_places", off_place, off_place == 0);
    o.figure(
        "closest_pair_on_the_march_per_mille_of_allowance",
        on_the_march,
    );
    o.kept_apart("", s.world(), &ids);
    o
}
