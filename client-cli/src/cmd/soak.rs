//! `cohort soak [--seeds N] [--first S] [--json] [--out DIR]`: runs the crowd soak's seeded
//! scenes (`cohort_sim::soak`), each twice, and prints what they came to; writes each failing
//! scene's scenario file to DIR. Exits 1 when a scene fails.

use anyhow::{Context, Result};
use cohort_client::soak_report::{self, Run};
use cohort_sim::soak::{self, Scene, Summary};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `cohort soak`.
#[derive(clap::Args)]
pub struct Args {
    /// Scenes to run, one a seed: odd seeds are fields (small maps of trees and ponds), even
    /// seeds generated maps (the default map's generator, armies given every kind of order).
    /// By default the seeds that must pass (1 to `cohort_sim::soak::PASSING_SEEDS`).
    #[arg(long, default_value_t = soak::PASSING_SEEDS)]
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
            soak_report::write_scene(&args.out, &scene, &outcome.failures())?;
            bar.set_message(format!("{} failed", summary.failed.len()));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let run = Run {
        first: args.first,
        seeds: args.seeds,
        out: &args.out,
    };
    if args.json {
        let json = soak_report::json(&run, &summary);
        // Written, not printed: a reader gone (`cohort soak --json | head`) is an error `main`
        // lets pass, not a panic.
        writeln!(
            std::io::stdout().lock(),
            "{}",
            serde_json::to_string_pretty(&json)?
        )?;
    } else {
        write!(
            std::io::stdout().lock(),
            "{}",
            soak_report::summary(&run, &summary)
        )?;
    }
    Ok(if summary.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
