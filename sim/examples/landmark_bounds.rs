//! How much the landmarks can save on one Moving AI map (issue 3: the expansion target), checked
//! apart from the sim's search.
//!
//! ```sh
//! cargo run --release -p cohort-sim --example landmark_bounds -- data/movingai/random/random512-10-0.map 100
//! ```
//!
//! For an even sample of the map's scenarios (bucket order, every `n/N`-th; `N` = 0 for every
//! one) it prints, as one JSON object, the median expansions of: the sim's A* with the octile
//! estimate and with landmarks; and a plain reference A* written here (a binary heap of
//! (estimated total, estimate, index), the spec's tie order) with the octile estimate, with the
//! spec's three chosen landmarks, and with all eight. It first checks every landmark distance
//! against a plain Dijkstra from the landmark, and every route's cost against the sim's.
//!
//! This file is a measuring instrument outside the simulation: floats are allowed here.
#![allow(clippy::disallowed_types)]

use cohort_sim::astar::{
    find_route, octile, Budget, LayerLandmarks, Scratch, Search, K_CHOSEN_LANDMARKS, K_DIAGONAL,
    K_FAR, K_LANDMARKS, K_STRAIGHT,
};
use cohort_sim::grid::Keyed;
use cohort_sim::map::{parse_scenarios, MovingAiMap, Scenario};
use cohort_sim::Ruleset;
use serde_json::json;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const STEPS: [(i32, i32); 8] = cohort_sim::position::EIGHT_WAYS;

/// The map's cells, with the moves a search may make (eight ways, no corner cutting).
struct Cells {
    w: i32,
    h: i32,
    open: Vec<bool>,
}

impl Cells {
    fn ok(&self, x: i32, y: i32) -> bool {
        x >= 0 && y >= 0 && x < self.w && y < self.h && self.open[(y * self.w + x) as usize]
    }

    /// The legal steps from (`x`, `y`): the cell stepped to and the step's cost.
    fn steps(&self, x: i32, y: i32) -> impl Iterator<Item = (i32, i32, u32)> + '_ {
        STEPS
            .into_iter()
            .enumerate()
            .filter_map(move |(i, (dx, dy))| {
                let (nx, ny) = (x + dx, y + dy);
                let legal =
                    self.ok(nx, ny) && (i < 4 || (self.ok(x + dx, y) && self.ok(x, y + dy)));
                legal.then_some((nx, ny, if i < 4 { K_STRAIGHT } else { K_DIAGONAL }))
            })
    }

    /// Every cell's distance from (`x`, `y`), a plain Dijkstra.
    fn dijkstra(&self, x: i32, y: i32) -> Vec<u32> {
        let mut d = vec![u32::MAX; self.open.len()];
        let mut heap = BinaryHeap::new();
        d[(y * self.w + x) as usize] = 0;
        heap.push(Reverse((0u32, x, y)));
        while let Some(Reverse((c, x, y))) = heap.pop() {
            if c > d[(y * self.w + x) as usize] {
                continue;
            }
            for (nx, ny, step) in self.steps(x, y) {
                let n = (ny * self.w + nx) as usize;
                if c + step < d[n] {
                    d[n] = c + step;
                    heap.push(Reverse((c + step, nx, ny)));
                }
            }
        }
        d
    }

    /// A plain A*, the spec's tie order, with the octile estimate and the given landmarks'
    /// bounds: its cost and the cells it closed (the goal not counted).
    fn astar(&self, s: &Scenario, marks: &LayerLandmarks, chosen: &[usize]) -> (u32, u64) {
        let goal_from = marks.distances_of(s.goal.x, s.goal.y);
        let estimate = |x: i32, y: i32| {
            let here = marks.distances_of(x, y);
            chosen
                .iter()
                .filter(|&&k| here[k] != K_FAR && goal_from[k] != K_FAR)
                .map(|&k| u32::from(here[k].abs_diff(goal_from[k])))
                .fold(octile(x - s.goal.x, y - s.goal.y), u32::max)
        };
        let mut g = vec![u32::MAX; self.open.len()];
        let mut closed = vec![false; self.open.len()];
        let index = |x: i32, y: i32| (y * self.w + x) as usize;
        let mut heap = BinaryHeap::new();
        g[index(s.start.x, s.start.y)] = 0;
        let h0 = estimate(s.start.x, s.start.y);
        heap.push(Reverse((h0, h0, index(s.start.x, s.start.y))));
        let mut closed_count = 0;
        while let Some(Reverse((_, _, p))) = heap.pop() {
            if closed[p] {
                continue;
            }
            let (x, y) = (p as i32 % self.w, p as i32 / self.w);
            if (x, y) == (s.goal.x, s.goal.y) {
                return (g[p], closed_count);
            }
            closed[p] = true;
            closed_count += 1;
            for (nx, ny, step) in self.steps(x, y) {
                let n = index(nx, ny);
                if !closed[n] && g[p] + step < g[n] {
                    g[n] = g[p] + step;
                    let h = estimate(nx, ny);
                    heap.push(Reverse((g[n] + h, h, n)));
                }
            }
        }
        (u32::MAX, closed_count)
    }
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len().saturating_sub(1) / 2).copied().unwrap_or(0)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [map_path, per_map] = args.as_slice() else {
        return Err("usage: landmark_bounds <file.map> <scenarios: N, 0 = every one>".into());
    };
    let per_map: usize = per_map
        .parse()
        .map_err(|_| format!("`{per_map}` is not a number"))?;
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
    let map = MovingAiMap::parse(&read(map_path)?).map_err(|e| e.to_string())?;
    let scen = parse_scenarios(&read(&format!("{map_path}.scen"))?).map_err(|e| e.to_string())?;
    let grid = map
        .to_grid(&Ruleset::default_rules())
        .map_err(|e| e.to_string())?;
    let marks = LayerLandmarks::measure(&grid, 0);
    let (w, h) = (map.width, map.height);
    let cells = Cells {
        w,
        h,
        open: (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| map.passable(x, y))
            .collect(),
    };
    for (k, tile) in marks.tiles().iter().enumerate() {
        let Some((x, y)) = *tile else { continue };
        let d = cells.dijkstra(x, y);
        for (i, &want) in d.iter().enumerate() {
            let got = marks.distances_of(i as i32 % w, i as i32 / w)[k];
            if u32::from(got) != want.min(u32::from(K_FAR)) {
                return Err(format!(
                    "landmark {k}: cell {i} is {got}, Dijkstra says {want}"
                ));
            }
        }
    }
    let mut valid: Vec<Scenario> = scen.into_iter().filter(|s| s.fits(&map)).collect();
    valid.sort_by_key(|s| (s.bucket, s.line));
    let sample: Vec<&Scenario> = if per_map == 0 || valid.len() <= per_map {
        valid.iter().collect()
    } else {
        (0..per_map)
            .map(|i| &valid[i * valid.len() / per_map])
            .collect()
    };
    let key = Keyed::unkeyed(0);
    let mut scratch = Scratch::default();
    let mut runs: [Vec<u64>; 5] = Default::default();
    for s in &sample {
        let plain = Search {
            beside_closed: false,
            wide: false,
            budget: Budget::Unlimited,
            ..Search::new(key, s.start, s.goal)
        };
        let octile_run = find_route(&grid, &mut scratch, &plain);
        let with_marks = Search {
            landmarks: Some(&marks),
            ..plain
        };
        let landmark_run = find_route(&grid, &mut scratch, &with_marks);
        // The spec's choice: the three landmarks whose bound is largest for start and goal.
        let (from, to) = (
            marks.distances_of(s.start.x, s.start.y),
            marks.distances_of(s.goal.x, s.goal.y),
        );
        let mut by_bound: Vec<usize> = (0..K_LANDMARKS)
            .filter(|&k| from[k] != K_FAR && to[k] != K_FAR)
            .collect();
        by_bound.sort_by_key(|&k| (Reverse(from[k].abs_diff(to[k])), k));
        by_bound.truncate(K_CHOSEN_LANDMARKS);
        let all: Vec<usize> = (0..K_LANDMARKS).collect();
        let reference = [
            cells.astar(s, &marks, &[]),
            cells.astar(s, &marks, &by_bound),
            cells.astar(s, &marks, &all),
        ];
        for (cost, _) in reference {
            if cost != octile_run.cost || cost != landmark_run.cost {
                return Err(format!("line {}: costs disagree", s.line));
            }
        }
        runs[0].push(octile_run.expansions.into());
        runs[1].push(landmark_run.expansions.into());
        for (r, (_, closed)) in runs[2..].iter_mut().zip(reference) {
            r.push(closed);
        }
    }
    let [ours_octile, ours_landmarks, ref_octile, ref_three, ref_eight] = runs.map(median);
    let ratio = |x: u64| ((x as f64 / ours_octile.max(1) as f64) * 1000.0).round() / 1000.0;
    let report = json!({
        "map": map_path,
        "queries": sample.len(),
        "landmarks": marks.tiles().iter().map(|t| format!("{t:?}")).collect::<Vec<_>>(),
        "landmark_distances_checked": "every cell, against a plain Dijkstra",
        "median_expansions": {
            "ours_octile": ours_octile,
            "ours_landmarks": ours_landmarks,
            "reference_octile": ref_octile,
            "reference_three_chosen_landmarks": ref_three,
            "reference_all_eight_landmarks": ref_eight,
        },
        "over_ours_octile": {
            "ours_landmarks": ratio(ours_landmarks),
            "reference_three_chosen_landmarks": ratio(ref_three),
            "reference_all_eight_landmarks": ratio(ref_eight),
        },
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
    );
    Ok(())
}
