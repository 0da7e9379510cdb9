//! Moving AI benchmark `.map` files (../shared/data/movingai/README.md; docs/MAPS.md):
//! a header (`type octile`, `height H`, `width W`, `map`) and H rows of W characters.
//!
//! `.` and `G` are grass; `@` and `O` (out of bounds) are cliff; `T` is a tree on forest ground;
//! `S` (swamp, passable) is shallows; `W` is deep water. Line ends may be `\n` or `\r\n`.

use super::{Layout, MapError};
use crate::position::Tile;
use crate::ruleset::Ruleset;

/// Reads a Moving AI `.map` file under a ruleset with the default terrains.
pub fn parse_movingai(text: &str, rules: &Ruleset) -> Result<Layout, MapError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let mut width = None;
    let mut height = None;
    let mut saw_map = false;
    for (no, line) in lines.by_ref() {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("type"), _) => {}
            (Some("height"), Some(v)) => height = Some(number(v, no, "height")?),
            (Some("width"), Some(v)) => width = Some(number(v, no, "width")?),
            (Some("map"), None) => {
                saw_map = true;
                break;
            }
            (None, _) => {}
            _ => {
                return Err(MapError::new(
                    no,
                    1,
                    format!("unexpected header line `{line}`; expected type, height, width, map"),
                ))
            }
        }
    }
    let (Some(w), Some(h), true) = (width, height, saw_map) else {
        return Err(MapError::new(
            1,
            1,
            "the header must give `height`, `width` and end with `map`",
        ));
    };
    let (wi, hi) = Layout::check_size(w, h).map_err(|m| MapError::new(1, 1, m))?;
    let name = |n: &str| {
        rules
            .terrain(n)
            .ok_or_else(|| MapError::new(1, 1, format!("the ruleset lacks terrain `{n}`")))
    };
    let (grass, cliff, forest, shallows, deep) = (
        name("grass")?,
        name("cliff")?,
        name("forest")?,
        name("shallows")?,
        name("deep_water")?,
    );
    let tree = rules
        .resource_kind("tree")
        .ok_or_else(|| MapError::new(1, 1, "the ruleset lacks resource `tree`"))?;
    let mut layout = Layout {
        width: wi,
        height: hi,
        terrain: Vec::with_capacity(w * h),
        resources: Vec::new(),
    };
    let mut last_no = 0;
    for y in 0..h {
        let Some((no, row)) = lines.next() else {
            return Err(MapError::new(
                last_no + 1,
                1,
                format!("the map has {y} rows; the header says {h}"),
            ));
        };
        last_no = no;
        let n = row.chars().count();
        if n != w {
            return Err(MapError::new(
                no,
                n.min(w) + 1,
                format!("row {} is {n} tiles wide; the header says {w}", y + 1),
            ));
        }
        for (x, c) in row.chars().enumerate() {
            let t = match c {
                '.' | 'G' => grass,
                '@' | 'O' => cliff,
                'T' => {
                    layout.resources.push((Tile::new(x as i32, y as i32), tree));
                    forest
                }
                'S' => shallows,
                'W' => deep,
                _ => {
                    return Err(MapError::new(
                        no,
                        x + 1,
                        format!("`{c}` is not a Moving AI map character (. G @ O T S W)"),
                    ))
                }
            };
            layout.terrain.push(t);
        }
    }
    Ok(layout)
}

fn number(v: &str, line: usize, what: &str) -> Result<usize, MapError> {
    v.parse()
        .map_err(|_| MapError::new(line, 1, format!("`{v}` is not a {what}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_small_map_with_crlf() {
        let rules = Ruleset::default_rules();
        let text = "type octile\r\nheight 2\r\nwidth 3\r\nmap\r\n.@T\r\nSW.";
        let map = parse_movingai(text, &rules).unwrap();
        assert_eq!((map.width, map.height), (3, 2));
        assert_eq!(map.terrain[1], rules.terrain("cliff").unwrap());
        assert_eq!(map.resources.len(), 1);
        assert_eq!(map.terrain[4], rules.terrain("deep_water").unwrap());
    }

    #[test]
    fn short_maps_and_bad_characters_are_errors() {
        let rules = Ruleset::default_rules();
        let e =
            parse_movingai("type octile\nheight 3\nwidth 2\nmap\n..\n..\n", &rules).unwrap_err();
        assert!(e.message.contains("2 rows"), "{e}");
        let e = parse_movingai("type octile\nheight 1\nwidth 2\nmap\n.x\n", &rules).unwrap_err();
        assert_eq!((e.line, e.column), (5, 2));
    }
}
