//! Route search proven on real game maps (issue 3, "Proof"): the Moving AI benchmarks in
//! `data/movingai` (a copy of `../shared/data/movingai`; `COHORT_MOVINGAI` names another).
//!
//! With the beside-closed and standing costs off and no budget, every scenario's route is found,
//! its 10/14 cost equals a plain Dijkstra's on the same grid (the `pathfinding` crate's), the route
//! is a legal walk (eight ways, never cutting a closed corner) whose cost is its steps', and its
//! octile length (straight steps 1, diagonals √2) is within 0.5% of the scenario's optimal length.
//!
//! The normal test run takes an even sample: [`SAMPLE_PER_MAP`] scenarios per map, spread evenly
//! over the map's buckets (short to long). Every scenario is checked by the ignored test:
//! `cargo test --release -p cohort-sim --test movingai -- --ignored`.
//!
//! Floats appear only here, in the test, to compare with the scenarios' printed lengths.
#![allow(clippy::disallowed_types)]

use cohort_sim::astar::{
    find_route, Budget, LayerLandmarks, Scratch, Search, K_DIAGONAL, K_STRAIGHT,
};
use cohort_sim::grid::{Grid, Keyed};
use cohort_sim::map::{parse_scenarios, MovingAiMap, Scenario};
use cohort_sim::{Ruleset, Tile};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Scenarios per map in the normal test run.
const SAMPLE_PER_MAP: usize = 12;
/// The octile length may exceed the scenario's optimal length by this share (the 10/14 costs
/// approximate √2), plus the half of the last printed digit the files round to.
const LENGTH_TOLERANCE: f64 = 0.005;
const PRINTED_ROUNDING: f64 = 0.005;

/// The maps: `COHORT_MOVINGAI` when set, else the copy in the repository's `data/movingai`
/// (byte-for-byte the benchmark's files, so a clean checkout tests itself).
fn data() -> PathBuf {
    match std::env::var_os("COHORT_MOVINGAI") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/movingai"),
    }
}

fn maps() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let root = data();
    for family in std::fs::read_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display())) {
        let family = family.unwrap().path();
        if !family.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&family).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|x| x == "map") {
                out.push(f);
            }
        }
    }
    out.sort();
    assert_eq!(out.len(), 17, "the Moving AI folder holds 17 maps");
    out
}

/// An even sample: the valid scenarios in (bucket, line) order, every `len / n`-th.
fn sample(scen: &[Scenario], map: &MovingAiMap, n: Option<usize>) -> Vec<Scenario> {
    let mut valid: Vec<Scenario> = scen.iter().filter(|s| s.fits(map)).cloned().collect();
    valid.sort_by_key(|s| (s.bucket, s.line));
    match n {
        Some(n) if valid.len() > n => (0..n).map(|i| valid[i * valid.len() / n].clone()).collect(),
        _ => valid,
    }
}

/// The reference: a plain Dijkstra over the map's passable cells, same costs, no corner cutting,
/// written here apart from the sim's code. Its queue is Dial's: the costs are integers and no
/// step costs more than [`K_DIAGONAL`], so a ring of `K_DIAGONAL + 1` buckets holds every cost
/// still open and a cell is taken out in cost order without a heap. Flat arrays, cleared by a
/// stamp, so each query costs only the cells it reaches; it stops when the goal is taken out.
struct Dijkstra {
    width: i32,
    height: i32,
    open: Vec<bool>,
    dist: Vec<u32>,
    stamp: Vec<u32>,
    generation: u32,
    buckets: Vec<Vec<u32>>,
}

impl Dijkstra {
    fn new(map: &MovingAiMap) -> Dijkstra {
        let (w, h) = (map.width, map.height);
        let open = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| map.passable(x, y))
            .collect();
        let n = (w * h) as usize;
        Dijkstra {
            width: w,
            height: h,
            open,
            dist: vec![u32::MAX; n],
            stamp: vec![0; n],
            generation: 0,
            buckets: vec![Vec::new(); K_DIAGONAL as usize + 1],
        }
    }

    fn passable(&self, x: i32, y: i32) -> bool {
        x >= 0
            && y >= 0
            && x < self.width
            && y < self.height
            && self.open[(y * self.width + x) as usize]
    }

    fn dist(&self, i: usize) -> u32 {
        if self.stamp[i] == self.generation {
            self.dist[i]
        } else {
            u32::MAX
        }
    }

    /// The cheapest cost from `from` to `to`, or `None` when `to` cannot be reached.
    fn cost(&mut self, from: Tile, to: Tile) -> Option<u32> {
        if !self.passable(from.x, from.y) || !self.passable(to.x, to.y) {
            return None;
        }
        self.generation += 1;
        for b in &mut self.buckets {
            b.clear();
        }
        let ring = self.buckets.len() as u32;
        let w = self.width;
        let start = (from.y * w + from.x) as usize;
        let goal = (to.y * w + to.x) as usize;
        self.stamp[start] = self.generation;
        self.dist[start] = 0;
        self.buckets[0].push(start as u32);
        let mut pending = 1usize;
        let mut cost = 0u32;
        while pending > 0 {
            let slot = (cost % ring) as usize;
            while let Some(i) = self.buckets[slot].pop() {
                pending -= 1;
                let i = i as usize;
                if self.dist(i) != cost {
                    continue; // taken out already, at a lower cost
                }
                if i == goal {
                    return Some(cost);
                }
                let (x, y) = (i as i32 % w, i as i32 / w);
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        if (dx, dy) == (0, 0) || !self.passable(x + dx, y + dy) {
                            continue;
                        }
                        let step = if dx != 0 && dy != 0 {
                            if !(self.passable(x + dx, y) && self.passable(x, y + dy)) {
                                continue;
                            }
                            K_DIAGONAL
                        } else {
                            K_STRAIGHT
                        };
                        let n = ((y + dy) * w + x + dx) as usize;
                        let d = cost + step;
                        if d < self.dist(n) {
                            self.stamp[n] = self.generation;
                            self.dist[n] = d;
                            self.buckets[(d % ring) as usize].push(n as u32);
                            pending += 1;
                        }
                    }
                }
            }
            cost += 1;
        }
        None
    }
}

/// A second reference for the sample: the `pathfinding` crate's Dijkstra, same costs, no corner
/// cutting, so the fast reference above is itself checked.
fn crate_dijkstra(map: &MovingAiMap, from: Tile, to: Tile) -> Option<u32> {
    let successors = |&(x, y): &(i32, i32)| {
        let mut out = Vec::with_capacity(8);
        for dy in -1..=1 {
            for dx in -1..=1 {
                if (dx, dy) == (0, 0) || !map.passable(x + dx, y + dy) {
                    continue;
                }
                if dx != 0 && dy != 0 {
                    if !(map.passable(x + dx, y) && map.passable(x, y + dy)) {
                        continue;
                    }
                    out.push(((x + dx, y + dy), K_DIAGONAL));
                } else {
                    out.push(((x + dx, y + dy), K_STRAIGHT));
                }
            }
        }
        out
    };
    pathfinding::directed::dijkstra::dijkstra(&(from.x, from.y), successors, |&p| p == (to.x, to.y))
        .map(|(_, c)| c)
}

/// Checks one scenario; returns a description of what is wrong, if anything.
fn check(
    grid: &Grid,
    map: &MovingAiMap,
    marks: &LayerLandmarks,
    scratch: &mut Scratch,
    reference: &mut Dijkstra,
    s: &Scenario,
    cross_check: bool,
) -> Result<(), String> {
    let search = Search {
        beside_closed: false,
        wide: false,
        budget: Budget::Unlimited,
        landmarks: Some(marks),
        ..Search::new(Keyed::unkeyed(0), s.start, s.goal)
    };
    let found = find_route(grid, scratch, &search);
    let at = format!("line {} ({:?} -> {:?})", s.line, s.start, s.goal);
    if !found.reached {
        return Err(format!("{at}: no route found"));
    }
    let reference = reference
        .cost(s.start, s.goal)
        .ok_or(format!("{at}: Dijkstra found none"))?;
    if cross_check && crate_dijkstra(map, s.start, s.goal) != Some(reference) {
        return Err(format!(
            "{at}: the two Dijkstras disagree ({reference} here)"
        ));
    }
    if found.cost != reference {
        return Err(format!(
            "{at}: cost {} but Dijkstra's is {reference}",
            found.cost
        ));
    }
    let path = scratch.path();
    if path.first() != Some(&s.start) || path.last() != Some(&s.goal) {
        return Err(format!("{at}: the route does not run from start to goal"));
    }
    let (mut straight, mut diagonal) = (0u32, 0u32);
    for w in path.windows(2) {
        let (dx, dy) = (w[1].x - w[0].x, w[1].y - w[0].y);
        let legal = dx.abs() <= 1
            && dy.abs() <= 1
            && (dx, dy) != (0, 0)
            && map.passable(w[1].x, w[1].y)
            && (dx == 0
                || dy == 0
                || map.passable(w[0].x + dx, w[0].y) && map.passable(w[0].x, w[0].y + dy));
        if !legal {
            return Err(format!("{at}: illegal step {:?} -> {:?}", w[0], w[1]));
        }
        if dx == 0 || dy == 0 {
            straight += 1;
        } else {
            diagonal += 1;
        }
    }
    if straight * K_STRAIGHT + diagonal * K_DIAGONAL != found.cost {
        return Err(format!("{at}: the steps do not add up to the cost"));
    }
    let length = f64::from(straight) + f64::from(diagonal) * std::f64::consts::SQRT_2;
    let optimal: f64 = s.optimal.to_num();
    if length > optimal * (1.0 + LENGTH_TOLERANCE) + PRINTED_ROUNDING
        || length < optimal - PRINTED_ROUNDING
    {
        return Err(format!(
            "{at}: octile length {length:.4}, optimal {optimal:.4}"
        ));
    }
    Ok(())
}

/// Checks one map's scenarios (every one, or an even sample of `per_map`): how many were
/// checked, and what failed.
fn run_map(rules: &Ruleset, path: &Path, per_map: Option<usize>) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let map = MovingAiMap::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let scen_path = PathBuf::from(format!("{}.scen", path.display()));
    let scen = parse_scenarios(&std::fs::read_to_string(&scen_path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", scen_path.display()));
    let grid = map.to_grid(rules).unwrap();
    let marks = LayerLandmarks::measure(&grid, 0);
    let mut scratch = Scratch::default();
    let mut reference = Dijkstra::new(&map);
    // The sample is also checked against the `pathfinding` crate's Dijkstra.
    let cross_check = per_map.is_some();
    let mut failures = Vec::new();
    let chosen = sample(&scen, &map, per_map);
    for s in &chosen {
        let result = check(
            &grid,
            &map,
            &marks,
            &mut scratch,
            &mut reference,
            s,
            cross_check,
        );
        if let Err(e) = result {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    (chosen.len(), failures)
}

/// Checks every map, the maps shared out over the machine's cores.
fn run(per_map: Option<usize>) {
    let rules = Ruleset::default_rules();
    let maps = maps();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results: Mutex<Vec<(usize, usize, Vec<String>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(maps.len()) {
            scope.spawn(|| loop {
                let m = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = maps.get(m) else { break };
                let (checked, failures) = run_map(&rules, path, per_map);
                eprintln!(
                    "{}: {checked} scenarios, {} failed",
                    path.display(),
                    failures.len()
                );
                results.lock().unwrap().push((m, checked, failures));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    let checked: usize = results.iter().map(|r| r.1).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.2).collect();
    eprintln!("checked {checked} scenarios, {} failed", failures.len());
    assert!(checked > 0);
    if per_map.is_none() {
        assert_eq!(checked, 39_607, "every valid scenario");
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn an_even_sample_of_every_map_is_routed_optimally() {
    run(Some(SAMPLE_PER_MAP));
}

#[test]
#[ignore = "every scenario (39,607): run in release (minutes)"]
fn every_scenario_is_routed_optimally() {
    run(None);
}

#[test]
fn every_scenario_file_reads_and_fits_its_map() {
    let mut valid = 0;
    for path in maps() {
        let map = MovingAiMap::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let scen_path = PathBuf::from(format!("{}.scen", path.display()));
        let scen = parse_scenarios(&std::fs::read_to_string(&scen_path).unwrap()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for s in &scen {
            assert!(s.map.ends_with(&name), "{}: {}", scen_path.display(), s.map);
            valid += usize::from(s.fits(&map));
        }
    }
    // The README: 39,622 problems, of which 15 on wc3 maps have a blocked end.
    assert_eq!(valid, 39_607);
}
