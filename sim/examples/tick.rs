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
//! runs, and per mille of the median tick). The orders are given before the timed ticks, so
//! this is the walk alone; `crowd_tick` times the same 1,600 crowded (crossing, siege,
//! gatherers, fights), the orders' searches included. The allocator, the clock and the
//! blocks are `bench/mod.rs`, shared with `crowd_tick` and `scenes`.
//! Wall-clock time is measured here only, never in a test.

mod bench;

use cohort_sim::command::{Command, PlayerCommand};
use cohort_sim::{fx_ratio, Vec2, World};

/// Players on the default map.
const PLAYERS: u8 = bench::PLAYERS;
/// Soldiers each player sends.
const PER_PLAYER: usize = 200;
/// Ticks timed after the orders.
const TIMED_TICKS: usize = 600;
/// The same match is run and timed this many times, each tick's fastest run kept
/// ([`bench::keep_fastest`]).
const RUNS: usize = 3;
/// Columns of each army's block.
const COLUMNS: i64 = 16;
/// How far apart the soldiers of a block stand, in tiles.
const SPACING: cohort_sim::Fx = fx_ratio(7, 10);

/// A world with 200 militia a player in a block between its town center and the map's middle.
fn armies() -> (World, Vec<Vec<cohort_sim::EntityId>>, Vec<Vec2>) {
    // Each army stands between its town center and the map's middle; it is sent to where the
    // army opposite stands (open ground), so every group crosses the middle.
    let mut world = bench::default_map();
    let militia = world.rules().unit_kind("militia").unwrap_or(0);
    let middles = bench::army_middles(&world);
    let mut groups = Vec::new();
    for p in 0..PLAYERS {
        let middle = middles[p as usize];
        let ids = bench::block(&world, middle, PER_PLAYER, COLUMNS, SPACING)
            .into_iter()
            .map(|at| world.spawn_unit(militia, p, at))
            .collect();
        groups.push(ids);
    }
    (world, groups, middles)
}

fn time_ticks(world: &mut World, ticks: usize) -> Timed {
    let mut timed = Timed::default();
    for i in 0..ticks {
        let ((), t) = bench::timed(|| world.step(&[]));
        timed.tick.push(t);
        // What every peer adds to each tick: its tick hash.
        let (_, t) = bench::timed(|| std::hint::black_box(world.tick_hash()));
        timed.tick_hash.push(t);
        // What every peer adds to each turn (of 8 ticks): the state hash.
        if i % 8 == 7 {
            let (_, t) = bench::timed(|| std::hint::black_box(world.hash()));
            timed.state_hash.push(t);
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
        bench::keep_fastest(&mut self.tick, &other.tick);
        bench::keep_fastest(&mut self.tick_hash, &other.tick_hash);
        bench::keep_fastest(&mut self.state_hash, &other.state_hash);
    }
}

fn main() {
    let before = bench::live();
    let (mut world, groups, middles) = armies();
    let world_bytes_idle = bench::live() - before;
    let units = world.state().units.len();

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
        .state()
        .units
        .iter()
        .filter(|u| u.route.is_some())
        .count();
    let world_bytes = bench::live() - before;

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
    (bench::percentile(times, 50), bench::percentile(times, 95))
}
