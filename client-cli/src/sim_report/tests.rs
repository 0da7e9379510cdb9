//! What `cohort sim` prints of a small scene: the `--json` schema's names, order and values, the
//! summary's lines, the trace's rows.

use super::*;
use cohort_sim::scenario::{NoFiles, Report, Runner, Scenario};
use serde_json::{json, Value};

/// Two villagers of player 0 sent to a gold mine beside a mining camp; turns of 4 ticks.
const MINERS: &str = r#"
name = "miners"
turn_ticks = 4
ticks = 8

[map]
ascii = """
..........
..........
..........
..........
..........
..........
"""

[[resources]]
kind = "gold_mine"
at = [7, 1]
to = [8, 2]

[[buildings]]
kind = "mining_camp"
owner = 0
at = [7, 4]

[[units]]
kind = "villager"
owner = 0
at = [1, 1]
count = 2
columns = 2
spacing = 1
name = "miners"

[[commands]]
tick = 0
player = 0
do = "gather"
units = ["miners"]
target = [7, 1]
"#;

fn runner() -> Runner {
    Runner::new(Scenario::from_toml(MINERS, "miners", &NoFiles, None).expect("the scene loads"))
}

fn run(ticks: u64, per_tick: bool) -> Report {
    let mut r = runner();
    if per_tick {
        r.watch.keep_per_tick();
    }
    r.run(ticks, |_| {});
    r.report()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v
        .as_object()
        .expect("an object")
        .keys()
        .map(|k| k.as_str())
        .collect();
    k.sort_unstable();
    k
}

fn sorted(mut k: Vec<&str>) -> Vec<&str> {
    k.sort_unstable();
    k
}

/// The schema's top-level keys, in the order docs/SCENARIOS.md lists them.
const TOP: [&str; 24] = [
    "scenario",
    "ruleset",
    "map",
    "closed_ground",
    "ticks",
    "turn_ticks",
    "units",
    "buildings",
    "resources",
    "players",
    "counters",
    "stalled",
    "waiting",
    "longest_stall",
    "longest_wait",
    "waits",
    "overlaps",
    "overlaps_during_run",
    "in_closed_ground",
    "deepest_in_closed_ground",
    "orders_ended",
    "rates",
    "turn_hashes",
    "final_hash",
];

#[test]
fn the_json_has_the_schemas_keys_in_order() {
    let text = serde_json::to_string_pretty(&ReportJson::of(&run(8, false))).unwrap();
    // Top-level keys are the ones indented two spaces.
    let top: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  \""))
        .map(|l| &l[..l.find('"').unwrap()])
        .collect();
    assert_eq!(top, TOP);
    let with = serde_json::to_string_pretty(&ReportJson::of(&run(8, true))).unwrap();
    let at = |t: &str, k: &str| t.find(&format!("\n  \"{k}\": ")).unwrap();
    assert!(at(&with, "rates") < at(&with, "counters_per_tick"));
    assert!(at(&with, "counters_per_tick") < at(&with, "turn_hashes"));
}

#[test]
fn the_json_tells_what_the_run_came_to() {
    let report = run(8, false);
    let v = serde_json::to_value(ReportJson::of(&report)).unwrap();
    assert_eq!(v["scenario"], "miners");
    assert_eq!(v["ruleset"], report.ruleset.to_string());
    assert_eq!(v["map"], json!({"width": 10, "height": 6}));
    assert_eq!(
        (v["ticks"].as_u64(), v["turn_ticks"].as_u64()),
        (Some(8), Some(4))
    );
    assert_eq!(v.get("counters_per_tick"), None);

    let units = v["units"].as_array().unwrap();
    assert_eq!(units.len(), 2);
    let u = &units[0];
    assert_eq!(
        keys(u),
        sorted(vec![
            "id",
            "kind",
            "owner",
            "position",
            "hit_points",
            "order",
            "state",
            "route",
            "carrying"
        ])
    );
    assert_eq!((&u["kind"], &u["owner"]), (&json!("villager"), &json!(0)));
    // Positions and route corners are plain numbers: the sim's fixed point, exactly.
    let p = report.units[0].position;
    assert_eq!(
        u["position"],
        json!([p.x.to_num::<f64>(), p.y.to_num::<f64>()])
    );
    assert!(u["route"].as_array().unwrap().iter().all(|c| c[0].is_f64()));
    let mine = report.resources[0].id.0;
    assert_eq!(u["order"], json!({"Gather": {"target": mine}}));
    assert_eq!(u["carrying"], Value::Null);

    let b = &v["buildings"][0];
    assert_eq!(
        keys(b),
        sorted(vec![
            "id",
            "kind",
            "owner",
            "hit_points",
            "complete",
            "origin",
            "footprint",
            "turned",
            "closes_ground"
        ])
    );
    assert_eq!(
        (&b["kind"], &b["complete"]),
        (&json!("mining_camp"), &json!(true))
    );
    let r = &v["resources"][0];
    assert_eq!(keys(r), sorted(vec!["id", "kind", "tile", "amount"]));
    assert_eq!(
        (&r["kind"], &r["tile"]),
        (&json!("gold_mine"), &json!([7, 1]))
    );

    let goods = json!({"food": 0, "wood": 0, "gold": 0, "stone": 0});
    let player = &v["players"][0];
    assert_eq!(player["id"], 0);
    assert_eq!(keys(&player["stock"]), keys(&goods));
    assert_eq!(player["gathered"], goods, "nothing came in in 8 ticks");

    for k in [
        "route_searches",
        "node_expansions",
        "replans",
        "most_expansions",
    ] {
        assert!(v["counters"][k].is_u64(), "counters.{k}");
    }
    assert!(v["counters"]["route_searches"].as_u64().unwrap() > 0);
    assert_eq!(v["stalled"], json!([]));
    assert_eq!(v["waiting"], json!([]));
    // A stall seen during the run: no position or state (those are for stalls at the end).
    let stall = &v["longest_stall"];
    assert_eq!(
        keys(stall),
        sorted(vec!["id", "since_tick", "ticks", "seconds"])
    );
    assert_eq!(
        (&stall["ticks"], &stall["seconds"]),
        (&json!(8), &json!(0.128))
    );
    assert_eq!(v["overlaps"], json!([]));
    assert_eq!(
        v["overlaps_during_run"],
        json!({
            "onsets": 0,
            "deepest": null,
            "close_pair_ticks": 0,
            "close_pair_seconds": 0.0,
            "longest_close": null,
            "standing_pair_ticks": 0,
            "standing_at_end": [],
            "pile": null,
            "faults": []
        })
    );
    assert_eq!(v["in_closed_ground"], json!([]));
    assert_eq!(v["deepest_in_closed_ground"], Value::Null);
    assert_eq!(v["orders_ended"], json!([]));
    assert_eq!(
        keys(&v["rates"]),
        sorted(vec![
            "busy_unit_seconds",
            "replans_per_unit_second",
            "searches_per_unit_second",
            "peak_replans_per_unit_second",
            "most_expansions_in_a_search"
        ])
    );
    // Two units busy for 8 ticks of 16 ms, in the watch's fixed point.
    let busy = &v["rates"]["busy_unit_seconds"];
    assert_eq!(*busy, json!(report.watch.busy_unit_seconds.to_num::<f64>()));
    assert!(
        (busy.as_f64().unwrap() - 2.0 * 8.0 * 0.016).abs() < 0.001,
        "{busy}"
    );
    let hashes: Vec<String> = report.turn_hashes.iter().map(|h| h.to_string()).collect();
    assert_eq!(hashes.len(), 2);
    assert_eq!(v["turn_hashes"], json!(hashes));
    assert_eq!(v["final_hash"], report.final_hash.to_string());
}

#[test]
fn the_json_counts_per_tick_only_when_asked() {
    let v = serde_json::to_value(ReportJson::of(&run(6, true))).unwrap();
    let per = &v["counters_per_tick"];
    assert_eq!(
        keys(per),
        sorted(vec![
            "route_searches",
            "node_expansions",
            "shared_walks",
            "replans"
        ])
    );
    for k in keys(per) {
        assert_eq!(per[k].as_array().unwrap().len(), 6, "{k}: one a tick");
    }
    let searches: u64 = per["route_searches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(Some(searches), v["counters"]["route_searches"].as_u64());
}

#[test]
fn gold_a_gatherer_brought_in_is_told_apart_from_the_stock() {
    let report = run(3000, false);
    let v = serde_json::to_value(ReportJson::of(&report)).unwrap();
    let gold = v["players"][0]["gathered"]["gold"].as_u64().unwrap();
    assert!(gold > 0, "the miners brought gold in: {v:#}");
    assert_eq!(
        v["players"][0]["stock"]["gold"].as_u64().unwrap(),
        u64::from(report.stock[0].1[2])
    );
}

#[test]
fn the_summary_tells_the_run_in_lines() {
    let report = run(8, false);
    let mut out = Vec::new();
    write_summary(&mut out, &report).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "scenario  miners");
    assert_eq!(
        lines[1],
        "ran       8 ticks (2 turns of 4 ticks) on a 10x6 map"
    );
    assert_eq!(lines[2], "units     2 (2 still walking)");
    let u = &report.units[0];
    assert_eq!(
        lines[3],
        format!(
            "  #{:<5} villager       player 0  at ({:>8.3}, {:>8.3})  {:?}",
            u.id.0,
            u.position.x.to_num::<f64>(),
            u.position.y.to_num::<f64>(),
            u.state
        )
    );
    assert_eq!(lines[5], "counters");
    assert!(text.contains("\n  route_searches     "));
    let n = lines.len();
    // Both went the 8 ticks without half a tile's progress: 0.128 s.
    assert_eq!(
        lines[n - 6],
        "stalled   0 now, 0 waiting for a place; longest stall 0.13 s"
    );
    assert_eq!(
        lines[n - 5],
        "waits     0 of a second or more; most free 0.00 s; 0 with a minute of a place free"
    );
    assert_eq!(lines[n - 4], "overlaps  0 now, 0 during the run");
    assert_eq!(
        lines[n - 3],
        "apart     nearest 1000‰ of the allowance, 0.00 s longest under 900‰, 0 faults"
    );
    assert_eq!(lines[n - 2], "closed    0 bodies over closed ground now");
    assert_eq!(lines[n - 1], format!("final hash {}", report.final_hash));
    assert!(text.ends_with('\n'));
}

#[test]
fn the_trace_is_a_header_and_a_row_per_unit_a_tick() {
    let mut r = runner();
    let mut out = Vec::new();
    write_trace_header(&mut out, &r.world).unwrap();
    r.run(2, |w| write_trace_tick(&mut out, w).unwrap());
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * 3);
    assert_eq!(lines[0], "tick,unit,owner,x,y");
    let u = &r.world.state().units[1];
    assert_eq!(
        lines[6],
        format!("2,{},0,{},{}", u.id.0, u.position.x, u.position.y)
    );
    assert!(lines[1].starts_with("0,") && lines[3].starts_with("1,"));
}
