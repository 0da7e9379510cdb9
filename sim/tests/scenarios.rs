//! Every sample scenario in `scenarios/`, run and checked for what it is there to show.

mod common;

use cohort_sim::grid::Keyed;
use cohort_sim::position::{fx, Fx, Vec2};
use cohort_sim::scenario::Runner;
use cohort_sim::World;

fn at(x: i32, y: i32) -> Vec2 {
    Vec2::new(fx(x), fx(y))
}

fn unit_at(w: &World, id: u64) -> Vec2 {
    w.unit(cohort_sim::EntityId(id))
        .expect("the unit lives")
        .position
}

/// Runs a scenario tick by tick, checking every unit stands on ground its layer may use.
fn run_on_open_ground(name: &str) -> Runner {
    let s = common::load(name);
    let ticks = s.ticks;
    let mut r = Runner::new(s);
    r.run(ticks, |w| {
        for u in &w.state().units {
            let key = w.key_of(u);
            assert!(
                w.grid().passable(key, u.position.tile()),
                "{name}: unit {} on closed ground at tick {}",
                u.id.0,
                w.tick()
            );
        }
    });
    r
}

#[test]
fn every_sample_loads_and_runs() {
    let names = common::samples();
    assert!(names.len() >= 8, "{names:?}");
    for name in names {
        let r = common::run(&name);
        assert_eq!(
            r.turn_hashes.len() as u64,
            r.world.tick() / u64::from(r.turn_ticks),
            "{name}"
        );
    }
}

#[test]
fn walk_open_ground_arrives_where_sent() {
    let r = run_on_open_ground("walk_open_ground.toml");
    let w = &r.world;
    assert_eq!(unit_at(w, 1), at(29, 3));
    assert_eq!(
        unit_at(w, 2),
        Vec2::new(Fx::from_num(29.5), Fx::from_num(5.25))
    );
    assert!(w.state().units.iter().all(|u| u.route.is_none()));
}

#[test]
fn group_move_arrives_as_a_block() {
    let r = run_on_open_ground("group_move.toml");
    let w = &r.world;
    let militia: Vec<_> = w
        .state()
        .units
        .iter()
        .filter(|u| u.kind == w.rules().unit_kind("militia").unwrap())
        .collect();
    assert_eq!(militia.len(), 12);
    for u in militia {
        assert!(
            u.position.distance(at(36, 8)) < fx(3),
            "militia {} at {:?}",
            u.id.0,
            u.position
        );
    }
    let spears = w
        .state()
        .units
        .iter()
        .filter(|u| u.kind == w.rules().unit_kind("spearman").unwrap());
    for u in spears {
        assert!(
            u.position.distance(at(34, 15)) < fx(3),
            "spearman {} at {:?}",
            u.id.0,
            u.position
        );
    }
    assert!(r.world.counters.route_searches >= 1);
}

#[test]
fn around_obstacles_goes_through_the_gap() {
    let r = run_on_open_ground("around_obstacles.toml");
    for u in &r.world.state().units {
        assert!(
            u.position.distance(at(34, 6)) < fx(2),
            "unit {} at {:?}",
            u.id.0,
            u.position
        );
    }
}

#[test]
fn gate_lets_owner_and_ally_through_but_not_the_enemy() {
    let r = run_on_open_ground("gate_and_allies.toml");
    let w = &r.world;
    let by_owner = |p: u8| {
        w.state()
            .units
            .iter()
            .find(|u| u.owner == p)
            .unwrap()
            .position
    };
    assert!(
        by_owner(0).distance(at(26, 3)) < fx(1),
        "owner at {:?}",
        by_owner(0)
    );
    assert!(
        by_owner(1).distance(at(26, 8)) < fx(1),
        "ally at {:?}",
        by_owner(1)
    );
    assert!(
        by_owner(2).x < fx(15),
        "the enemy passed the wall: {:?}",
        by_owner(2)
    );
}

#[test]
fn foreign_commands_are_ignored_and_counted() {
    let r = common::run("foreign_command.toml");
    let w = &r.world;
    assert_eq!(w.counters.ignored_commands, 2);
    assert_eq!(unit_at(w, 1), at(2, 2));
    assert_eq!(unit_at(w, 4), at(3, 3));
    assert!(unit_at(w, 5).distance(at(17, 1)) < unit_at(w, 5).distance(at(15, 5)));
}

#[test]
fn ships_sail_the_one_sea_round_the_island() {
    let r = run_on_open_ground("sea_layer.toml");
    let w = &r.world;
    let sea = w.rules().units[w.rules().unit_kind("galley").unwrap() as usize].layer;
    for u in w
        .state()
        .units
        .iter()
        .filter(|u| w.key_of(u).layer() == sea)
    {
        assert!(u.position.x > fx(25), "ship {} at {:?}", u.id.0, u.position);
    }
    let villager = w
        .state()
        .units
        .iter()
        .find(|u| w.key_of(u).layer() == 0)
        .unwrap();
    assert!(
        villager.position.x < fx(7),
        "the villager left the land: {:?}",
        villager.position
    );
    let dock = w.state().buildings.first().expect("the dock stands");
    assert!(dock
        .footprint
        .tiles()
        .all(|t| !w.grid().passable(Keyed::unkeyed(sea), t)));
}

#[test]
fn gatherers_stand_at_the_mine_and_bring_gold() {
    let r = common::run("gatherers_at_mine.toml");
    let w = &r.world;
    let gold: u32 = w.state().players[0].stock[cohort_sim::ruleset::Good::Gold.index()]
        + w.state()
            .units
            .iter()
            .filter_map(|u| u.carrying)
            .map(|(_, n)| n)
            .sum::<u32>();
    assert!(gold > 100, "no gold was gathered ({gold})");
    for u in &w.state().units {
        assert!(
            u.position.distance(at(13, 7)) < fx(4),
            "villager {} wandered to {:?}",
            u.id.0,
            u.position
        );
    }
}

#[test]
fn default_map_sends_scouts_and_everyone_of_player_three() {
    let r = run_on_open_ground("default_map.toml");
    let w = &r.world;
    assert_eq!(w.state().players.len(), 4);
    let start = common::load("default_map.toml").world;
    let moved = |p: u8| {
        w.state()
            .units
            .iter()
            .filter(|u| u.owner == p)
            .filter(|u| start.unit(u.id).unwrap().position != u.position)
            .count()
    };
    assert!(moved(0) >= 1 && moved(1) >= 1 && moved(2) >= 1);
    assert_eq!(moved(3), 4, "all four of player 3's units move");
}

#[test]
fn map_file_groups_cross_through_the_gaps() {
    let r = run_on_open_ground("map_file.toml");
    let w = &r.world;
    assert_eq!(
        (w.grid().width(), w.grid().height()),
        (32, 24),
        "read from scenarios/maps/pond.txt"
    );
    for u in &w.state().units {
        let goal = if u.owner == 0 {
            Vec2::new(fx(30), Fx::from_num(3.5))
        } else {
            at(1, 20)
        };
        assert!(
            u.position.distance(goal) < fx(2),
            "unit {} at {:?}",
            u.id.0,
            u.position
        );
    }
}
