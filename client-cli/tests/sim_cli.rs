//! `cohort sim` as a newcomer runs it: the real binary, the sample scenarios.

use std::path::PathBuf;
use std::process::{Command, Output};

fn cohort(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("cohort runs")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn json_output_is_byte_identical_run_to_run() {
    let a = cohort(&[
        "sim",
        "scenarios/group_move.toml",
        "--ticks",
        "400",
        "--json",
    ]);
    let b = cohort(&[
        "sim",
        "scenarios/group_move.toml",
        "--ticks",
        "400",
        "--json",
    ]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["ticks"], 400);
    assert_eq!(v["turn_hashes"].as_array().unwrap().len(), 100);
    assert_eq!(v["units"].as_array().unwrap().len(), 18);
    assert_eq!(v["final_hash"].as_str().unwrap().len(), 64);
    assert!(v["counters"]["route_searches"].as_u64().unwrap() > 0);
    let u = &v["units"][0];
    for key in ["id", "kind", "owner", "position", "order", "state", "route"] {
        assert!(!u[key].is_null(), "unit field {key}");
    }
}

#[test]
fn the_default_map_runs_for_eight_players() {
    let out = cohort(&[
        "sim",
        "--default-map",
        "--players",
        "8",
        "--ticks",
        "60",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let owners: std::collections::BTreeSet<u64> = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["owner"].as_u64().unwrap())
        .collect();
    assert_eq!(owners.len(), 8);
    let human = cohort(&["sim", "--default-map", "--ticks", "10"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("final hash"), "{text}");
}

#[test]
fn trace_writes_every_units_position_every_tick() {
    let dir = std::env::temp_dir().join(format!("cohort-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("trace.csv");
    let out = cohort(&[
        "sim",
        "scenarios/walk_open_ground.toml",
        "--ticks",
        "50",
        "--trace",
        file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "tick,unit,owner,x,y");
    assert_eq!(lines.len(), 1 + 51 * 2, "two units, ticks 0 to 50");
    assert_eq!(lines[1], "0,1,0,2,3");
    assert!(lines.last().unwrap().starts_with("50,2,0,"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_scenario_is_a_clear_error_not_a_panic() {
    let dir = std::env::temp_dir().join(format!("cohort-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        "[map]\nascii = \"...\"\n[[units]]\nkind = \"dragon\"\nowner = 0\nat = [1, 0]\n",
    )
    .unwrap();
    let out = cohort(&["sim", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:3: units[0].kind"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let out = cohort(&["sim", "--default-map", "--players", "9"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn default_map_options_with_a_scenario_file_are_refused() {
    let scenario = root().join("scenarios/group_move.toml");
    for flag in ["--players", "--size", "--seed"] {
        let out = cohort(&["sim", scenario.to_str().unwrap(), flag, "64"]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot be used with"), "{flag}: {err}");
    }
}

#[test]
fn a_ruleset_file_replaces_the_default() {
    let dir = std::env::temp_dir().join(format!("cohort-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let default = std::fs::read_to_string(root().join("sim/src/ruleset/default.toml")).unwrap();
    // Villagers twice as fast.
    let fast = default.replacen("speed = 0.8", "speed = 1.6", 1);
    let file = dir.join("fast.toml");
    std::fs::write(&file, fast).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "sim",
            "scenarios/walk_open_ground.toml",
            "--ticks",
            "100",
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = cohort(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let slow = run(&[]);
    let quick = run(&["--rules", file.to_str().unwrap()]);
    assert_ne!(slow["ruleset"], quick["ruleset"]);
    let x = |v: &serde_json::Value| v["units"][0]["position"][0].as_f64().unwrap();
    assert!(
        x(&quick) - 2.0 > 1.9 * (x(&slow) - 2.0),
        "{} vs {}",
        x(&quick),
        x(&slow)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn render_draws_svg_and_png_by_extension() {
    let dir = std::env::temp_dir().join(format!("cohort-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("a.svg");
    let png = dir.join("a.png");
    for (file, extra) in [(&svg, "--trace"), (&png, "--trace")] {
        let out = cohort(&[
            "render",
            "scenarios/around_obstacles.toml",
            "--ticks",
            "300",
            extra,
            "--out",
            file.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    assert_eq!(
        text.matches("<circle").count() - 36,
        2,
        "36 trees and 2 units"
    );
    assert!(text.contains("<polyline"), "tracks and routes are drawn");
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let out = cohort(&[
        "render",
        "scenarios/around_obstacles.toml",
        "--out",
        "x.gif",
    ]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// The complete example of docs/SCENARIOS.md runs as written (with its `my_rules.toml` beside
/// it, here a copy of the default ruleset).
#[test]
fn the_documented_example_scenario_runs() {
    let doc = std::fs::read_to_string(root().join("docs/SCENARIOS.md")).unwrap();
    let start = doc.find("```toml\n").expect("a toml block") + "```toml\n".len();
    let example = &doc[start..start + doc[start..].find("```").unwrap()];
    let dir = std::env::temp_dir().join(format!("cohort-doc-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("gate_demo.toml"), example).unwrap();
    std::fs::copy(
        root().join("sim/src/ruleset/default.toml"),
        dir.join("my_rules.toml"),
    )
    .unwrap();
    let out = cohort(&[
        "sim",
        dir.join("gate_demo.toml").to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scenario"], "gate_demo");
    assert_eq!(v["ticks"], 2000);
    assert_eq!(v["units"].as_array().unwrap().len(), 6);
    std::fs::remove_dir_all(&dir).ok();
}
