//! Moving AI Lab grid benchmarks: `.map` files and their `.map.scen` scenario files
//! (Sturtevant, "Benchmarks for Grid-Based Pathfinding", 2012; the format is described in
//! `../shared/data/movingai/README.md`).
//!
//! A `.map` is a header (`type octile`, `height H`, `width W`, `map`) and `H` rows of exactly `W`
//! characters: `.` `G` `S` are passable, `@` `O` `T` `W` are not (water cannot be entered from
//! the ground). On a [`Grid`] the passable cells are grass, water is deep water and the rest is
//! cliff, so land movers (layer 0) see exactly the benchmark's passable cells, and the closed ones
//! are terrain — what landmarks measure. A `.scen` is a `version` line, then one problem a line:
//! bucket, map, width, height, start x, start y, goal x, goal y, optimal length (any whitespace
//! between fields). Line endings may be LF or CRLF. Malformed files are refused with the line and
//! what is wrong, never a panic.

use crate::grid::{Grid, MAX_MAP_SIDE};
use crate::position::{Fx, Tile};
use crate::ruleset::{parse_decimal, Ruleset};

/// Why a Moving AI file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MovingAiError {
    /// The `.map` header is missing a line or has a wrong one.
    #[error("line {line}: {what}")]
    Header { line: usize, what: String },
    /// The map's rows do not match its declared size, or hold an unknown character.
    #[error("line {line}: {what}")]
    Row { line: usize, what: String },
    /// A scenario line is malformed.
    #[error("scenario line {line}: {what}")]
    Scenario { line: usize, what: String },
    /// The ruleset has no terrain a Moving AI cell maps to.
    #[error("the ruleset has no `{0}` terrain for Moving AI maps")]
    Terrain(&'static str),
}

/// A Moving AI `.map`: its size and its cells, row by row (`cells[y * width + x]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovingAiMap {
    pub width: i32,
    pub height: i32,
    cells: Vec<u8>,
}

/// What a Moving AI cell is, for a ground mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// `.`, `G` or `S`.
    Passable,
    /// `W`: water, not passable from the ground.
    Water,
    /// `@`, `O` (out of bounds) or `T` (trees).
    Blocked,
}

impl Cell {
    fn of(c: u8) -> Option<Cell> {
        match c {
            b'.' | b'G' | b'S' => Some(Cell::Passable),
            b'W' => Some(Cell::Water),
            b'@' | b'O' | b'T' => Some(Cell::Blocked),
            _ => None,
        }
    }
}

impl MovingAiMap {
    /// Parses a `.map` file's text.
    pub fn parse(text: &str) -> Result<MovingAiMap, MovingAiError> {
        let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
        let mut n = 0usize;
        let mut header = |want: &str| -> Result<String, MovingAiError> {
            n += 1;
            let line = lines.next().ok_or_else(|| MovingAiError::Header {
                line: n,
                what: format!("the file ends before `{want}`"),
            })?;
            let mut words = line.split_whitespace();
            if words.next() != Some(want) {
                return Err(MovingAiError::Header {
                    line: n,
                    what: format!("expected `{want}`, found `{line}`"),
                });
            }
            Ok(words.collect::<Vec<_>>().join(" "))
        };
        let kind = header("type")?;
        if kind != "octile" {
            return Err(MovingAiError::Header {
                line: 1,
                what: format!("map type `{kind}` is not `octile`"),
            });
        }
        let height = side(&header("height")?, 2, "height")?;
        let width = side(&header("width")?, 3, "width")?;
        header("map")?;
        let mut cells = Vec::with_capacity((width * height) as usize);
        let mut rest: Vec<&str> = lines.collect();
        while rest.last().is_some_and(|l| l.trim().is_empty()) {
            rest.pop();
        }
        let mut rows = 0i32;
        for (k, line) in rest.into_iter().enumerate() {
            let at = k + 5;
            if rows == height {
                return Err(MovingAiError::Row {
                    line: at,
                    what: format!("more than the declared {height} rows"),
                });
            }
            if line.len() != width as usize {
                return Err(MovingAiError::Row {
                    line: at,
                    what: format!("row is {} characters, the width is {width}", line.len()),
                });
            }
            for (x, c) in line.bytes().enumerate() {
                if Cell::of(c).is_none() {
                    return Err(MovingAiError::Row {
                        line: at,
                        what: format!("unknown cell `{}` at x = {x}", char::from(c)),
                    });
                }
            }
            cells.extend_from_slice(line.as_bytes());
            rows += 1;
        }
        if rows != height {
            return Err(MovingAiError::Row {
                line: rows as usize + 5,
                what: format!("{rows} rows, the height is {height}"),
            });
        }
        Ok(MovingAiMap {
            width,
            height,
            cells,
        })
    }

    /// The cell at (`x`, `y`), or `None` off the map.
    pub fn cell(&self, x: i32, y: i32) -> Option<Cell> {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            return None;
        }
        Cell::of(self.cells[(y * self.width + x) as usize])
    }

    /// Whether a ground mover may stand on (`x`, `y`); off the map is not passable.
    pub fn passable(&self, x: i32, y: i32) -> bool {
        self.cell(x, y) == Some(Cell::Passable)
    }

    /// The map as a grid of `rules`' terrains: passable cells grass, water deep water, the rest
    /// cliff. Land movers (layer 0) may cross exactly the passable cells.
    pub fn to_grid(&self, rules: &Ruleset) -> Result<Grid, MovingAiError> {
        let terrain = |name: &'static str| rules.terrain(name).ok_or(MovingAiError::Terrain(name));
        let (grass, water, cliff) = (terrain("grass")?, terrain("deep_water")?, terrain("cliff")?);
        let mut grid = Grid::new(rules, self.width, self.height, grass);
        for y in 0..self.height {
            for x in 0..self.width {
                match self.cell(x, y) {
                    Some(Cell::Passable) => {}
                    Some(Cell::Water) => grid.set_terrain(Tile::new(x, y), water),
                    _ => grid.set_terrain(Tile::new(x, y), cliff),
                }
            }
        }
        Ok(grid)
    }
}

/// One problem of a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Its line in the file, the `version` line being line 1.
    pub line: usize,
    /// The bucket: `floor(optimal / 4)`.
    pub bucket: u32,
    /// The map's path as written; its file name is the `.map` beside the scenario file.
    pub map: String,
    pub width: i32,
    pub height: i32,
    pub start: Tile,
    pub goal: Tile,
    /// The optimal length (straight steps 1, diagonal steps √2), as printed.
    pub optimal: Fx,
}

impl Scenario {
    /// Whether both ends are on passable cells of `map` (a few wc3 problems are not).
    pub fn fits(&self, map: &MovingAiMap) -> bool {
        self.width == map.width
            && self.height == map.height
            && map.passable(self.start.x, self.start.y)
            && map.passable(self.goal.x, self.goal.y)
    }
}

/// Parses a `.map.scen` file's text: every problem, in file order.
pub fn parse_scenarios(text: &str) -> Result<Vec<Scenario>, MovingAiError> {
    let mut out = Vec::new();
    let mut lines = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate();
    match lines.next() {
        Some((_, l)) if l.split_whitespace().next() == Some("version") => {}
        Some((_, l)) => {
            return Err(MovingAiError::Scenario {
                line: 1,
                what: format!("expected a `version` line, found `{l}`"),
            })
        }
        None => unreachable!("split yields at least one line"),
    }
    for (k, line) in lines {
        let at = k + 1;
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = |what: String| MovingAiError::Scenario { line: at, what };
        if f.len() != 9 {
            return Err(bad(format!("{} fields, expected 9", f.len())));
        }
        let int = |i: usize, name: &str| -> Result<i32, MovingAiError> {
            f[i].parse::<i32>()
                .ok()
                .filter(|v| (0..=MAX_MAP_SIDE).contains(v))
                .ok_or_else(|| bad(format!("{name} `{}` is not a whole number 0..=2048", f[i])))
        };
        let (width, height) = (int(2, "width")?, int(3, "height")?);
        let start = Tile::new(int(4, "start x")?, int(5, "start y")?);
        let goal = Tile::new(int(6, "goal x")?, int(7, "goal y")?);
        for (what, t) in [("start", start), ("goal", goal)] {
            if t.x >= width || t.y >= height {
                return Err(bad(format!("{what} ({}, {}) is off the map", t.x, t.y)));
            }
        }
        let optimal = parse_decimal(f[8])
            .ok()
            .filter(|v| *v >= Fx::ZERO)
            .ok_or_else(|| bad(format!("optimal length `{}` is not a number", f[8])))?;
        out.push(Scenario {
            line: at,
            bucket: f[0]
                .parse()
                .map_err(|_| bad(format!("bucket `{}` is not a whole number", f[0])))?,
            map: f[1].to_string(),
            width,
            height,
            start,
            goal,
            optimal,
        });
    }
    Ok(out)
}

fn side(v: &str, line: usize, name: &str) -> Result<i32, MovingAiError> {
    v.parse::<i32>()
        .ok()
        .filter(|s| (1..=MAX_MAP_SIDE).contains(s))
        .ok_or_else(|| MovingAiError::Header {
            line,
            what: format!("{name} `{v}` is not a whole number 1..=2048"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Keyed;
    use crate::position::fx_ratio;

    const SMALL: &str = "type octile\nheight 3\nwidth 4\nmap\n.@..\nT.W.\n..GS\n";

    #[test]
    fn a_small_map_reads_and_becomes_a_grid() {
        let m = MovingAiMap::parse(SMALL).unwrap();
        assert_eq!((m.width, m.height), (4, 3));
        assert!(m.passable(0, 0) && !m.passable(1, 0) && !m.passable(0, 1));
        assert_eq!(m.cell(2, 1), Some(Cell::Water));
        assert!(m.passable(3, 2) && m.passable(2, 2) && !m.passable(4, 0));
        let rules = Ruleset::default_rules();
        let g = m.to_grid(&rules).unwrap();
        let land = Keyed::unkeyed(0);
        for y in 0..3 {
            for x in 0..4 {
                assert_eq!(
                    g.passable(land, Tile::new(x, y)),
                    m.passable(x, y),
                    "{x},{y}"
                );
            }
        }
    }

    #[test]
    fn crlf_lines_and_a_missing_last_newline_are_read() {
        let text = "type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n..\r\n.@";
        let m = MovingAiMap::parse(text).unwrap();
        assert!(!m.passable(1, 1) && m.passable(0, 1));
    }

    #[test]
    fn malformed_maps_are_refused_with_the_line() {
        let cases = [
            (
                "type octile\nheight 2\nwidth 2\n..\n..\n",
                4,
                "expected `map`",
            ),
            (
                "type hex\nheight 2\nwidth 2\nmap\n..\n..\n",
                1,
                "not `octile`",
            ),
            ("type octile\nheight x\nwidth 2\nmap\n..\n", 2, "height `x`"),
            (
                "type octile\nheight 2\nwidth 2\nmap\n..\n...\n",
                6,
                "3 characters",
            ),
            (
                "type octile\nheight 2\nwidth 2\nmap\n..\n.x\n",
                6,
                "unknown cell `x`",
            ),
            ("type octile\nheight 3\nwidth 2\nmap\n..\n..\n", 7, "2 rows"),
            (
                "type octile\nheight 1\nwidth 2\nmap\n..\n..\n",
                6,
                "more than",
            ),
            ("", 1, "expected `type`"),
            ("type octile\nheight 2", 3, "ends before"),
        ];
        for (text, line, what) in cases {
            let e = MovingAiMap::parse(text).unwrap_err();
            let shown = e.to_string();
            assert!(shown.starts_with(&format!("line {line}:")), "{shown}");
            assert!(shown.contains(what), "{shown}");
        }
    }

    #[test]
    fn both_scenario_dialects_read() {
        let text = "version 1\n0\tmaps/a.map\t4\t3\t0\t0\t3\t2\t3.41421356\n\
                    version 1.0 trailing\n";
        // A `version` line in the middle is a malformed problem.
        assert!(parse_scenarios(text).is_err());
        let text = "version 1.0\r\n2 maps/bgmaps/a.map 4 3 0 0 3 2 3.41\r\n\r\n";
        let s = parse_scenarios(text).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].line, s[0].bucket, s[0].map.as_str()),
            (2, 2, "maps/bgmaps/a.map")
        );
        assert_eq!((s[0].start, s[0].goal), (Tile::new(0, 0), Tile::new(3, 2)));
        assert_eq!(s[0].optimal, parse_decimal("3.41").unwrap());
        assert!(s[0].optimal > fx_ratio(34, 10));
        let m = MovingAiMap::parse(SMALL).unwrap();
        assert!(s[0].fits(&m));
    }

    #[test]
    fn malformed_scenarios_are_refused_with_the_line() {
        let cases = [
            ("0 a.map 4 3 0 0 3 2 1\n", 1, "`version`"),
            ("version 1\n0 a.map 4 3 0 0 3 2\n", 2, "8 fields"),
            ("version 1\n0 a.map 4 3 0 -1 3 2 1\n", 2, "start y"),
            ("version 1\n\n0 a.map 4 3 0 0 4 2 1\n", 3, "off the map"),
            ("version 1\n0 a.map 4 3 0 0 3 2 long\n", 2, "optimal length"),
            ("version 1\nb a.map 4 3 0 0 3 2 1\n", 2, "bucket"),
        ];
        for (text, line, what) in cases {
            let shown = parse_scenarios(text).unwrap_err().to_string();
            assert!(
                shown.starts_with(&format!("scenario line {line}:")),
                "{shown}"
            );
            assert!(shown.contains(what), "{shown}");
        }
    }
}
