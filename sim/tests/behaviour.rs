//! Behaviours the spec and devlog ask for, each over its own scenario in `scenarios/` (issue 4's
//! gaps): shared walks across the default map, idle soldiers fighting back, gatherers along a
//! mine's faces, a formation of mixed speeds arriving together.

mod common;

use cohort_sim::nav::spot::K_ROUNDING;
use cohort_sim::nav::{in_range, K_INSIDE};
use cohort_sim::position::{fx_ratio, Bounds, Fx, Vec2};
use cohort_sim::scenario::Runner;
use cohort_sim::world::Unit;
use cohort_sim::world::{Order, UnitState};
use cohort_sim::{EntityId, World};

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
        .state()
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

/// devlog "Movement States": an idle unit struck by an enemy fights back — it attacks the
/// striker (a ranged one from where it stands) and, the fight over, is idle again; an idle unit
/// nobody strikes stays put.
#[test]
fn idle_units_fight_back_when_struck() {
    let s = common::load("idle_fights_back.toml");
    let ticks = s.ticks;
    let mut r = Runner::new(s);
    let start = r.world.state().units.clone();
    let (knight, archer, bystander) = (EntityId(1), EntityId(2), EntityId(3));
    let mut fought = [false; 2];
    r.run(ticks, |w| {
        for (k, id) in [knight, archer].into_iter().enumerate() {
            if w.unit(id).is_some_and(|u| u.state == UnitState::Attacking) {
                fought[k] = true;
            }
        }
        let b = w.unit(bystander).expect("nobody strikes the bystander");
        assert_eq!(b.position, start[2].position, "tick {}", w.tick());
        assert_eq!(b.state, UnitState::Idle);
    });
    let w = &r.world;
    assert_eq!(fought, [true, true], "both struck units fought back");
    assert!(
        w.unit(EntityId(4)).is_none(),
        "the militia fell to the knight"
    );
    assert!(
        w.unit(EntityId(5)).is_none(),
        "the skirmisher fell to the archer"
    );
    for id in [knight, archer] {
        let u = w.unit(id).expect("the defender lives");
        assert_eq!((&u.order, u.state), (&Order::Idle, UnitState::Idle));
    }
    assert_eq!(
        w.unit(archer).unwrap().position,
        start[1].position,
        "the archer shot back from where it stood"
    );
}

/// spec "Standing spots": 8 villagers sent to one tile of a 2x2 gold mine beside a camp all find
/// a spot along the mine's faces at once (own face first, then round the corners), none stacked
/// at any tick, and bring gold to the camp.
#[test]
fn gatherers_stand_along_the_mine_faces() {
    let s = common::load("mine_faces_8.toml");
    let ticks = s.ticks;
    let mut r = Runner::new(s);
    let villager = r.world.rules().unit_kind("villager").unwrap();
    let radius = r.world.rules().units[villager as usize].radius;
    // The mine: gold tiles (14..=15, 6..=7).
    let mine = Bounds {
        min: Vec2::new(fx_ratio(27, 2), fx_ratio(11, 2)),
        max: Vec2::new(fx_ratio(31, 2), fx_ratio(15, 2)),
    };
    let at_work = |w: &World, u: &Unit| match u.order {
        Order::Gather { target } => {
            u.route.is_none() && in_range(w.view(), u.position, radius, target, K_INSIDE)
        }
        _ => false,
    };
    let mut all_at_once = false;
    let mut faces = [false; 4];
    r.run(ticks, |w| {
        let working: Vec<&Unit> = w.state().units.iter().filter(|u| at_work(w, u)).collect();
        for (k, a) in working.iter().enumerate() {
            let d = mine.distance_from(a.position);
            assert!(
                d >= radius - K_INSIDE - K_ROUNDING && d <= radius + K_ROUNDING,
                "tick {}: villager {} works {d} from the mine",
                w.tick(),
                a.id.0
            );
            for b in &working[k + 1..] {
                assert!(
                    a.position.chebyshev(b.position) >= radius * 2 - K_ROUNDING,
                    "tick {}: villagers {} and {} stacked at {:?} and {:?}",
                    w.tick(),
                    a.id.0,
                    b.id.0,
                    a.position,
                    b.position
                );
            }
        }
        if working.len() == 8 {
            all_at_once = true;
            for u in &working {
                let m = mine.middle();
                let (dx, dy) = (u.position.x - m.x, u.position.y - m.y);
                let side = if dx.abs() > dy.abs() {
                    usize::from(dx > Fx::ZERO)
                } else {
                    2 + usize::from(dy > Fx::ZERO)
                };
                faces[side] = true;
            }
        }
    });
    assert!(all_at_once, "all 8 stood at the mine at once");
    assert!(
        faces.iter().filter(|&&f| f).count() >= 2,
        "round a corner: {faces:?}"
    );
    assert!(
        r.world.state().players[0].stock.iter().sum::<u32>() > 0,
        "gold reached the camp"
    );
}

/// spec "Formations": a Line of knights, militia and archers (three speeds) sent 45 tiles
/// arrives together — within a second, each on its place — every walk capped at (or below)
/// the slowest member's speed.
#[test]
fn a_formation_of_mixed_speeds_arrives_together() {
    let scenario = common::load("formation_arrives_together.toml");
    let ticks = scenario.ticks - 2;
    let mut r = Runner::new(scenario);
    r.run(2, |_| {});
    let w = &r.world;
    let slowest = w
        .state()
        .units
        .iter()
        .map(|u| cohort_sim::walk::speed_of(w.view(), u))
        .min()
        .unwrap();
    let places: Vec<(EntityId, Vec2)> = w
        .state()
        .units
        .iter()
        .map(|u| {
            let cap = u.route.as_ref().and_then(|r| r.speed_cap).expect("capped");
            assert!(cap <= slowest, "unit {} capped at {cap}", u.id.0);
            match u.order {
                Order::Move { to } => (u.id, to),
                _ => panic!("unit {} not sent", u.id.0),
            }
        })
        .collect();
    let mut arrived: Vec<Option<u64>> = vec![None; places.len()];
    r.run(ticks, |w| {
        for (k, (id, _)) in places.iter().enumerate() {
            if arrived[k].is_none() && w.unit(*id).is_some_and(|u| u.route.is_none()) {
                arrived[k] = Some(w.tick());
            }
        }
    });
    let arrived: Vec<u64> = arrived.into_iter().map(|a| a.expect("arrived")).collect();
    let spread_ms = (arrived.iter().max().unwrap() - arrived.iter().min().unwrap()) * 16;
    assert!(
        spread_ms <= 1000,
        "arrivals spread over {spread_ms} ms: {arrived:?}"
    );
    for (id, place) in &places {
        let at = r.world.unit(*id).unwrap().position;
        assert!(
            at.distance(*place) <= cohort_sim::formation::K_SPACING / 2,
            "unit {} stands at {at:?}, its place {place:?}",
            id.0
        );
    }
}

/// spec "Units sent together": walks planned in a tick are shared in that tick only ("the list
/// is forgotten at the next survey"). A militia sent four turns after another, from beside the
/// first's start, to the same point round a wall searches its own walk.
#[test]
fn walks_are_shared_within_their_tick_only() {
    let s = common::load("shared_walks_forgotten.toml");
    let ticks = s.ticks;
    let mut r = Runner::new(s);
    r.run(ticks, |w| {
        assert!(
            w.caches().nav.shared_walks.len() <= 1,
            "tick {}: walks kept from earlier ticks",
            w.tick()
        );
    });
    let w = &r.world;
    assert_eq!(w.counters.route_searches, 2, "{:?}", w.counters);
    assert_eq!(w.counters.shared_walks, 0, "{:?}", w.counters);
    let to = Vec2::new(fx_ratio(69, 2), fx_ratio(9, 2));
    for id in [EntityId(1), EntityId(2)] {
        let u = w.unit(id).unwrap();
        assert_eq!(u.state, UnitState::Idle, "{id:?} arrived");
        assert!(
            u.position.distance(to) < Fx::from_num(2),
            "{id:?} at {:?}",
            u.position
        );
    }
}

/// The same scenario cut by a snapshot between the two orders, as a client rejoining then gets
/// it: the loaded world carries no walks from before, and neither may the straight run, or the
/// second militia's walk (and every hash after) would differ — a desync on rejoin.
#[test]
fn a_world_loaded_between_the_orders_plans_the_same_walks() {
    let s = common::load("shared_walks_forgotten.toml");
    let ticks = s.ticks;
    let mut straight = Runner::new(s.clone());
    straight.run(ticks, |_| {});

    let mut cut = Runner::new(s);
    cut.run(8, |_| {});
    let json = serde_json::to_string(&cut.world.snapshot()).unwrap();
    let snap: cohort_sim::world::Snapshot = serde_json::from_str(&json).unwrap();
    let loaded = World::from_snapshot(cut.world.rules_arc(), snap).unwrap();
    cut.resume_from(loaded);
    cut.run(ticks - 8, |_| {});
    assert_eq!(cut.turn_hashes, straight.turn_hashes);
}
