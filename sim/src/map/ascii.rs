//! The ASCII map format (docs/MAPS.md): one character per tile, one line per row, top row first.
//!
//! Each character names a terrain and, optionally, a resource standing on it (a tree, a mine, a
//! bush). The default legend ([`DEFAULT_LEGEND`]) covers the default ruleset; a scenario may add
//! or replace characters. Every row must be as wide as the first.

use super::{Layout, MapError};
use crate::position::Tile;
use crate::ruleset::Ruleset;
use crate::world::World;

/// What a character stands for: a terrain, and perhaps a resource on it (names as in the ruleset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegendEntry {
    pub terrain: String,
    pub resource: Option<String>,
}

/// The default legend: character, terrain, resource.
pub const DEFAULT_LEGEND: [(char, &str, Option<&str>); 11] = [
    ('.', "grass", None),
    ('f', "forest", None),
    ('T', "forest", Some("tree")),
    ('-', "shallows", None),
    ('~', "deep_water", None),
    (':', "beach", None),
    ('#', "cliff", None),
    ('G', "grass", Some("gold_mine")),
    ('S', "grass", Some("stone_mine")),
    ('B', "grass", Some("berry_bush")),
    (',', "beach", None),
];

/// A legend: characters and what they stand for. Later entries replace earlier ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Legend(pub Vec<(char, LegendEntry)>);

impl Default for Legend {
    fn default() -> Legend {
        Legend(
            DEFAULT_LEGEND
                .iter()
                .map(|&(c, t, r)| {
                    (
                        c,
                        LegendEntry {
                            terrain: t.to_string(),
                            resource: r.map(str::to_string),
                        },
                    )
                })
                .collect(),
        )
    }
}

impl Legend {
    /// Adds (or replaces) a character.
    pub fn set(&mut self, c: char, entry: LegendEntry) {
        self.0.retain(|(k, _)| *k != c);
        self.0.push((c, entry));
    }

    fn get(&self, c: char) -> Option<&LegendEntry> {
        self.0.iter().rev().find(|(k, _)| *k == c).map(|(_, e)| e)
    }
}

/// Reads an ASCII map. Leading and trailing blank lines are dropped, and so is trailing
/// whitespace on each line; a `\r` before a line end is ignored.
pub fn parse_ascii(text: &str, rules: &Ruleset, legend: &Legend) -> Result<Layout, MapError> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end()))
        .collect();
    let first = lines.iter().position(|(_, l)| !l.is_empty());
    let last = lines.iter().rposition(|(_, l)| !l.is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Err(MapError::new(1, 1, "the map is empty"));
    };
    let rows = &lines[first..=last];
    let width = rows[0].1.chars().count();
    let (w, h) =
        Layout::check_size(width, rows.len()).map_err(|m| MapError::new(rows[0].0, 1, m))?;
    let mut layout = Layout {
        width: w,
        height: h,
        terrain: Vec::with_capacity(width * rows.len()),
        resources: Vec::new(),
    };
    // Characters resolved once each against the ruleset.
    let mut resolved: Vec<(char, u8, Option<u16>)> = Vec::new();
    for (y, (line_no, row)) in rows.iter().enumerate() {
        let n = row.chars().count();
        if n != width {
            return Err(MapError::new(
                *line_no,
                n.min(width) + 1,
                format!("row {} is {n} tiles wide; the first row is {width}", y + 1),
            ));
        }
        for (x, c) in row.chars().enumerate() {
            let (terrain, resource) = match resolved.iter().find(|r| r.0 == c) {
                Some(&(_, t, r)) => (t, r),
                None => {
                    let (t, r) =
                        resolve(c, rules, legend).map_err(|m| MapError::new(*line_no, x + 1, m))?;
                    resolved.push((c, t, r));
                    (t, r)
                }
            };
            layout.terrain.push(terrain);
            if let Some(r) = resource {
                layout.resources.push((Tile::new(x as i32, y as i32), r));
            }
        }
    }
    Ok(layout)
}

fn resolve(c: char, rules: &Ruleset, legend: &Legend) -> Result<(u8, Option<u16>), String> {
    let entry = legend
        .get(c)
        .ok_or_else(|| format!("`{c}` is not in the map's legend"))?;
    let terrain = rules.terrain(&entry.terrain).ok_or_else(|| {
        format!(
            "`{c}` stands for terrain `{}`, which the ruleset lacks",
            entry.terrain
        )
    })?;
    let resource = match &entry.resource {
        Some(name) => Some(rules.resource_kind(name).ok_or_else(|| {
            format!("`{c}` stands for resource `{name}`, which the ruleset lacks")
        })?),
        None => None,
    };
    Ok((terrain, resource))
}

/// Draws a world's ground in the default legend: terrain, with trees, mines and bushes over it
/// (`?` for a terrain or resource the legend lacks), buildings as `@`. For tests and debugging.
pub fn to_ascii(world: &World) -> String {
    let rules = world.rules();
    let grid = world.grid();
    let legend = Legend::default();
    let char_of = |terrain: &str, resource: Option<&str>| {
        legend
            .0
            .iter()
            .find(|(_, e)| e.terrain == terrain && e.resource.as_deref() == resource)
            .or_else(|| {
                // A resource on a terrain the legend does not pair it with: show the resource.
                resource.and_then(|r| {
                    legend
                        .0
                        .iter()
                        .find(|(_, e)| e.resource.as_deref() == Some(r))
                })
            })
            .map(|(c, _)| *c)
            .unwrap_or('?')
    };
    let mut out = String::new();
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let t = Tile::new(x, y);
            let terrain = &rules.terrains[grid.terrain(t).unwrap_or(0) as usize].name;
            let c = match grid.occupant(t) {
                crate::grid::Occupant::Resource(id) => {
                    let kind = world.resource(id).map(|r| r.kind as usize);
                    char_of(terrain, kind.map(|k| rules.resources[k].name.as_str()))
                }
                crate::grid::Occupant::Building(_) | crate::grid::Occupant::Gate { .. } => '@',
                crate::grid::Occupant::Nothing => char_of(terrain, None),
            };
            out.push(c);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_terrain_and_resources_in_reading_order() {
        let rules = Ruleset::default_rules();
        let map = parse_ascii("\n..T\n~G.\n", &rules, &Legend::default()).unwrap();
        assert_eq!((map.width, map.height), (3, 2));
        assert_eq!(map.terrain[3], rules.terrain("deep_water").unwrap());
        assert_eq!(map.terrain[2], rules.terrain("forest").unwrap());
        let tree = rules.resource_kind("tree").unwrap();
        let gold = rules.resource_kind("gold_mine").unwrap();
        assert_eq!(
            map.resources,
            vec![(Tile::new(2, 0), tree), (Tile::new(1, 1), gold)]
        );
    }

    #[test]
    fn ragged_rows_and_unknown_characters_name_line_and_column() {
        let rules = Ruleset::default_rules();
        let e = parse_ascii("...\n..\n", &rules, &Legend::default()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        let e = parse_ascii("...\n.x.\n", &rules, &Legend::default()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 2));
        assert!(e.message.contains("`x`"), "{e}");
    }

    #[test]
    fn round_trips_through_to_ascii() {
        let rules = std::sync::Arc::new(Ruleset::default_rules());
        let text = "..T.\n~~G.\n:-SB\n#f..\n";
        let map = parse_ascii(text, &rules, &Legend::default()).unwrap();
        let world = map.into_world(rules, vec![], 1).unwrap();
        assert_eq!(to_ascii(&world), text);
    }
}
