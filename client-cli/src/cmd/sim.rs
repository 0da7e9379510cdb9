//! `cohort sim`: run the simulation headless.

use anyhow::Result;
use cohort_sim::map::{generate, MapOptions};
use cohort_sim::Ruleset;
use std::process::ExitCode;
use std::sync::Arc;

/// Run the simulation headless on the default map.
#[derive(clap::Args)]
pub struct Args {
    /// How many ticks to run (a tick is 16 ms of game time).
    #[arg(long, default_value_t = 600)]
    ticks: u64,
    /// Players on the default map (2 to 8).
    #[arg(long, default_value_t = 2)]
    players: u8,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let rules = Arc::new(Ruleset::default_rules());
    let mut world = generate(
        rules,
        MapOptions {
            players: args.players,
            ..MapOptions::default()
        },
    );
    for _ in 0..args.ticks {
        world.step(&[]);
    }
    println!("tick {} hash {}", world.tick(), world.hash());
    Ok(ExitCode::SUCCESS)
}
