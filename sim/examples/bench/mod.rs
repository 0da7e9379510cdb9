//! What the benchmark examples share: a counting allocator (so memory is measured, not
//! estimated), a clock round one call, per-tick times' percentiles and fastest of runs, and
//! armies laid out in blocks on the default map. Wall-clock time is read here only, never in a
//! test or in the sim.

#![allow(
    dead_code,
    reason = "each example that includes this module uses part of it"
)]

use cohort_sim::map::{generate, MapOptions};
use cohort_sim::{fx, Fx, Ruleset, Vec2, World};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Counts the bytes live on the heap and the most ever live since [`reset_peak`].
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grew(new_size);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The bytes live on the heap now.
pub fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The most bytes live at once since the last [`reset_peak`].
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Starts a new peak from what is live now.
pub fn reset_peak() {
    PEAK.store(live(), Ordering::Relaxed);
}

/// What `f` returns and the nanoseconds it took.
#[allow(
    clippy::disallowed_types,
    reason = "the benchmarks measure wall-clock time"
)]
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, u128) {
    let t = std::time::Instant::now();
    let r = f();
    (r, t.elapsed().as_nanos())
}

/// The `per_cent` percentile of `times` (the element `len * per_cent / 100` places up the
/// sorted list: the median is `per_cent` 50); 0 for none.
pub fn percentile(times: &[u128], per_cent: usize) -> u128 {
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    sorted
        .get((sorted.len() * per_cent / 100).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0)
}

/// Keeps in `best` each tick's fastest of `best` and `run`. The sim is deterministic, so tick
/// `k` does the same work in every run of a match, and the fastest of the runs for each tick
/// is its time without the stalls of a shared machine (another process holding the core).
pub fn keep_fastest(best: &mut [u128], run: &[u128]) {
    for (b, &t) in best.iter_mut().zip(run) {
        *b = (*b).min(t);
    }
}

/// Players on the default map in the benchmarks.
pub const PLAYERS: u8 = 8;

/// The default generated map with [`PLAYERS`] players.
pub fn default_map() -> World {
    let rules = Arc::new(Ruleset::default_rules());
    generate(
        rules,
        MapOptions {
            players: PLAYERS,
            ..MapOptions::default()
        },
    )
}

/// Each player's town center's middle, in player order.
pub fn starts(world: &World) -> Vec<Vec2> {
    (0..PLAYERS)
        .map(|p| {
            world
                .state()
                .buildings
                .iter()
                .find(|b| b.owner == p)
                .map(|b| b.footprint.bounds().middle())
                .unwrap_or_default()
        })
        .collect()
}

/// Where each player's army stands on the default map: a quarter of the way from its town
/// center to the map's middle (open ground), in player order.
pub fn army_middles(world: &World) -> Vec<Vec2> {
    let size = world.grid().width();
    let centre = Vec2::new(fx(size / 2), fx(size / 2));
    starts(world)
        .into_iter()
        .map(|s| s.lerp(centre, fx(1), fx(4)))
        .collect()
}

/// Up to `n` open land points in a block centred on `middle`, `cols` across, `spacing` apart,
/// row by row (rows added below while ground is closed, up to twice the rows `n` needs).
pub fn block(world: &World, middle: Vec2, n: usize, cols: i64, spacing: Fx) -> Vec<Vec2> {
    let grid = world.grid();
    let key = cohort_sim::grid::Keyed::unkeyed(0);
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
