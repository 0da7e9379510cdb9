//! `cohort sim`: run a scenario (or the embedded default map) headless and report what it came to.

use anyhow::{bail, Context, Result};
use cohort_client::sim_report::{write_summary, write_trace_header, write_trace_tick, ReportJson};
use cohort_sim::map::{MapOptions, DEFAULT_MAP_SEED, DEFAULT_MAP_SIZE};
use cohort_sim::scenario::{self, Runner, Scenario};
use cohort_sim::Ruleset;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Run a scenario headless: every unit's final state, the counters and the hash after every turn.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    source: Source,
    /// Ticks to run (a tick is 16 ms of game time); default: the scenario's `ticks`, or 600.
    #[arg(long)]
    ticks: Option<u64>,
    /// Print one JSON object instead of a summary.
    #[arg(long)]
    json: bool,
    /// Write every unit's position after every tick to FILE (CSV: tick,unit,owner,x,y).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// With --json: also print the counters' rise at every tick (`counters_per_tick`).
    #[arg(long, requires = "json")]
    counters_per_tick: bool,
    /// With --json: print the report every N ticks of the one run (and at its end), one
    /// compact JSON object a line (at most 10,000 lines: MAX_JSON_SAMPLES).
    #[arg(long, value_name = "N", requires = "json", conflicts_with = "trace")]
    json_every: Option<u64>,
}

/// The most reports `--json-every` prints in one run.
pub const MAX_JSON_SAMPLES: u64 = 10_000;

/// What to load — a scenario file or the default map, and a ruleset replacing its own — as
/// `cohort sim` and `cohort render` take it on the command line.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["scenario", "default_map"])))]
pub struct Source {
    /// The scenario file (TOML, see docs/SCENARIOS.md).
    scenario: Option<PathBuf>,
    /// Use the embedded default map instead of a scenario file.
    #[arg(long)]
    default_map: bool,
    /// Players on the default map (2 to 8).
    #[arg(long, default_value_t = 2, conflicts_with = "scenario")]
    players: u8,
    /// The default map's side in tiles (48 to 512).
    #[arg(long, default_value_t = DEFAULT_MAP_SIZE, conflicts_with = "scenario")]
    size: i32,
    /// The default map's seed.
    #[arg(long, default_value_t = DEFAULT_MAP_SEED, conflicts_with = "scenario")]
    seed: u64,
    /// A ruleset file replacing the scenario's (TOML, see docs/RULESET.md).
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
}

/// Loads a scenario (or the default map) with the files it names read from disk.
pub fn load(source: &Source) -> Result<Scenario> {
    let rules = source
        .rules
        .as_deref()
        .map(super::ruleset::read_ruleset)
        .transpose()?;
    if source.default_map {
        let opts = MapOptions {
            seed: source.seed,
            size: source.size,
            players: source.players,
        };
        let rules = rules.unwrap_or_else(|| Arc::new(Ruleset::default_rules()));
        check_map_options(&opts)?;
        return Ok(scenario::default_map(rules, opts));
    }
    let Some(path) = source.scenario.as_deref() else {
        bail!("name a scenario file or pass --default-map");
    };
    load_file(path, rules)
}

pub use cohort_client::scenario_file::load_file;

fn check_map_options(o: &MapOptions) -> Result<()> {
    use cohort_sim::map::{MAX_PLAYERS, MAX_SIZE, MIN_PLAYERS, MIN_SIZE};
    if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&o.players) {
        bail!("--players must be {MIN_PLAYERS} to {MAX_PLAYERS}");
    }
    if !(MIN_SIZE..=MAX_SIZE).contains(&o.size) {
        bail!("--size must be {MIN_SIZE} to {MAX_SIZE}");
    }
    Ok(())
}

pub fn run(args: Args) -> Result<ExitCode> {
    let scenario = load(&args.source)?;
    let ticks = args.ticks.unwrap_or(scenario.ticks);
    let mut runner = Runner::new(scenario);
    if args.counters_per_tick {
        runner.watch.keep_per_tick();
    }
    if let Some(every) = args.json_every {
        return json_every(runner, ticks, every);
    }
    match &args.trace {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot write the trace {}", path.display()))?;
            let mut out = std::io::BufWriter::new(file);
            let mut result = write_trace_header(&mut out, &runner.world);
            runner.run(ticks, |w| {
                if result.is_ok() {
                    result = write_trace_tick(&mut out, w);
                }
            });
            result
                .and_then(|_| out.flush())
                .with_context(|| format!("cannot write the trace {}", path.display()))?;
        }
        None => runner.run(ticks, |_| {}),
    }
    let report = runner.report();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &ReportJson::of(&report))?;
        writeln!(out)?;
    } else {
        write_summary(&mut out, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--json-every N`: the report after every N ticks and at the end, a line each.
fn json_every(mut runner: Runner, ticks: u64, every: u64) -> Result<ExitCode> {
    if every == 0 {
        bail!("--json-every is at least 1 tick");
    }
    let samples = ticks / every + u64::from(!ticks.is_multiple_of(every));
    if samples > MAX_JSON_SAMPLES {
        bail!(
            "--json-every {every} over {ticks} ticks prints {samples} reports, over \
             {MAX_JSON_SAMPLES} (MAX_JSON_SAMPLES): a larger N"
        );
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for t in 1..=ticks {
        runner.step();
        if t.is_multiple_of(every) || t == ticks {
            serde_json::to_writer(&mut out, &ReportJson::of(&runner.report()))?;
            writeln!(out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
