//! `cohort soak [--seeds N] [--first S] [--json] [--out DIR]`: runs the crowd soak's seeded
//! scenes (`cohort_sim::soak`), each twice, and prints what they came to; writes each failing
//! scene's scenario file to DIR. Exits 1 when a scene fails.

use anyhow::{Context, Result};
use cohort_sim::soak::{self, Scene, Summary};
use cohort_sim::Fx;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `cohort soak`.
#[derive(clap::Args)]
pub struct Args {
    /// Scenes to run, one a seed: odd seeds are fields (small maps of trees and ponds), even
    /// seeds generated maps (the default map's generator, armies given every kind of order).
    #[arg(long, default_value_t = 20)]
    pub seeds: u64,
    /// The first scene's seed.
    #[arg(long, default_value_t = 1)]
    pub first: u64,
    /// Print one JSON object instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// Where each failing scene's scenario file is written (seed_N.toml), to run with
    /// `cohort sim` or draw with `cohort render`.
    #[arg(long, value_name = "DIR", default_value = "target/crowd-soak")]
    pub out: PathBuf,
}

/// What `--json` prints.
#[derive(Serialize)]
struct Json {
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

pub fn run(args: Args) -> Result<ExitCode> {
    let bar = ProgressBar::new(args.seeds);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} scenes {eta} {msg}") {
        bar.set_style(style);
    }
    let mut summary = Summary::new();
    for seed in args.first..args.first.saturating_add(args.seeds) {
        let scene = Scene::of_seed(seed);
        let outcome =
            soak::run(&scene).with_context(|| format!("seed {seed}: the scene does not load"))?;
        summary.add(&outcome);
        if !outcome.passed() {
            write_scene(&args.out, &scene, &outcome.failures())?;
            bar.set_message(format!("{} failed", summary.failed.len()));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if args.json {
        let json = json(&args, &summary);
        // Written, not printed: a reader gone (`cohort soak --json | head`) is an error `main`
        // lets pass, not a panic.
        writeln!(
            std::io::stdout().lock(),
            "{}",
            serde_json::to_string_pretty(&json)?
        )?;
    } else {
        print_summary(&args, &summary);
    }
    Ok(if summary.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Writes a failing scene's file, what went wrong in comments at its head.
fn write_scene(dir: &std::path::Path, scene: &Scene, why: &[String]) -> Result<()> {
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

fn json(args: &Args, s: &Summary) -> Json {
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

fn print_summary(args: &Args, s: &Summary) {
    println!(
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
    println!(
        "stalls of 10 s or more: {} in {} scenes{longest} ({})",
        s.stalls,
        s.stall_scenes,
        by_order.join(", ")
    );
    println!(
        "pairs nearer than the allowance at the end: {}; bodies over closed ground: {} scenes; walks not ended: {}",
        s.overlaps_at_end, s.closed_ground_scenes, s.walks_not_ended
    );
    println!(
        "hashes identical twice: {}",
        if s.identical_twice { "yes" } else { "NO" }
    );
    println!("{} of {} scenes failed", s.failed.len(), s.scenes());
    for f in &s.failed {
        println!(
            "  seed {} ({}, {} units): {} -> {}",
            f.seed,
            f.kind.name(),
            f.units,
            f.why.join("; "),
            args.out.join(format!("seed_{}.toml", f.seed)).display()
        );
    }
}
