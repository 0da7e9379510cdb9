//! Scenario files read from disk: a scenario TOML (docs/SCENARIOS.md) with the files it names
//! — map, ruleset, a `state` snapshot as `cohort replay --scenario` writes it — read beside it.
//! What `cohort sim`, `cohort render`, `cohort replay --scenario` and cohort-ffi's
//! `cohort_world_from_scenario` load.

use anyhow::Result;
use cohort_protocol::codec::decode_snapshot;
use cohort_protocol::file::{read_at_most, read_limited};
use cohort_protocol::limits::{SCENARIO_FILE, SNAPSHOT_FILE};
use cohort_sim::scenario::{self, Scenario};
use cohort_sim::Ruleset;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Loads a scenario file with the files it names read from disk beside it; `rules` replaces
/// the ruleset it names.
pub fn load_file(path: &Path, rules: Option<Arc<Ruleset>>) -> Result<Scenario> {
    let bytes = read_at_most(path, SCENARIO_FILE.bytes + 1)?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let files = Disk { dir: dir.clone() };
    let origin = path.display().to_string();
    Scenario::from_bytes(&bytes, &origin, &files, rules).map_err(|mut e| {
        // A fault in a file the scenario names: show that file's path, not its name as written.
        if e.file != origin {
            e.file = dir.join(&e.file).display().to_string();
        }
        anyhow::anyhow!("{e}")
    })
}

/// The files a scenario names, read from disk relative to it; a `state` is a snapshot file
/// (cohort-protocol's snapshot encoding, as `cohort replay --scenario` writes it).
struct Disk {
    dir: PathBuf,
}

impl scenario::Files for Disk {
    fn read(&self, name: &str, most: usize) -> Result<Vec<u8>, String> {
        read_at_most(&self.dir.join(name), most).map_err(|e| e.to_string())
    }

    fn snapshot(&self, name: &str) -> Result<cohort_sim::world::Snapshot, String> {
        let path = self.dir.join(name);
        let bytes = read_limited(&path, SNAPSHOT_FILE).map_err(|e| e.to_string())?;
        decode_snapshot(&bytes).map_err(|e| format!("{} is not a snapshot: {e}", path.display()))
    }
}
