//! The `goldmine` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use super::common::*;
use crate::nav::spot::K_ROUNDING;
use crate::nav::{box_of, in_range, K_INSIDE};
use crate::position::{Bounds, Fx, Vec2};
use crate::scenario::Files;
use crate::state::TICK_MS;
use crate::verify::scene::Scene;
use crate::verify::Outcome;
use crate::world::World;

/// goldmine: 8 villagers at one gold mine stand along its faces, none stacked, and gather.
pub fn goldmine(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("goldmine");
    let Some(mut s) = o.scene(files, "gold_mine_8.toml") else {
        return o;
    };
    let (Some(ids), Some(mine)) = (o.group(&s, "", "villagers", 8), o.one(&s, "", "mine")) else {
        return o;
    };
    let radius = |w: &World| {
        ids.first()
            .and_then(|&id| w.unit(id))
            .map_or(Fx::ZERO, |u| w.rules().radius_of(u.kind))
    };
    let at_work = |w: &World| {
        ids.iter()
            .filter(|&&id| {
                w.unit(id).is_some_and(|u| {
                    u.route.is_none() && in_range(w.view(), u.position, radius(w), mine, K_INSIDE)
                })
            })
            .count()
    };
    let most = s.ticks;
    let ticks = s.run_until(most, |w| at_work(w) == ids.len());
    let w = s.world();
    let r = radius(w);
    let working = at_work(w);
    let ground = box_of(w.view(), mine).unwrap_or(Bounds::around(Vec2::default(), Fx::ZERO));
    let along_faces = ids.iter().filter_map(|&id| w.unit(id)).all(|u| {
        let d = ground.distance_from(u.position);
        d >= r - K_INSIDE - K_ROUNDING && d <= r + K_ROUNDING
    });
    let mut sides = [false; 4];
    for u in ids.iter().filter_map(|&id| w.unit(id)) {
        sides[side_of(ground.middle(), u.position)] = true;
    }
    o.require("at_work", working, working == ids.len());
    o.figure("all_at_work_ms", ticks * u64::from(TICK_MS));
    o.require("along_the_faces", along_faces, along_faces);
    o.figure("faces_used", sides.iter().filter(|&&b| b).count());
    let overlap = Scene::most_overlap(w, &ids);
    o.require("most_box_overlap", overlap, overlap <= K_ROUNDING);
    let stacked = Scene::stacked(w, &ids);
    o.require("stacked", stacked, !stacked);
    let carried = |w: &World| -> u32 {
        ids.iter()
            .filter_map(|&id| w.unit(id))
            .filter_map(|u| u.carrying.map(|c| c.1))
            .sum()
    };
    let before = carried(s.world());
    s.run_until(600, |_| false);
    let later = carried(s.world());
    o.require("gold_carried_10s_later", later, later > before);
    o
}
