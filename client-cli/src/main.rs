//! `cohort`: the command line of Cohort's client. Each subcommand lives in `cmd/<name>.rs`.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Cohort: a lockstep RTS game server's client, headless simulator and tools.
#[derive(Parser)]
#[command(name = "cohort", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    Sim(cmd::sim::Args),
    /// Draw a scenario after some ticks as SVG or PNG: terrain, buildings, units, routes, tracks.
    Render(cmd::render::Args),
    Play(cmd::play::Args),
    Bot(cmd::bot::Args),
    Replay(cmd::replay::Args),
    Token(cmd::token::Args),
    Ruleset(cmd::ruleset::Args),
    /// Run the movement spec's self-checks, printing each one's figures; exit 1 on a failure.
    ///
    /// Each check runs its scene from a scenario file of scenarios/verify/, embedded in this
    /// binary (so it runs from anywhere), or read from `--dir DIR`. A figure that did not hold is
    /// marked `!`. The checks and what each holds: docs/SCENARIOS.md, "cohort verify".
    Verify(cmd::verify::Args),
    /// Run the crowd soak: seeded scenes nobody wrote, each twice; exit 1 when one fails.
    ///
    /// Odd seeds are fields (small maps of trees and ponds, groups sent through each other), even
    /// seeds generated maps (the default map's generator, armies of several players given every
    /// kind of order, villagers at work). A scene fails on a stall of 10 s or more, bodies nearer
    /// than the keep-apart allowance at the end, a body over closed ground, a walk not ended, or
    /// two runs' hashes differing. What each means: docs/SCENARIOS.md, "cohort soak".
    Soak(cmd::soak::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Sim(a) => cmd::sim::run(a),
        Cmd::Render(a) => cmd::render::run(a),
        Cmd::Play(a) => cmd::play::run(a),
        Cmd::Bot(a) => cmd::bot::run(a),
        Cmd::Replay(a) => cmd::replay::run(a),
        Cmd::Token(a) => cmd::token::run(a),
        Cmd::Ruleset(a) => cmd::ruleset::run(a),
        Cmd::Verify(a) => cmd::verify::run(a),
        Cmd::Soak(a) => cmd::soak::run(a),
    };
    match result {
        Ok(code) => code,
        // The reader went away (`cohort sim … | head`): nothing is wrong with the run.
        Err(e) if stdout_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Whether `e` is a write to a closed pipe.
fn stdout_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}
