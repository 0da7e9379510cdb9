//! A scenario's map: generated, ASCII, or a map file (docs/SCENARIOS.md, "The map"), laid out
//! into a world with its players.

use super::{Loader, MAX_MAP_FILE_BYTES, MAX_PLAYERS};
use crate::id::PlayerId;
use crate::map::{self, Layout, Legend, LegendEntry, MapError, MapOptions};
use crate::ruleset::Ruleset;
use crate::scenario::error::{line_of, text_of, ScenarioError};
use crate::scenario::format::*;
use crate::state::Player;
use crate::world::World;
use std::sync::Arc;
use toml::Spanned;

impl Loader<'_> {
    pub(super) fn world(
        &mut self,
        file: &ScenarioFile,
        rules: Arc<Ruleset>,
    ) -> Result<World, ScenarioError> {
        let Some(map_spec) = &file.map else {
            // What is missing belongs to the top-level table: line 1.
            return Err(self.err(0, "map", "a scenario needs a `map` (or a `state`)"));
        };
        let spec = map_spec.get_ref();
        let map_at = map_spec.span().start;
        let Some(source) = spec.source() else {
            return Err(self.err(
                map_at,
                "map",
                "give exactly one of `ascii`, `file` or `generate`",
            ));
        };
        let too_many = |n: usize| n > MAX_PLAYERS;
        if too_many(file.players.len()) {
            return Err(self.err(
                file.players[MAX_PLAYERS].span().start,
                format!("players[{MAX_PLAYERS}]"),
                format!("at most {MAX_PLAYERS} players"),
            ));
        }
        let layout = match source {
            MapSource::Generate(g) => return self.generated(file, g, rules),
            MapSource::Ascii(ascii) => {
                let legend = self.legend(spec, &rules, map_at)?;
                let at = ascii.span().start;
                // A multi-line string's first line starts after its opening quotes and newline.
                let opens_on_own_line = self.text[at..].starts_with("\"\"\"\n")
                    || self.text[at..].starts_with("'''\n")
                    || self.text[at..].starts_with("\"\"\"\r\n")
                    || self.text[at..].starts_with("'''\r\n");
                let first_line = line_of(self.text, at) + usize::from(opens_on_own_line);
                map::parse_ascii(ascii.get_ref(), &rules, &legend).map_err(|e| {
                    ScenarioError::new(
                        self.origin,
                        first_line + e.line - 1,
                        "map.ascii",
                        format!("column {}: {}", e.column, e.message),
                    )
                })?
            }
            MapSource::File(name) => {
                let path = name.get_ref();
                let bytes =
                    self.named_file(name, "map.file", MAX_MAP_FILE_BYTES, "MAX_MAP_FILE_BYTES")?;
                let text = text_of(path, &bytes, MAX_MAP_FILE_BYTES, "MAX_MAP_FILE_BYTES")?;
                let map_err = |e: MapError| {
                    ScenarioError::new(
                        path,
                        e.line,
                        "",
                        format!("column {}: {}", e.column, e.message),
                    )
                };
                if path.ends_with(".map") {
                    Layout::from_movingai(text, &rules).map_err(map_err)?
                } else {
                    let legend = self.legend(spec, &rules, map_at)?;
                    map::parse_ascii(text, &rules, &legend).map_err(map_err)?
                }
            }
        };
        let players = self.players(file);
        self.on_layout(layout, rules, players, file.seed.unwrap_or(0), map_at)
    }

    /// The default map's generator under the file's players, teams and names.
    fn generated(
        &self,
        file: &ScenarioFile,
        g: &Spanned<GenerateSpec>,
        rules: Arc<Ruleset>,
    ) -> Result<World, ScenarioError> {
        let gs = g.get_ref();
        let defaults = MapOptions::default();
        let opts = MapOptions {
            seed: gs.seed.or(file.seed).unwrap_or(defaults.seed),
            size: gs.size.unwrap_or(defaults.size),
            players: gs.players.unwrap_or(defaults.players),
        };
        if !(map::MIN_PLAYERS..=map::MAX_PLAYERS).contains(&opts.players) {
            return Err(self.err(
                g.span().start,
                "map.generate.players",
                format!("{} to {} players", map::MIN_PLAYERS, map::MAX_PLAYERS),
            ));
        }
        if !(map::MIN_SIZE..=map::MAX_SIZE).contains(&opts.size) {
            return Err(self.err(
                g.span().start,
                "map.generate.size",
                format!("{} to {} tiles a side", map::MIN_SIZE, map::MAX_SIZE),
            ));
        }
        if file.players.len() > usize::from(opts.players) {
            return Err(self.err(
                file.players[usize::from(opts.players)].span().start,
                "players",
                format!("the generated map has {} players", opts.players),
            ));
        }
        let mut world = map::generate(rules, opts);
        for (i, p) in file.players.iter().enumerate() {
            let player = &mut world.state.players[i];
            if let Some(team) = p.get_ref().team {
                player.team = team;
            }
            if let Some(name) = &p.get_ref().name {
                player.name = name.clone();
            }
        }
        Ok(world)
    }

    pub(super) fn on_layout(
        &self,
        layout: Layout,
        rules: Arc<Ruleset>,
        players: Vec<Player>,
        seed: u64,
        map_at: usize,
    ) -> Result<World, ScenarioError> {
        layout
            .into_world(rules, players, seed)
            .map_err(|m| self.err(map_at, "map", m))
    }

    pub(super) fn legend(
        &self,
        spec: &MapSpec,
        rules: &Ruleset,
        map_at: usize,
    ) -> Result<Legend, ScenarioError> {
        let mut legend = Legend::default();
        for (k, v) in &spec.legend {
            let mut chars = k.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                return Err(self.err(
                    map_at,
                    format!("map.legend.{k}"),
                    "a legend key is one character",
                ));
            };
            let (terrain, resource) = match v.split_once('+') {
                Some((t, r)) => (t.trim(), Some(r.trim().to_string())),
                None => (v.trim(), None),
            };
            if rules.terrain(terrain).is_none() {
                return Err(self.err(
                    map_at,
                    format!("map.legend.{k}"),
                    format!("no terrain `{terrain}` in the ruleset"),
                ));
            }
            if let Some(r) = &resource {
                if rules.resource_kind(r).is_none() {
                    return Err(self.err(
                        map_at,
                        format!("map.legend.{k}"),
                        format!("no resource `{r}` in the ruleset"),
                    ));
                }
            }
            legend.set(
                c,
                LegendEntry {
                    terrain: terrain.to_string(),
                    resource,
                },
            );
        }
        Ok(legend)
    }

    /// The players: as listed, or else one per owner named (each its own team), at least one.
    pub(super) fn players(&self, file: &ScenarioFile) -> Vec<Player> {
        if !file.players.is_empty() {
            return file
                .players
                .iter()
                .zip(0..)
                .map(|(p, i): (_, PlayerId)| {
                    let spec = p.get_ref();
                    let mut player = Player::new(i, spec.team.unwrap_or(i));
                    if let Some(name) = &spec.name {
                        player.name = name.clone();
                    }
                    player
                })
                .collect();
        }
        let most = file
            .units
            .iter()
            .map(|u| u.get_ref().owner)
            .chain(file.buildings.iter().map(|b| b.get_ref().owner))
            .chain(file.commands.iter().map(|c| c.get_ref().player))
            .max()
            .unwrap_or(0)
            .min(MAX_PLAYERS as u8 - 1);
        (0..=most).map(|p| Player::new(p, p)).collect()
    }
}
