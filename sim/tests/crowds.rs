//! The crowd scenes of `scenarios/crowds/` (issue 10): in every ordinary crowd — armies
//! crossing, workers at a site, a siege, walkers through standing units, a gap, a harbour —
//! every unit gets where it was sent, nobody stalls for good, and no body is pressed into closed
//! ground. Each scene is run for its file's ticks and judged by the run's watch (the figures of
//! `cohort sim --json`, docs/SCENARIOS.md); `cargo run --release -p cohort-sim --example scenes
//! -- scenarios/crowds/*.toml` prints the same figures as a table.
//!
//! Every scene run here is first held to bodies apart (`run_under`, docs/SCENARIOS.md "Bodies
//! apart"). The scenes whose walkers still stall with bodies kept apart are `#[ignore]`d with
//! their figures (issue 33 left them); `scenes_still_stalling_keep_bodies_apart` runs them for
//! bodies alone.
//!
//! Longer than 600 lines on purpose: one named test per crowd scene, each a few lines over the
//! shared judge at the top, so the scenes read as one list and link as one test binary.

use cohort_sim::ruleset::Ruleset;
use cohort_sim::scenario::watch::WatchReport;
use cohort_sim::scenario::{Runner, Scenario};
use cohort_sim::world::{Order, World};
use cohort_sim::{fx, fx_ratio, EntityId, Fx, Vec2};
use std::path::Path;
use std::sync::Arc;

/// A scene run to its end: what the watch saw, and the world.
struct Run {
    watch: WatchReport,
    world: World,
}

fn run(name: &str) -> Run {
    run_under(name, None)
}

/// The scene run under the embedded ruleset with `push_idle` on (the devlog's pushing of idle
/// friends; `cohort sim --rules FILE` with such a file does the same).
fn run_pushing(name: &str) -> Run {
    let text = include_str!("../src/ruleset/default.toml").replacen(
        "push_idle = false",
        "push_idle = true",
        1,
    );
    let rules = Ruleset::from_toml(&text, "default with push_idle").expect("the ruleset compiles");
    assert!(rules.push_idle);
    run_under(name, Some(Arc::new(rules)))
}

fn run_under(name: &str, rules: Option<Arc<Ruleset>>) -> Run {
    let r = run_waits_unjudged(name, rules);
    // Waits judged, in every scene (issue 34, item 6): no wait during which a place the unit
    // could take stood free for a minute.
    let failing: Vec<_> = r.watch.waits.iter().filter(|w| w.fails()).collect();
    assert!(
        failing.is_empty(),
        "{name}: waited with a place free: {failing:?}"
    );
    r
}

/// [`run_under`] but for its waits.
fn run_waits_unjudged(name: &str, rules: Option<Arc<Ruleset>>) -> Run {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/crowds");
    let path = dir.join(format!("{name}.toml"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let files = move |n: &str, _most: usize| std::fs::read(dir.join(n)).map_err(|e| e.to_string());
    let scenario = Scenario::from_bytes(&bytes, name, &files, rules).expect("the scene loads");
    let ticks = scenario.ticks;
    let mut runner = Runner::new(scenario);
    runner.run(ticks, |_| {});
    let watch = runner.report().watch;
    // Bodies apart, in every scene (issue 33): no pair under half the allowance, none under
    // 0.9 of it for more than a second on end, no standing pair under it at the end, no pile.
    let faults = watch.bodies.faults();
    assert!(
        faults.is_empty(),
        "{name}: bodies not kept apart: {faults:?}"
    );
    Run {
        watch,
        world: runner.world,
    }
}

impl Run {
    fn stalled(&self) -> Vec<String> {
        self.watch
            .stalled
            .iter()
            .filter(|s| !s.waiting)
            .map(|s| format!("#{} for {} ticks since tick {}", s.unit.0, s.ticks, s.since))
            .collect()
    }

    /// Nobody stalled at the end, and no body over closed ground it did not start on.
    fn nobody_stuck(&self) {
        assert!(self.stalled().is_empty(), "stalled: {:?}", self.stalled());
        assert!(
            self.watch.long_stalls.is_empty(),
            "stalled 10 s or more during the run: {:?}",
            self.watch.long_stalls
        );
        assert!(
            self.watch.in_closed_ground.is_empty(),
            "bodies over closed ground: {:?}",
            self.watch.in_closed_ground
        );
    }

    /// Every unit's order ended on its own: every one got where it was sent.
    fn all_arrived(&self) {
        let busy: Vec<u64> = self
            .world
            .state()
            .units
            .iter()
            .filter(|u| u.hit_points > 0 && !matches!(u.order, Order::Idle | Order::Hold))
            .map(|u| u.id.0)
            .collect();
        assert!(busy.is_empty(), "still under way: {busy:?}");
    }

    fn orders_ended(&self) -> usize {
        self.watch.ended.len()
    }

    /// What player 0 gathered: food, wood, gold, stone.
    fn gathered(&self) -> [u32; 4] {
        self.watch.gathered.first().map(|g| g.1).unwrap_or_default()
    }

    /// Units with an order still to carry out.
    fn busy(&self) -> usize {
        self.world
            .state()
            .units
            .iter()
            .filter(|u| u.hit_points > 0 && !matches!(u.order, Order::Idle | Order::Hold))
            .count()
    }
}

#[test]
#[ignore = "issue 33: two blocks of 100 knights head-on, bodies kept apart: the middles of the fronts wait while the flanks peel away round each other, longest stall 16.5 s"]
fn knights_crossing_every_knight_gets_through() {
    let r = run("knights_crossing");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 200);
}

#[test]
fn militia_crossing_every_militia_gets_through() {
    let r = run("militia_crossing");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 200);
}

#[test]
fn formations_crossing_every_member_takes_its_place() {
    let r = run("formations_crossing");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 200);
}

#[test]
fn knight_formations_crossing_every_member_takes_its_place() {
    let r = run("knight_formations_crossing");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 200);
}

#[test]
fn a_formation_marching_into_a_standing_block_gets_through() {
    let r = run("formation_meets_block");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 30);
}

#[test]
fn groups_crossing_at_right_angles_all_arrive() {
    let r = run("right_angles");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 128);
}

#[test]
fn thirty_militia_pass_a_one_tile_gap() {
    let r = run("gap_30");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 30);
}

#[test]
fn forty_militia_stream_through_a_gate() {
    let r = run("gate_stream");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 40);
}

#[test]
fn ships_crossing_into_a_harbour_all_arrive() {
    let r = run("harbour");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 24);
}

#[test]
fn a_walker_passes_a_cup_of_knights_on_hold() {
    let r = run("walker_through_cup");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 1);
}

#[test]
fn a_walker_passes_a_line_of_idle_knights() {
    let r = run("walker_through_line");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 1);
}

#[test]
fn friends_cross_an_idle_block_of_friends() {
    all_arrive_kept_apart(
        run("idle_block_crossed_by_friends"),
        "idle_block_crossed_by_friends",
        54,
    );
}

#[test]
fn pushing_idle_friends_every_walker_still_arrives() {
    // The ruleset's `push_idle` stays an option, and stall-free: the scenes of walkers through
    // standing friends, a formation into a block, streams through a gate and a gap, and groups
    // crossing, each with pushing on.
    for (name, ended) in [
        ("idle_block_crossed_by_friends", 54),
        ("walker_through_line", 1),
        ("formation_meets_block", 30),
        ("gate_stream", 40),
        ("gap_30", 30),
        ("right_angles", 128),
        ("militia_stacked_at_a_gap", 40),
    ] {
        all_arrive_kept_apart(run_pushing(name), name, ended);
    }
}

#[test]
fn four_armies_cross_at_one_point() {
    all_arrive_kept_apart(run("four_armies_crossing"), "four_armies_crossing", 132);
}

#[test]
fn mixed_sizes_through_a_gap_both_ways() {
    all_arrive_kept_apart(
        run("mixed_sizes_gap_both_ways"),
        "mixed_sizes_gap_both_ways",
        104,
    );
}

/// Issue 34, item 2: shooters set on a building whose range line their own idle friends stand
/// across come within range (nearer in where the line is taken) and shoot; nobody waits.
#[test]
fn siege_weapons_fire_from_in_range_past_idle_friends() {
    for name in [
        "siege_down_a_forest_lane",
        "archers_past_idle_friends_at_range",
    ] {
        let r = run(name);
        r.nobody_stuck();
        assert!(
            r.watch.longest_wait.is_none(),
            "{name}: waited for a firing place: {:?}",
            r.watch.longest_wait
        );
        let world = &r.world;
        let view = world.view();
        let tc = world.state().buildings[0].id;
        let out: Vec<u64> = world
            .state()
            .units
            .iter()
            .filter(|u| matches!(u.order, Order::Attack { .. }))
            .filter(|u| {
                let kind = world.rules().unit(u.kind);
                !cohort_sim::nav::in_range(view, u.position, kind.radius, tc, kind.range)
            })
            .map(|u| u.id.0)
            .collect();
        assert!(out.is_empty(), "{name}: out of range at the end: {out:?}");
        let tc = &world.state().buildings[0];
        let full = world.rules().buildings[usize::from(tc.kind)].hit_points;
        assert!(
            tc.hit_points < full,
            "{name}: the town centre was never hit"
        );
    }
}

#[test]
fn a_siege_against_walls_beside_trees() {
    let r = run("siege_beside_trees");
    assert!(
        r.world.state().buildings.is_empty(),
        "the town centre stands"
    );
    all_arrive_kept_apart(r, "siege_beside_trees", 90);
}

#[test]
fn an_army_and_a_raid_through_a_wood_line_at_work() {
    kept_apart_and_nobody_stuck("workers_army_and_raid");
}

#[test]
fn a_villager_sent_onto_an_island_stops_on_the_shore() {
    let r = run("sent_onto_an_island");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 1);
}

/// Every building of the scene complete, and no body inside closed ground at any tick.
fn all_built_round_nobody(r: &Run) {
    let unbuilt: Vec<u64> = r
        .world
        .state()
        .buildings
        .iter()
        .filter(|b| !b.complete)
        .map(|b| b.id.0)
        .collect();
    assert!(unbuilt.is_empty(), "foundations not built: {unbuilt:?}");
    assert!(
        r.watch.deepest_in_closed_ground.is_none(),
        "a body inside closed ground during the run: {:?}",
        r.watch.deepest_in_closed_ground
    );
}

#[test]
fn builders_standing_on_their_foundations_step_off_and_build() {
    let r = run("builders_on_their_foundations");
    r.nobody_stuck();
    r.all_arrived();
    all_built_round_nobody(&r);
    // Four house builders, six barracks builders, three mill builders and the scout's move.
    assert_eq!(r.orders_ended(), 14);
    // The mill is built only once the enemy scout standing on its ground has left (tick 600).
    let mill = r
        .watch
        .ended
        .iter()
        .filter(|e| e.unit.0 >= 22)
        .map(|e| e.tick);
    assert!(mill.clone().count() == 3 && mill.clone().all(|t| t > 600));
}

#[test]
fn a_barracks_laid_amid_an_army_is_built() {
    let r = run("foundation_amid_an_army");
    r.nobody_stuck();
    r.all_arrived();
    all_built_round_nobody(&r);
    assert_eq!(
        r.orders_ended(),
        10,
        "every builder saw the barracks complete"
    );
}

#[test]
fn a_house_laid_amid_spearmen_on_hold_is_built() {
    let r = run("foundation_amid_spearmen_on_hold");
    r.nobody_stuck();
    all_built_round_nobody(&r);
    assert!(
        r.watch.bodies.overlaps.is_empty(),
        "pairs at the end: {:?}",
        r.watch.bodies.overlaps
    );
    assert_eq!(r.orders_ended(), 10, "every builder saw the house complete");
}

#[test]
fn attack_movers_at_a_clump_of_archers_fight_it_out() {
    let r = run("attack_movers_at_a_clump");
    r.nobody_stuck();
    r.all_arrived();
    let archers = r
        .world
        .state()
        .units
        .iter()
        .filter(|u| u.owner == 1)
        .count();
    assert_eq!(archers, 0, "archers left standing");
    assert!(
        r.watch.stalled.is_empty(),
        "waiting at the end: {:?}",
        r.watch.stalled
    );
}

#[test]
fn a_camp_laid_over_miners_at_work() {
    let r = run("camp_laid_over_miners");
    r.nobody_stuck();
    all_built_round_nobody(&r);
    assert_eq!(
        r.orders_ended(),
        3,
        "the three builders saw the camp complete"
    );
    assert_eq!(r.busy(), 16, "every miner still at work");
    assert!(r.gathered()[2] >= 600, "gold gathered: {:?}", r.gathered());
}

#[test]
fn sixteen_villagers_build_one_town_centre() {
    let r = run("foundation_16");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(
        r.orders_ended(),
        16,
        "every builder saw the building complete"
    );
}

#[test]
fn a_hundred_and_twenty_knights_bring_a_town_centre_down() {
    let r = run("siege_120");
    r.nobody_stuck();
    assert!(
        r.world.state().buildings.is_empty(),
        "the town centre stands"
    );
    assert_eq!(r.orders_ended(), 120);
    // No more replans than the chase table's rate (about 2 a second): knights waiting where
    // they stand for a place at the wall plan nothing, and far chasers keep their walks.
    let (replans, busy) = (r.world.counters.replans, r.watch.busy_unit_seconds);
    assert!(
        Fx::from_num(replans) <= busy * 2,
        "{replans} replans in {busy} unit-seconds"
    );
}

#[test]
fn sixteen_miners_keep_gold_coming() {
    let r = run("miners_16");
    r.nobody_stuck();
    assert_eq!(r.busy(), 16, "every miner still at work");
    assert!(r.gathered()[2] >= 600, "gold gathered: {:?}", r.gathered());
}

#[test]
fn twelve_foragers_keep_food_coming() {
    let r = run("foragers_12");
    r.nobody_stuck();
    assert_eq!(r.busy(), 12, "every forager still at work");
    assert!(r.gathered()[0] >= 400, "food gathered: {:?}", r.gathered());
}

#[test]
fn twenty_lumberjacks_at_one_tree_spread_along_the_wood_line() {
    let r = run("wood_line_20");
    assert!(r.watch.in_closed_ground.is_empty());
    assert_eq!(r.busy(), 20, "every lumberjack still at work");
    assert!(r.gathered()[1] >= 500, "wood gathered: {:?}", r.gathered());
}

#[test]
fn twenty_lumberjacks_nobody_stalls() {
    run("wood_line_20").nobody_stuck();
}

#[test]
fn melee_and_ranged_archers_spread_along_their_range() {
    let r = run("melee_and_ranged");
    assert!(r.watch.in_closed_ground.is_empty());
    let stalled_archers: Vec<_> = r
        .watch
        .stalled
        .iter()
        .filter(|s| !s.waiting)
        .filter(|s| {
            r.world
                .state()
                .units
                .iter()
                .find(|u| u.id == s.unit)
                .is_some_and(|u| r.world.rules().units[u.kind as usize].name == "archer")
        })
        .collect();
    // Walking straight at the target, 18 of 42 stood behind the first archers in range for
    // good; spread along a ring at their range, at most 4 of the 24 archers are held up behind
    // the militia (the rest: `melee_and_ranged_nobody_stalls`, ignored).
    assert!(
        stalled_archers.len() <= 4,
        "archers stalled out of range: {stalled_archers:?}"
    );
}

#[test]
fn melee_and_ranged_nobody_stalls() {
    run("melee_and_ranged").nobody_stuck();
}

#[test]
fn one_knight_finds_its_way_across_a_maze() {
    let r = run("long_way_maze");
    r.nobody_stuck();
    r.all_arrived();
}

/// Scenes `cohort soak` wrote, kept: nobody stalls, and nobody stands inside another at the end.
/// Nobody stuck, every one of `ended` orders carried out, and nobody inside another at the end.
fn all_arrive_kept_apart(r: Run, name: &str, ended: usize) {
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), ended, "{name}");
    assert!(
        r.watch.bodies.overlaps.is_empty(),
        "{name}: {:?}",
        r.watch.bodies.overlaps
    );
}

fn kept_apart_and_nobody_stuck(name: &str) {
    let r = run(name);
    r.nobody_stuck();
    assert!(
        r.watch.bodies.overlaps.is_empty(),
        "bodies nearer than the allowance at the end: {:?}",
        r.watch.bodies.overlaps
    );
}

#[test]
fn a_mangonel_whose_place_a_house_took_gets_on() {
    kept_apart_and_nobody_stuck("soak_5032_a_mangonel_whose_place_a_house_took");
}

#[test]
fn two_militia_stacked_at_a_tree_line_step_apart() {
    kept_apart_and_nobody_stuck("soak_3029_two_stacked_at_a_tree_line");
}

#[test]
fn two_bodies_on_one_point_step_apart_and_stay() {
    let r = run("two_on_one_point");
    assert!(
        r.watch.bodies.overlaps.is_empty(),
        "bodies nearer than the allowance at the end: {:?}",
        r.watch.bodies.overlaps
    );
    // Each pair steps apart where it stood, and stays there: none walks on with the other.
    let middle = Vec2::new(fx(8), fx(8));
    let at_the_edge = Vec2::new(fx_ratio(49, 2), fx_ratio(1, 2));
    let places = [
        (1, middle),
        (17, middle),
        (18, at_the_edge),
        (34, at_the_edge),
    ];
    for (id, start) in places {
        let u = r.world.unit(EntityId(id)).expect("alive");
        assert!(
            u.route.is_none() && u.position.distance(start) <= fx(1),
            "unit {id} walked on from {start:?} to {:?} (route {:?})",
            u.position,
            u.route
        );
    }
}

#[test]
fn attackers_round_a_building_nobody_stalls() {
    kept_apart_and_nobody_stuck("soak_166_attackers_round_a_building");
}

#[test]
fn a_crew_moved_to_the_next_tree_keeps_apart() {
    kept_apart_and_nobody_stuck("soak_258_a_crew_moves_to_the_next_tree");
}

#[test]
fn followers_stopping_round_a_friend_step_apart() {
    kept_apart_and_nobody_stuck("soak_28_followers_step_apart");
}

/// A scout attack-moving through a melee waits beside a free place at the enemy it fights.
#[test]
fn the_watch_sees_a_rider_wait_beside_a_free_place() {
    the_watch_sees_a_wait_with_a_place_free(
        "soak_438_a_rider_between_place_and_target",
        134,
        fx(2),
    );
}

#[test]
#[ignore = "issue 34, item 3: a scout attack-moving through a melee waits 204.0 s beside a free place at the enemy it fights (it got on before walkers backing out were shoved straight away)"]
fn a_rider_between_its_place_and_its_target_gets_on() {
    kept_apart_and_nobody_stuck("soak_438_a_rider_between_place_and_target");
}

#[test]
fn a_mangonel_jostled_in_a_melee_gets_through() {
    // Jostled an eighth of a tile nearer its walk's first corner every few seconds, a mangonel
    // in the melee before the enemy town centre began its squeeze afresh each time and stood
    // 10.3 s: the squeeze and the walk through count from its last stride (half a tile).
    kept_apart_and_nobody_stuck("soak_418_a_mangonel_jostled_in_a_melee");
}

#[test]
#[ignore = "issue 33: two armies through one gap a tile wide pack its mouth against the trees, each front walker pinned by those behind: longest stall 338.8 s"]
fn two_armies_through_one_gap_nobody_stalls() {
    // A walk through that ended a tile on, inside the jam at the gap's mouth, held a knight
    // again at once: it stood 10.5 s. A walk through ends clear of everyone.
    kept_apart_and_nobody_stuck("soak_555_two_armies_through_one_gap");
}

#[test]
#[ignore = "issue 33: mangonels crossing a mangonel formation: walkers of both ways jam at the gaps of a tree line, longest stall 13.1 s (205.1 s before a walker backing out of a gap a body wide was shoved straight away and slid along the gap)"]
fn mangonels_across_a_mangonel_formation_nobody_stalls() {
    // A mangonel walking through a jam turned at every detour between two ways round a wood,
    // each round the bodies about it, and stood 11.3 s. Walking through, a detour goes round
    // the ground alone.
    kept_apart_and_nobody_stuck("soak_469_mangonels_cross_a_mangonel_formation");
}

#[test]
#[ignore = "issue 33: a mangonel in a jam at a gap: longest stall 15.3 s (11.7 s before walkers backing out were shoved straight away)"]
fn a_mangonel_creeping_in_a_jam_gets_through() {
    // Jostled half a tile nearer its corner over five seconds, a mangonel in a jam at a gap
    // counted that as a stride, had the six seconds to its walk through begun afresh and stood
    // 10.9 s: a stride is half a tile walked within three seconds.
    kept_apart_and_nobody_stuck("soak_277_a_mangonel_creeping_in_a_jam");
}

#[test]
fn a_villager_whose_resource_runs_out_on_its_way_gets_through() {
    // Held in a crowd on its way to a tree felled meanwhile, a villager set off for the next
    // with a fresh walk, its squeeze begun afresh, and stood 10.4 s: it keeps how long it has
    // been held.
    kept_apart_and_nobody_stuck("soak_360_a_villager_whose_resource_runs_out_on_its_way");
}

#[test]
fn an_attack_mover_whose_fight_ends_in_a_jam_gets_through() {
    // Held in a melee, an attack-mover whose fight ended there set off on to its point with a
    // fresh walk, its squeeze and walk through begun afresh, and stood 13.1 s: the walk on is
    // held as long as the walk to the fight was.
    kept_apart_and_nobody_stuck("soak_528_an_attack_mover_whose_fight_ends_in_a_jam");
}

#[test]
fn a_follower_settles_within_reach_of_its_friend() {
    // In range of its friend after walking through the crowd round it, a knight stood inside
    // another body and was settled out of its follow range; back in, held, through and out
    // again by turns for 12.1 s, two followers ending inside each other: a follower settles
    // where it can no further from its friend than where it stands.
    kept_apart_and_nobody_stuck("soak_82_a_follower_settles_within_reach");
}

#[test]
fn a_soldier_sent_on_from_a_jam_gets_through() {
    // Sent to a point from the crowd that held it on its way to attack, a militiaman began its
    // squeeze and walk through afresh and stood 10.3 s: sent on, it is held as long as before.
    kept_apart_and_nobody_stuck("soak_596_a_soldier_sent_on_from_a_jam");
}

#[test]
fn followers_settle_beside_their_friend_and_stay() {
    // A knight settled beside the militiaman it follows was turned from its settle place by the
    // friend standing near it, walked back and settled again, by turns, to the scene's end: a
    // settle walk walks to its place and ends.
    kept_apart_and_nobody_stuck("soak_272_followers_settle_beside_their_friend");
}

#[test]
fn a_walker_turned_to_a_free_place_at_its_point_gets_there() {
    // Turned to a free place round its point in the crowd there, a walker squeezed all over
    // again and stood 12.2 s: the new walk squeezes and walks through from its last stride.
    kept_apart_and_nobody_stuck("soak_1143_a_walker_turned_to_a_free_place");
}

#[test]
#[ignore = "issue 33: idle friends shut both gaps (push_idle off): longest stall 10.2 s"]
fn mangonels_pass_gaps_shut_by_idle_friends() {
    // Idle friends stood in both gaps of a tree line; two mangonels walking through were sent
    // back by every detour, whose search closed the tiles of those standing, and walked to and
    // fro at a gap's mouth to the scene's end. Walking through, a detour goes round the ground
    // alone.
    let name = "soak_1015_mangonels_at_gaps_shut_by_idle_friends";
    all_arrive_kept_apart(run(name), name, 53);
}

#[test]
fn a_knight_walking_through_held_by_a_tree_takes_the_way_round() {
    // Walking through a jam, a knight whose walk's next leg ran across a tree (a short way
    // spliced in front of its route) kept that walk at every detour and stood 163.8 s: a walker
    // keeps its walk over a way round only while its next leg is open ground.
    let name = "soak_865_a_knight_walking_through_held_by_a_tree";
    all_arrive_kept_apart(run(name), name, 40);
}

#[test]
fn walkers_cross_a_gap_shut_by_idle_friends() {
    // Knights and mangonels one way, archers the other, through the one open tile of a tree
    // line that idle militia and villagers of their own player stand in: nobody standing is
    // pushed, and every walker still passes (held, squeezing, walking through) and arrives.
    let name = "gap_shut_by_idle_friends";
    all_arrive_kept_apart(run(name), name, 10);
}

#[test]
fn a_scout_keeps_its_waiting_place() {
    // Every place round its target taken, a scout took the waiting place on the other side of
    // the target at every replan and walked to and fro between the two for 13 s.
    kept_apart_and_nobody_stuck("soak_576_a_scout_between_two_waiting_places");
}

#[test]
fn mangonels_in_formation_pass_a_gate_beside_its_wall() {
    // Three mangonels had stood 300 s pressed against the cliff beside the gate: their lines
    // were pulled straight for the whole box, the walk steps a box K_BODY_SLACK inside it.
    let r = run("mangonels_through_a_gate");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 29);
}

#[test]
fn soak_69_mangonels_held_at_a_gap_detour_by_the_tile_beside_them() {
    // Two mangonels had stood 115 s pressed against the tree beside a gap: a detour searched
    // from the free tile beside them was pulled straight from where they stood without that
    // tile, and its first leg went round the tree's corner, which the walk refused.
    let r = run("soak_69_mangonels_at_a_gap");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 72);
}

#[test]
fn soak_505_mangonels_through_gaps_in_a_tree_line_all_arrive() {
    let r = run("soak_505_mangonels_through_gaps");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 85);
}

#[test]
fn soak_540_a_carrier_keeps_the_drop_site_it_set_off_for() {
    // A gold miner about as far from its mining camp as from its town centre, jostled among
    // idle knights, had turned from one to the other every few ticks and stood 248 s. No
    // gatherer stalls now (an attacker in the scene does: the ignored test below).
    let r = run("soak_540_a_carrier_between_two_drop_sites");
    let gatherers_stalled: Vec<_> = r
        .watch
        .long_stalls
        .iter()
        .filter(|s| matches!(s.order, Order::Gather { .. }))
        .collect();
    assert!(gatherers_stalled.is_empty(), "{gatherers_stalled:?}");
    assert!(
        r.watch.gathered.iter().any(|&(p, g)| p == 2 && g[2] >= 300),
        "player 2's gold: {:?}",
        r.watch.gathered
    );
}

#[test]
#[ignore = "issue 33: an attacker held between its place and its target among the miners and idle knights stalls 15.3 s (6.7 s before the queue behind one's own file, which fires for three units for a second early in the scene and changes the run after it)"]
fn soak_540_nobody_stalls() {
    kept_apart_and_nobody_stuck("soak_540_a_carrier_between_two_drop_sites");
}

#[test]
fn soak_508_followers_round_a_friend_at_the_edge_do_not_stack() {
    // Four scouts following a knight at the map's edge, every place round it taken, had stood
    // stacked on one point: a follower settling out of another takes any free place.
    let r = run("soak_508_followers_at_the_map_edge");
    r.nobody_stuck();
    assert!(
        r.watch.bodies.overlaps.is_empty(),
        "{:?}",
        r.watch.bodies.overlaps
    );
}

#[test]
fn militia_stacked_beside_a_gap_get_through() {
    // Two militia stacked on one point beside a one-tile gap each closed the other's tile, the
    // gap's only way in, to its detours: they turned between the gap and a way along the trees
    // for 30,000 ticks, never arriving (and never stalled by the watch: they walked to and fro).
    let r = run("militia_stacked_at_a_gap");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 40);
}

#[test]
fn mangonels_and_knights_meeting_in_a_corridor_all_arrive() {
    let r = run("corridor_mangonels_meet_knights");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 18);
}

#[test]
fn trebuchets_following_past_trees_pass_a_corner_they_cannot_reach() {
    let r = run("trebuchets_follow_past_trees");
    r.nobody_stuck();
    // The leader's walk ended at its point; every follower stands within a few bodies of it.
    assert_eq!(r.orders_ended(), 1);
    let units = &r.world.state().units;
    let leader = units[0].position;
    for u in &units[1..] {
        assert!(
            u.position.distance(leader) < Fx::from_num(4),
            "#{} at {:?}, the leader at {:?}",
            u.id.0,
            u.position,
            leader
        );
    }
}

#[test]
fn trebuchets_go_round_a_gap_too_narrow_for_them() {
    let r = run("trebuchets_round_a_narrow_gap");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 12);
}

#[test]
fn trebuchets_following_through_a_clump_are_not_wedged() {
    let r = run("trebuchets_follow_past_a_clump");
    r.nobody_stuck();
    assert!(
        r.watch.bodies.overlaps.is_empty(),
        "{:?}",
        r.watch.bodies.overlaps
    );
}

/// Mangonels held at the one gap in a wall keep their walks through it: a detour whose search,
/// shut out of the gap by those walking in it, cannot come to the goal is not taken (before, one
/// walked to the nearest point along the wall and back at every detour, and its move ended at
/// tick 24,000). Left: a late mangonel held 10.7 s among those standing on their places.
#[test]
#[ignore = "issue 33: a crowd of mangonels pressing into the one gap in a wall: longest stall 52.9 s"]
fn mangonels_go_through_the_one_gap_in_a_wall() {
    let r = run("soak_535_mangonels_through_the_one_gap");
    r.all_arrived();
    assert_eq!(r.orders_ended(), 122);
    assert!(r.stalled().is_empty(), "stalled: {:?}", r.stalled());
    assert!(
        r.watch.in_closed_ground.is_empty(),
        "{:?}",
        r.watch.in_closed_ground
    );
}

#[test]
fn a_villager_whose_spot_is_taken_on_the_way_mines_beside_it() {
    // A faster knight, sent to the villager's spot at the mine, stands on it first. The villager
    // asks for a spot again after a second held there (it walked into the knight for 6.7 s and
    // through its body before `K_SPOT_TAKEN_AFTER_TICKS`).
    let r = run("spot_taken_on_the_way");
    r.nobody_stuck();
    assert_eq!(
        r.watch.bodies.onsets, 0,
        "bodies nearer than the allowance: {:?}",
        r.watch.bodies.deepest
    );
    let held = r.watch.longest_stall.as_ref().map_or(0, |s| s.ticks);
    assert!(held <= 2 * 1000 / 16, "held {held} ticks at the taken spot");
    assert!(r.gathered()[2] >= 10, "gold gathered: {:?}", r.gathered());
    // Nobody standing is pushed: the knight stands where it was sent (it ended 0.4 tile off,
    // walked through, before).
    let rider = &r.world.state().units[1];
    let sent = cohort_sim::Vec2::new(cohort_sim::fx_ratio(151, 10), cohort_sim::fx_ratio(21, 2));
    assert!(
        rider.position.distance(sent) < cohort_sim::fx_ratio(1, 20),
        "the knight at {:?}",
        rider.position
    );
}

/// `run` holds every scene to bodies apart before anything else; a scene that still stalls is held
/// to that, and to no body over closed ground, all the same.
fn keeps_bodies_apart(name: &str) {
    let r = run(name);
    assert!(r.watch.in_closed_ground.is_empty(), "{name}");
}

/// The scenes whose walkers still stall (their tests are `#[ignore]`d above with their figures)
/// keep bodies apart all the same: `run` holds every scene to bodies apart before anything else.
#[test]
fn scenes_still_stalling_keep_bodies_apart() {
    for name in [
        "knights_crossing",
        "knights_each_way_through_a_gap",
        "soak_555_two_armies_through_one_gap",
        "soak_29_a_mangonel_formation_meets_spearmen",
        "soak_277_a_mangonel_creeping_in_a_jam",
        "soak_469_mangonels_cross_a_mangonel_formation",
        "soak_1015_mangonels_at_gaps_shut_by_idle_friends",
        "soak_535_mangonels_through_the_one_gap",
        "soak_142_gatherers_inside_idle_spearmen",
        "soak_193_a_mangonel_at_a_gap_among_passing_armies",
        "soak_540_a_carrier_between_two_drop_sites",
        "galleys_strait_both_ways",
    ] {
        keeps_bodies_apart(name);
    }
}

/// The knights of `hold_line_closes_a_gap` that stand past the spearmen's line (x 21) at
/// the end.
fn past_the_line(r: &Run) -> usize {
    r.world
        .state()
        .units
        .iter()
        .filter(|u| r.world.rules().unit(u.kind).name == "knight" && u.position.x > fx(21))
        .count()
}

#[test]
fn walkers_shut_in_where_they_stand_stop() {
    // A scout in a ring of idle enemy militia and a knight in a ring of its own spearmen on hold,
    // every gap narrower than the walker's allowance: neither may shove the ring, so each stops
    // against it within seconds, its move over where it stood, none stalled; a scout in the same
    // ring open on one side walks out to its point (docs/ROUTES.md, "shut in where it stands").
    let r = run("walkers_shut_in_where_they_stand");
    r.nobody_stuck();
    let state = r.world.state();
    let unit = |id: u64| state.units.iter().find(|u| u.id == EntityId(id)).unwrap();
    for (id, at) in [(1, fx(6)), (8, fx(14))] {
        let u = unit(id);
        assert_eq!(u.order, Order::Idle, "#{id}");
        assert!(
            u.position.x.abs_diff(at) < fx(1) / 20,
            "#{id} at {:?}",
            u.position
        );
        let ended = r
            .watch
            .ended
            .iter()
            .find(|e| e.unit == EntityId(id))
            .unwrap();
        assert!(ended.tick < 500, "#{id} stopped at tick {}", ended.tick);
    }
    let free = unit(15);
    assert_eq!(free.position, Vec2::new(fx(16), fx(12)));
}

#[test]
fn a_line_on_hold_keeps_enemy_knights_out_of_its_gap() {
    // Nobody walks through a unit on hold, nor through an enemy: ten knights sent through the
    // one gap of a tree line, which six spearmen on hold close, stay on their side (`run` holds
    // every pair apart at every tick).
    let r = run("hold_line_closes_a_gap");
    assert_eq!(past_the_line(&r), 0);
}

#[test]
fn knights_held_by_a_line_on_hold_stop_against_it() {
    // The gap the line closes is the only way to their goal: each stops against the line within
    // seconds (its move ends, 13 tiles short) rather than press against it for good.
    let r = run("hold_line_closes_a_gap");
    r.nobody_stuck();
    let knights = r.world.state().units.iter().filter(|u| u.owner == 1);
    assert!(knights.clone().count() == 10 && knights.clone().all(|u| u.order == Order::Idle));
    let moves_ended = r
        .watch
        .ended
        .iter()
        .filter(|e| matches!(e.order, Order::Move { .. }));
    assert_eq!(moves_ended.count(), 10);
}

#[test]
fn friendly_knights_go_round_a_line_on_hold_through_the_other_gap() {
    // The same line shuts one gap of two: ten knights of its own side take the open one, and
    // never walk through a spearman.
    let r = run("hold_line_and_an_open_gap");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 10);
    assert_eq!(past_the_line(&r), 10);
}

#[test]
fn nine_placed_on_one_point_step_apart() {
    // Those in the middle, caged by the ones that stepped out first, shove them on outward: the
    // run fails on any pair under 0.9 of the allowance over a second, or standing inside another
    // at the end (`run_under`).
    run("nine_on_one_point");
}

/// Fresh scenes of issue 33, written from docs/SCENARIOS.md as a user would: every order done,
/// nobody stalled, every body apart at every tick (`run_under`).
fn arrives_apart(name: &str, units: usize) {
    let r = run(name);
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), units);
}

#[test]
fn two_knights_head_on_pass_each_other() {
    arrives_apart("two_knights_head_on", 2);
}

#[test]
fn two_knights_crossing_at_right_angles_both_arrive() {
    arrives_apart("two_knights_right_angle", 2);
}

#[test]
fn two_files_of_one_player_pass_head_on() {
    arrives_apart("same_owner_head_on_file", 20);
}

#[test]
fn allied_blocks_placed_interleaved_part() {
    arrives_apart("interleaved_allies_part", 40);
}

#[test]
fn militia_of_one_player_both_ways_through_a_one_tile_gap() {
    arrives_apart("gap_both_ways_militia", 24);
}

#[test]
fn mangonels_meeting_in_a_gap_a_body_wide_take_turns() {
    // Two each way, one player's, in a gap a mangonel wide: none can step aside. Those of one
    // way back out, shoved back by the one with the right of way (held the longer), and the
    // other way walks through; before, the four stood in and about the gap for good.
    arrives_apart("mangonels_meet_in_a_gap", 4);
}

#[test]
fn enemy_mangonels_meeting_in_a_gap_take_turns() {
    // Enemies never pass through each other: those of one way are shoved back out of the gap by
    // the one with the right of way, and the other way walks through (before: none arrived,
    // the four held 69 s and more).
    arrives_apart("enemy_mangonels_meet_in_a_gap", 4);
}

#[test]
#[ignore = "issue 33: knights of both ways jam at the gap's mouths, one in the gap pressed by four at its far mouth: longest stall 22.0 s (6.0 s before walkers backing out were shoved straight away)"]
fn knights_each_way_through_a_gap_take_turns() {
    arrives_apart("knights_each_way_through_a_gap", 12);
}

#[test]
fn knights_50_head_on_all_arrive() {
    arrives_apart("knights_50_head_on", 100);
}

#[test]
fn militia_100_head_on_all_arrive() {
    arrives_apart("militia_100_head_on", 200);
}

#[test]
fn archers_60_head_on_all_arrive() {
    arrives_apart("archers_60_head_on", 120);
}

#[test]
fn scouts_80_head_on_all_arrive() {
    arrives_apart("scouts_80_head_on", 160);
}

#[test]
fn a_file_of_archers_walks_a_winding_corridor_apart() {
    // Issue 33 saw archers in such a corridor merge for 80 s on end: `run` fails any pair under
    // 0.9 of the allowance for more than a second.
    arrives_apart("archers_winding_corridor_one_way", 20);
}

#[test]
fn allied_files_pass_in_a_winding_corridor() {
    arrives_apart("archers_winding_corridor_both_ways", 24);
}

#[test]
fn enemy_files_pass_in_a_winding_corridor() {
    arrives_apart("archers_winding_corridor_enemies_both_ways", 24);
}

#[test]
fn every_size_crosses_an_opening_against_an_enemy_coming_back() {
    arrives_apart("every_size_through_an_opening", 46);
}

#[test]
fn villagers_retreat_through_their_own_line_on_hold() {
    // The spearmen on hold are never walked through nor shoved; the villagers take the gap.
    let r = run("villagers_through_own_line_on_hold");
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 10);
    let spearmen_moved = r
        .world
        .state()
        .units
        .iter()
        .filter(|u| r.world.rules().unit(u.kind).name == "spearman")
        .filter(|u| u.position.x != fx(25))
        .count();
    assert_eq!(spearmen_moved, 0);
}

/// Everyone fights, nobody stalls, bodies stay apart, and the fight ends with one player's
/// units standing idle.
fn fought_out(name: &str) {
    let r = run(name);
    r.nobody_stuck();
    r.all_arrived();
    let units = &r.world.state().units;
    assert!(!units.is_empty());
    assert!(units.iter().all(|u| u.owner == units[0].owner));
}

#[test]
fn eight_players_fight_it_out_in_the_middle() {
    // Nine units of each of eight players attack-move to one point.
    fought_out("eight_players_melee");
}

#[test]
#[ignore = "issue 33: the fleets meet front to front in both lanes of a strait two tiles wide; walkers backing out shoved straight away, the fleets jam at the mouths: longest stall 46.3 s (16.1 s before)"]
fn galleys_meeting_in_a_strait_both_get_through() {
    arrives_apart("galleys_strait_both_ways", 16);
}

#[test]
fn galleys_meeting_in_a_three_tile_strait_both_get_through() {
    // The later galleys of each file, their turn to the right crowded by their own file, queue
    // behind it for those coming out (`walk::lane`); before, both fleets took both lanes and met
    // front to front in each, twelve still under way at the end (longest stall 77.1 s).
    arrives_apart("galleys_strait_three_wide_both_ways", 16);
}

#[test]
fn four_galleys_a_side_in_a_strait_get_through() {
    // Before the queue behind one's own file, two and two locked front to front: none arrived.
    arrives_apart("galleys_four_a_side_in_a_strait", 8);
}

#[test]
fn fleets_of_galleys_and_transports_cross_head_on_in_open_sea() {
    arrives_apart("fleets_head_on_open_sea", 32);
}

#[test]
fn twelve_galleys_a_side_pass_in_a_four_tile_strait() {
    arrives_apart("galleys_strait_four_wide_twelve_a_side", 24);
}

#[test]
fn fishing_ships_of_one_player_pass_in_a_two_tile_strait() {
    arrives_apart("fishing_ships_strait_both_ways", 12);
}

#[test]
fn transports_and_enemy_fishing_ships_pass_in_a_two_tile_strait() {
    arrives_apart("transports_and_fishers_strait", 12);
}

#[test]
fn a_file_of_militia_walks_a_one_tile_corridor() {
    arrives_apart("militia_file_one_wide_corridor", 20);
}

#[test]
fn enemy_knights_pass_in_a_two_tile_corridor() {
    arrives_apart("knights_two_wide_corridor_both_ways", 20);
}

#[test]
fn enemy_militia_pass_in_a_three_tile_corridor() {
    arrives_apart("militia_three_wide_corridor_both_ways", 40);
}

#[test]
fn a_box_formation_passes_a_two_tile_gap() {
    arrives_apart("formation_through_a_two_tile_gap", 30);
}

/// The scene as laid out, before its first tick.
fn start_of(name: &str) -> World {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/crowds");
    let bytes = std::fs::read(dir.join(format!("{name}.toml"))).expect("the scene reads");
    let files = move |n: &str, _most: usize| std::fs::read(dir.join(n)).map_err(|e| e.to_string());
    let scenario = Scenario::from_bytes(&bytes, name, &files, None).expect("the scene loads");
    Runner::new(scenario).world
}

/// Every unit of `owner` stands where it stood at the start: nobody shoved it.
fn stands_where_it_stood(name: &str, r: &Run, owner: u8) {
    let start = start_of(name);
    let stood = |w: &World| -> Vec<(EntityId, Vec2)> {
        w.state()
            .units
            .iter()
            .filter(|u| u.owner == owner)
            .map(|u| (u.id, u.position))
            .collect()
    };
    assert_eq!(
        stood(&r.world),
        stood(&start),
        "{name}: player {owner}'s units"
    );
}

#[test]
fn knights_go_round_a_block_of_idle_enemies() {
    // Enemies never pass through each other, and nobody shoves an enemy standing: the knights
    // go round the block, which stands as it was laid out.
    let name = "knights_through_idle_enemy_block";
    let r = run(name);
    r.nobody_stuck();
    r.all_arrived();
    assert_eq!(r.orders_ended(), 20);
    stands_where_it_stood(name, &r, 1);
}

#[test]
fn an_army_gets_through_its_own_idle_block() {
    arrives_apart("army_through_own_idle_block", 30);
}

#[test]
fn enemy_armies_fight_it_out_in_a_corridor() {
    // Both attack-move into the corridor from its ends.
    fought_out("armies_fight_in_a_corridor");
}

#[test]
fn thirty_knights_placed_on_one_point_step_apart() {
    // `run` fails any pair nearer than 0.9 of the allowance for more than a second on end, or
    // standing inside another at the end.
    run("knights_30_on_one_point");
}

#[test]
fn thirty_militia_placed_on_one_point_step_apart() {
    run("militia_30_on_one_point");
}

#[test]
fn twelve_mangonels_placed_on_one_point_step_apart_within_a_second() {
    // A pair nearer than 0.9 of the allowance 1.07 s on end before one inside the allowance of
    // another stepping out stepped out too, away from where that one walks to.
    run("mangonels_12_on_one_point");
}

#[test]
fn thirty_scouts_placed_on_one_point_step_apart_within_a_second() {
    // Those in the middle step out past the bodies half out round them (before: a pair close
    // 1.17 s on end).
    run("scouts_30_on_one_point");
}

#[test]
fn sixty_knights_placed_on_one_point_step_apart_within_a_second() {
    // 2.2 s before those in the middle could step out past the bodies half out round them; 1.18 s
    // before a settle walk went at twice the pace (`K_SETTLE_PACE`), 0.61 s after.
    run("knights_60_on_one_point");
}

#[test]
fn two_mangonels_placed_on_one_point_step_apart_within_a_second() {
    // The first to look walked out alone, the other stood: at a mangonel's pace they stayed
    // nearer than 0.9 of the allowance 1.38 s. Now the other steps out too, away from where the first walks to.
    run("mangonels_2_on_one_point");
}

#[test]
fn three_mangonels_placed_on_one_point_step_apart_within_a_second() {
    // 1.68 s before one inside the allowance of another stepping out stepped out too.
    run("mangonels_3_on_one_point");
}

#[test]
fn six_mangonels_placed_on_one_point_step_apart_within_a_second() {
    // At a mangonel's 0.6 tiles a second the five round the middle one need 1.1 s to come 0.9 of
    // the allowance apart: a pair stayed that near 1.58 s on end before a settle walk went at
    // twice the pace (`K_SETTLE_PACE`), 0.58 s after.
    run("mangonels_6_on_one_point");
}

#[test]
fn eight_mangonels_placed_on_one_point_step_apart_within_a_second() {
    // 1.26 s before one inside the allowance of another stepping out stepped out too.
    run("mangonels_8_on_one_point");
}

#[test]
fn mangonels_placed_in_a_row_too_close_step_apart_within_a_second() {
    // Each between two others half a tile off (their allowance three quarters): 1.57 s before
    // one inside the allowance of another stepping out stepped out too, away from where that
    // one walks to; 1.01 s when it stepped away from the walker itself, the row all stepping
    // out to one side together.
    run("mangonels_8_in_a_row_half_a_tile_apart");
}

#[test]
fn mangonels_placed_in_a_block_too_close_step_apart_within_a_second() {
    run("mangonels_9_in_a_block_three_tenths_apart");
}

#[test]
fn two_trebuchets_placed_on_one_point_step_apart_within_a_second() {
    // 1.26 s before one inside the allowance of another stepping out stepped out too.
    run("trebuchets_2_on_one_point");
}

#[test]
fn three_trebuchets_placed_on_one_point_step_apart_within_a_second() {
    // 1.18 s before one inside the allowance of another stepping out stepped out too.
    run("trebuchets_3_on_one_point");
}

#[test]
fn six_trebuchets_placed_on_one_point_step_apart_within_a_second() {
    // 1.20 s on end before a settle walk went at twice the pace (`K_SETTLE_PACE`), 0.58 s after.
    run("trebuchets_6_on_one_point");
}

#[test]
fn knights_30_head_on_offset_all_arrive() {
    arrives_apart("knights_30_head_on_offset", 60);
}

#[test]
fn spearmen_formations_head_on_all_arrive() {
    arrives_apart("spearmen_formations_head_on", 120);
}

#[test]
fn villagers_between_attacking_enemy_scouts_get_through() {
    kept_apart_and_nobody_stuck("soak_10_villagers_between_attacking_scouts");
}

#[test]
fn a_gatherer_at_a_pinch_between_idle_enemies_gets_through() {
    kept_apart_and_nobody_stuck("soak_14_a_gatherer_at_a_pinch_between_idle_militia");
}

#[test]
fn a_scout_inside_idle_enemy_skirmishers_gets_out() {
    // Wedged between two idle skirmishers a hair nearer each other than its allowance, every
    // cell an eighth of a tile off along the eight ways nearer one of them, the scout's short
    // way found nothing and it stood 211.2 s: held long enough to press, it steps out off the
    // eight ways.
    kept_apart_and_nobody_stuck("soak_34_a_scout_inside_idle_skirmishers");
}

#[test]
#[ignore = "issue 33: a mangonel and a scout held at one-tile gaps in tree lines that armies cross both ways: longest stall 13.8 s"]
fn a_mangonel_at_a_gap_among_passing_armies_gets_through() {
    kept_apart_and_nobody_stuck("soak_193_a_mangonel_at_a_gap_among_passing_armies");
}

#[test]
#[ignore = "issue 33: gatherers wedged in the hollows of a block of idle enemy spearmen: eight stalls, longest 157.2 s"]
fn gatherers_inside_idle_enemy_spearmen_get_out() {
    kept_apart_and_nobody_stuck("soak_142_gatherers_inside_idle_spearmen");
}

#[test]
#[ignore = "issue 33: a box of mangonels crossing enemy spearmen: mangonels held, longest stall 17.2 s"]
fn a_mangonel_formation_meets_spearmen_nobody_stalls() {
    kept_apart_and_nobody_stuck("soak_29_a_mangonel_formation_meets_spearmen");
}

#[test]
fn gatherers_held_at_their_resource_get_through() {
    kept_apart_and_nobody_stuck("soak_58_gatherers_held_at_their_resource");
}

#[test]
fn enemy_militia_both_ways_through_a_one_tile_gap() {
    arrives_apart("militia_gap_one_wide_enemies", 40);
}

#[test]
fn enemy_mangonels_both_ways_along_a_corridor() {
    arrives_apart("mangonels_corridor_both_ways", 12);
}

#[test]
fn archers_file_through_a_one_tile_gap() {
    arrives_apart("archers_through_one_tile_gap", 20);
}

#[test]
fn enemy_knights_both_ways_through_a_two_tile_gap() {
    arrives_apart("knights_gap_two_wide_both_ways", 60);
}

#[test]
fn a_villager_sent_onto_an_island_stops_on_the_shore_nearest_the_point() {
    // The nearest point of its own land by distance (Cohort's reading of "as near as the ground
    // allows", `nav::toward`): straight across, 11.7 tiles from the point, not the square ring's
    // corner 16.4 tiles off.
    let r = run("sent_toward_an_island_in_a_lake");
    r.all_arrived();
    let v = &r.world.state().units[0];
    let d = v.position.distance(cohort_sim::Vec2::new(fx(27), fx(16)));
    assert!(d < fx(12), "{d}");
    assert!(
        v.position.x > fx(26) && v.position.x < fx(28),
        "{:?}",
        v.position
    );
}

#[test]
#[ignore = "issue 33: 29 spearmen and 51 mangonels, a formation move and a move across fields of trees: a mangonel held: longest stall 15.9 s"]
fn a_mangonel_held_among_spearmen_gets_on() {
    kept_apart_and_nobody_stuck("soak_9_a_mangonel_held_among_spearmen");
}

#[test]
fn scouts_held_among_scouts_and_mangonels_get_on() {
    kept_apart_and_nobody_stuck("soak_81_a_scout_held_among_scouts_and_mangonels");
}

#[test]
fn a_gatherer_held_in_a_three_player_game_gets_on() {
    // A villager held among idle enemies on its way to its resource stood 25.7 s; with a walker
    // shut in where it stands stopping its walk (docs/ROUTES.md), its longest stall is 6.1 s.
    kept_apart_and_nobody_stuck("soak_92_a_gatherer_held_in_a_three_player_game");
}

#[test]
fn a_villager_held_in_a_four_player_game_gets_on() {
    kept_apart_and_nobody_stuck("soak_104_a_villager_held_in_a_four_player_game");
}

#[test]
fn a_mangonel_held_among_skirmishers_and_spearmen_gets_on() {
    kept_apart_and_nobody_stuck("soak_113_a_mangonel_held_among_skirmishers_and_spearmen");
}

#[test]
#[ignore = "issue 33: 50 mangonels sent through a tree line while a formation of 30 enemy villagers crosses their way: two mangonels held: longest stall 12.7 s"]
fn mangonels_through_a_file_of_villagers_get_on() {
    kept_apart_and_nobody_stuck("soak_123_mangonels_through_a_file_of_villagers");
}

#[test]
#[ignore = "issue 33: a two-player game of knights, spearmen on hold, skirmishers, militia and a mangonel, with attacks, gathering and follows: an attacker held on its way to its target: longest stall 16.0 s"]
fn an_attacker_held_in_a_two_player_game_gets_on() {
    kept_apart_and_nobody_stuck("soak_158_an_attacker_held_in_a_two_player_game");
}

#[test]
#[ignore = "issue 33: a two-player game of knights, skirmishers, mangonels and villagers, with attacks and gathering: a mangonel held on its way to its target: longest stall 15.3 s"]
fn a_mangonel_attacker_held_gets_on() {
    kept_apart_and_nobody_stuck("soak_162_a_mangonel_attacker_held");
}

#[test]
#[ignore = "issue 33: a four-player game of spearmen, militia, knights, skirmishers, scouts and 54 mangonels: an attacker and three walkers held: longest stall 20.5 s"]
fn walkers_held_in_a_four_player_game_get_on() {
    kept_apart_and_nobody_stuck("soak_178_walkers_held_in_a_four_player_game");
}

#[test]
#[ignore = "issue 33: a four-player game round a lumber camp and a mining camp, militia, 36 mangonels, scouts, knights and skirmishers: a walker held: longest stall 38.2 s"]
fn a_walker_held_in_a_four_player_game_gets_on() {
    kept_apart_and_nobody_stuck("soak_186_a_walker_held_in_a_four_player_game");
}

/// The soak seeds kept as scenes that still stall (their tests are `#[ignore]`d above with their
/// figures) keep bodies apart all the same.
#[test]
fn soak_seeds_still_stalling_keep_bodies_apart() {
    for name in [
        "soak_9_a_mangonel_held_among_spearmen",
        "soak_123_mangonels_through_a_file_of_villagers",
        "soak_158_an_attacker_held_in_a_two_player_game",
        "soak_162_a_mangonel_attacker_held",
        "soak_178_walkers_held_in_a_four_player_game",
        "soak_186_a_walker_held_in_a_four_player_game",
        "soak_78_a_scout_held_in_a_three_player_game",
    ] {
        keeps_bodies_apart(name);
    }
}

/// The watch's waits (issue 34, item 6) on scenes where the sim still fails them: unit `id`
/// waits for a place at its target while the watch sees one free for a minute, no further than
/// `within` tiles off. This pins the instrument on real cases; once the sim takes the place (the
/// ignored tests below), a scene moves to them.
fn the_watch_sees_a_wait_with_a_place_free(name: &str, id: u64, within: Fx) {
    let r = run_waits_unjudged(name, None);
    let w = r
        .watch
        .waits
        .iter()
        .find(|w| w.unit == EntityId(id) && w.fails())
        .unwrap_or_else(|| panic!("#{id} waits a minute with a place free"));
    assert_eq!(w.waits_for, cohort_sim::scenario::watch::WaitFor::Place);
    let free = w.free_at.expect("a place seen free");
    let u = r.world.unit(EntityId(id)).expect("alive");
    assert!(u.position.distance(free) <= within, "{free:?}");
}

#[test]
fn the_watch_sees_a_spearman_wait_beside_a_free_place() {
    the_watch_sees_a_wait_with_a_place_free(
        "soak_94_a_spearman_waits_beside_a_free_place",
        86,
        fx(2),
    );
}

#[test]
#[ignore = "issue 34, item 3: a spearman waits 161.7 s a tile from a free place at its target"]
fn a_spearman_takes_the_free_place_at_its_target() {
    kept_apart_and_nobody_stuck("soak_94_a_spearman_waits_beside_a_free_place");
}

/// A scout waits at a lane's end while a place round the mill is free.
#[test]
fn the_watch_sees_a_scout_wait_with_a_place_free() {
    the_watch_sees_a_wait_with_a_place_free(
        "soak_138_a_scout_waits_with_a_place_round_the_mill_free",
        136,
        fx(3),
    );
}

#[test]
#[ignore = "issue 34, item 3: a scout waits 255.7 s while a place at its target, round the mill, is free"]
fn a_scout_takes_the_place_round_the_mill() {
    kept_apart_and_nobody_stuck("soak_138_a_scout_waits_with_a_place_round_the_mill_free");
}

#[test]
#[ignore = "issue 33: a three-player game of archers, villagers, militia, spearmen on hold and scouts: a scout attack-moving held: longest stall 18.8 s"]
fn a_scout_held_in_a_three_player_game_gets_on() {
    kept_apart_and_nobody_stuck("soak_78_a_scout_held_in_a_three_player_game");
}

/// Two militiamen attack-moving wait on or beside a free place at the enemy each fights.
#[test]
fn the_watch_sees_militia_wait_at_a_free_place() {
    the_watch_sees_a_wait_with_a_place_free("soak_86_militia_wait_at_a_free_place", 147, fx(1));
}

#[test]
#[ignore = "issue 34, item 3: two militiamen wait 102.2 s on or beside a free place at the enemy each fights"]
fn militia_take_the_free_place_at_their_target() {
    kept_apart_and_nobody_stuck("soak_86_militia_wait_at_a_free_place");
}
