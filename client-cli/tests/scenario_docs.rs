//! docs/SCENARIOS.md and docs/RULESET.md held to the program: the real `cohort` binary run on
//! scenes written here, its `--json` read back, and each documented figure, key and rule
//! checked against what it prints.

use cohort_sim::state::UnitState;
use cohort_sim::Ruleset;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cohort(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("cohort runs")
}

fn doc(name: &str) -> String {
    std::fs::read_to_string(root().join("docs").join(name)).unwrap()
}

/// Writes `text` as a scenario file in a fresh directory; returns its path.
fn scene(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-docs-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// `cohort sim PATH --ticks N --json`, parsed.
fn sim(path: &Path, ticks: u64) -> Value {
    let out = cohort(&[
        "sim",
        path.to_str().unwrap(),
        "--ticks",
        &ticks.to_string(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `cohort sim ARGS… --json --json-every N`'s lines, parsed (the run must succeed).
fn json_lines(args: &[&str]) -> Vec<Value> {
    let out = cohort(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// An open grass map `w` × `h`.
fn grass(w: usize, h: usize) -> String {
    let row = ".".repeat(w);
    format!(
        "[map]\nascii = \"\"\"\n{}\"\"\"\n",
        format!("{row}\n").repeat(h)
    )
}

/// The `--json` table's rows of docs/SCENARIOS.md: its keys, in order.
fn documented_keys() -> Vec<String> {
    let text = doc("SCENARIOS.md");
    let table = text
        .split("### `--json`")
        .nth(1)
        .expect("a --json section")
        .split("\n\n")
        .find(|part| part.contains("| key | value |"))
        .expect("its table");
    table
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|l| l[..l.find('`').unwrap()].to_string())
        .collect()
}

fn unit(v: &Value, id: u64) -> &Value {
    v["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["id"] == id)
        .unwrap_or_else(|| panic!("unit {id}"))
}

#[test]
fn the_json_keys_are_the_documented_ones_in_order() {
    let path = scene("keys", &format!("{}\n[[buildings]]\nkind = \"house\"\nowner = 0\nat = [3, 3]\n[[units]]\nkind = \"militia\"\nowner = 0\nat = [8, 2]\n", grass(12, 8)));
    let out = cohort(&[
        "sim",
        path.to_str().unwrap(),
        "--ticks",
        "4",
        "--json",
        "--counters-per-tick",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let printed: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  \""))
        .map(|l| l[..l.find('"').unwrap()].to_string())
        .collect();
    assert_eq!(
        printed,
        documented_keys(),
        "docs/SCENARIOS.md's --json table"
    );
    // Every key of a building is named in the buildings row.
    let v: Value = serde_json::from_str(&text).unwrap();
    let row = doc("SCENARIOS.md")
        .lines()
        .find(|l| l.starts_with("| `buildings` |"))
        .unwrap()
        .to_string();
    let b = &v["buildings"][0];
    for key in b.as_object().unwrap().keys() {
        assert!(
            row.contains(&format!("`{key}`")),
            "the buildings row lacks `{key}`"
        );
    }
    assert_eq!(b["origin"], serde_json::json!([3, 3]));
    assert_eq!(
        b["footprint"],
        serde_json::json!([2, 2, 3, 3]),
        "a house is 2 × 2"
    );
    assert_eq!(b["closes_ground"], true);
    // Closed ground: the house's tiles, on the land layer.
    let land = v["closed_ground"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["layer"].as_str().unwrap().split('/').any(|n| n == "land"))
        .expect("the land layer");
    assert_eq!(land["runs"], serde_json::json!([[2, 2, 3], [3, 2, 3]]));
}

#[test]
fn every_unit_state_is_documented() {
    let row = doc("SCENARIOS.md")
        .lines()
        .find(|l| l.starts_with("| `units` | every living unit"))
        .unwrap()
        .to_string();
    use UnitState::*;
    for s in [
        Idle,
        Moving,
        Attacking,
        AttackMoving,
        Following,
        Hold,
        Gathering,
        Building,
        Dead,
    ] {
        // A new state fails to compile here until it is documented.
        let listed = match s {
            Idle | Moving | Attacking | AttackMoving | Following | Hold | Gathering | Building => {
                true
            }
            Dead => false,
        };
        let name = serde_json::to_value(s).unwrap();
        let quoted = format!("`{name}`");
        if listed {
            assert!(
                row.contains(&quoted),
                "the units row lacks the state {quoted}"
            );
        } else {
            assert!(row.contains("a dead unit is never listed"));
        }
    }
}

#[test]
fn every_building_kind_the_docs_list_can_be_placed() {
    let rules = Ruleset::default_rules();
    let text = doc("SCENARIOS.md");
    let para = text
        .split("**The kinds a scenario may place**")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap();
    for b in &rules.buildings {
        assert!(
            para.contains(&format!("`{}`", b.name)),
            "docs lack `{}`",
            b.name
        );
        let map = if b.on_water {
            "[map]\nascii = \"\"\"\n~~~~~~~~~~\n~~~~~~~~~~\n~~~~~~~~~~\n~~~~~~~~~~\n~~~~~~~~~~\n~~~~~~~~~~\n\"\"\"\n".to_string()
        } else {
            grass(10, 6)
        };
        let path = scene(
            &format!("place-{}", b.name),
            &format!(
                "{map}\n[[players]]\n[[buildings]]\nkind = \"{}\"\nowner = 0\nat = [4, 3]\n",
                b.name
            ),
        );
        let v = sim(&path, 1);
        assert_eq!(v["buildings"][0]["kind"], b.name.as_str(), "{}", b.name);
    }
    // A kind the ruleset lacks is refused at its `kind`.
    let path = scene(
        "place-castle",
        &format!(
            "{}\n[[buildings]]\nkind = \"castle\"\nowner = 0\nat = [4, 3]\n",
            grass(10, 6)
        ),
    );
    let out = cohort(&["sim", path.to_str().unwrap(), "--json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("castle"));
}

#[test]
fn the_follow_range_is_the_documented_one() {
    assert_eq!(cohort_sim::tick::K_FOLLOW_RANGE, cohort_sim::fx(1));
    assert!(doc("SCENARIOS.md").contains("`K_FOLLOW_RANGE` (1 tile, box to box)"));
}

#[test]
fn a_unit_on_hold_strikes_what_is_in_reach_and_never_steps_out() {
    // An archer (range 4) on hold; enemy militia, on hold too (so neither walks up), 3 tiles
    // off and 9 off.
    let path = scene(
        "hold",
        &format!(
            "{}\n[[units]]\nkind = \"archer\"\nowner = 0\nat = [3, 3]\n[[units]]\nkind = \"militia\"\nowner = 1\nat = [6, 3]\n[[units]]\nkind = \"militia\"\nowner = 1\nat = [12, 3]\n[[commands]]\ntick = 0\nplayer = 0\ndo = \"hold\"\nunits = [1]\n[[commands]]\ntick = 0\nplayer = 1\ndo = \"hold\"\nunits = [2, 3]\n",
            grass(16, 7)
        ),
    );
    let v = sim(&path, 600);
    let archer = unit(&v, 1);
    assert_eq!(archer["state"], "Hold");
    assert_eq!(
        archer["position"],
        serde_json::json!([3.0, 3.0]),
        "it never moved"
    );
    let near = v["units"].as_array().unwrap().iter().find(|u| u["id"] == 2);
    assert!(
        near.is_none_or(|u| u["hit_points"].as_u64().unwrap() < 40),
        "the militia in reach was struck"
    );
    assert_eq!(
        unit(&v, 3)["hit_points"],
        40,
        "the one beyond its range was left alone"
    );
}

#[test]
fn a_move_no_longer_walks_through_a_line_it_cannot_pass() {
    // A wall of an ally's spearmen on hold across the whole map (an ally: no fight; on hold:
    // never shoved or pressed); a militia sent through it.
    let mut text = grass(12, 9);
    text.push_str("\n[[players]]\nteam = 0\n[[players]]\nteam = 0\n");
    text.push_str("\n[[units]]\nkind = \"spearman\"\nowner = 1\nat = [6, 0]\ncount = 17\ncolumns = 1\nspacing = 0.5\nname = \"wall\"\n");
    text.push_str("[[units]]\nkind = \"militia\"\nowner = 0\nat = [2, 4]\nname = \"walker\"\n");
    text.push_str("[[commands]]\ntick = 0\nplayer = 1\ndo = \"hold\"\nunits = [\"wall\"]\n");
    text.push_str(
        "[[commands]]\ntick = 0\nplayer = 0\ndo = \"move\"\nunits = [\"walker\"]\nto = [10, 4]\n",
    );
    let v = sim(&scene("through", &text), 900);
    let walker = unit(&v, 18);
    assert!(
        walker["position"][0].as_f64().unwrap() < 6.0,
        "it stayed on its side: {walker}"
    );
    // Shut out by units on hold, it stopped against them: its move is over.
    assert_eq!(walker["order"], "Idle", "{walker}");
    assert!(
        v["orders_ended"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["id"] == 18),
        "{}",
        v["orders_ended"]
    );
    assert_eq!(
        v["overlaps_during_run"]["onsets"], 0,
        "no body walked through another"
    );
    assert!(doc("SCENARIOS.md").contains("they no longer\n  walk through each other"));
}

#[test]
fn an_idle_unit_settling_out_of_another_shows_a_route() {
    // Two idle militia a tenth of a tile apart: one steps out of the other (a settle walk; each
    // looks once in 16 ticks), idle all the while.
    let path = scene(
        "settle",
        &format!(
            "{}\n[[units]]\nkind = \"militia\"\nowner = 0\nat = [4, 4]\ncount = 2\nspacing = 0.1\n",
            grass(9, 9)
        ),
    );
    let samples = json_lines(&[
        "sim",
        path.to_str().unwrap(),
        "--ticks",
        "40",
        "--json",
        "--json-every",
        "1",
    ]);
    let settling = samples.iter().any(|v| {
        v["units"].as_array().unwrap().iter().any(|u| {
            u["order"] == "Idle"
                && u["state"] == "Idle"
                && !u["route"].as_array().unwrap().is_empty()
        })
    });
    assert!(settling, "an idle unit walked out of the other");
    let last = &samples[samples.len() - 1]["units"];
    let (a, b) = (
        last[0]["position"][0].as_f64().unwrap(),
        last[1]["position"][0].as_f64().unwrap(),
    );
    assert!((a - b).abs() > 0.25, "they stand apart: {a} and {b}");
    assert!(doc("SCENARIOS.md").contains("**An idle unit with a route.**"));
}

/// How big a Line of `n` militia stands once arrived: across × deep, middle to middle, in the
/// frame of its march (from the block's middle to the point).
fn line_of(n: usize) -> (f64, f64) {
    let (at, to, spacing) = ((20.0, 20.0), (40.0, 30.0), 0.8);
    let text = format!(
        "{}\n[[units]]\nkind = \"militia\"\nowner = 0\nat = [{}, {}]\ncount = {n}\nspacing = {spacing}\nname = \"g\"\n[[commands]]\ntick = 0\nplayer = 0\ndo = \"set_formation\"\nunits = [\"g\"]\nformation = \"line\"\n[[commands]]\ntick = 1\nplayer = 0\ndo = \"formation_move\"\nunits = [\"g\"]\nto = [{}, {}]\n",
        grass(60, 50),
        at.0,
        at.1,
        to.0,
        to.1
    );
    // The block's middle: `columns` is the smallest c with c × c ≥ n.
    let columns = (1..).find(|c| c * c >= n).unwrap();
    let (mut mx, mut my) = (0.0, 0.0);
    for i in 0..n {
        mx += at.0 + (i % columns) as f64 * spacing;
        my += at.1 + (i / columns) as f64 * spacing;
    }
    let (mx, my) = (mx / n as f64, my / n as f64);
    let (dx, dy) = (to.0 - mx, to.1 - my);
    let len = dx.hypot(dy);
    let (dx, dy) = (dx / len, dy / len);
    let v = sim(&scene(&format!("line{n}"), &text), 2400);
    let units = v["units"].as_array().unwrap();
    assert!(units.iter().all(|u| u["state"] == "Idle"), "all arrived");
    let p = |u: &Value| {
        (
            u["position"][0].as_f64().unwrap(),
            u["position"][1].as_f64().unwrap(),
        )
    };
    let forward: Vec<f64> = units.iter().map(|u| p(u).0 * dx + p(u).1 * dy).collect();
    let across: Vec<f64> = units.iter().map(|u| p(u).1 * dx - p(u).0 * dy).collect();
    let span = |a: &[f64]| {
        a.iter().cloned().fold(f64::MIN, f64::max) - a.iter().cloned().fold(f64::MAX, f64::min)
    };
    (span(&across), span(&forward))
}

#[test]
fn a_line_stands_as_big_as_documented() {
    let text = doc("SCENARIOS.md");
    for (n, doc_across, doc_deep) in [(20, 4.2, 1.4), (100, 9.8, 4.2)] {
        let phrase = format!("**{n} → {doc_across} × {doc_deep}**");
        assert!(text.contains(&phrase), "docs lack `{phrase}`");
        let (across, deep) = line_of(n);
        assert!(
            (across - doc_across).abs() <= 0.25 && (deep - doc_deep).abs() <= 0.25,
            "a line of {n} stands {across:.2} × {deep:.2}, docs say {doc_across} × {doc_deep}"
        );
    }
}

#[test]
fn json_every_prints_each_sample_as_a_run_to_that_tick_would() {
    let scenario = "scenarios/group_move.toml";
    let lines = json_lines(&[
        "sim",
        scenario,
        "--ticks",
        "50",
        "--json",
        "--json-every",
        "20",
    ]);
    let ticks: Vec<u64> = lines.iter().map(|v| v["ticks"].as_u64().unwrap()).collect();
    assert_eq!(ticks, vec![20, 40, 50]);
    let alone = sim(&root().join(scenario), 40);
    assert_eq!(
        lines[1], alone,
        "the sample at 40 is what a run of 40 ticks prints"
    );
    for bad in [["--json-every", "0"], ["--json-every", "x"]] {
        let out = cohort(&["sim", scenario, "--ticks", "50", "--json", bad[0], bad[1]]);
        assert!(!out.status.success());
    }
    let out = cohort(&[
        "sim",
        scenario,
        "--ticks",
        "50000",
        "--json",
        "--json-every",
        "1",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("MAX_JSON_SAMPLES"));
}

#[test]
fn render_draws_a_view_at_a_zoom_and_refuses_one_off_the_map() {
    let dir = std::env::temp_dir().join(format!("cohort-docs-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_file = dir.join("part.png");
    let out = cohort(&[
        "render",
        "scenarios/group_move.toml",
        "--view",
        "2,3,11,7",
        "--zoom",
        "10",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("(100x50 px)"),
        "10 × 5 tiles at 10 pixels: {text}"
    );
    for (view, zoom) in [
        ("0,0,9999,5", "4"),
        ("3,3,2,2", "4"),
        ("0,0,5", "4"),
        ("0,0,5,5", "0"),
        ("0,0,5,5", "65"),
    ] {
        let out = cohort(&[
            "render",
            "scenarios/group_move.toml",
            "--view",
            view,
            "--zoom",
            zoom,
            "--out",
            out_file.to_str().unwrap(),
        ]);
        assert!(
            !out.status.success(),
            "--view {view} --zoom {zoom} was drawn"
        );
        assert_eq!(out.status.code(), Some(2), "refused, not crashed");
    }
    assert!(doc("SCENARIOS.md").contains("[--view X0,Y0,X1,Y1] [--zoom PIXELS]"));
}

#[test]
fn cohort_ruleset_prints_the_tables_docs_ruleset_carries() {
    let out = cohort(&["ruleset"]);
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(
        doc("RULESET.md").contains(printed.trim()),
        "docs/RULESET.md lacks `cohort ruleset`'s tables"
    );
    for u in &Ruleset::default_rules().units {
        assert!(printed.contains(&format!("| `{}` |", u.name)));
    }
}
