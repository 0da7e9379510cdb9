//! `cohort replay`: re-simulate a replay or a desync report and check every recorded hash.

use super::ruleset::RulesetArgs;
use anyhow::{Context, Result};
use cohort_client::verify::{
    narration, narrow_report, verify_replay, Divergence, Narrowing, Verdict,
};
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
/// With `--json`, what it found is printed as one JSON object instead (docs/CLIENT.md,
/// "cohort replay --json"), an error too.
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
    /// Print what was found as one JSON object (no progress bar): the verdict, the first
    /// differing turn and tick, parts, entities and fields. The exit status is the same.
    #[arg(long)]
    json: bool,
}

/// What re-simulating a file found.
enum Found {
    Report(Narrowing),
    Replay {
        replay: Box<cohort_protocol::replay::Replay>,
        verdict: Verdict,
    },
}

impl Found {
    fn exit_code(&self) -> ExitCode {
        match self {
            Found::Replay {
                verdict: Verdict::Verified { .. },
                ..
            } => ExitCode::SUCCESS,
            _ => ExitCode::from(1),
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    if !args.json {
        let found = find(&args)?;
        print_found(&found);
        return Ok(found.exit_code());
    }
    match find(&args) {
        Ok(found) => {
            println!("{}", json_of(&found));
            Ok(found.exit_code())
        }
        Err(e) => {
            let error = serde_json::json!({ "verdict": "error", "error": format!("{e:#}") });
            println!("{error}");
            Ok(ExitCode::from(2))
        }
    }
}

/// Reads and re-simulates the file.
fn find(args: &Args) -> Result<Found> {
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
        let bar = progress(args.quiet || args.json, report.turn + 1);
        let n = narrow_report(&report, rules, |done| bar.set_position(done))
            .with_context(|| format!("re-simulating {name}"))?;
        bar.finish_and_clear();
        return Ok(Found::Report(n));
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
    let bar = progress(args.quiet || args.json, replay.records.len() as u64);
    let verdict = verify_replay(&replay, rules, |done| bar.set_position(done))
        .with_context(|| format!("re-simulating {name}"))?;
    bar.finish_and_clear();
    Ok(Found::Replay {
        replay: Box::new(replay),
        verdict,
    })
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

/// The one JSON object `--json` prints (docs/CLIENT.md, "cohort replay --json").
fn json_of(found: &Found) -> serde_json::Value {
    use serde_json::json;
    let divergence = |d: &Divergence| {
        json!({
            "turn": d.turn,
            "recorded": d.recorded.to_string(),
            "recomputed": d.computed.to_string(),
        })
    };
    match found {
        Found::Replay { replay, verdict } => {
            let config = &replay.header.config;
            let mut v = json!({
                "file": "replay",
                "match_id": config.match_id,
                "players": config.players.len(),
                "turn_ticks": config.turn_ticks,
                "turns_recorded": replay.records.len(),
                "cut_short": match replay.tail {
                    Tail::CutShort { .. } => Some(replay.tail.to_string()),
                    _ => None,
                },
            });
            let rest = match verdict {
                Verdict::Verified { turns, last_hash } => json!({
                    "verdict": "verified",
                    "turns": turns,
                    "last_hash": last_hash.to_string(),
                }),
                Verdict::Differs(d) => json!({
                    "verdict": "differs",
                    "first_turn": d.turn,
                    "divergence": divergence(d),
                }),
            };
            merge(&mut v, rest);
            v
        }
        Found::Report(n) => json!({
            "file": "report",
            "verdict": "desync",
            "first_turn": n.turn,
            "players": n.players,
            "turn_ticks": { "first": n.ticks.0, "last": n.ticks.1 },
            "records_differ": n.records_verify.as_ref().map(divergence),
            "server_ticks_reproduced": n.server_ticks_reproduced,
            "first_tick": n.first_tick,
            "compared": n.compared,
            "parts": n.parts,
            "entities": n.entities.iter().map(|e| json!({
                "part": e.part().name(),
                "id": e.id(),
                "name": e.to_string(),
            })).collect::<Vec<_>>(),
            "fields": n.fields,
            "notes": n.notes,
        }),
    }
}

/// `into`'s fields, and then `from`'s.
fn merge(into: &mut serde_json::Value, from: serde_json::Value) {
    if let (Some(a), serde_json::Value::Object(b)) = (into.as_object_mut(), from) {
        a.extend(b);
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
