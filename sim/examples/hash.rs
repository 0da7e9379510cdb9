//! The per-turn state hash, with the grid's cached encoding against the whole state encoded
//! afresh (its peer in the same run), on the default generated map with 8 players after one
//! turn. Prints one JSON line: microseconds per hash (cached, uncached, and cached right after a
//! grid change, which takes the grid's encoding again), the tick hash (`World::tick_hash`, taken
//! after every tick), one idle turn of 8 ticks for scale, and the grid's encoded size. The tick
//! hash at 1,600 walking units is measured by `sim/examples/tick.rs`.
//!
//! `cargo run --release -p cohort-sim --example hash`

// A benchmark times itself: the clock is outside the sim it measures.
#![allow(clippy::disallowed_types)]

use cohort_sim::map::{generate, MapOptions};
use cohort_sim::{Ruleset, Tile};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Hashes (or turns) timed per figure.
const ROUNDS: u32 = 200;

fn per_round(mut f: impl FnMut(u32)) -> Duration {
    let start = Instant::now();
    for i in 0..ROUNDS {
        f(i);
    }
    start.elapsed() / ROUNDS
}

fn main() {
    let opts = MapOptions {
        players: 8,
        ..MapOptions::default()
    };
    let mut w = generate(Arc::new(Ruleset::default_rules()), opts);
    w.run_turn(&[], 8);
    assert_eq!(w.hash(), w.hash_uncached());
    let uncached = per_round(|_| {
        black_box(w.hash_uncached());
    });
    let cached = per_round(|_| {
        black_box(w.hash());
    });
    let tick_hash = per_round(|_| {
        black_box(w.tick_hash());
    });
    let after_change = per_round(|i| {
        w.state_mut()
            .grid
            .set_elevation(Tile::new(1, 1), (i % 3) as i8);
        black_box(w.hash());
    });
    let turn = per_round(|_| w.run_turn(&[], 8));
    println!(
        "{}",
        serde_json::json!({
            "hash_uncached_us": uncached.as_micros(),
            "hash_cached_us": cached.as_micros(),
            "tick_hash_us": tick_hash.as_micros(),
            "hash_after_grid_change_us": after_change.as_micros(),
            "idle_turn_of_8_ticks_us": turn.as_micros(),
            "grid_bytes": w.state().grid.canonical().len(),
        })
    );
}
