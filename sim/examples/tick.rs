//! The movement tick's benchmark: `cargo run --release -p cohort-sim --example tick`.
//!
//! Prints one JSON object: `units`, `median_us` and `p95_us` per tick for the default map with 8
//! players and 1,600 units (200 a player) all walking across the map (the first run), and the
//! same over each tick's fastest of `runs` identical runs (`median_us_fastest_of_runs`,
//! `p95_us_fastest_of_runs`: what is left when a busy machine's stalls are taken out); `searches_for_200`, the
//! route searches 200 soldiers sent together to one point cost; and `world_bytes`, the memory
//! one such match's world holds (grid, caches, units, routes), counted by the allocator; and
//! what hashing costs beside each tick: the tick hash every peer takes after each tick and the
//! state hash it takes after each turn of 8 ticks (medians over the timed ticks, fastest of
//! runs, and per mille of the median tick).
//! Wall-clock time is measured here only, never in a test.

use cohort_sim::command::{Command, PlayerCommand};
use cohort_sim::map::{generate, MapOptions};
use cohort_sim::{fx, fx_ratio, Ruleset, Vec2, World};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Counts the bytes live on the heap, so the world's size is measured, not estimated.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Players on the default map.
const PLAYERS: u8 = 8;
/// Soldiers each player sends.
const PER_PLAYER: usize = 200;
/// Ticks timed after the orders.
const TIMED_TICKS: usize = 600;
/// The same match is run and timed this many times: the sim is deterministic, so tick `k` does
/// the same work in every run, and the fastest of the runs for each tick is its time without
/// the stalls of a shared machine (another process holding the core).
const RUNS: usize = 3;

/// Up to `n` open land points in a block centred on `middle`, 16 across, 0.7 of a tile apart,
/// row by row (rows added below while ground is closed).
fn block_round(world: &World, middle: Vec2, n: usize) -> Vec<Vec2> {
    let grid = world.grid();
    let key = cohort_sim::grid::Keyed::unkeyed(0);
    let spacing = fx_ratio(7, 10);
    let cols = 16i64;
    let rows = (n as i64 + cols - 1) / cols;
    let mut out = Vec::new();
    for j in 0..rows * 2 {
        for i in 0..cols {
            let p = Vec2::new(
                middle.x + spacing * (2 * i - cols + 1) / 2,
                middle.y + spacing * (2 * j - rows + 1) / 2,
            );
            if out.len() < n && grid.passable_point(key, p) {
                out.push(p);
            }
        }
    }
    out
}

/// Each player's town center's middle, in player order.
fn starts(world: &World) -> Vec<Vec2> {
    (0..PLAYERS)
        .map(|p| {
            world
                .state
                .buildings
                .iter()
                .find(|b| b.owner == p)
                .map(|b| b.footprint.bounds().middle())
                .unwrap_or_default()
        })
        .collect()
}

/// A world with 200 militia a player in a block between its town center and the map's middle.
fn armies() -> (World, Vec<Vec<cohort_sim::EntityId>>, Vec<Vec2>) {
    // Each army stands between its town center and the map's middle; it is sent to where the
    // army opposite stands (open ground), so every group crosses the middle.
    let rules = Arc::new(Ruleset::default_rules());
    let mut world = generate(
        rules.clone(),
        MapOptions {
            players: PLAYERS,
            ..MapOptions::default()
        },
    );
    let militia = rules.unit_kind("militia").unwrap_or(0);
    let size = world.grid().width();
    let centre = Vec2::new(fx(size / 2), fx(size / 2));
    let middles: Vec<Vec2> = starts(&world)
        .into_iter()
        .map(|s| s.lerp(centre, fx(1), fx(4)))
        .collect();
    let mut groups = Vec::new();
    for p in 0..PLAYERS {
        let middle = middles[p as usize];
        let ids = block_round(&world, middle, PER_PLAYER)
            .into_iter()
            .map(|at| world.spawn_unit(militia, p, at))
            .collect();
        groups.push(ids);
    }
    (world, groups, middles)
}

#[allow(
    clippy::disallowed_types,
    reason = "the benchmark measures wall-clock time"
)]
fn time_ticks(world: &mut World, ticks: usize) -> Timed {
    let mut timed = Timed::default();
    for i in 0..ticks {
        let t = std::time::Instant::now();
        world.step(&[]);
        timed.tick.push(t.elapsed().as_nanos());
        // What every peer adds to each tick: its tick hash.
        let t = std::time::Instant::now();
        std::hint::black_box(world.tick_hash());
        timed.tick_hash.push(t.elapsed().as_nanos());
        // What every peer adds to each turn (of 8 ticks): the state hash.
        if i % 8 == 7 {
            let t = std::time::Instant::now();
            std::hint::black_box(world.hash());
            timed.state_hash.push(t.elapsed().as_nanos());
        }
    }
    timed
}

/// Nanoseconds per tick, per tick hash and per state hash.
#[derive(Default)]
struct Timed {
    tick: Vec<u128>,
    tick_hash: Vec<u128>,
    state_hash: Vec<u128>,
}

impl Timed {
    /// Each figure's fastest of this run and `other`.
    fn keep_fastest(&mut self, other: Timed) {
        for (mine, theirs) in [
            (&mut self.tick, other.tick),
            (&mut self.tick_hash, other.tick_hash),
            (&mut self.state_hash, other.state_hash),
        ] {
            for (b, t) in mine.iter_mut().zip(theirs) {
                *b = (*b).min(t);
            }
        }
    }
}

fn main() {
    let before = LIVE.load(Ordering::Relaxed);
    let (mut world, groups, middles) = armies();
    let world_bytes_idle = LIVE.load(Ordering::Relaxed) - before;
    let units = world.state.units.len();

    // Every player sends its 200 across the map, to the player opposite.
    let commands: Vec<PlayerCommand> = (0..PLAYERS)
        .map(|p| PlayerCommand {
            player: p,
            command: Command::Move {
                units: groups[p as usize].clone(),
                to: middles[((p + PLAYERS / 2) % PLAYERS) as usize],
            },
        })
        .collect();
    // The first player's 200 alone, to count its searches.
    let searches_before = world.counters.route_searches;
    world.step(&commands[..1]);
    let searches_for_200 = world.counters.route_searches - searches_before;
    world.step(&commands[1..]);
    let walking = world
        .state
        .units
        .iter()
        .filter(|u| u.route.is_some())
        .count();
    let world_bytes = LIVE.load(Ordering::Relaxed) - before;

    let searches_at_start = world.counters.route_searches;
    let times = time_ticks(&mut world, TIMED_TICKS);
    let searches_timed = world.counters.route_searches - searches_at_start;
    let end_hash = world.hash();
    let (median, p95) = median_p95(&times.tick);

    // The same match again, each tick's fastest run kept.
    let mut best = times;
    for _ in 1..RUNS {
        let (mut again, groups, _) = armies();
        let commands: Vec<PlayerCommand> = commands
            .iter()
            .zip(&groups)
            .map(|(c, g)| PlayerCommand {
                player: c.player,
                command: match &c.command {
                    Command::Move { to, .. } => Command::Move {
                        units: g.clone(),
                        to: *to,
                    },
                    other => other.clone(),
                },
            })
            .collect();
        again.step(&commands[..1]);
        again.step(&commands[1..]);
        let times = time_ticks(&mut again, TIMED_TICKS);
        assert_eq!(again.hash(), end_hash, "every run does the same work");
        best.keep_fastest(times);
    }
    let (best_median, best_p95) = median_p95(&best.tick);
    let (tick_hash, _) = median_p95(&best.tick_hash);
    let (state_hash, _) = median_p95(&best.state_hash);
    let us = |ns: u128| ns / 1000;
    // Per mille of a tick, fastest of runs: each tick's hash against the tick it follows.
    let share = |ns: u128| ns * 1000 / best_median.max(1);
    println!(
        "{{\"units\":{units},\"walking\":{walking},\"ticks\":{TIMED_TICKS},\"median_us\":{},\"p95_us\":{},\"runs\":{RUNS},\"median_us_fastest_of_runs\":{},\"p95_us_fastest_of_runs\":{},\"tick_hash_median_us_fastest_of_runs\":{},\"tick_hash_per_mille_of_tick\":{},\"state_hash_median_us_fastest_of_runs\":{},\"state_hash_per_mille_of_tick\":{},\"searches_for_200\":{searches_for_200},\"world_bytes\":{},\"world_bytes_before_orders\":{world_bytes_idle},\"searches_while_timed\":{searches_timed}}}",
        us(median),
        us(p95),
        us(best_median),
        us(best_p95),
        us(tick_hash),
        share(tick_hash),
        us(state_hash),
        share(state_hash),
        world_bytes.max(world_bytes_idle)
    );
}

/// The median and 95th percentile of per-tick times.
fn median_p95(times: &[u128]) -> (u128, u128) {
    if times.is_empty() {
        return (0, 0);
    }
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    (sorted[sorted.len() / 2], sorted[sorted.len() * 95 / 100])
}
