//! What `cohort soak` prints of a [`Summary`] of the crowd soak's scenes (`cohort_sim::soak`):
//! the `--json` schema (docs/SCENARIOS.md, "cohort soak"; `.ci/run` compares it byte for byte
//! across builds), the summary, and a failing scene's file written out.

use cohort_sim::soak::{self, Scene, Summary};
use cohort_sim::Fx;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// Which scenes were run: from seed `first`, `seeds` of them, failing ones written to `out`.
pub struct Run<'a> {
    pub first: u64,
    pub seeds: u64,
    pub out: &'a Path,
}

/// What `--json` prints.
#[derive(Serialize)]
pub struct Json {
    first_seed: u64,
    seeds: u64,
    fields: usize,
    generated: usize,
    units: usize,
    unit_minutes: f64,
    failed: Vec<JsonFailed>,
    stalls: JsonStalls,
    longest_wait: Option<JsonLongest>,
    overlaps_at_end: JsonOverlaps,
    overlaps_during_runs: JsonOnsets,
    bodies_apart: JsonBodies,
    closed_ground: JsonClosed,
    walks_not_ended: usize,
    hashes_identical_twice: bool,
}

#[derive(Serialize)]
struct JsonFailed {
    seed: u64,
    kind: &'static str,
    units: usize,
    why: Vec<String>,
    file: String,
}

#[derive(Serialize)]
struct JsonStalls {
    count: usize,
    scenes: usize,
    /// By the order the unit had: `{"follow": 3, …}`.
    by_order: serde_json::Map<String, serde_json::Value>,
    longest: Option<JsonLongest>,
}

#[derive(Serialize)]
struct JsonLongest {
    seconds: f64,
    seed: u64,
}

#[derive(Serialize)]
struct JsonBodies {
    close_pair_seconds: f64,
    longest_close: Option<JsonLongest>,
    standing_pair_ticks: u64,
}

#[derive(Serialize)]
struct JsonOverlaps {
    count: usize,
    nearest_per_mille_of_allowance: Option<i128>,
}

#[derive(Serialize)]
struct JsonOnsets {
    onsets: u64,
    nearest_per_mille_of_allowance: Option<i128>,
}

#[derive(Serialize)]
struct JsonClosed {
    scenes: usize,
    bodies_at_end: usize,
    deepest: Option<f64>,
}

/// Writes a failing scene's file, what went wrong in comments at its head.
pub fn write_scene(dir: &Path, scene: &Scene, why: &[String]) -> anyhow::Result<()> {
    use anyhow::Context;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut text: String = why.iter().map(|w| format!("# failed: {w}\n")).collect();
    text.push_str(&scene.toml);
    let file = dir.join(scene.file_name());
    std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))
}

fn num(v: Fx) -> f64 {
    v.to_num::<f64>()
}

/// Seconds of `ticks`, to a tenth.
fn seconds(ticks: u64) -> f64 {
    tenths(soak::seconds(ticks))
}

/// A value to a tenth.
fn tenths(v: Fx) -> f64 {
    (num(v) * 10.0).round() / 10.0
}

/// The `--json` object of `s`.
pub fn json(args: &Run, s: &Summary) -> Json {
    let longest = |l: Option<(u64, u64)>| {
        l.map(|(ticks, seed)| JsonLongest {
            seconds: seconds(ticks),
            seed,
        })
    };
    Json {
        first_seed: args.first,
        seeds: args.seeds,
        fields: s.fields,
        generated: s.generated,
        units: s.units,
        unit_minutes: tenths(s.unit_minutes()),
        failed: s
            .failed
            .iter()
            .map(|f| JsonFailed {
                seed: f.seed,
                kind: f.kind.name(),
                units: f.units,
                why: f.why.clone(),
                file: args
                    .out
                    .join(format!("seed_{}.toml", f.seed))
                    .display()
                    .to_string(),
            })
            .collect(),
        stalls: JsonStalls {
            count: s.stalls,
            scenes: s.stall_scenes,
            by_order: s
                .stalls_by_order
                .iter()
                .map(|&(o, n)| (o.to_string(), n.into()))
                .collect(),
            longest: longest(s.longest_stall),
        },
        longest_wait: longest(s.longest_wait),
        overlaps_at_end: JsonOverlaps {
            count: s.overlaps_at_end,
            nearest_per_mille_of_allowance: s.nearest_at_end,
        },
        overlaps_during_runs: JsonOnsets {
            onsets: s.overlap_onsets,
            nearest_per_mille_of_allowance: s.nearest_during_runs,
        },
        bodies_apart: JsonBodies {
            close_pair_seconds: seconds(s.close_pair_ticks),
            longest_close: longest(s.longest_close),
            standing_pair_ticks: s.standing_pair_ticks,
        },
        closed_ground: JsonClosed {
            scenes: s.closed_ground_scenes,
            bodies_at_end: s.closed_ground_at_end,
            deepest: s.deepest_in_closed_ground.map(num),
        },
        walks_not_ended: s.walks_not_ended,
        hashes_identical_twice: s.identical_twice,
    }
}

/// The summary printed without `--json`, line by line.
pub fn summary(args: &Run, s: &Summary) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{} scenes from seed {} ({} fields, {} generated), {} units, {} unit-minutes",
        s.scenes(),
        args.first,
        s.fields,
        s.generated,
        s.units,
        tenths(s.unit_minutes())
    );
    let longest = s.longest_stall.map_or(String::new(), |(t, seed)| {
        format!(", longest {} s (seed {seed})", seconds(t))
    });
    let by_order: Vec<String> = s
        .stalls_by_order
        .iter()
        .map(|(o, n)| format!("{n} {o}"))
        .collect();
    let _ = writeln!(
        text,
        "stalls of 10 s or more: {} in {} scenes{longest} ({})",
        s.stalls,
        s.stall_scenes,
        by_order.join(", ")
    );
    let _ = writeln!(
        text,
        "pairs nearer than the allowance at the end: {}; bodies over closed ground: {} scenes; walks not ended: {}",
        s.overlaps_at_end, s.closed_ground_scenes, s.walks_not_ended
    );
    let _ = writeln!(
        text,
        "hashes identical twice: {}",
        if s.identical_twice { "yes" } else { "NO" }
    );
    let _ = writeln!(text, "{} of {} scenes failed", s.failed.len(), s.scenes());
    for f in &s.failed {
        let _ = writeln!(
            text,
            "  seed {} ({}, {} units): {} -> {}",
            f.seed,
            f.kind.name(),
            f.units,
            f.why.join("; "),
            args.out.join(format!("seed_{}.toml", f.seed)).display()
        );
    }
    text
}
