//! Chases (spec: "Chases"): chasers plan at once, then after their patch's ReplanWait, or at once
//! when their walk has run out — and one standing at its waiting place round a crowded target has
//! not run out of walk: it waits like everyone else.

mod common;

use cohort_sim::nav::chase::{K_CHASE_REPLAN_MS, K_CHASE_STAGGER_MS};
use cohort_sim::nav::in_range;
use cohort_sim::scenario::Runner;
use cohort_sim::world::TICK_MS;
use cohort_sim::EntityId;

/// The spec's shortest ReplanWait: 500 ms less seven ticks of stagger (388 ms).
const SHORTEST_WAIT_MS: u64 = K_CHASE_REPLAN_MS - 7 * K_CHASE_STAGGER_MS;

/// What the chasers of one scene did standing still out of range of their target.
struct Standing {
    /// Per chaser: the ticks it stood still out of range, its route run out.
    ticks: Vec<u64>,
    /// Per chaser, per tick: whether it planned on such a tick.
    plans: Vec<Vec<bool>>,
}

/// Runs `scenarios/<name>`: the units named `army` set on the one named `enemy`, each tick noting
/// which chasers stood still, out of range with no walk left, and whether they planned.
fn standing_chasers(name: &str, army: &[&str], enemy: &str) -> Standing {
    let s = common::load(name);
    let ticks = s.ticks;
    let ids = |n: &str| -> Vec<EntityId> {
        let named = s.names.iter().find(|(m, _)| m == n);
        named.map(|(_, v)| v.clone()).expect("named in the scene")
    };
    let army: Vec<EntityId> = army.iter().flat_map(|n| ids(n)).collect();
    let enemy = ids(enemy)[0];
    let mut r = Runner::new(s);
    let mut standing = Standing {
        ticks: vec![0; army.len()],
        plans: vec![Vec::new(); army.len()],
    };
    for _ in 0..ticks {
        let before: Vec<_> = army
            .iter()
            .map(|&id| {
                let w = &r.world;
                let u = w.unit(id).expect("nobody dies");
                let kind = &w.rules().units[u.kind as usize];
                let out = !in_range(w.view(), u.position, kind.radius, enemy, kind.range);
                (u.replan_at_ms, u.position, u.route.is_none() && out)
            })
            .collect();
        r.step();
        for (k, &id) in army.iter().enumerate() {
            let u = r.world.unit(id).expect("nobody dies");
            let (was, stood, waiting) = before[k];
            let still = waiting && u.position == stood;
            standing.ticks[k] += u64::from(still);
            standing.plans[k].push(still && u.replan_at_ms != was);
        }
    }
    standing
}

/// Asserts no chaser planned more than the table allows standing still: at most twice in any
/// 500 ms (the shortest wait being 388 ms), never every tick.
fn no_more_often_than_the_table(name: &str, s: &Standing) {
    let window = (K_CHASE_REPLAN_MS / u64::from(TICK_MS)) as usize;
    let allowed = K_CHASE_REPLAN_MS.div_ceil(SHORTEST_WAIT_MS) as usize;
    for (k, plans) in s.plans.iter().enumerate() {
        let worst = plans
            .windows(window)
            .map(|w| w.iter().filter(|&&p| p).count())
            .max()
            .unwrap_or(0);
        let total = plans.iter().filter(|&&p| p).count();
        assert!(
            worst <= allowed,
            "{name}: chaser {k} planned {worst} times in one 500 ms standing still \
             ({total} plans in {} standing ticks)",
            s.ticks[k]
        );
    }
}

/// spec "Chases", "Places round the target": 24 militia round one enemy on hold fill the places
/// round it, and those left over stand a body's width or more further out. A chaser standing
/// there, out of range, plans no more often than the table allows — not every tick.
#[test]
fn waiting_chasers_replan_no_more_often_than_the_table() {
    let name = "chase_waiting.toml";
    let s = standing_chasers(name, &["north", "south"], "enemy");
    let waiters = s.ticks.iter().filter(|&&t| t >= 400 / 3).count();
    assert!(
        waiters >= 6,
        "the scene has chasers standing out of range a third of the time: {:?}",
        s.ticks
    );
    no_more_often_than_the_table(name, &s);
}

/// The same over the `replanspread` self-check's army of 40 round one enemy.
#[test]
fn the_replanspread_army_waits_out_its_table() {
    let name = "verify/replanspread.toml";
    let army = ["army1", "army2", "army3", "army4"];
    let s = standing_chasers(name, &army, "enemy");
    assert!(
        s.ticks.iter().any(|&t| t > 0),
        "someone stands waiting: {:?}",
        s.ticks
    );
    no_more_often_than_the_table(name, &s);
}

/// Attack-movers look for an enemy on one tick in `K_LOOK_EVERY_TICKS`, their id's, and at once
/// when the enemy they fight has fallen (sim/src/tick/combat.rs): none walks on with an enemy in
/// sight that many ticks without fighting one, one whose enemy has fallen fights the next at
/// once when one is in sight, and some did see an enemy a tick or more after it came into sight
/// (the rule is in force). `scenarios/attack_movers_look_for_enemies.toml`.
#[test]
fn attack_movers_see_an_enemy_within_four_ticks_and_look_again_at_once_when_it_falls() {
    use cohort_sim::nav::{box_of, reach_gap};
    use cohort_sim::position::Bounds;
    use cohort_sim::tick::K_LOOK_EVERY_TICKS;
    use cohort_sim::world::{Order, World};

    let s = common::load("attack_movers_look_for_enemies.toml");
    let ticks = s.ticks;
    let mut r = Runner::new(s);
    // Whether unit `id` has a living enemy within its sight (the gap between their boxes).
    let in_sight = |w: &World, id: EntityId| {
        let u = w.unit(id).expect("alive");
        let kind = &w.rules().units[u.kind as usize];
        let me = Bounds::around(u.position, kind.radius);
        w.state().units.iter().any(|v| {
            v.hit_points > 0
                && !w.allied(u.owner, v.owner)
                && box_of(w.view(), v.id).is_some_and(|b| reach_gap(&me, &b) <= kind.sight)
        })
    };
    // Per attack-mover: ticks in a row it began with an enemy in sight and no fight, and ended
    // the tick with none.
    let mut unseen: std::collections::BTreeMap<EntityId, u64> = Default::default();
    let (mut late, mut fallen_looks) = (0, 0);
    for _ in 0..ticks {
        let before: Vec<(EntityId, bool, bool)> = r
            .world
            .state()
            .units
            .iter()
            .filter(|u| u.hit_points > 0 && matches!(u.order, Order::AttackMove { .. }))
            .map(|u| {
                let fallen = u.fight.is_some_and(|t| box_of(r.world.view(), t).is_none());
                let free = u.fight.is_none() || fallen;
                (u.id, free && in_sight(&r.world, u.id), fallen)
            })
            .collect();
        r.step();
        for (id, sees, fallen) in before {
            let Some(u) = r.world.unit(id).filter(|u| u.hit_points > 0) else {
                continue;
            };
            let fighting = u.fight.is_some_and(|t| box_of(r.world.view(), t).is_some());
            if sees && fallen {
                assert!(fighting, "attack-mover {id:?} looked again at once");
                fallen_looks += 1;
            }
            let n = unseen.entry(id).or_default();
            *n = if sees && !fighting { *n + 1 } else { 0 };
            late += u64::from(*n == 1);
            assert!(
                *n < K_LOOK_EVERY_TICKS,
                "attack-mover {id:?} walked on {n} ticks with an enemy in sight"
            );
        }
    }
    assert!(late > 0, "some attack-mover saw an enemy a tick late");
    assert!(
        fallen_looks > 0,
        "some attack-mover's enemy fell with another in sight"
    );
}
