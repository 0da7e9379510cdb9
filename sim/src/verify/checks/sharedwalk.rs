//! The `sharedwalk` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use crate::scenario::Files;
use crate::verify::Outcome;

/// sharedwalk: 100 soldiers sent as a block to one point cost at most 10 searches.
pub fn sharedwalk(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("sharedwalk");
    let Some(mut s) = o.scene(files, "sharedwalk.toml") else {
        return o;
    };
    let Some(ids) = o.group(&s, "", "block", 100) else {
        return o;
    };
    let before = s.world().counters.clone();
    s.step();
    let w = s.world();
    let searches = w.counters.route_searches - before.route_searches;
    let shared = w.counters.shared_walks - before.shared_walks;
    let walking = ids
        .iter()
        .filter(|&&id| w.unit(id).is_some_and(|u| u.route.is_some()))
        .count();
    o.require("searches", searches, searches <= 10);
    o.figure("shared_walks", shared);
    o.require("walking", walking, walking == ids.len());
    o
}
