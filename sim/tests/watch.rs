//! The run's watch (`cohort sim --json`'s stalls, overlaps, bodies over closed ground, orders
//! that ended): it must see what a player would see, from the world alone.

use cohort_sim::position::{fx, fx_ratio, Vec2};
use cohort_sim::scenario::watch::K_STALL_TICKS;
use cohort_sim::scenario::{NoFiles, Runner, Scenario};
use cohort_sim::world::{Order, UnitState};
use cohort_sim::EntityId;

const SCENE: &str = r#"
name = "watch"
ticks = 700
[map]
ascii = """
............
............
.....T......
............
............
"""
[[units]]
kind = "militia"
owner = 0
at = [1, 1]
[[units]]
kind = "militia"
owner = 0
at = [1, 3]
[[units]]
kind = "militia"
owner = 0
at = [1.1, 3]
[[units]]
kind = "knight"
owner = 0
at = [4.3, 2]
[[units]]
kind = "militia"
owner = 0
at = [9, 3]
[[commands]]
tick = 0
player = 0
do = "move"
units = [6]
to = [11, 0]
"#;

fn runner() -> Runner {
    Runner::new(Scenario::from_toml(SCENE, "watch.toml", &NoFiles, None).expect("loads"))
}

#[test]
fn a_unit_with_an_order_that_never_moves_is_stalled_and_an_idle_one_is_not() {
    let mut r = runner();
    // Unit 2 is told to move but given no walk: it has an order and makes no progress.
    let u = r.world.unit_mut(EntityId(2)).expect("unit 2");
    u.order = Order::Move {
        to: Vec2::new(fx(10), fx(1)),
    };
    u.state = UnitState::Moving;
    r.run(K_STALL_TICKS - 1, |_| {});
    assert!(r.report().watch.stalled.is_empty(), "not yet 10 s");
    r.run(2, |_| {});
    let w = r.report().watch;
    let ids: Vec<_> = w.stalled.iter().map(|s| s.unit).collect();
    assert_eq!(ids, [EntityId(2)], "only the unit with an order stalls");
    assert!(!w.stalled[0].waiting);
    assert_eq!(w.stalled[0].since, 0);
    assert_eq!(w.longest_stall.map(|s| s.unit), Some(EntityId(2)));
}

#[test]
fn a_walker_that_arrives_ends_its_order_at_its_point() {
    let mut r = runner();
    r.run(700, |_| {});
    let w = r.report().watch;
    let ended: Vec<_> = w.ended.iter().filter(|e| e.unit == EntityId(6)).collect();
    assert_eq!(ended.len(), 1, "{:?}", w.ended);
    assert!(ended[0].distance.is_some_and(|d| d < fx_ratio(1, 100)));
    // Half a tile at 0.9 tiles a second: 35 ticks between two steps of progress, well under
    // a second.
    let longest = w.longest_stall.expect("it walked");
    assert_eq!(longest.unit, EntityId(6));
    assert!(longest.ticks < K_STALL_TICKS / 10, "{longest:?}");
}

#[test]
fn bodies_placed_overlapping_are_listed_but_not_counted_as_walked_into() {
    let mut r = runner();
    r.run(10, |_| {});
    let w = r.report().watch;
    let pairs: Vec<_> = w.bodies.overlaps.iter().map(|o| (o.a, o.b)).collect();
    assert_eq!(pairs, [(EntityId(3), EntityId(4))]);
    assert!(w.bodies.overlaps[0].per_mille < 999);
    assert_eq!(w.bodies.onsets, 0);
    assert!(w.bodies.deepest.is_none());
}

#[test]
fn a_body_over_a_tree_is_seen_with_its_depth() {
    let mut r = runner();
    r.run(1, |_| {});
    let w = r.report().watch;
    // The knight (radius 0.4) at x = 4.3 reaches 0.2 into the tree's tile (4.5 to 5.5), less
    // the body's slack of 1/32.
    let c: Vec<_> = w.in_closed_ground.iter().map(|c| c.unit).collect();
    assert_eq!(c, [EntityId(5)]);
    assert_eq!(
        w.in_closed_ground[0].depth,
        fx_ratio(2, 10) - fx_ratio(1, 32) + fx_ratio(0, 1)
    );
}

/// A scene of `units` (TOML `[[units]]` and `[[commands]]` tables) on an open 12 × 6 field.
fn scene(units: &str, ticks: u64) -> Scenario {
    let text = format!(
        "name = \"bodies\"\nticks = {ticks}\n[map]\nascii = \"\"\"\n{}\"\"\"\n{units}",
        "............\n".repeat(6)
    );
    Scenario::from_toml(&text, "bodies.toml", &NoFiles, None).expect("loads")
}

/// [`scene`] run `ticks`: what the watch saw.
fn run_scene(units: &str, ticks: u64) -> cohort_sim::scenario::watch::WatchReport {
    let mut r = Runner::new(scene(units, ticks));
    r.run(ticks, |_| {});
    r.report().watch
}

#[test]
fn two_bodies_held_on_one_point_are_one_long_close_run_and_a_standing_fault() {
    use cohort_sim::scenario::watch::bodies::{K_CLOSE_PER_MILLE, K_LONGEST_CLOSE_TICKS};
    // Two knights on hold on one point never move: the pair is close from the first look on.
    let w = run_scene(
        r#"
[[units]]
kind = "knight"
owner = 0
at = [5, 3]
count = 2
spacing = 0
name = "pair"
[[commands]]
tick = 0
player = 0
do = "hold"
units = ["pair"]
"#,
        100,
    );
    let b = &w.bodies;
    let run = b.longest_close.expect("a close run");
    assert_eq!((run.a, run.b, run.since), (EntityId(1), EntityId(2), 0));
    assert_eq!(run.ticks, 101, "from tick 0 to tick 100 on end");
    assert!(run.ticks > K_LONGEST_CLOSE_TICKS);
    assert_eq!(b.close_pair_ticks, 101);
    assert_eq!(b.standing_pair_ticks, 101);
    assert_eq!(b.standing_at_end.len(), 1);
    assert!(b.standing_at_end[0].per_mille < K_CLOSE_PER_MILLE);
    // Placed so: no onset, and no deepest (a pair is walked into, not placed, to count there).
    assert_eq!(b.onsets, 0);
    assert!(b.deepest.is_none());
    let faults = b.faults();
    assert_eq!(faults.len(), 2, "{faults:?}");
    assert!(faults[0].contains("stayed under 900‰"), "{faults:?}");
    assert!(faults[1].contains("standing pairs"), "{faults:?}");
}

#[test]
fn bodies_kept_apart_are_no_fault() {
    let w = run_scene(
        r#"
[[units]]
kind = "militia"
owner = 0
at = [2, 2]
count = 9
columns = 3
spacing = 0.7
"#,
        20,
    );
    assert_eq!(w.bodies, Default::default(), "{:?}", w.bodies);
}

#[test]
fn a_pile_of_twenty_thousand_on_one_point_is_watched_at_little_cost() {
    use cohort_sim::scenario::watch::bodies::K_PILE;
    // Every pair of 20,000 bodies on one point overlaps: 200 million pairs. The watch looks at
    // no more than K_PILE bodies of a cell and says it saw a pile.
    let scenario = scene(
        "[[units]]\nkind = \"militia\"\nowner = 0\nat = [5, 3]\ncount = 20000\nspacing = 0\n",
        1,
    );
    let mut watch = cohort_sim::scenario::watch::Watch::default();
    watch.observe_start(&scenario.world);
    let w = watch.report(&scenario.world);
    let pile = w.bodies.pile.expect("a pile");
    assert_eq!(pile.bodies, 20_000);
    // The first K_PILE bodies of the cell (in id order) are compared, with each other only.
    assert_eq!(w.bodies.overlaps.len(), K_PILE * (K_PILE - 1) / 2);
    assert!(w
        .bodies
        .faults()
        .iter()
        .any(|f| f.contains("a pile of 20000")));
}
