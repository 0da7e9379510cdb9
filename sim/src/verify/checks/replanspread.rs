//! The `replanspread` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use crate::id::EntityId;
use crate::nav::chase::K_CHASE_REPLAN_MS;
use crate::scenario::Files;
use crate::state::TICK_MS;
use crate::verify::Outcome;

/// replanspread: an army of 40 round one enemy replans on at least 6 different ticks of every
/// 500 ms (every span of that many ticks, from the first plan to the end of the scene).
pub fn replanspread(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("replanspread");
    let Some(mut s) = o.scene(files, "replanspread.toml") else {
        return o;
    };
    // Four tens round the one enemy: every group there, or nothing is measured.
    let mut army: Vec<EntityId> = Vec::new();
    for k in 1..=4 {
        let Some(ids) = o.group(&s, "", &format!("army{k}"), 10) else {
            return o;
        };
        army.extend(ids);
    }
    if o.one(&s, "", "enemy").is_none() {
        return o;
    }
    let window = (K_CHASE_REPLAN_MS / u64::from(TICK_MS)) as usize;
    let mut replanned: Vec<bool> = Vec::new();
    let searches_before = s.world().counters.route_searches;
    for _ in 0..s.ticks {
        let before = s.world().counters.replans;
        s.step();
        replanned.push(s.world().counters.replans > before);
    }
    let fewest = replanned
        .windows(window)
        .map(|c| c.iter().filter(|&&b| b).count())
        .min()
        .unwrap_or(0);
    o.require("army", army.len(), army.len() >= 40);
    o.figure(
        "each_500ms",
        replanned
            .chunks(window)
            .map(|c| c.iter().filter(|&&b| b).count().to_string())
            .collect::<Vec<_>>()
            .join("/"),
    );
    o.figure("ticks_in_500ms", window);
    o.figure(
        "route_searches",
        s.world().counters.route_searches - searches_before,
    );
    o.figure("spans", replanned.len().saturating_sub(window - 1));
    o.require("fewest_replan_ticks_in_any_500ms", fewest, fewest >= 6);
    o
}
