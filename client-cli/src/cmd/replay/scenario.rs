//! `cohort replay FILE --at TURN --scenario OUT.toml`: the state after a turn as a scenario
//! anyone can run with `cohort sim`, checked to give the recorded hashes before it is told.

use super::{progress, read, Args};
use anyhow::{Context, Result};
use cohort_client::verify::scenario::{scenario_at, Names};
use cohort_protocol::codec::encode_snapshot;
use cohort_protocol::file::read_limited;
use cohort_protocol::limits::RULESET_FILE;
use cohort_sim::scenario::Runner;
use std::path::Path;
use std::process::ExitCode;

/// `--at TURN --scenario OUT.toml`: writes the scenario and its state file, then runs it as
/// `cohort sim` would and checks it gives the recorded hashes.
pub(super) fn write(args: &Args, at: u64, out: &Path) -> Result<ExitCode> {
    let (loaded, rules) = read(args)?;
    let (config, records) = loaded.config_and_records();
    let state_path = out.with_extension("state");
    let file_name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .context("--scenario names no file")
    };
    let state_name = file_name(&state_path)?;
    // A ruleset other than the default goes beside the scenario too, so the three files are
    // the whole bug report.
    let rules_path = out.with_extension("ruleset.toml");
    let rules_name = match &args.ruleset.ruleset {
        Some(p) => {
            let bytes = read_limited(p, RULESET_FILE)?;
            std::fs::write(&rules_path, bytes)
                .with_context(|| format!("cannot write {}", rules_path.display()))?;
            Some(file_name(&rules_path)?)
        }
        None => None,
    };
    let from = args.file.display().to_string();
    let names = Names {
        state: &state_name,
        rules: rules_name.as_deref(),
        from: &from,
    };
    let quiet = args.quiet || args.json;
    let bar = progress(quiet, args.until.map_or(records.len() as u64, |u| u + 1));
    let s = scenario_at(
        config,
        rules.clone(),
        records,
        at,
        args.until,
        &names,
        |d| bar.set_position(d),
    )?;
    let snapshot = encode_snapshot(&s.state).context("encoding the state")?;
    std::fs::write(&state_path, snapshot)
        .with_context(|| format!("cannot write {}", state_path.display()))?;
    std::fs::write(out, &s.toml).with_context(|| format!("cannot write {}", out.display()))?;
    // The check: the scenario as `cohort sim` loads and runs it.
    let scenario = crate::cmd::sim::load_file(out, None)?;
    let ticks = scenario.ticks;
    let mut runner = Runner::new(scenario);
    let mut done = at + 1;
    runner.run(ticks, |w| {
        if w.tick() % u64::from(config.turn_ticks) == 0 {
            done += 1;
            bar.set_position(done);
        }
    });
    bar.finish_and_clear();
    let first_wrong = runner
        .turn_hashes
        .iter()
        .zip(&s.hashes)
        .position(|(a, b)| a != b);
    if let Some(i) = first_wrong.or((runner.turn_hashes.len() != s.hashes.len()).then_some(0)) {
        anyhow::bail!(
            "{} does not reproduce the recorded hashes (turn {} first differs): a bug in \
             `cohort replay --scenario`, please report it with the file",
            out.display(),
            *s.turns.start() + i as u64
        );
    }
    let (a, b) = (s.turns.start(), s.turns.end());
    let span = if s.hashes.is_empty() {
        "no turns after it".to_string()
    } else {
        format!(
            "turns {a} to {b} ({} commands, {} status changes)",
            s.commands, s.statuses
        )
    };
    if args.json {
        let v = serde_json::json!({
            "verdict": "scenario",
            "scenario": out.display().to_string(),
            "state": state_path.display().to_string(),
            "at": at,
            "turns": { "first": a, "last": b },
            "commands": s.commands,
            "statuses": s.statuses,
            "hashes": s.hashes.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
        });
        println!("{v}");
    } else {
        println!(
            "wrote {} (state {}): turn {at}, then {span}; checked: `cohort sim {}` gives the \
             recorded hash after each of them",
            out.display(),
            state_path.display(),
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
