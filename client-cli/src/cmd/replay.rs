//! `cohort replay`: re-simulate a replay or a desync report and check every recorded hash.

use super::ruleset::RulesetArgs;
use anyhow::{Context, Result};
use cohort_client::verify::{narration, narrow_report, verify_replay, Narrowing, Verdict};
use cohort_protocol::file::{read_at_most, read_limited};
use cohort_protocol::limits::{REPLAY_FILE, REPORT_FILE};
use cohort_protocol::replay::{read_replay, Tail, REPLAY_MAGIC};
use cohort_protocol::report::{read_report, REPORT_MAGIC};
use cohort_sim::Ruleset;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;

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
/// Exit status: 0 if every recorded hash verifies; 1 if one differs (the first differing turn is
/// named) — always the case for a desync report; 2 if the file cannot be read or is damaged.
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
}

pub fn run(args: Args) -> Result<ExitCode> {
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
        let bar = progress(args.quiet, report.turn + 1);
        let n = narrow_report(&report, rules, |done| bar.set_position(done))
            .with_context(|| format!("re-simulating {name}"))?;
        bar.finish_and_clear();
        print_narrowing(&n);
        return Ok(ExitCode::from(1));
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
    let bar = progress(args.quiet, replay.records.len() as u64);
    let verdict = verify_replay(&replay, rules, |done| bar.set_position(done))
        .with_context(|| format!("re-simulating {name}"))?;
    bar.finish_and_clear();
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
    Ok(match verdict {
        Verdict::Verified { turns, last_hash } => {
            println!(
                "verified: all {turns} turns re-simulate to the recorded hashes; last {last_hash}"
            );
            ExitCode::SUCCESS
        }
        Verdict::Differs(d) => {
            println!(
                "differs at turn {}: recorded {}, re-simulated {}",
                d.turn, d.recorded, d.computed
            );
            ExitCode::from(1)
        }
    })
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

fn progress(quiet: bool, total: u64) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} turns {per_sec} {eta}") {
        bar.set_style(style);
    }
    bar
}

fn print_narrowing(n: &Narrowing) {
    for line in narration(n) {
        println!("{line}");
    }
}
