//! Crowd scenes nobody wrote by hand (issue 10): seeded random maps — open fields, clumps of
//! trees, a tree line with gaps, a pond — with two to four groups of any land unit kind, of one
//! to sixty units, of up to four players, sent with `move` or `formation_move` through each
//! other or to where another group stands. In every one, every order ends on its own, nobody
//! stalls (docs/SCENARIOS.md, "Stalls, waits, overlaps") and no body is pressed into closed
//! ground.
//!
//! `cargo test -p cohort-sim --test crowd_soak` runs [`DEFAULT_SEEDS`] scenes;
//! `COHORT_SOAK_SEEDS=200 COHORT_SOAK_FIRST=1000 cargo test --release -p cohort-sim --test
//! crowd_soak` runs 200 from seed 1000. A scene that fails is written to
//! `target/crowd-soak/seed_N.toml`, to run with `cohort sim` and look at with `cohort render`.

// The generator lays scenes out in floating point and writes them as decimal text; the sim
// reads that text as fixed point like any scenario file.
#![allow(clippy::disallowed_types)]

use cohort_sim::scenario::watch::WatchReport;
use cohort_sim::scenario::{Runner, Scenario};
use cohort_sim::world::{Order, World};
use std::fmt::Write;
use std::path::PathBuf;

/// Scenes run by a plain `cargo test`.
const DEFAULT_SEEDS: u64 = 10;

/// The land kinds of the default ruleset: name, radius and speed (tiles per second).
const KINDS: [(&str, f64, f64); 8] = [
    ("villager", 0.2, 0.8),
    ("militia", 0.2, 0.9),
    ("spearman", 0.2, 1.0),
    ("archer", 0.2, 0.96),
    ("skirmisher", 0.2, 0.96),
    ("scout_cavalry", 0.4, 1.2),
    ("knight", 0.4, 1.35),
    ("mangonel", 0.5, 0.6),
];

/// SplitMix64: the scene's own generator (a test's, not the sim's).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number from `lo` to `hi`, both included.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }
}

/// One group: a block of units and where it is sent.
struct Group {
    kind: usize,
    owner: i64,
    at: (i64, i64),
    count: i64,
    columns: i64,
    spacing: f64,
    to: (i64, i64),
    formation: bool,
    tick: i64,
}

impl Group {
    /// The block's tiles, with a tile of margin: (x0, y0, x1, y1).
    fn area(&self) -> (i64, i64, i64, i64) {
        let rows = (self.count + self.columns - 1) / self.columns;
        let w = ((self.columns - 1) as f64 * self.spacing).ceil() as i64;
        let h = ((rows - 1) as f64 * self.spacing).ceil() as i64;
        (
            self.at.0 - 1,
            self.at.1 - 1,
            self.at.0 + w + 1,
            self.at.1 + h + 1,
        )
    }

    fn middle(&self) -> (i64, i64) {
        let (x0, y0, x1, y1) = self.area();
        ((x0 + x1) / 2, (y0 + y1) / 2)
    }
}

/// The scene of `seed`, as a scenario file.
fn scene(seed: u64) -> String {
    let mut rng = Rng(seed);
    let (w, h) = (rng.range(5, 9) * 8, rng.range(4, 7) * 8);
    let mut map = vec![vec!['.'; w as usize]; h as usize];
    let fill = |map: &mut Vec<Vec<char>>, x0: i64, y0: i64, x1: i64, y1: i64, c: char| {
        for y in y0.max(0)..=y1.min(h - 1) {
            for x in x0.max(0)..=x1.min(w - 1) {
                map[y as usize][x as usize] = c;
            }
        }
    };
    for _ in 0..rng.range(0, 14) {
        let (x, y) = (rng.range(0, w - 1), rng.range(0, h - 1));
        let (cw, ch) = (rng.range(0, 3), rng.range(0, 3));
        fill(&mut map, x, y, x + cw, y + ch, 'T');
    }
    if rng.chance(3) {
        // A tree line across the map with gaps in it.
        let x = w / 2 + rng.range(-4, 4);
        fill(&mut map, x, 0, x + rng.range(0, 1), h - 1, 'T');
        for _ in 0..rng.range(1, 3) {
            let y = rng.range(1, h - 4);
            fill(&mut map, x - 1, y, x + 2, y + rng.range(0, 2), '.');
        }
    }
    if rng.chance(4) {
        let (x, y) = (rng.range(w / 4, w / 2), rng.range(h / 4, h / 2));
        fill(
            &mut map,
            x,
            y,
            x + rng.range(2, 6),
            y + rng.range(2, 5),
            '~',
        );
    }
    let players = rng.range(2, 4);
    let groups: Vec<Group> = (0..rng.range(2, 4))
        .map(|_| {
            let kind = rng.range(0, KINDS.len() as i64 - 1) as usize;
            let count = rng.range(1, 60);
            let columns = ((count as f64).sqrt().ceil() as i64 + rng.range(-2, 3)).max(1);
            let least = 2.0 * KINDS[kind].1 + 0.1;
            let spacing = (least.max(rng.range(5, 12) as f64 / 10.0) * 10.0).round() / 10.0;
            let side = rng.range(0, 3);
            let (mx, my) = (rng.range(2, w / 4), rng.range(2, h / 3));
            let at = match side {
                0 => (mx, my),
                1 => (w - 1 - w / 4 - 2 + rng.range(0, 2), my),
                2 => (mx, h - 1 - h / 3),
                _ => (w - 1 - w / 4, h - 1 - h / 3),
            };
            Group {
                kind,
                owner: rng.range(0, players - 1),
                at,
                count,
                columns,
                spacing,
                to: (0, 0),
                formation: rng.chance(3),
                tick: if rng.chance(2) { 0 } else { rng.range(0, 120) },
            }
        })
        .collect();
    // Each is sent to where the next one stands (through it, as it comes the other way), or to a
    // point of its own.
    let n = groups.len();
    let mut groups = groups;
    for i in 0..n {
        groups[i].to = if rng.chance(4) {
            (rng.range(1, w - 2), rng.range(1, h - 2))
        } else {
            groups[(i + 1) % n].middle()
        };
    }
    for g in &groups {
        let (x0, y0, x1, y1) = g.area();
        fill(&mut map, x0, y0, x1, y1, '.');
        fill(
            &mut map,
            g.to.0 - 1,
            g.to.1 - 1,
            g.to.0 + 1,
            g.to.1 + 1,
            '.',
        );
    }
    // Blocks that overlap: the later one moves along until it does not.
    let mut placed: Vec<(i64, i64, i64, i64)> = Vec::new();
    let mut keep: Vec<&Group> = Vec::new();
    for g in &groups {
        let a = g.area();
        let (x1, y1) = (a.2, a.3);
        let clear = placed
            .iter()
            .all(|p| a.2 < p.0 || p.2 < a.0 || a.3 < p.1 || p.3 < a.1);
        if clear && x1 < w && y1 < h {
            placed.push(a);
            keep.push(g);
        }
    }

    let slowest = keep
        .iter()
        .map(|g| KINDS[g.kind].2)
        .fold(f64::MAX, f64::min);
    let longest = keep
        .iter()
        .map(|g| {
            let (x, y) = g.middle();
            (((g.to.0 - x).pow(2) + (g.to.1 - y).pow(2)) as f64).sqrt()
        })
        .fold(0.0, f64::max);
    // Time to walk the longest way three times over at the slowest pace, and a second for each
    // unit (a block funnelling through a gap a body wide passes one at a time).
    let units: i64 = keep.iter().map(|g| g.count).sum();
    let ticks = ((longest * 3.0 / slowest + 40.0 + units as f64) * 62.5) as i64 + 120;

    let mut toml = String::new();
    let _ = writeln!(toml, "# crowd_soak seed {seed}");
    let _ = writeln!(
        toml,
        "name = \"soak_{seed}\"\nticks = {ticks}\n\n[map]\nascii = \"\"\""
    );
    for row in &map {
        let _ = writeln!(toml, "{}", row.iter().collect::<String>());
    }
    let _ = writeln!(toml, "\"\"\"\n");
    for p in 0..players {
        let _ = writeln!(toml, "[[players]]\nname = \"p{p}\"\n");
    }
    for (i, g) in keep.iter().enumerate() {
        let _ = writeln!(
            toml,
            "[[units]]\nkind = \"{}\"\nowner = {}\nat = [{}, {}]\ncount = {}\ncolumns = {}\nspacing = \"{:.1}\"\nname = \"g{i}\"\n",
            KINDS[g.kind].0, g.owner, g.at.0, g.at.1, g.count, g.columns, g.spacing
        );
    }
    for (i, g) in keep.iter().enumerate() {
        let _ = writeln!(
            toml,
            "[[commands]]\ntick = {}\nplayer = {}\ndo = \"{}\"\nunits = [\"g{i}\"]\nto = [{}, {}]\n",
            g.tick,
            g.owner,
            if g.formation { "formation_move" } else { "move" },
            g.to.0,
            g.to.1
        );
    }
    toml
}

/// What went wrong in the scene, if anything.
fn judge(watch: &WatchReport, world: &World) -> Vec<String> {
    let mut wrong = Vec::new();
    for s in watch.stalled.iter().filter(|s| !s.waiting) {
        wrong.push(format!(
            "#{} stalled {} ticks since tick {}",
            s.unit.0, s.ticks, s.since
        ));
    }
    for c in &watch.in_closed_ground {
        wrong.push(format!("over closed ground: {c:?}"));
    }
    for u in &world.state.units {
        if u.hit_points > 0 && !matches!(u.order, Order::Idle | Order::Hold) {
            wrong.push(format!(
                "#{} still {:?} at {:?}",
                u.id.0, u.state, u.position
            ));
        }
    }
    wrong
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_crowds_all_get_where_they_were_sent() {
    let first = env_u64("COHORT_SOAK_FIRST", 1);
    let seeds = env_u64("COHORT_SOAK_SEEDS", DEFAULT_SEEDS);
    let mut failed = Vec::new();
    for seed in first..first + seeds {
        let text = scene(seed);
        let name = format!("soak_{seed}");
        let none =
            |n: &str, _most: usize| -> Result<Vec<u8>, String> { Err(format!("{n}: no files")) };
        let scenario = Scenario::from_bytes(text.as_bytes(), &name, &none, None)
            .unwrap_or_else(|e| panic!("seed {seed}: the scene loads: {e}\n{text}"));
        let ticks = scenario.ticks;
        let mut runner = Runner::new(scenario);
        runner.run(ticks, |_| {});
        let watch = runner.report().watch;
        let wrong = judge(&watch, &runner.world);
        if !wrong.is_empty() {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/crowd-soak");
            let _ = std::fs::create_dir_all(&dir);
            let file = dir.join(format!("seed_{seed}.toml"));
            let _ = std::fs::write(&file, &text);
            failed.push(format!(
                "seed {seed} ({}, {} units): {} ({} in all)",
                file.display(),
                runner.world.state.units.len(),
                wrong[..wrong.len().min(3)].join("; "),
                wrong.len()
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {seeds} scenes went wrong:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
