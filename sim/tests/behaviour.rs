//! Behaviours the spec and devlog ask for, each over its own scenario in `scenarios/` (issue 4's
//! gaps): shared walks across the default map, idle soldiers fighting back, gatherers along a
//! mine's faces, a formation of mixed speeds arriving together.

mod common;

use cohort_sim::scenario::Runner;

/// spec "Units sent together": the tick benchmark's 200 militia, sent as a block to one point
/// across the default map's lake, share their walks — at most 10 searches.
#[test]
fn sharedwalk_200_on_the_default_map_costs_at_most_10_searches() {
    let mut r = Runner::new(common::load("sharedwalk_200.toml"));
    r.run(1, |_| {});
    let w = &r.world;
    let searches = w.counters.route_searches;
    assert!(searches <= 10, "{searches} searches for 200");
    let army: Vec<_> = w
        .state
        .units
        .iter()
        .filter(|u| u.owner == 0 && u.kind == w.rules().unit_kind("militia").unwrap())
        .collect();
    assert_eq!(army.len(), 200);
    assert!(
        army.iter().all(|u| u.route.is_some()),
        "every soldier walks"
    );
    assert!(w.counters.shared_walks >= 190, "{:?}", w.counters);
}
