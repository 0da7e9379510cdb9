//! The route search benchmark over the Moving AI maps (issue 3, docs/ROUTES.md).
//!
//! ```sh
//! cargo run --release -p cohort-sim --example routes -- ../shared/data/movingai
//! cargo run --release -p cohort-sim --example routes -- ../shared/data/movingai --per-map 0
//! ```
//!
//! For every `.map` under the folder (and its `.map.scen`), an even sample of its scenarios
//! (`--per-map N`, default 100; 0 means every scenario) is searched three ways, one after the
//! other for each problem and `--repeat R` times over (default 3, the fastest run of each kept): `octile` (our A*, octile estimate alone), `landmarks` (our A*, octile
//! and landmarks) and `peer` (the `pathfinding` crate's `astar` over the same grid, with the same
//! 10/14 costs, no corner cutting and the octile estimate). The timed searches all do the same
//! work: the beside-closed and standing costs off and no budget. Every route's cost must agree
//! across the three; a disagreement is printed and the command exits with an error. Prints one
//! JSON object.
//!
//! This file is a measuring instrument outside the simulation: clocks and floats are allowed here.
#![allow(clippy::disallowed_types)]

use cohort_sim::astar::{
    find_route, octile, Budget, LayerLandmarks, Scratch, Search, K_DIAGONAL, K_MAX_EXPANSIONS,
    K_STRAIGHT,
};
use cohort_sim::grid::Keyed;
use cohort_sim::map::{parse_scenarios, MovingAiMap, Scenario};
use cohort_sim::Ruleset;
use serde_json::{json, Value};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Scenarios per map when `--per-map` is not given.
const DEFAULT_PER_MAP: usize = 100;
/// Times each search is run when `--repeat` is not given; its fastest run is kept, so a search
/// the shared machine preempted is not counted slow.
const DEFAULT_REPEAT: usize = 3;
/// The map the expansion target leaves out: tiny and open, where no estimate can save much.
const OPEN_ARENA: &str = "dao/arena";

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut per_map = DEFAULT_PER_MAP;
    let mut repeat = DEFAULT_REPEAT;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--per-map" => {
                let v = args.next().ok_or("--per-map needs a number")?;
                per_map = v
                    .parse()
                    .map_err(|_| format!("--per-map `{v}` is not a number"))?;
            }
            "--repeat" => {
                let v = args.next().ok_or("--repeat needs a number")?;
                repeat = v
                    .parse::<usize>()
                    .map_err(|_| format!("--repeat `{v}` is not a number"))?
                    .max(1);
            }
            "-h" | "--help" => {
                println!("usage: routes <movingai folder> [--per-map N (default {DEFAULT_PER_MAP}, 0 = every scenario)] [--repeat R (default {DEFAULT_REPEAT}: each search's fastest of R runs is timed)]");
                return Ok(());
            }
            _ if dir.is_none() => dir = Some(PathBuf::from(a)),
            _ => return Err(format!("unexpected argument `{a}`")),
        }
    }
    let dir = dir.ok_or("usage: routes <movingai folder> [--per-map N] [--repeat R]")?;
    let rules = Ruleset::default_rules();
    let mut maps = Vec::new();
    collect_maps(&dir, &mut maps)?;
    maps.sort();
    if maps.is_empty() {
        return Err(format!("no .map files under {}", dir.display()));
    }

    let mut out = serde_json::Map::new();
    let mut summary = Summary::default();
    for map_path in &maps {
        let name = map_name(&dir, map_path);
        eprintln!("routes: {name}");
        let text = read(map_path)?;
        let map = MovingAiMap::parse(&text).map_err(|e| format!("{}: {e}", map_path.display()))?;
        let scen_path = PathBuf::from(format!("{}.scen", map_path.display()));
        let scen = parse_scenarios(&read(&scen_path)?)
            .map_err(|e| format!("{}: {e}", scen_path.display()))?;
        let chosen = sample(&scen, &map, per_map);
        let stats = run_map(&rules, &map, &chosen, repeat)?;
        summary.add(&name, &stats);
        out.insert(name, stats.to_json());
    }
    let report = json!({
        "benchmark": "routes",
        "command": "cargo run --release -p cohort-sim --example routes -- <movingai folder>",
        "sample": if per_map == 0 { "every scenario".to_string() } else {
            format!("an even sample of {per_map} per map (every scenario of a map with fewer), taken by bucket order")
        },
        "timing": format!("each problem is searched by octile, landmarks and peer in turn, {repeat} time(s) over; each search's fastest run is kept"),
        "costs": "10 straight / 14 diagonal, no corner cutting; beside-closed and standing costs off; no budget",
        "maps": Value::Object(out),
        "summary": summary.to_json(),
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
    );
    Ok(())
}

fn read(p: &Path) -> Result<String, String> {
    std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))
}

fn collect_maps(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries {
        let p = e.map_err(|e| e.to_string())?.path();
        if p.is_dir() {
            collect_maps(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "map") {
            out.push(p);
        }
    }
    Ok(())
}

fn map_name(dir: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(dir).unwrap_or(p).with_extension("");
    rel.to_string_lossy().replace('\\', "/")
}

/// An even sample: the valid scenarios in (bucket, line) order, every `len / n`-th.
fn sample(scen: &[Scenario], map: &MovingAiMap, n: usize) -> Vec<Scenario> {
    let mut valid: Vec<Scenario> = scen.iter().filter(|s| s.fits(map)).cloned().collect();
    valid.sort_by_key(|s| (s.bucket, s.line));
    if n == 0 || valid.len() <= n {
        return valid;
    }
    (0..n).map(|i| valid[i * valid.len() / n].clone()).collect()
}

#[derive(Default)]
struct Timings {
    us: Vec<f64>,
    expansions: Vec<u64>,
}

impl Timings {
    fn to_json(&self) -> Value {
        json!({
            "median_us": round2(median_f(&self.us)),
            "p95_us": round2(percentile_f(&self.us, 95)),
            "median_expansions": median_u(&self.expansions),
        })
    }
}

struct MapStats {
    queries: usize,
    width: i32,
    height: i32,
    landmarks_ms: f64,
    octile: Timings,
    landmarks: Timings,
    peer: Timings,
    within_budget: usize,
}

impl MapStats {
    fn expansion_ratio(&self) -> f64 {
        median_u(&self.landmarks.expansions) as f64
            / median_u(&self.octile.expansions).max(1) as f64
    }
    fn speedup(&self, ours: &Timings) -> f64 {
        median_f(&self.peer.us) / median_f(&ours.us)
    }
    fn to_json(&self) -> Value {
        json!({
            "size": format!("{}x{}", self.width, self.height),
            "queries": self.queries,
            "landmarks_measure_ms": round2(self.landmarks_ms),
            "octile": self.octile.to_json(),
            "landmarks": self.landmarks.to_json(),
            "peer": self.peer.to_json(),
            "peer_over_octile": round2(self.speedup(&self.octile)),
            "peer_over_landmarks": round2(self.speedup(&self.landmarks)),
            "landmarks_over_octile_expansions": round3(self.expansion_ratio()),
            "within_budget": round3(self.within_budget as f64 / self.queries.max(1) as f64),
        })
    }
}

fn run_map(
    rules: &Ruleset,
    map: &MovingAiMap,
    scen: &[Scenario],
    repeat: usize,
) -> Result<MapStats, String> {
    let grid = map.to_grid(rules).map_err(|e| e.to_string())?;
    let key = Keyed::unkeyed(0);
    let t = Instant::now();
    let marks = LayerLandmarks::measure(&grid, 0);
    let landmarks_ms = t.elapsed().as_secs_f64() * 1e3;
    let (w, h) = (map.width, map.height);
    let open: Vec<bool> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| map.passable(x, y))
        .collect();
    let mut scratch = Scratch::default();
    let mut stats = MapStats {
        queries: scen.len(),
        width: w,
        height: h,
        landmarks_ms,
        octile: Timings::default(),
        landmarks: Timings::default(),
        peer: Timings::default(),
        within_budget: 0,
    };
    for s in scen {
        let plain = Search {
            beside_closed: false,
            wide: false,
            budget: Budget::Unlimited,
            ..Search::new(key, s.start, s.goal)
        };
        let with_marks = Search {
            landmarks: Some(&marks),
            ..plain
        };
        let (mut best_a, mut best_b, mut best_c) = (f64::MAX, f64::MAX, f64::MAX);
        let (mut a, mut b, mut c) = (None, None, None);
        let expanded = Cell::new(0u64);
        for _ in 0..repeat {
            let t = Instant::now();
            a = Some(find_route(&grid, &mut scratch, &plain));
            best_a = best_a.min(t.elapsed().as_secs_f64() * 1e6);
            let t = Instant::now();
            b = Some(find_route(&grid, &mut scratch, &with_marks));
            best_b = best_b.min(t.elapsed().as_secs_f64() * 1e6);
            expanded.set(0);
            let t = Instant::now();
            c = Some(peer_astar(&open, w, h, s, &expanded));
            best_c = best_c.min(t.elapsed().as_secs_f64() * 1e6);
        }
        let (a, b, c) = (a.expect("run"), b.expect("run"), c.expect("run"));
        stats.octile.us.push(best_a);
        stats.octile.expansions.push(a.expansions.into());
        stats.landmarks.us.push(best_b);
        stats.landmarks.expansions.push(b.expansions.into());
        if b.reached && b.expansions <= K_MAX_EXPANSIONS {
            stats.within_budget += 1;
        }
        stats.peer.us.push(best_c);
        stats.peer.expansions.push(expanded.get());

        let peer_cost = c.ok_or_else(|| format!("line {}: the peer found no route", s.line))?;
        if !a.reached || !b.reached || a.cost != peer_cost || b.cost != peer_cost {
            return Err(format!(
                "line {}: costs disagree: octile {:?}, landmarks {:?}, peer {peer_cost}",
                s.line, a, b
            ));
        }
    }
    Ok(stats)
}

/// The peer: the `pathfinding` crate's A* over the same grid and costs, octile estimate.
fn peer_astar(open: &[bool], w: i32, h: i32, s: &Scenario, expanded: &Cell<u64>) -> Option<u32> {
    const STEPS: [(i32, i32); 8] = cohort_sim::position::EIGHT_WAYS;
    let ok = |x: i32, y: i32| x >= 0 && y >= 0 && x < w && y < h && open[(y * w + x) as usize];
    let goal = (s.goal.y * w + s.goal.x) as u32;
    let start = (s.start.y * w + s.start.x) as u32;
    let successors = |&p: &u32| {
        expanded.set(expanded.get() + 1);
        let (x, y) = (p as i32 % w, p as i32 / w);
        let mut out = [(0u32, 0u32); 8];
        let mut n = 0;
        for (i, (dx, dy)) in STEPS.into_iter().enumerate() {
            let (nx, ny) = (x + dx, y + dy);
            if !ok(nx, ny) || (i >= 4 && !(ok(x + dx, y) && ok(x, y + dy))) {
                continue;
            }
            out[n] = (
                (ny * w + nx) as u32,
                if i < 4 { K_STRAIGHT } else { K_DIAGONAL },
            );
            n += 1;
        }
        out.into_iter().take(n)
    };
    let heuristic = |&p: &u32| octile(p as i32 % w - s.goal.x, p as i32 / w - s.goal.y);
    pathfinding::directed::astar::astar(&start, successors, heuristic, |&p| p == goal)
        .map(|(_, c)| c)
}

#[derive(Default)]
struct Summary {
    speed_octile: Vec<f64>,
    speed_landmarks: Vec<f64>,
    ratios: Vec<f64>,
    worst: Option<(String, f64)>,
    queries: usize,
    within: usize,
}

impl Summary {
    fn add(&mut self, name: &str, m: &MapStats) {
        self.speed_octile.push(m.speedup(&m.octile));
        self.speed_landmarks.push(m.speedup(&m.landmarks));
        let r = m.expansion_ratio();
        self.ratios.push(r);
        if name != OPEN_ARENA && self.worst.as_ref().is_none_or(|(_, w)| r > *w) {
            self.worst = Some((name.to_string(), r));
        }
        self.queries += m.queries;
        self.within += m.within_budget;
    }

    fn to_json(&self) -> Value {
        let (po, pl, er) = (
            geomean(&self.speed_octile),
            geomean(&self.speed_landmarks),
            geomean(&self.ratios),
        );
        let (worst_map, worst) = self.worst.clone().unwrap_or_default();
        json!({
            "queries": self.queries,
            "geomean_peer_over_octile": round2(po),
            "geomean_peer_over_landmarks": round2(pl),
            "geomean_landmarks_over_octile_expansions": round3(er),
            "worst_landmarks_over_octile_expansions": { "map": worst_map, "ratio": round3(worst) },
            "within_budget": round3(self.within as f64 / self.queries.max(1) as f64),
            "targets": {
                "peer_over_octile_at_least_2.5": po >= 2.5,
                "peer_over_landmarks_at_least_8": pl >= 8.0,
                "expansions_at_most_0.45_on_every_map_but_the_arena": worst <= 0.45,
                "expansions_geomean_at_most_0.25": er <= 0.25,
            },
        })
    }
}

fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len().max(1) as f64).exp()
}

fn median_f(v: &[f64]) -> f64 {
    percentile_f(v, 50)
}

fn percentile_f(v: &[f64], pct: usize) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    s.get((s.len().saturating_sub(1) * pct + 50) / 100)
        .copied()
        .unwrap_or(0.0)
}

fn median_u(v: &[u64]) -> u64 {
    let mut s = v.to_vec();
    s.sort_unstable();
    s.get(s.len().saturating_sub(1) / 2).copied().unwrap_or(0)
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
