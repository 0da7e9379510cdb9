//! The soak's fields: a small ASCII map (40 to 72 tiles by 32 to 56) — an open field, clumps of
//! trees, sometimes a tree line across it with gaps, sometimes a pond — with two to four groups
//! of any land kind, of 1 to 60 units, of up to four players, each sent with `move` or
//! `formation_move` to where the next group stands (through it, as it comes the other way) or
//! to a point of its own. The soak's first scenes, seed for seed (they were
//! `sim/tests/crowd_soak.rs`'s, laid out in floating point; here in integers).

use super::text::{self, Block, Extra, Order};
use super::{figures, scene_ticks, square_columns, Layout, Rng, LAND_KINDS as KINDS};
use crate::ruleset::Ruleset;
use std::fmt::Write;

/// A grid of map characters.
struct Canvas {
    w: i64,
    h: i64,
    cells: Vec<u8>,
}

impl Canvas {
    fn new(w: i64, h: i64) -> Canvas {
        Canvas {
            w,
            h,
            cells: vec![b'.'; usize::try_from(w * h).unwrap_or(0)],
        }
    }

    /// Sets every tile from (x0, y0) to (x1, y1), both included, that is on the map.
    fn fill(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: u8) {
        for y in y0.max(0)..=y1.min(self.h - 1) {
            for x in x0.max(0)..=x1.min(self.w - 1) {
                if let Ok(i) = usize::try_from(y * self.w + x) {
                    self.cells[i] = c;
                }
            }
        }
    }

    fn rows(&self) -> String {
        let mut out = String::new();
        for row in self.cells.chunks(usize::try_from(self.w).unwrap_or(1)) {
            out.push_str(&String::from_utf8_lossy(row));
            out.push('\n');
        }
        out
    }
}

/// One group: a block of units and where it is sent.
struct Group {
    kind: usize,
    owner: i64,
    block: Layout,
    to: (i64, i64),
    formation: bool,
    tick: i64,
}

/// The scene of `seed`, as a scenario file.
pub(super) fn scene(seed: u64) -> String {
    let rules = Ruleset::default_rules();
    let mut rng = Rng::new(seed);
    let (w, h) = (rng.range(5, 9) * 8, rng.range(4, 7) * 8);
    let mut map = Canvas::new(w, h);
    for _ in 0..rng.range(0, 14) {
        let (x, y) = (rng.range(0, w - 1), rng.range(0, h - 1));
        let (cw, ch) = (rng.range(0, 3), rng.range(0, 3));
        map.fill(x, y, x + cw, y + ch, b'T');
    }
    if rng.chance(3) {
        // A tree line across the map with gaps in it.
        let x = w / 2 + rng.range(-4, 4);
        let thick = rng.range(0, 1);
        map.fill(x, 0, x + thick, h - 1, b'T');
        for _ in 0..rng.range(1, 3) {
            let y = rng.range(1, h - 4);
            let tall = rng.range(0, 2);
            map.fill(x - 1, y, x + 2, y + tall, b'.');
        }
    }
    if rng.chance(4) {
        let (x, y) = (rng.range(w / 4, w / 2), rng.range(h / 4, h / 2));
        let (pw, ph) = (rng.range(2, 6), rng.range(2, 5));
        map.fill(x, y, x + pw, y + ph, b'~');
    }
    let players = rng.range(2, 4);
    let kinds = i64::try_from(KINDS.len()).unwrap_or(1);
    let mut groups: Vec<Group> = (0..rng.range(2, 4))
        .map(|_| {
            let kind = usize::try_from(rng.range(0, kinds - 1)).unwrap_or(0);
            let count = rng.range(1, 60);
            let columns = (square_columns(count) + rng.range(-2, 3)).max(1);
            let least = 2 * figures(&rules, KINDS[kind]).0 + 1;
            let spacing_tenths = least.max(rng.range(5, 12));
            let side = rng.range(0, 3);
            let (mx, my) = (rng.range(2, w / 4), rng.range(2, h / 3));
            let at = match side {
                0 => (mx, my),
                1 => (w - 1 - w / 4 - 2 + rng.range(0, 2), my),
                2 => (mx, h - 1 - h / 3),
                _ => (w - 1 - w / 4, h - 1 - h / 3),
            };
            let owner = rng.range(0, players - 1);
            let formation = rng.chance(3);
            let tick = if rng.chance(2) { 0 } else { rng.range(0, 120) };
            Group {
                kind,
                owner,
                block: Layout {
                    at,
                    count,
                    columns,
                    spacing_tenths,
                },
                to: (0, 0),
                formation,
                tick,
            }
        })
        .collect();
    // Each is sent to where the next one stands (through it, as it comes the other way), or to a
    // point of its own.
    let n = groups.len();
    for i in 0..n {
        groups[i].to = if rng.chance(4) {
            (rng.range(1, w - 2), rng.range(1, h - 2))
        } else {
            groups[(i + 1) % n].block.middle()
        };
    }
    for g in &groups {
        let (x0, y0, x1, y1) = g.block.area();
        map.fill(x0, y0, x1, y1, b'.');
        map.fill(g.to.0 - 1, g.to.1 - 1, g.to.0 + 1, g.to.1 + 1, b'.');
    }
    // Blocks that overlap one placed before, or reach off the map, are left out.
    let mut placed: Vec<(i64, i64, i64, i64)> = Vec::new();
    let mut keep: Vec<&Group> = Vec::new();
    for g in &groups {
        let a = g.block.area();
        let clear = placed
            .iter()
            .all(|p| a.2 < p.0 || p.2 < a.0 || a.3 < p.1 || p.3 < a.1);
        if clear && a.2 < w && a.3 < h {
            placed.push(a);
            keep.push(g);
        }
    }

    let slowest = keep
        .iter()
        .map(|g| figures(&rules, KINDS[g.kind]).1)
        .min()
        .unwrap_or(1000);
    let longest = keep
        .iter()
        .map(|g| {
            let (x, y) = g.block.middle();
            (g.to.0 - x).pow(2) + (g.to.1 - y).pow(2)
        })
        .max()
        .unwrap_or(0);
    // Time to walk the longest way three times over at the slowest pace, and 40 s and a second
    // for each unit (a block funnelling through a gap a body wide passes one at a time).
    let units: i64 = keep.iter().map(|g| g.block.count).sum();
    let ticks = scene_ticks(longest, slowest, 40 + units);

    let mut toml = String::new();
    text::header(&mut toml, seed, "fields", ticks);
    let _ = writeln!(toml, "[map]\nascii = \"\"\"\n{}\"\"\"\n", map.rows());
    for p in 0..players {
        let _ = writeln!(toml, "[[players]]\nname = \"p{p}\"\n");
    }
    let names: Vec<String> = (0..keep.len()).map(|i| format!("g{i}")).collect();
    for (g, name) in keep.iter().zip(&names) {
        text::block(
            &mut toml,
            &Block {
                kind: KINDS[g.kind],
                owner: g.owner,
                layout: g.block,
                name,
            },
        );
    }
    for (g, name) in keep.iter().zip(&names) {
        text::order(
            &mut toml,
            &Order {
                tick: g.tick,
                player: g.owner,
                action: if g.formation {
                    "formation_move"
                } else {
                    "move"
                },
                units: text::named(name),
                extra: Extra::To(g.to),
            },
        );
    }
    toml
}
