//! `cohort verify [NAMES] [--dir DIR]`: runs the movement spec's self-checks (as the spec's
//! `--verify` does) over their scenario files, printing each check's name, pass or fail, and
//! the figures it measured. Exits 1 when a check fails.

use anyhow::Result;
use clap::Args as ClapArgs;
use cohort_sim::verify::{Embedded, CHECKS};
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `cohort verify`.
#[derive(ClapArgs)]
pub struct Args {
    /// Checks to run, by name: planner, march, sharedwalk, crowdgoal, replanspread, arrive50,
    /// goldmine, shore, gap, formation, chasetable. Also accepted comma-separated.
    pub names: Vec<String>,
    /// Read the checks' scenario files (planner.toml, march_width.toml, …; `--list` names
    /// them) from this directory instead of the copies embedded in the binary, e.g.
    /// `--dir scenarios/verify` in a checkout.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// List the checks and the scenario files each runs, and exit.
    #[arg(long)]
    pub list: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.list {
        for c in &CHECKS {
            println!("{:<13} {}", c.name, c.files.join(" "));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let names: Vec<String> = args
        .names
        .iter()
        .flat_map(|n| n.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(String::from)
        .collect();
    let outcomes = match &args.dir {
        None => cohort_sim::verify::run(&names, &Embedded)?,
        Some(dir) => {
            let dir = dir.clone();
            let read = move |name: &str, most: usize| {
                cohort_protocol::file::read_at_most(&dir.join(name), most)
                    .map_err(|e| e.to_string())
            };
            cohort_sim::verify::run(&names, &read)?
        }
    };
    let mut failed = 0;
    for o in &outcomes {
        // A figure that did not hold is marked `!`.
        let figures: Vec<String> = o
            .figures
            .iter()
            .map(|(k, v)| {
                let mark = if o.failed.contains(k) { "!" } else { "" };
                format!("{mark}{k}={v}")
            })
            .collect();
        println!(
            "{:<13} {}  {}",
            o.name,
            if o.passed { "pass" } else { "FAIL" },
            figures.join(" ")
        );
        failed += usize::from(!o.passed);
    }
    println!("{} checks, {} failed", outcomes.len(), failed);
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
