//! The default map's generator: deterministic, complete and fair for 2 to 8 players.

use cohort_sim::grid::Keyed;
use cohort_sim::map::{generate, start_tiles, to_ascii, MapOptions, START_VILLAGERS};
use cohort_sim::{Ruleset, World};
use std::sync::Arc;

fn world(players: u8, size: i32, seed: u64) -> World {
    generate(
        Arc::new(Ruleset::default_rules()),
        MapOptions {
            seed,
            size,
            players,
        },
    )
}

#[test]
fn same_options_same_map_other_seed_other_forests() {
    let a = world(4, 96, 7);
    assert_eq!(a.hash(), world(4, 96, 7).hash());
    assert_eq!(to_ascii(&a), to_ascii(&world(4, 96, 7)));
    assert_ne!(to_ascii(&a), to_ascii(&world(4, 96, 8)));
}

#[test]
fn every_player_starts_with_a_town_center_villagers_and_a_scout() {
    for players in 2..=8u8 {
        for size in [48, 120, 200] {
            let w = world(players, size, 3);
            let rules = w.rules();
            let tc = rules.building_kind("town_center").unwrap();
            let villager = rules.unit_kind("villager").unwrap();
            let scout = rules.unit_kind("scout_cavalry").unwrap();
            assert_eq!(w.state().players.len(), players as usize);
            for p in 0..players {
                let tcs = w
                    .state()
                    .buildings
                    .iter()
                    .filter(|b| b.owner == p && b.kind == tc);
                assert_eq!(
                    tcs.count(),
                    1,
                    "{players} players, {size} tiles, player {p}"
                );
                let units = |k| {
                    w.state()
                        .units
                        .iter()
                        .filter(|u| u.owner == p && u.kind == k)
                        .count()
                };
                assert_eq!(units(villager), START_VILLAGERS as usize);
                assert_eq!(units(scout), 1);
            }
            for u in &w.state().units {
                let layer = rules.units[u.kind as usize].layer;
                assert!(
                    w.grid().passable(Keyed::unkeyed(layer), u.position.tile()),
                    "unit {} on closed ground ({players} players, {size} tiles)",
                    u.id.0
                );
            }
        }
    }
}

#[test]
fn starts_are_fair_and_joined_by_land() {
    for players in 2..=8u8 {
        let opts = MapOptions {
            seed: 11,
            size: 120,
            players,
        };
        let w = generate(Arc::new(Ruleset::default_rules()), opts);
        let rules = w.rules();
        let starts = start_tiles(opts);
        // The same mines and bushes within reach of every start.
        let near = |s: cohort_sim::Tile, name: &str| {
            let k = rules.resource_kind(name).unwrap();
            w.state()
                .resources
                .iter()
                .filter(|r| r.kind == k && (r.tile.x - s.x).abs().max((r.tile.y - s.y).abs()) <= 10)
                .count()
        };
        for name in ["gold_mine", "stone_mine", "berry_bush"] {
            let counts: Vec<usize> = starts.iter().map(|&s| near(s, name)).collect();
            assert!(counts[0] > 0, "{name}: {counts:?}");
            assert!(
                counts.iter().all(|&c| c == counts[0]),
                "{players} players, {name}: {counts:?}"
            );
        }
        // Every player's villagers can walk to every other player's.
        let land = Keyed::unkeyed(0);
        let first: Vec<_> = (0..players)
            .map(|p| {
                w.state()
                    .units
                    .iter()
                    .find(|u| u.owner == p)
                    .unwrap()
                    .position
                    .tile()
            })
            .collect();
        for &t in &first[1..] {
            assert!(
                w.caches().regions.connected(w.grid(), land, first[0], t),
                "{players} players: starts not joined by land"
            );
        }
    }
}

#[test]
fn the_map_has_a_lake_and_forests() {
    let w = world(2, 120, 5);
    let rules = w.rules();
    let deep = rules.terrain("deep_water").unwrap();
    let water = (0..w.grid().len())
        .filter(|&i| w.grid().terrain_at(i) == deep)
        .count();
    assert!(water > 50, "{water} tiles of deep water");
    let tree = rules.resource_kind("tree").unwrap();
    let trees = w
        .state()
        .resources
        .iter()
        .filter(|r| r.kind == tree)
        .count();
    assert!(trees > 100, "{trees} trees");
    // The middle of the map is the lake.
    assert_eq!(w.grid().terrain(cohort_sim::Tile::new(60, 60)), Some(deep));
}
