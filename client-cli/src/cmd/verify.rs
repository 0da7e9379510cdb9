//! `cohort verify [NAMES]`: runs the movement spec's self-checks (as the spec's `--verify`
//! does), printing each check's name, pass or fail, and the figures it measured. Exits 1 when a
//! check fails.

use anyhow::Result;
use clap::Args as ClapArgs;
use std::process::ExitCode;

/// Run the movement self-checks (all of them when no names are given).
#[derive(ClapArgs)]
pub struct Args {
    /// Checks to run, by name: planner, march, sharedwalk, crowdgoal, replanspread, arrive50,
    /// goldmine, shore, gap, formation, chasetable. Also accepted comma-separated.
    pub names: Vec<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let names: Vec<String> = args
        .names
        .iter()
        .flat_map(|n| n.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(String::from)
        .collect();
    let outcomes = cohort_sim::verify::run(&names)?;
    let mut failed = 0;
    for o in &outcomes {
        let figures: Vec<String> = o.figures.iter().map(|(k, v)| format!("{k}={v}")).collect();
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
