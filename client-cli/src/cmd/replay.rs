//! `cohort replay`: re-simulate a replay or a desync report and check every recorded hash.

mod picture;
mod scenario;

use super::ruleset::RulesetArgs;
use anyhow::{Context, Result};
use cohort_client::verify::found::{self, Found};
use cohort_client::verify::{narration, narrow_report, verify_replay, Verdict};
use cohort_protocol::file::{read_at_most, read_limited};
use cohort_protocol::limits::{REPLAY_FILE, REPORT_FILE};
use cohort_protocol::replay::{read_replay, Replay, Tail, TurnRecord, REPLAY_MAGIC};
use cohort_protocol::report::{read_report, DesyncReport, REPORT_MAGIC};
use cohort_protocol::MatchConfig;
use cohort_sim::Ruleset;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Re-simulate a replay or a desync report and check every recorded hash.
///
/// A replay (written by cohort-server, one record per turn) is run from its match
/// configuration; after every turn the state's hash must equal the server's recorded one.
/// A replay cut short (a killed server) is checked up to its last whole record, with a note; a
/// replay damaged after it was written (a record whose bytes are all there but wrong, or whole
/// records after a bad one) is refused, naming the record's turn and byte offset.
/// A desync report is run through its failing turn, then narrowed: the ticks, the part of the
/// state, the entity and the field where the diverging client's state differs from the server's.
///
/// With `--json`, what it found is printed as one JSON object instead (docs/CLIENT.md,
/// "cohort replay --json"), an error too.
///
/// With `--at TURN --scenario OUT.toml`, the state after turn TURN is written as a scenario
/// that `cohort sim OUT.toml` runs (OUT.state beside it holds the state) with the turns after
/// it, checked to give the recorded hashes (docs/SCENARIOS.md, "A scenario from a replay").
///
/// With `--render TURN --out F.png|F.svg`, the state after turn TURN is drawn (a report's
/// failing turn: both states side by side, the differing entities ringed); with `--animate
/// A..B --out F.gif`, the states after turns A to B as an animated GIF (docs/CLIENT.md).
///
/// Exit status: 0 if every recorded hash verifies; 1 if one differs (the first differing turn is
/// named) — always the case for a desync report; 2 if the file cannot be read or is damaged.
/// With `--scenario`, `--render` or `--animate`: 0 once the file is written, 2 if it cannot be.
#[derive(clap::Args)]
pub struct Args {
    /// A replay (`.cohort-replay`, starts with COHORTRP) or a desync report (`.cohort-desync`,
    /// starts with COHORTDR).
    file: PathBuf,
    #[command(flatten)]
    ruleset: RulesetArgs,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Print what was found as one JSON object (no progress bar): the verdict, the first
    /// differing turn and tick, parts, entities and fields. The exit status is the same.
    #[arg(long)]
    json: bool,
    /// With --scenario: the turn whose state the scenario starts from.
    #[arg(long, value_name = "TURN", requires = "scenario")]
    at: Option<u64>,
    /// With --scenario: the last turn it carries (default: the file's last).
    #[arg(long, value_name = "TURN", requires = "scenario")]
    until: Option<u64>,
    /// Write the state after turn --at as a scenario, OUT.toml, and its state beside it,
    /// OUT.state (a snapshot: units with their orders and routes, buildings, resources,
    /// formations, everything), with the commands and membership events of the turns after it;
    /// checked by running it as `cohort sim OUT.toml` does, which must give the recorded hash
    /// after each of those turns.
    #[arg(long, value_name = "OUT.toml", requires = "at", conflicts_with_all = ["render", "animate"])]
    scenario: Option<PathBuf>,
    /// Draw the state after turn TURN into --out (.png or .svg); for a desync report at its
    /// failing turn, the server's state (left) and the client's (right) where they were
    /// compared, the differing entities ringed in magenta.
    #[arg(
        long,
        value_name = "TURN",
        requires = "out",
        conflicts_with = "animate"
    )]
    render: Option<u64>,
    /// Draw the state after each turn from A to B (both included) as an animated GIF into
    /// --out (.gif), each frame shown as long as its turns lasted in the match.
    #[arg(long, value_name = "A..B", requires = "out", value_parser = parse_turns)]
    animate: Option<(u64, u64)>,
    /// With --animate: a frame every N turns (default 1).
    #[arg(long, value_name = "N", requires = "animate", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..))]
    every: u64,
    /// The picture --render or --animate draws.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// `A..B`: two turns, the first at most the second.
fn parse_turns(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("`{s}` is not A..B (two turns, as 10..50)"))?;
    let turn = |t: &str| {
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("`{t}` in `{s}` is not a turn"))
    };
    let (a, b) = (turn(a)?, turn(b)?);
    if a > b {
        return Err(format!("`{s}`: {a} is after {b}"));
    }
    Ok((a, b))
}

pub fn run(args: Args) -> Result<ExitCode> {
    let result = match (
        args.at,
        &args.scenario,
        args.render,
        args.animate,
        &args.out,
    ) {
        (Some(at), Some(out), ..) => scenario::write(&args, at, out),
        (_, _, Some(turn), _, Some(out)) => picture::render(&args, turn, out),
        (_, _, _, Some(turns), Some(out)) => picture::animate(&args, turns, out),
        (.., Some(_)) => Err(anyhow::anyhow!("--out goes with --render or --animate")),
        _ => verify(&args),
    };
    match result {
        // With --json an error is told as JSON too, on stdout, with the same exit status.
        Err(e) if args.json => {
            println!("{}", found::error_json(&format!("{e:#}")));
            Ok(ExitCode::from(2))
        }
        other => other,
    }
}

/// Re-simulates the file and tells what it found.
fn verify(args: &Args) -> Result<ExitCode> {
    let found = find(args)?;
    if args.json {
        // Written, not printed: a reader gone is an error `main` lets pass, not a panic.
        writeln!(std::io::stdout().lock(), "{}", found.json())?;
    } else {
        print_found(&found);
    }
    Ok(if found.verified() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A file read: a desync report or a replay, and the ruleset it is re-simulated under.
pub(super) enum Loaded {
    Report(Box<DesyncReport>),
    Replay(Box<Replay>),
}

impl Loaded {
    pub(super) fn config_and_records(&self) -> (&MatchConfig, &[TurnRecord]) {
        match self {
            Loaded::Report(r) => (&r.header.config, &r.records),
            Loaded::Replay(r) => (&r.header.config, &r.records),
        }
    }
}

/// Reads the file (either kind, by its magic), checking its ruleset.
pub(super) fn read(args: &Args) -> Result<(Loaded, Arc<Ruleset>)> {
    // Which kind of file, by its magic; then the whole file within that kind's limit.
    let magic = read_at_most(&args.file, REPORT_MAGIC.len())?;
    let is_report = magic == REPORT_MAGIC;
    if !is_report && magic != REPLAY_MAGIC {
        anyhow::bail!(
            "{} is neither a replay (COHORTRP) nor a desync report (COHORTDR)",
            args.file.display()
        );
    }
    let limit = if is_report { REPORT_FILE } else { REPLAY_FILE };
    let bytes = read_limited(&args.file, limit)?;
    let rules = args.ruleset.load()?;
    let name = args.file.display().to_string();
    if is_report {
        let report = read_report(&bytes).with_context(|| format!("{name} is unreadable"))?;
        check_ruleset(&report.header.config.ruleset_hash, &rules)?;
        return Ok((Loaded::Report(Box::new(report)), rules));
    }
    let replay = read_replay(&bytes).with_context(|| format!("{name} is unreadable"))?;
    if let Tail::Damaged { .. } = replay.tail {
        anyhow::bail!(
            "{name} is damaged: {}; the {} records before it are whole (not re-simulated: \
             the file was damaged after it was written, not cut short by a killed server)",
            replay.tail,
            replay.records.len()
        );
    }
    check_ruleset(&replay.header.config.ruleset_hash, &rules)?;
    Ok((Loaded::Replay(Box::new(replay)), rules))
}

/// Reads and re-simulates the file.
fn find(args: &Args) -> Result<Found> {
    let (loaded, rules) = read(args)?;
    let name = args.file.display().to_string();
    let quiet = args.quiet || args.json;
    let replay = match loaded {
        Loaded::Report(report) => {
            let bar = progress(quiet, report.turn + 1);
            let n = narrow_report(&report, rules, |done| bar.set_position(done))
                .with_context(|| format!("re-simulating {name}"))?;
            bar.finish_and_clear();
            return Ok(Found::Report(n));
        }
        Loaded::Replay(replay) => replay,
    };
    let bar = progress(quiet, replay.records.len() as u64);
    let verdict = verify_replay(&replay, rules, |done| bar.set_position(done))
        .with_context(|| format!("re-simulating {name}"))?;
    bar.finish_and_clear();
    Ok(Found::Replay { replay, verdict })
}

fn print_found(found: &Found) {
    let (replay, verdict) = match found {
        Found::Report(n) => {
            for line in narration(n) {
                println!("{line}");
            }
            return;
        }
        Found::Replay { replay, verdict } => (replay, verdict),
    };
    println!(
        "match {} ({} players, {} ticks per turn), {} turns recorded",
        replay.header.config.match_id,
        replay.header.config.players.len(),
        replay.header.config.turn_ticks,
        replay.records.len()
    );
    if let Tail::CutShort { .. } = replay.tail {
        println!(
            "note: {}; the {} whole turns before it are checked",
            replay.tail,
            replay.records.len()
        );
    }
    match verdict {
        Verdict::Verified { turns, last_hash } => println!(
            "verified: all {turns} turns re-simulate to the recorded hashes; last {last_hash}"
        ),
        Verdict::Differs(d) => println!(
            "differs at turn {}: recorded {}, re-simulated {}",
            d.turn, d.recorded, d.computed
        ),
    }
}

fn check_ruleset(hash: &[u8; 32], rules: &Ruleset) -> Result<()> {
    if *hash != rules.hash() {
        anyhow::bail!(
            "the match was played under ruleset {} (not this one, {}); pass it with --ruleset FILE",
            hex::encode(hash),
            hex::encode(rules.hash())
        );
    }
    Ok(())
}

/// A progress bar of `total` turns re-simulated, on stderr (drawn only on a terminal).
pub(super) fn progress(quiet: bool, total: u64) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} turns {per_sec} {eta}") {
        bar.set_style(style);
    }
    bar
}
