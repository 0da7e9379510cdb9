//! `cohort ruleset` (a ruleset's figures as tables), and the `--ruleset` flag of the
//! subcommands that play or re-simulate a match.

use anyhow::Result;
use cohort_protocol::file::read_limited;
use cohort_protocol::limits::RULESET_FILE;
use cohort_sim::scenario::ruleset_from_bytes;
use cohort_sim::Ruleset;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which ruleset the match is played under.
#[derive(clap::Args, Clone, Debug)]
pub struct RulesetArgs {
    /// The ruleset file (TOML, docs/RULESET.md) the match is played under, if not the embedded
    /// default. It must be the match's (`cohort-server --ruleset`): their hashes are compared,
    /// at the join (another is refused, `RulesetMismatch`) and before re-simulating a replay.
    #[arg(long, value_name = "FILE", env = "COHORT_RULESET")]
    pub ruleset: Option<PathBuf>,
}

impl RulesetArgs {
    /// The named ruleset, or the embedded default.
    pub fn load(&self) -> Result<Arc<Ruleset>> {
        match &self.ruleset {
            Some(path) => read_ruleset(path),
            None => Ok(Arc::new(Ruleset::default_rules())),
        }
    }
}

/// A ruleset file, read; a fault names the file, line and field.
pub fn read_ruleset(path: &Path) -> Result<Arc<Ruleset>> {
    let bytes = read_limited(path, RULESET_FILE)?;
    let origin = path.display().to_string();
    let rules = ruleset_from_bytes(&bytes, &origin).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Arc::new(rules))
}

/// Print a ruleset's figures as Markdown tables: every unit's size, speed, range, hit points,
/// attack, reload and sight, every building's footprint, hit points and build time, every
/// resource. Without --rules, the embedded default (docs/RULESET.md carries the same tables).
#[derive(clap::Args)]
pub struct Args {
    /// A ruleset file (TOML, docs/RULESET.md) instead of the embedded default.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<std::process::ExitCode> {
    let rules = match &args.rules {
        Some(path) => read_ruleset(path)?,
        None => Arc::new(Ruleset::default_rules()),
    };
    print!("{}", cohort_client::ruleset_doc::markdown(&rules));
    Ok(std::process::ExitCode::SUCCESS)
}
