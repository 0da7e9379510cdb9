//! The spec's stated cases for regions, layers and footprints (issue 2, §6).

use cohort_sim::grid::{Footprint, Keyed, PlayerMask};
use cohort_sim::map::{parse_ascii, Legend};
use cohort_sim::position::Tile;
use cohort_sim::world::Player;
use cohort_sim::{Ruleset, World};
use std::sync::Arc;

fn world(ascii: &str, players: Vec<Player>) -> World {
    let rules = Arc::new(Ruleset::default_rules());
    parse_ascii(ascii, &rules, &Legend::default())
        .unwrap()
        .into_world(rules, players, 1)
        .unwrap()
}

#[test]
fn a_two_tile_building_covers_offsets_minus_one_and_zero() {
    let rules = Ruleset::default_rules();
    let house = &rules.buildings[rules.building_kind("house").unwrap() as usize];
    let f = Footprint::of(house.half_extent, Tile::new(5, 5), false);
    assert_eq!((f.min, f.max), (Tile::new(-1, -1), Tile::new(0, 0)));
    let tiles: Vec<Tile> = f.tiles().collect();
    assert_eq!(tiles.len(), 4);
    assert!(tiles.contains(&Tile::new(4, 4)) && tiles.contains(&Tile::new(5, 5)));
    assert!(!tiles.contains(&Tile::new(6, 6)));
    // Placing it blocks exactly those tiles.
    let mut w = world(
        "........\n........\n........\n........\n........\n........\n........\n",
        vec![Player::new(0, 0)],
    );
    let kind = w.rules().building_kind("house").unwrap();
    w.place_building(kind, 0, Tile::new(5, 5), false, true)
        .unwrap();
    let land = Keyed::unkeyed(0);
    for y in 3..7 {
        for x in 3..7 {
            let t = Tile::new(x, y);
            assert_eq!(!w.grid().passable(land, t), tiles.contains(&t), "{t:?}");
        }
    }
}

#[test]
fn a_gate_is_open_to_its_owner_and_allies_and_shut_to_enemies_and_unkeyed_asks() {
    // Players 0 and 1 are allies; 2 is their enemy.
    let players = vec![Player::new(0, 0), Player::new(1, 0), Player::new(2, 1)];
    let mut w = world(
        "...#...\n...#...\n.......\n.......\n.......\n.......\n...#...\n",
        players,
    );
    let gate = w.rules().building_kind("gate").unwrap();
    let id = w
        .place_building(gate, 0, Tile::new(3, 4), true, true)
        .unwrap();
    w.prepare();
    let through = Tile::new(3, 4);
    let (left, right) = (Tile::new(0, 4), Tile::new(6, 4));
    let owner = Keyed::with_friends(0, w.friends(0));
    let ally = Keyed::with_friends(0, w.friends(1));
    let enemy = Keyed::with_friends(0, w.friends(2));
    assert!(w.grid().passable(owner, through));
    assert!(w.grid().passable(ally, through));
    assert!(!w.grid().passable(enemy, through));
    assert!(!w.grid().passable(Keyed::unkeyed(0), through));
    assert!(!w
        .grid()
        .passable(Keyed::with_friends(0, PlayerMask::NONE), through));
    let regions = &w.caches().regions;
    assert!(regions.connected(w.grid(), owner, left, right));
    assert!(regions.connected(w.grid(), ally, left, right));
    assert!(!regions.connected(w.grid(), enemy, left, right));
    assert!(!regions.connected(w.grid(), Keyed::unkeyed(0), left, right));
    // Locked, it is shut to its owner too.
    w.set_gate_lock(id, true);
    w.prepare();
    assert!(!w.grid().passable(owner, through));
    assert!(!w.caches().regions.connected(w.grid(), owner, left, right));
}

#[test]
fn a_felled_tree_joins_two_regions() {
    let mut w = world("..T..\n..T..\n..T..\n", vec![Player::new(0, 0)]);
    let land = Keyed::unkeyed(0);
    let (a, b) = (Tile::new(0, 1), Tile::new(4, 1));
    assert!(!w.caches().regions.connected(w.grid(), land, a, b));
    let revision = w.grid().walk_revision(0);
    let tree = w
        .state()
        .resources
        .iter()
        .find(|r| r.tile == Tile::new(2, 1))
        .unwrap()
        .id;
    w.remove_resource(tree);
    assert!(
        w.grid().walk_revision(0) > revision,
        "felling counts as a change on land"
    );
    w.prepare();
    assert!(w.caches().regions.connected(w.grid(), land, a, b));
}

#[test]
fn one_layers_change_leaves_anothers_revision_alone() {
    let mut w = world("..T~~\n.....\n..~~~\n", vec![Player::new(0, 0)]);
    let sea = w.rules().units[w.rules().unit_kind("galley").unwrap() as usize].layer;
    assert_ne!(sea, 0);
    let (land0, sea0) = (w.grid().walk_revision(0), w.grid().walk_revision(sea));
    let tree = w.state().resources[0].id;
    w.remove_resource(tree);
    assert_eq!(w.grid().walk_revision(0), land0 + 1);
    assert_eq!(
        w.grid().walk_revision(sea),
        sea0,
        "the sea never saw the tree"
    );
    // And a dock on the water changes the sea, not the land.
    let dock = w.rules().building_kind("dock").unwrap();
    let land1 = w.grid().walk_revision(0);
    let mut w2 = world("~~~~~\n~~~~~\n~~~~~\n~~~~~\n", vec![Player::new(0, 0)]);
    let (l, s) = (w2.grid().walk_revision(0), w2.grid().walk_revision(sea));
    w2.place_building(dock, 0, Tile::new(2, 2), false, true)
        .unwrap();
    assert_eq!(w2.grid().walk_revision(0), l);
    assert!(w2.grid().walk_revision(sea) > s);
    assert_eq!(w.grid().walk_revision(0), land1);
}

#[test]
fn fishing_ship_galley_and_transport_share_the_sea_layer() {
    let rules = Ruleset::default_rules();
    let layer = |n: &str| rules.units[rules.unit_kind(n).unwrap() as usize].layer;
    assert_eq!(layer("fishing_ship"), layer("galley"));
    assert_eq!(layer("galley"), layer("transport_ship"));
    assert_ne!(layer("galley"), layer("villager"));
    assert_eq!(layer("villager"), 0, "layer 0 is land, the villager's");
    // On one map they see the same water.
    let w = world("..~~~\n..~~~\n", vec![Player::new(0, 0)]);
    let sea = Keyed::unkeyed(layer("galley"));
    assert!(w.grid().passable(sea, Tile::new(3, 1)));
    assert!(!w.grid().passable(sea, Tile::new(1, 1)));
    assert!(w.grid().passable(Keyed::unkeyed(0), Tile::new(1, 1)));
}
