//! Shared by the scenario tests: load a sample scenario from `scenarios/`, reading the files it
//! names beside it.

#![allow(dead_code)]

use cohort_sim::scenario::{Runner, Scenario};
use std::path::PathBuf;

/// The samples in `scenarios/`, by file name, sorted.
pub fn samples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("scenarios/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    names
}

pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

/// Loads `scenarios/<name>`.
pub fn load(name: &str) -> Scenario {
    let path = dir().join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let base = dir();
    let files = move |n: &str, _most: usize| -> Result<Vec<u8>, String> {
        std::fs::read(base.join(n)).map_err(|e| e.to_string())
    };
    Scenario::from_bytes(&bytes, name, &files, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `scenarios/<name>` for its own number of ticks.
pub fn run(name: &str) -> Runner {
    let s = load(name);
    let ticks = s.ticks;
    let mut r = Runner::new(s);
    r.run(ticks, |_| {});
    r
}
