//! The grid's part of `World::hash` comes from a cache kept by the grid's revision: the hash
//! must stay exactly the hash of the whole state encoded afresh, through every kind of change.

use cohort_sim::grid::Occupant;
use cohort_sim::map::{generate, MapOptions};
use cohort_sim::world::EntityId;
use cohort_sim::{Ruleset, Tile, World};
use std::sync::Arc;

fn world() -> World {
    generate(Arc::new(Ruleset::default_rules()), MapOptions::default())
}

/// The cached hash equals the recomputed one, and the per-part grid hash agrees too.
fn check(w: &World, what: &str) {
    assert_eq!(w.hash(), w.hash_uncached(), "after {what}");
    let grid_part = w.part_hashes()[1].1;
    assert_eq!(
        grid_part.0,
        cohort_sim::hash::hash_of(&w.state().grid),
        "grid part after {what}"
    );
    // The tick hash folds the grid's cached digest: a fresh copy of the grid (its cache empty)
    // gives the same tick hash.
    let mut fresh = w.clone();
    fresh.state_mut().grid =
        serde_json::from_value(serde_json::to_value(&w.state().grid).unwrap()).unwrap();
    assert_eq!(w.tick_hash(), fresh.tick_hash(), "tick hash after {what}");
}

#[test]
fn cached_hash_equals_recomputed_through_every_change() {
    let mut w = world();
    check(&w, "generating");
    let before = w.hash();
    let revision = w.state().grid.revision();

    // Unchanged grid: the encoding is reused, not taken again.
    let a = w.state().grid.canonical();
    let b = w.state().grid.canonical();
    assert!(Arc::ptr_eq(&a, &b), "an unchanged grid reuses its encoding");

    let t = Tile::new(5, 5);
    w.state_mut().grid.set_elevation(t, 3);
    assert!(w.state().grid.revision() > revision);
    assert!(!Arc::ptr_eq(&a, &w.state().grid.canonical()));
    check(&w, "an elevation change");
    assert_ne!(w.hash(), before, "elevation is in the hash");

    let grass = w.rules().terrain("grass").unwrap();
    let deep = w.rules().terrain("deep_water").unwrap();
    w.state_mut().grid.set_terrain(t, deep);
    check(&w, "a terrain change");
    w.state_mut().grid.set_terrain(t, grass);
    check(&w, "the terrain changed back");

    // Occupancy changes that leave walkability alone still count.
    w.state_mut()
        .grid
        .set_occupant(t, Occupant::Building(EntityId(900)));
    check(&w, "a building on a tile");
    w.state_mut()
        .grid
        .set_occupant(t, Occupant::Building(EntityId(901)));
    check(&w, "another building on the same tile");
    w.state_mut().grid.set_occupant(t, Occupant::Nothing);
    check(&w, "the tile cleared");

    // Through the world's own changes: a resource felled, a turn run.
    let felled = w.state().resources[0].id;
    w.remove_resource(felled);
    check(&w, "a resource removed");
    w.run_turn(&[], 8);
    check(&w, "a turn");

    // A clone carries its cache and stays right as it changes apart from the original.
    let mut c = w.clone();
    assert_eq!(c.hash(), w.hash());
    c.state_mut().grid.set_elevation(Tile::new(6, 6), -2);
    check(&c, "a change to a clone");
    check(&w, "a change to its clone");
    assert_ne!(c.hash(), w.hash());
}
