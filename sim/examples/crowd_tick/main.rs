//! The tick's benchmark with crowds: `cargo run --release -p cohort-sim --example crowd_tick --
//! [SCENE...] [--runs N]` (every scene when none is named; 3 runs).
//!
//! Each scene sets 1,600 units to work that crowds them ([`scenes::NAMES`]): `crossing`, two
//! armies of 800 sent head-on through each other with `move` on open grass the default map's
//! size, and `crossing_formation` the same with `formation_move`; on the default map (8
//! players, plus its 24 villagers and 8 scouts), `siege`, every player's 200 attacking a
//! neighbour's town center, `gatherers`, 200 villagers a player at its start's resources and
//! more laid for the scene, each crew with a drop site beside it, and `fights`, four pairs of
//! armies of 200 attack-moving into each other (militia, archers, knights).
//!
//! The orders are given on the first of [`TICKS`] timed ticks, so the searches they start are
//! timed too (unlike the walking scene of `tick`, where they are given before). Each scene is
//! run `runs` times (the world hash at the end is checked equal: every run does the same work,
//! tick for tick) and each tick's fastest run kept. Prints one JSON object a scene: `units`,
//! `median_us`, `p99_us`, `max_us` of the fastest-of-runs ticks (and the first run's median and
//! p99), route `searches`, `replans` and node `expansions` per tick (means over the timed ticks)
//! and the most in any one tick, `most_expansions` (one search), `world_bytes` (the most the
//! heap held during the timed ticks above what it held before the scene was built: the world
//! and its orders, counted by the allocator), and what the scene came to: units alive and still
//! walking at the end, goods delivered, buildings' hit points lost, and the world's state hash. Wall-clock time is measured
//! here only, never in a test.

#![allow(
    clippy::disallowed_types,
    reason = "a benchmark outside the sim: it reports means as decimals"
)]

#[path = "../bench/mod.rs"]
mod bench;
mod gatherers;
mod scenes;

use cohort_sim::{StateHash, World};

/// Ticks timed from the orders on: 24 s of game at 16 ms a tick, long enough for the armies
/// to meet and push through each other or fight, and for every crew to carry loads home.
const TICKS: usize = 1500;
/// Runs of each scene unless `--runs` says otherwise.
const RUNS: usize = 3;

/// One run of a scene.
struct Run {
    /// Nanoseconds of each timed tick.
    ns: Vec<u128>,
    /// Route searches, replans and node expansions in each timed tick.
    work: Work,
    /// The most bytes live during the timed ticks, above what was live before the scene.
    world_bytes: usize,
    end: End,
}

/// The searches' work in each timed tick: the same in every run.
#[derive(Default, PartialEq, Debug)]
struct Work {
    searches: Vec<u64>,
    replans: Vec<u64>,
    expansions: Vec<u64>,
}

/// What a run came to: the same in every run.
#[derive(PartialEq, Debug)]
struct End {
    hash: StateHash,
    units_before: usize,
    units: usize,
    walking: usize,
    goods_delivered: u64,
    building_hit_points_lost: u64,
    most_expansions: u64,
}

/// Goods in every player's stock.
fn stock(world: &World) -> u64 {
    world
        .state()
        .players
        .iter()
        .flat_map(|p| p.stock)
        .map(u64::from)
        .sum()
}

/// Hit points of every building standing.
fn building_hit_points(world: &World) -> u64 {
    world
        .state()
        .buildings
        .iter()
        .map(|b| u64::from(b.hit_points))
        .sum()
}

fn run(name: &str) -> Option<Run> {
    let mut ns = Vec::with_capacity(TICKS);
    let mut work = Work {
        searches: Vec::with_capacity(TICKS),
        replans: Vec::with_capacity(TICKS),
        expansions: Vec::with_capacity(TICKS),
    };
    let before = bench::live();
    let scenes::Scene { mut world, orders } = scenes::build(name)?;
    let (stock_before, hit_points_before) = (stock(&world), building_hit_points(&world));
    let units_before = world.state().units.len();
    bench::reset_peak();
    for k in 0..TICKS {
        let was = world.counters.clone();
        let commands = if k == 0 { &orders[..] } else { &[] };
        let ((), t) = bench::timed(|| world.step(commands));
        ns.push(t);
        let now = &world.counters;
        work.searches.push(now.route_searches - was.route_searches);
        work.replans.push(now.replans - was.replans);
        work.expansions
            .push(now.node_expansions - was.node_expansions);
    }
    let world_bytes = bench::peak().saturating_sub(before);
    let end = End {
        hash: world.hash(),
        units_before,
        units: world.state().units.len(),
        walking: world
            .state()
            .units
            .iter()
            .filter(|u| u.route.is_some())
            .count(),
        goods_delivered: stock(&world).saturating_sub(stock_before),
        building_hit_points_lost: hit_points_before.saturating_sub(building_hit_points(&world)),
        most_expansions: world.counters.most_expansions,
    };
    Some(Run {
        ns,
        work,
        world_bytes,
        end,
    })
}

/// The mean of `xs` to two places, and the most.
fn mean_and_most(xs: &[u64]) -> (f64, u64) {
    let sum: u64 = xs.iter().sum();
    let mean = sum as f64 / xs.len().max(1) as f64;
    (
        (mean * 100.0).round() / 100.0,
        xs.iter().copied().max().unwrap_or(0),
    )
}

/// One scene's figures, printed as one JSON object in this order.
#[derive(serde::Serialize)]
struct Figures<'a> {
    scene: &'a str,
    units: usize,
    ticks: usize,
    runs: usize,
    median_us: u128,
    p99_us: u128,
    max_us: u128,
    median_us_first_run: u128,
    p99_us_first_run: u128,
    searches_per_tick: f64,
    replans_per_tick: f64,
    expansions_per_tick: f64,
    most_searches_in_a_tick: u64,
    most_replans_in_a_tick: u64,
    most_expansions_in_a_tick: u64,
    most_expansions: u64,
    world_bytes: usize,
    units_at_end: usize,
    walking_at_end: usize,
    goods_delivered: u64,
    building_hit_points_lost: u64,
    /// The world's state hash at the end (the same in every run).
    hash: String,
}

/// Runs scene `name` `runs` times and prints its figures.
fn measure(name: &str, runs: usize) {
    let Some(first) = run(name) else {
        eprintln!(
            "no scene `{name}`; the scenes: {}",
            scenes::NAMES.join(", ")
        );
        std::process::exit(2);
    };
    let mut best = first.ns.clone();
    let mut world_bytes = first.world_bytes;
    for _ in 1..runs {
        let again = run(name).expect("the same scene");
        assert_eq!(again.end, first.end, "every run does the same work");
        assert_eq!(again.work, first.work, "every run does the same work");
        bench::keep_fastest(&mut best, &again.ns);
        world_bytes = world_bytes.max(again.world_bytes);
    }
    let us = |ns: u128| ns / 1000;
    let (searches_per_tick, most_searches_in_a_tick) = mean_and_most(&first.work.searches);
    let (replans_per_tick, most_replans_in_a_tick) = mean_and_most(&first.work.replans);
    let (expansions_per_tick, most_expansions_in_a_tick) = mean_and_most(&first.work.expansions);
    let end = &first.end;
    let figures = Figures {
        scene: name,
        units: end.units_before,
        ticks: TICKS,
        runs,
        median_us: us(bench::percentile(&best, 50)),
        p99_us: us(bench::percentile(&best, 99)),
        max_us: us(bench::percentile(&best, 100)),
        median_us_first_run: us(bench::percentile(&first.ns, 50)),
        p99_us_first_run: us(bench::percentile(&first.ns, 99)),
        searches_per_tick,
        replans_per_tick,
        expansions_per_tick,
        most_searches_in_a_tick,
        most_replans_in_a_tick,
        most_expansions_in_a_tick,
        most_expansions: end.most_expansions,
        world_bytes,
        units_at_end: end.units,
        walking_at_end: end.walking,
        goods_delivered: end.goods_delivered,
        building_hit_points_lost: end.building_hit_points_lost,
        hash: end.hash.to_string(),
    };
    println!(
        "{}",
        serde_json::to_string(&figures).expect("plain numbers and a name")
    );
}

fn main() {
    let mut runs = RUNS;
    let mut names = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--runs" {
            match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => runs = n,
                _ => {
                    eprintln!("--runs takes a whole number above 0");
                    std::process::exit(2);
                }
            }
        } else {
            names.push(a);
        }
    }
    if names.is_empty() {
        names = scenes::NAMES.iter().map(|s| s.to_string()).collect();
    }
    for name in &names {
        measure(name, runs);
    }
}
