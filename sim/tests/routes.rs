//! Route search behaviours named by issue 3: the budget's partial routes, a crowd of 33 tiles
//! walked straight into and one of 32 gone round, Toward from the sea and into a walled-in pocket,
//! landmarks left alone by a building and measured again after a terrain change, and a goal in
//! another region refused without a single expansion.

use cohort_sim::astar::{
    find_route, Budget, Scratch, Search, K_SHORT_BUDGET, K_SHORT_BUDGET_PER_TILE,
};
use cohort_sim::grid::{Grid, Keyed};
use cohort_sim::nav::{crowd_at_goal, route, route_for, toward, Ask, K_GO_ROUND_CROWD};
use cohort_sim::world::{EntityId, Player, World};
use cohort_sim::{fx, fx_ratio, Ruleset, Tile, Vec2};
use std::sync::Arc;

const LAND: Keyed = Keyed::unkeyed(0);

fn rules() -> Arc<Ruleset> {
    Arc::new(Ruleset::default_rules())
}

fn grass(rules: &Ruleset, w: i32, h: i32) -> Grid {
    Grid::new(rules, w, h, rules.terrain("grass").unwrap())
}

fn world(rules: Arc<Ruleset>, grid: Grid) -> World {
    World::new(rules, grid, vec![Player::new(0, 0), Player::new(1, 1)], 7)
}

fn at(x: i32, y: i32) -> Vec2 {
    Vec2::of_tile(Tile::new(x, y))
}

fn villager(w: &mut World, x: i32, y: i32) -> EntityId {
    let kind = w.rules().unit_kind("villager").unwrap();
    w.spawn_unit(kind, 0, at(x, y))
}

fn radius(w: &World) -> cohort_sim::Fx {
    w.rules().units[w.rules().unit_kind("villager").unwrap() as usize].radius
}

/// Files the survey, as the tick's second step does.
fn survey(w: &mut World) {
    w.file_survey();
}

/// A cliff wall down column `x` from row 0 to `to_y` inclusive.
fn cliff_column(rules: &Ruleset, g: &mut Grid, x: i32, to_y: i32) {
    let cliff = rules.terrain("cliff").unwrap();
    for y in 0..=to_y {
        g.set_terrain(Tile::new(x, y), cliff);
    }
}

#[test]
fn a_short_route_blocked_ends_at_the_tile_nearest_the_goal_within_its_budget() {
    let rules = rules();
    let mut g = grass(&rules, 64, 64);
    // A wall down column 30, open only at the bottom row: the way round is long.
    cliff_column(&rules, &mut g, 30, 62);
    let (from, to) = (Tile::new(25, 20), Tile::new(35, 20));
    let mut scratch = Scratch::default();
    let found = find_route(&g, &mut scratch, &Search::new(LAND, from, to));
    let budget = K_SHORT_BUDGET + K_SHORT_BUDGET_PER_TILE * 10;
    assert!(!found.reached);
    assert_eq!(found.expansions, budget);
    assert_eq!(
        found.end,
        Tile::new(29, 20),
        "the wall's face, nearest the goal"
    );
    assert_eq!(scratch.path().first(), Some(&from));
    assert_eq!(scratch.path().last(), Some(&Tile::new(29, 20)));
    assert!(found.is_route(from));

    // Without a budget the way round is found.
    let unlimited = Search {
        budget: Budget::Unlimited,
        ..Search::new(LAND, from, to)
    };
    assert!(find_route(&g, &mut scratch, &unlimited).reached);

    // From the wall's face nothing nearer is found: no route.
    let face = Tile::new(29, 20);
    let found = find_route(&g, &mut scratch, &Search::new(LAND, face, to));
    assert!(!found.reached);
    assert_eq!(found.end, face);
    assert!(!found.is_route(face));
}

#[test]
fn a_long_route_gets_twenty_thousand_expansions() {
    assert_eq!(
        Budget::Spec.expansions(Tile::new(0, 0), Tile::new(15, 3)),
        256 + 64 * 15
    );
    assert_eq!(
        Budget::Spec.expansions(Tile::new(0, 0), Tile::new(3, 16)),
        20_000
    );
}

/// A villager walking from (5, 16) to (20, 20), with a crowd of villagers standing on every
/// tile of columns 16 to 19, rows 16 to 23 (32 tiles), and one more tile when `extra`: all
/// within `K_STANDING_REACH` of the box spanning start and goal.
fn crowd_world(extra: bool) -> (World, Ask, Vec<Tile>) {
    let rules = rules();
    let mut w = world(rules.clone(), grass(&rules, 40, 40));
    let walker = villager(&mut w, 5, 16);
    let mut crowd: Vec<Tile> = (16..20)
        .flat_map(|x| (16..24).map(move |y| Tile::new(x, y)))
        .collect();
    if extra {
        crowd.push(Tile::new(19, 24));
    }
    for t in &crowd {
        let kind = w.rules().unit_kind("villager").unwrap();
        w.spawn_unit(kind, 1, Vec2::of_tile(*t));
    }
    survey(&mut w);
    let ask = Ask::to_point(w.view(), walker, at(20, 20)).unwrap();
    (w, ask, crowd)
}

#[test]
fn a_crowd_of_32_tiles_is_gone_round_and_one_of_33_walked_straight_into() {
    let (mut w, ask, crowd) = crowd_world(false);
    assert_eq!(crowd_at_goal(w.view(), &ask).len(), K_GO_ROUND_CROWD);
    let r = route_for(&mut w.parts(), &ask).expect("a route round the crowd");
    assert!(r.has_goal);
    let path = w.caches().search.scratch.path().to_vec();
    assert!(
        path.iter().all(|t| !crowd.contains(t)),
        "the search keeps off the crowd: {path:?}"
    );
    assert!(r.waypoints.len() >= 2, "{:?}", r.waypoints);

    let (mut w, ask, crowd) = crowd_world(true);
    assert_eq!(crowd_at_goal(w.view(), &ask).len(), K_GO_ROUND_CROWD + 1);
    let r = route_for(&mut w.parts(), &ask).expect("a route into the crowd");
    let path = w.caches().search.scratch.path().to_vec();
    assert!(path.iter().any(|t| crowd.contains(t)), "{path:?}");
    assert_eq!(r.waypoints, vec![at(20, 20)], "straight in");
}

#[test]
fn toward_the_sea_comes_to_the_shore_facing_the_point() {
    let rules = rules();
    let mut g = grass(&rules, 40, 20);
    let sea = rules.terrain("deep_water").unwrap();
    for y in 0..20 {
        for x in 20..40 {
            g.set_terrain(Tile::new(x, y), sea);
        }
    }
    let mut w = world(rules, g);
    let v = villager(&mut w, 5, 10);
    // A standable point of its own region is kept.
    let here = Vec2::new(fx_ratio(123, 10), fx_ratio(71, 10));
    assert_eq!(toward(w.view(), v, here), Some(here));
    // Into the sea: the shore tile nearest the villager on the first ring that has land, at the
    // point of it facing the one asked for (a villager's radius 0.2 inside the tile's edge).
    let p = toward(w.view(), v, at(30, 10)).unwrap();
    assert_eq!(p, Vec2::new(fx(19) + fx_ratio(1, 2) - radius(&w), fx(10)));
    // Further out than the rings reach: nowhere.
    let mut far = grass(&w.rules_arc(), 80, 20);
    for y in 0..20 {
        for x in 20..80 {
            far.set_terrain(Tile::new(x, y), sea);
        }
    }
    let mut w = world(w.rules_arc(), far);
    let v = villager(&mut w, 5, 10);
    assert_eq!(toward(w.view(), v, at(70, 10)), None);
}

#[test]
fn toward_a_pocket_walled_in_by_trees_stops_outside_the_wall() {
    let rules = rules();
    let mut w = world(rules.clone(), grass(&rules, 50, 50));
    let tree = rules.resource_kind("tree").unwrap();
    // A square ring of trees three tiles out from (30, 30): the pocket inside is its own region.
    for k in -3..=3 {
        for t in [(30 + k, 27), (30 + k, 33), (27, 30 + k), (33, 30 + k)] {
            let _ = w.add_resource(tree, Tile::new(t.0, t.1));
        }
    }
    w.prepare();
    let v = villager(&mut w, 10, 30);
    let p = toward(w.view(), v, at(30, 30)).unwrap();
    assert_eq!(p, Vec2::new(fx(26) + fx_ratio(1, 2) - radius(&w), fx(30)));
    assert!(
        route(&mut w.parts(), v, at(30, 30)).is_none(),
        "the pocket cannot be reached"
    );
    assert!(route(&mut w.parts(), v, p).is_some());
}

#[test]
fn landmarks_ignore_a_building_and_are_measured_again_after_a_terrain_change() {
    let rules = rules();
    let mut w = world(rules.clone(), grass(&rules, 40, 40));
    assert_eq!(w.caches().search.landmarks.times_measured(0), 1);
    let before = w
        .caches()
        .search
        .landmarks
        .layer(w.grid(), 0)
        .unwrap()
        .distances_of(20, 20);
    let house = rules.building_kind("house").unwrap();
    w.place_building(house, 0, Tile::new(20, 20), false, true)
        .unwrap();
    let tree = rules.resource_kind("tree").unwrap();
    w.add_resource(tree, Tile::new(5, 5)).unwrap();
    w.prepare();
    assert_eq!(
        w.caches().search.landmarks.times_measured(0),
        1,
        "buildings and trees leave them"
    );
    let marks = w
        .caches()
        .search
        .landmarks
        .layer(w.grid(), 0)
        .expect("still fit the grid");
    assert_eq!(marks.distances_of(20, 20), before);

    // Water where the land was: the layer's terrain changed, so they are measured again.
    let sea = rules.terrain("deep_water").unwrap();
    w.state_mut().grid.set_terrain(Tile::new(10, 10), sea);
    assert!(
        w.caches().search.landmarks.layer(w.grid(), 0).is_none(),
        "stale until prepared"
    );
    w.prepare();
    assert_eq!(w.caches().search.landmarks.times_measured(0), 2);
    let marks = w.caches().search.landmarks.layer(w.grid(), 0).unwrap();
    assert_eq!(marks.distances_of(10, 10), [cohort_sim::astar::K_FAR; 8]);
}

#[test]
fn a_goal_in_another_region_is_refused_without_a_single_expansion() {
    let rules = rules();
    let mut g = grass(&rules, 30, 30);
    cliff_column(&rules, &mut g, 15, 29);
    let mut w = world(rules, g);
    let v = villager(&mut w, 5, 5);
    survey(&mut w);
    let before = w.counters.clone();
    assert!(route(&mut w.parts(), v, at(25, 25)).is_none());
    assert_eq!(w.counters.route_searches, before.route_searches);
    assert_eq!(w.counters.node_expansions, before.node_expansions);
    // The same side is searched.
    assert!(route(&mut w.parts(), v, at(10, 25)).is_some());
    assert_eq!(w.counters.route_searches, before.route_searches + 1);
}
