//! The `chasetable` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use crate::nav::chase::{K_CHASE_PATCH, K_CHASE_REPLAN_MS, K_CHASE_STAGGER_MS};
use crate::position::{tile_of, Vec2};
use crate::scenario::Files;
use crate::state::TICK_MS;
use crate::verify::Outcome;

/// The spec's `ReplanWait`, written out again from its text: 500 ms less 16 ms for each of
/// eight places in the cycle of four-tile patches. `chasetable` holds the sim to it.
fn spec_replan_wait(at: Vec2) -> u64 {
    let px = tile_of(at.x) / K_CHASE_PATCH;
    let py = tile_of(at.y) / K_CHASE_PATCH;
    K_CHASE_REPLAN_MS - ((px + 3 * py) & 7) as u64 * K_CHASE_STAGGER_MS
}

/// The spec's table of waits for the first four by four patches, in milliseconds (rows py 0–3,
/// columns px 0–3).
const SPEC_TABLE: [[u64; 4]; 4] = [
    [500, 484, 468, 452],
    [452, 436, 420, 404],
    [404, 388, 500, 484],
    [484, 468, 452, 436],
];

/// chasetable: a chaser of a fleeing unit replans when the wait of the patch it stood in (the
/// spec's table) has passed, at the first tick it has, every time.
pub fn chasetable(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("chasetable");
    let mut table_holds = true;
    for (py, row) in SPEC_TABLE.iter().enumerate() {
        for (px, &ms) in row.iter().enumerate() {
            let at = Vec2::of_tile(crate::position::Tile::new(
                px as i32 * K_CHASE_PATCH,
                py as i32 * K_CHASE_PATCH,
            ));
            table_holds &= spec_replan_wait(at) == ms && crate::nav::replan_wait(at) == ms;
        }
    }
    o.require("waits_as_the_table", table_holds, table_holds);
    let Some(mut s) = o.scene(files, "chase_fleeing.toml") else {
        return o;
    };
    let (Some(chaser), Some(_)) = (o.one(&s, "", "chaser"), o.one(&s, "", "fleeing")) else {
        return o;
    };
    let mut plans = 0;
    let mut off_table = 0;
    let mut patches = Vec::new();
    let mut last: Option<u64> = None;
    let searches_before = s.world().counters.route_searches;
    for _ in 0..s.ticks {
        let before = s
            .world()
            .unit(chaser)
            .map(|u| (u.replan_at_ms, u.position, u.route.is_none()));
        s.step();
        let Some(u) = s.world().unit(chaser) else {
            break;
        };
        let Some((was, stood, walk_ran_out)) = before else {
            break;
        };
        if u.replan_at_ms == was || u.hit_points == 0 {
            continue;
        }
        plans += 1;
        let planned_ms = (s.world().tick() - 1) * u64::from(TICK_MS);
        let wait = spec_replan_wait(stood);
        let patch = (
            tile_of(stood.x) / K_CHASE_PATCH,
            tile_of(stood.y) / K_CHASE_PATCH,
        );
        if !patches.contains(&patch) {
            patches.push(patch);
        }
        // Planned for the wait of where it stood, at the first tick the last wait had passed
        // (or at once, its walk having run out).
        let on_time = walk_ran_out
            || last.is_none_or(|due| planned_ms >= due && planned_ms < due + u64::from(TICK_MS));
        if u.replan_at_ms != planned_ms + wait || !on_time {
            off_table += 1;
        }
        last = Some(u.replan_at_ms);
    }
    let searches = s.world().counters.route_searches - searches_before;
    o.require("plans", plans, plans >= 20);
    o.figure("patches_planned_in", patches.len());
    o.require("off_the_table", off_table, off_table == 0);
    o.figure("searches", searches);
    o
}
