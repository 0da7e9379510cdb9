//! Runs scenario files and prints what the run's watch saw, one JSON line each:
//! `cargo run --release -p cohort-sim --example scenes -- scenarios/crowds/*.toml`.
//!
//! The figures are those of `cohort sim --json` (docs/SCENARIOS.md, "Stalls, waits, overlaps"),
//! summed up for a table: units, units still with an order, stalled, the longest stall and
//! wait (seconds), overlaps now and during the run, bodies over closed ground, replans per unit
//! second, route searches, and the orders that ended on their own; and what the ticks cost:
//! `tick_median_us`, `tick_p99_us` and `tick_max_us` (the tick alone, without the watch and the
//! hashes round it) and `peak_heap_bytes`, the most the heap held during the run (a counting
//! allocator: the world, its caches, the scenario and the watch). Wall-clock time is measured
//! here only, never in a test.

// A benchmark outside the sim: it reports figures as decimals.
#![allow(clippy::disallowed_types)]

use cohort_sim::scenario::{Runner, Scenario};
use cohort_sim::world::{Order, TICK_MS};
use std::path::Path;

mod bench;

/// The `q`-quantile (0 to 1) of sorted `xs`, in microseconds.
fn quantile_us(xs: &[u128], q: f64) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let k = ((xs.len() - 1) as f64 * q).round() as usize;
    xs[k] as f64 / 1000.0
}

fn main() {
    for arg in std::env::args().skip(1) {
        let path = Path::new(&arg);
        let bytes = std::fs::read(path).expect("read the scenario");
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let files =
            move |n: &str, _most: usize| std::fs::read(dir.join(n)).map_err(|e| e.to_string());
        let s = match Scenario::from_bytes(&bytes, &arg, &files, None) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        let ticks = s.ticks;
        let base = bench::live();
        bench::reset_peak();
        let mut r = Runner::new(s);
        let mut tick_ns = Vec::with_capacity(usize::try_from(ticks).unwrap_or(0));
        for _ in 0..ticks {
            r.step_with(|world, commands| {
                let ((), ns) = bench::timed(|| world.step(commands));
                tick_ns.push(ns);
            });
        }
        let peak_heap = bench::peak().saturating_sub(base);
        tick_ns.sort_unstable();
        let w = r.report().watch;
        let world = &r.world;
        let secs = |t: u64| t as f64 * f64::from(TICK_MS) / 1000.0;
        let busy = world
            .state()
            .units
            .iter()
            .filter(|u| !matches!(u.order, Order::Idle | Order::Hold))
            .count();
        let unit_seconds = w.busy_unit_seconds.to_num::<f64>().max(1e-9);
        println!(
            "{}",
            serde_json::json!({
                "scene": path.file_stem().map(|s| s.to_string_lossy().into_owned()),
                "units": world.state().units.len(),
                "busy": busy,
                "stalled": w.stalled.iter().filter(|s| !s.waiting).count(),
                "waiting": w.stalled.iter().filter(|s| s.waiting).count(),
                "longest_stall": w.longest_stall.map_or(0.0, |s| secs(s.ticks)),
                "longest_wait": w.longest_wait.map_or(0.0, |s| secs(s.ticks)),
                "most_free_in_a_wait": w.waits.iter().map(|x| x.free_ticks).max().map_or(0.0, secs),
                "waits_failing": w.waits.iter().filter(|x| x.fails()).count(),
                "free_waits": w.waits.iter().filter(|x| x.free_ticks > 0).map(|x| format!("#{} {} {:.1}/{:.1} from {} at {:?}", x.unit.0, x.waits_for.name(), secs(x.free_ticks), secs(x.ticks), x.since, x.free_at.map(|p| (p.x.to_num::<f64>(), p.y.to_num::<f64>())))).collect::<Vec<_>>(),
                "overlaps": w.bodies.overlaps.len(),
                "overlap_onsets": w.bodies.onsets,
                "deepest_overlap_per_mille": w.bodies.deepest.map(|o| o.per_mille as i64),
                "close_pair_seconds": secs(w.bodies.close_pair_ticks),
                "longest_close_s": w.bodies.longest_close.map_or(0.0, |r| secs(r.ticks)),
                "standing_pair_ticks": w.bodies.standing_pair_ticks,
                "standing_at_end": w.bodies.standing_at_end.len(),
                "body_faults": w.bodies.faults().len(),
                "in_closed_ground": w.in_closed_ground.len(),
                "deepest_in_closed_ground": w.deepest_in_closed_ground.map_or(0.0, |c| c.depth.to_num::<f64>()),
                "replans_per_unit_second": world.counters.replans as f64 / unit_seconds,
                "route_searches": world.counters.route_searches,
                "orders_ended": w.ended.len(),
                "farthest_ended_move": w.ended.iter().filter(|e| matches!(e.order, Order::Move { .. } | Order::AttackMove { .. })).filter_map(|e| e.distance).max().map_or(0.0, |d| d.to_num::<f64>()),
                "tick_median_us": quantile_us(&tick_ns, 0.5),
                "tick_p99_us": quantile_us(&tick_ns, 0.99),
                "tick_max_us": quantile_us(&tick_ns, 1.0),
                "peak_heap_bytes": peak_heap,
            })
        );
    }
}
