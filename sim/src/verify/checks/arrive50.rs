//! The `arrive50` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use crate::scenario::Files;
use crate::state::TICK_MS;
use crate::verify::scene::Scene;
use crate::verify::Outcome;

/// arrive50: after a group of 50 arrives, no two bodies overlap by more than the keep-apart
/// allowance.
pub fn arrive50(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("arrive50");
    let Some(mut s) = o.scene(files, "group50_arrival.toml") else {
        return o;
    };
    let Some(ids) = o.group(&s, "", "group", 50) else {
        return o;
    };
    let most = s.ticks;
    let ticks = 1 + s.run_until(most, |w| w.tick() > 0 && Scene::all_stopped(w, &ids));
    o.require("all_arrived_ms", ticks * u64::from(TICK_MS), ticks < most);
    o.kept_apart("", s.world(), &ids);
    o
}
