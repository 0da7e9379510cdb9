//! A block of soldiers sent together walks across open ground and stands round the point.

use cohort_sim::command::{Command, PlayerCommand};
use cohort_sim::grid::Grid;
use cohort_sim::world::Player;
use cohort_sim::{fx, Ruleset, Vec2, World};
use std::sync::Arc;

#[test]
fn a_block_sent_together_arrives_shares_and_keeps_apart() {
    let rules = Arc::new(Ruleset::default_rules());
    let grass = rules.terrain("grass").unwrap();
    let grid = Grid::new(&rules, 64, 64, grass);
    let players = vec![Player::new(0, 0), Player::new(1, 1)];
    let mut w = World::new(rules.clone(), grid, players, 1);
    let militia = rules.unit_kind("militia").unwrap();
    let mut ids = vec![];
    for j in 0..10 {
        for i in 0..10 {
            let at = Vec2::new(fx(5) + fx(7) * i / 10, fx(5) + fx(7) * j / 10);
            ids.push(w.spawn_unit(militia, 0, at));
        }
    }
    let to = Vec2::new(fx(50), fx(40));
    let command = Command::Move { units: ids, to };
    w.step(&[PlayerCommand { player: 0, command }]);
    assert!(w.counters.route_searches <= 10, "{:?}", w.counters);
    for _ in 0..5000 {
        w.step(&[]);
        if w.state().units.iter().all(|u| u.route.is_none()) {
            break;
        }
    }
    assert!(w.state().units.iter().all(|u| u.route.is_none()));
    let near = w
        .state()
        .units
        .iter()
        .filter(|u| u.position.distance(to) < fx(8))
        .count();
    assert_eq!(near, 100);
}
