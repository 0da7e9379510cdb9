//! Same inputs, same hashes: every sample run twice agrees turn by turn, and a snapshot taken
//! mid-run, saved, loaded and run on gives the same hashes as running straight through.

mod common;

use cohort_sim::scenario::Runner;
use cohort_sim::world::Snapshot;
use cohort_sim::World;

#[test]
fn every_sample_twice_gives_identical_hash_sequences() {
    for name in common::samples() {
        let a = common::run(&name);
        let b = common::run(&name);
        assert!(!a.turn_hashes.is_empty(), "{name}");
        assert_eq!(a.turn_hashes, b.turn_hashes, "{name}");
        assert_eq!(a.report(), b.report(), "{name}");
    }
}

#[test]
fn snapshot_load_continue_equals_a_straight_run() {
    for name in common::samples() {
        let scenario = common::load(&name);
        let ticks = scenario.ticks.min(800);
        let mut straight = Runner::new(scenario.clone());
        straight.run(ticks, |_| {});

        let mut first = Runner::new(scenario);
        let half = ticks / 2 - ticks / 2 % u64::from(first.turn_ticks);
        first.run(half, |_| {});
        // Through a real encoding, as a rejoining client gets it.
        let json = serde_json::to_string(&first.world.snapshot()).unwrap();
        let snap: Snapshot = serde_json::from_str(&json).unwrap();
        let loaded = World::from_snapshot(first.world.rules_arc(), snap).unwrap();
        assert_eq!(
            loaded.hash(),
            first.world.hash(),
            "{name}: the snapshot round-trips"
        );
        first.resume_from(loaded);
        first.run(ticks - half, |_| {});

        assert_eq!(first.turn_hashes, straight.turn_hashes, "{name}");
        assert_eq!(first.world.hash(), straight.world.hash(), "{name}");
    }
}
