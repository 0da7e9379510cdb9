//! `cohort soak` as a newcomer runs it: the real binary over a couple of seeds, its JSON read
//! back, and a scene's file run again with `cohort sim`.

use cohort_sim::soak::{self, Scene};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cohort(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cohort runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-soak-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn two_seeds_print_one_json_object_the_same_twice() {
    let dir = scratch("json");
    // Seeds 1 (fields) and 2 (a generated map) pass today (sim/tests/crowd_soak.rs runs them).
    let args = ["soak", "--seeds", "2", "--json", "--out", "failed"];
    let out = cohort(&dir, &args);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["first_seed"], 1);
    assert_eq!(v["seeds"], 2);
    assert_eq!(v["fields"], 1);
    assert_eq!(v["generated"], 1);
    assert!(v["units"].as_u64().unwrap() > 10, "{v}");
    assert!(v["unit_minutes"].as_f64().unwrap() > 1.0, "{v}");
    assert_eq!(v["failed"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["stalls"]["count"], 0);
    assert_eq!(v["overlaps_at_end"]["count"], 0);
    assert_eq!(v["closed_ground"]["scenes"], 0);
    assert_eq!(v["walks_not_ended"], 0);
    assert_eq!(v["hashes_identical_twice"], true);
    // Nothing failed, so nothing is written.
    assert!(!dir.join("failed").exists());
    let again = cohort(&dir, &args);
    assert_eq!(out.stdout, again.stdout);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_summary_names_the_seeds_and_what_failed() {
    let dir = scratch("summary");
    let out = cohort(&dir, &["soak", "--first", "3", "--seeds", "1"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("1 scenes from seed 3 (1 fields, 0 generated)"),
        "{stdout}"
    );
    assert!(stdout.contains("hashes identical twice: yes"), "{stdout}");
    assert!(stdout.contains("0 of 1 scenes failed"), "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_scenes_file_runs_with_cohort_sim_to_the_same_hash() {
    let dir = scratch("sim");
    let scene = Scene::of_seed(2);
    let file = dir.join(scene.file_name());
    std::fs::write(&file, &scene.toml).unwrap();
    let out = cohort(&dir, &["sim", file.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outcome = soak::run(&scene).unwrap();
    assert_eq!(v["final_hash"], outcome.final_hash.to_string());
    assert_eq!(v["ticks"], outcome.ticks);
    std::fs::remove_dir_all(&dir).ok();
}
