//! Loading a scenario file into a [`World`] and its schedule of commands.
//!
//! Entities are created in a fixed order, so their ids follow the file: the map's resources (in
//! reading order), then `[[resources]]`, `[[buildings]]` and `[[units]]` in the order written.

use super::error::{line_of, locate_field, text_of, ScenarioError};
use super::format::*;
use super::{DEFAULT_TICKS, DEFAULT_TURN_TICKS, MAX_TURN_TICKS};
use crate::command::{Command, PlayerCommand};
use crate::grid::{Keyed, Occupant};
use crate::id::{EntityId, PlayerId};
use crate::map::{self, Layout, Legend, LegendEntry, MapError, MapOptions};
use crate::position::{fx, Fx, Tile, Vec2};
use crate::ruleset::{Pair, Ruleset, RulesetError, MAX_RULESET_BYTES};
use crate::state::{Player, PlayerStatus};
use crate::world::{Snapshot, SnapshotError, World};
use std::sync::Arc;
use toml::Spanned;

/// The most units a scenario may create.
pub const MAX_SCENARIO_UNITS: u32 = 20_000;
/// The most players a match has (player ids 0 to 7).
pub const MAX_PLAYERS: usize = 8;
/// The largest scenario file, in bytes (an inline map of `MAX_MAP_SIDE` tiles a side fits).
pub const MAX_SCENARIO_BYTES: usize = 8 << 20;
/// The largest map file a scenario names, in bytes (a 2048 × 2048 map with CRLF line ends and
/// its header fits).
pub const MAX_MAP_FILE_BYTES: usize = 8 << 20;
/// The latest tick a scenario may run to or give a command at (`ticks`, `commands[].tick`):
/// about 44 hours of play at 16 ms a tick.
pub const MAX_SCENARIO_TICKS: u64 = 10_000_000;

/// Reads the files a scenario names (a map, a ruleset, or, for the self-checks, the scenario
/// itself), relative to the scenario.
pub trait Files {
    /// The bytes of `name`, or why it could not be read. A file of more than `most` bytes is
    /// refused whatever follows, so no more than `most` need ever be read (an endless file
    /// costs nothing).
    fn read(&self, name: &str, most: usize) -> Result<Vec<u8>, String>;

    /// The snapshot in file `name` (a scenario's `state`), or why it could not be had. The sim
    /// does not decode snapshot files (their bytes are the protocol crate's business), so by
    /// default none can be.
    fn snapshot(&self, name: &str) -> Result<Snapshot, String> {
        Err(format!(
            "cannot read the state `{name}`: snapshot files are read by `cohort sim` and \
             `cohort render`, not here"
        ))
    }
}

impl<F: Fn(&str, usize) -> Result<Vec<u8>, String>> Files for F {
    fn read(&self, name: &str, most: usize) -> Result<Vec<u8>, String> {
        self(name, most)
    }
}

/// For scenarios that name no other file.
pub struct NoFiles;

impl Files for NoFiles {
    fn read(&self, name: &str, _most: usize) -> Result<Vec<u8>, String> {
        Err(format!("cannot read `{name}`: no files are available here"))
    }
}

/// A command and the tick whose orders step carries it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    pub tick: u64,
    pub command: PlayerCommand,
}

/// A player's status change and the tick it comes before (that tick's orders step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledStatus {
    pub tick: u64,
    pub player: PlayerId,
    pub status: PlayerStatus,
}

/// A loaded scenario: the world at tick 0 and the commands to give, in tick order.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub world: World,
    /// Sorted by tick; commands of one tick keep the file's order.
    pub commands: Vec<Scheduled>,
    /// Players' status changes, sorted by tick (one tick's keep the file's order).
    pub statuses: Vec<ScheduledStatus>,
    pub turn_ticks: u32,
    /// Ticks to run when the caller does not say.
    pub ticks: u64,
    /// The entities each name in the file stands for (a block's units, a building, a
    /// rectangle of resources), in the order written.
    pub names: Vec<(String, Vec<EntityId>)>,
}

impl Scenario {
    /// Reads scenario file `name` through `files` and loads it ([`Scenario::from_bytes`]).
    pub fn read(
        files: &dyn Files,
        name: &str,
        rules: Option<Arc<Ruleset>>,
    ) -> Result<Scenario, ScenarioError> {
        let bytes = files
            .read(name, MAX_SCENARIO_BYTES + 1)
            .map_err(|m| ScenarioError::new(name, 0, "", m))?;
        Scenario::from_bytes(&bytes, name, files, rules)
    }

    /// Loads a scenario from its file's bytes: refused, naming the line, when larger than
    /// [`MAX_SCENARIO_BYTES`] or not UTF-8; then as [`Scenario::from_toml`].
    pub fn from_bytes(
        bytes: &[u8],
        origin: &str,
        files: &dyn Files,
        rules: Option<Arc<Ruleset>>,
    ) -> Result<Scenario, ScenarioError> {
        let text = text_of(origin, bytes, MAX_SCENARIO_BYTES, "MAX_SCENARIO_BYTES")?;
        Scenario::from_toml(text, origin, files, rules)
    }

    /// Loads a scenario from its text. `origin` names it in errors (and, without a `name`, is
    /// its name); `files` reads the map or ruleset it names; `rules` replaces the ruleset the
    /// file names. Any fault is a [`ScenarioError`] naming the file, line and field.
    pub fn from_toml(
        text: &str,
        origin: &str,
        files: &dyn Files,
        rules: Option<Arc<Ruleset>>,
    ) -> Result<Scenario, ScenarioError> {
        let file: ScenarioFile =
            toml::from_str(text).map_err(|e| ScenarioError::from_toml(origin, text, &e))?;
        Loader {
            text,
            origin,
            files,
            names: Vec::new(),
        }
        .load(file, rules)
    }
}

/// Named groups of entities (a block's units, a building, a rectangle of resources).
type Names = Vec<(String, Vec<EntityId>)>;

struct Loader<'a> {
    text: &'a str,
    origin: &'a str,
    files: &'a dyn Files,
    names: Names,
}

impl Loader<'_> {
    fn err(&self, at: usize, field: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.origin, line_of(self.text, at), field, msg)
    }

    fn load(
        &mut self,
        file: ScenarioFile,
        rules: Option<Arc<Ruleset>>,
    ) -> Result<Scenario, ScenarioError> {
        let rules = match (rules, &file.rules) {
            (Some(r), _) => r,
            (None, Some(name)) => Arc::new(self.ruleset(name)?),
            (None, None) => Arc::new(Ruleset::default_rules()),
        };
        let turn_ticks = match &file.turn_ticks {
            Some(t) if *t.get_ref() == 0 || *t.get_ref() > MAX_TURN_TICKS => {
                return Err(self.err(
                    t.span().start,
                    "turn_ticks",
                    format!("must be 1 to {MAX_TURN_TICKS}"),
                ))
            }
            Some(t) => *t.get_ref(),
            None => DEFAULT_TURN_TICKS,
        };
        let mut world = match &file.state {
            Some(state) => self.state(&file, state, rules.clone())?,
            None => self.world(&file, rules.clone())?,
        };
        for (i, r) in file.resources.iter().enumerate() {
            self.resource(&mut world, i, r)?;
        }
        for (i, b) in file.buildings.iter().enumerate() {
            self.building(&mut world, i, b)?;
        }
        let mut total = 0u64;
        for (i, u) in file.units.iter().enumerate() {
            let count = u.get_ref().count.as_ref();
            total += u64::from(count.map_or(1, |c| *c.get_ref()));
            if total > u64::from(MAX_SCENARIO_UNITS) {
                return Err(self.err(
                    count.map_or(u.span().start, |c| c.span().start),
                    format!("units[{i}].count"),
                    format!(
                        "{total} units by this block; at most {MAX_SCENARIO_UNITS} \
                         (MAX_SCENARIO_UNITS)"
                    ),
                ));
            }
        }
        for (i, u) in file.units.iter().enumerate() {
            self.units(&mut world, i, u)?;
        }
        if let Some(t) = file
            .ticks
            .as_ref()
            .filter(|t| *t.get_ref() > MAX_SCENARIO_TICKS)
        {
            return Err(self.err(
                t.span().start,
                "ticks",
                format!(
                    "{} ticks; at most {MAX_SCENARIO_TICKS} (MAX_SCENARIO_TICKS)",
                    t.get_ref()
                ),
            ));
        }
        let mut commands = Vec::with_capacity(file.commands.len());
        for (i, c) in file.commands.iter().enumerate() {
            if c.get_ref().tick > MAX_SCENARIO_TICKS {
                return Err(self.err(
                    c.span().start,
                    format!("commands[{i}].tick"),
                    format!("at most {MAX_SCENARIO_TICKS} (MAX_SCENARIO_TICKS)"),
                ));
            }
            commands.push(Scheduled {
                tick: c.get_ref().tick,
                command: self.command(&world, i, c)?,
            });
        }
        commands.sort_by_key(|c| c.tick);
        let mut statuses = Vec::with_capacity(file.statuses.len());
        for (i, st) in file.statuses.iter().enumerate() {
            statuses.push(self.status(&world, i, st)?);
        }
        statuses.sort_by_key(|s| s.tick);
        if file.state.is_none() {
            // (A snapshot's world was prepared as it was loaded.)
            world.prepare();
        }
        let name = file.name.clone().unwrap_or_else(|| stem(self.origin));
        Ok(Scenario {
            name,
            description: file.description.trim().to_string(),
            world,
            commands,
            statuses,
            turn_ticks,
            ticks: file.ticks.map_or(DEFAULT_TICKS, |t| *t.get_ref()),
            names: std::mem::take(&mut self.names),
        })
    }

    fn ruleset(&self, name: &Spanned<String>) -> Result<Ruleset, ScenarioError> {
        let bytes = self.named_file(name, "rules", MAX_RULESET_BYTES, "MAX_RULESET_BYTES")?;
        ruleset_from_bytes(&bytes, name.get_ref())
    }

    /// The bytes of a file the scenario names at `name` (its `field`), at most `limit` of them.
    fn named_file(
        &self,
        name: &Spanned<String>,
        field: &str,
        limit: usize,
        limit_name: &str,
    ) -> Result<Vec<u8>, ScenarioError> {
        let path = name.get_ref();
        let at = name.span().start;
        let bytes = self
            .files
            .read(path, limit + 1)
            .map_err(|m| self.err(at, field, m))?;
        if bytes.len() > limit {
            return Err(self.err(
                at,
                field,
                format!("`{path}` is larger than {limit} bytes ({limit_name})"),
            ));
        }
        Ok(bytes)
    }

    /// The world of a scenario's `state`: the snapshot it names, alone.
    fn state(
        &self,
        file: &ScenarioFile,
        state: &Spanned<String>,
        rules: Arc<Ruleset>,
    ) -> Result<World, ScenarioError> {
        let at = state.span().start;
        let also = [
            ("map", file.map.is_some()),
            ("seed", file.seed.is_some()),
            ("players", !file.players.is_empty()),
            ("buildings", !file.buildings.is_empty()),
            ("resources", !file.resources.is_empty()),
            ("units", !file.units.is_empty()),
        ];
        if let Some((name, _)) = also.iter().find(|(_, given)| *given) {
            return Err(self.err(
                at,
                "state",
                format!(
                    "a scenario with a `state` takes its map, players and entities from it: \
                     leave out `{name}`"
                ),
            ));
        }
        let snapshot = self
            .files
            .snapshot(state.get_ref())
            .map_err(|m| self.err(at, "state", m))?;
        World::from_snapshot(rules, snapshot).map_err(|e| {
            let hint = match e {
                SnapshotError::OtherRuleset => {
                    " (name the ruleset it was taken under with `rules`, or pass --rules)"
                }
                SnapshotError::Inconsistent(_) => "",
            };
            self.err(at, "state", format!("`{}`: {e}{hint}", state.get_ref()))
        })
    }

    fn world(&mut self, file: &ScenarioFile, rules: Arc<Ruleset>) -> Result<World, ScenarioError> {
        let Some(map_spec) = &file.map else {
            // What is missing belongs to the top-level table: line 1.
            return Err(self.err(0, "map", "a scenario needs a `map` (or a `state`)"));
        };
        let spec = map_spec.get_ref();
        let map_at = map_spec.span().start;
        let given = [
            spec.ascii.is_some(),
            spec.file.is_some(),
            spec.generate.is_some(),
        ];
        if given.iter().filter(|&&g| g).count() != 1 {
            return Err(self.err(
                map_at,
                "map",
                "give exactly one of `ascii`, `file` or `generate`",
            ));
        }
        let too_many = |n: usize| n > MAX_PLAYERS;
        if too_many(file.players.len()) {
            return Err(self.err(
                file.players[MAX_PLAYERS].span().start,
                format!("players[{MAX_PLAYERS}]"),
                format!("at most {MAX_PLAYERS} players"),
            ));
        }
        if let Some(g) = &spec.generate {
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
            return Ok(world);
        }
        let players = self.players(file);
        let layout = if let Some(ascii) = &spec.ascii {
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
        } else if let Some(name) = &spec.file {
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
        } else {
            unreachable!("exactly one map source was checked above")
        };
        self.on_layout(layout, rules, players, file.seed.unwrap_or(0), map_at)
    }

    fn on_layout(
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

    fn legend(
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
    fn players(&self, file: &ScenarioFile) -> Vec<Player> {
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

    fn owner(
        &self,
        world: &World,
        owner: PlayerId,
        at: usize,
        field: &str,
    ) -> Result<(), ScenarioError> {
        if world.state.players.iter().any(|p| p.id == owner) {
            Ok(())
        } else {
            Err(self.err(
                at,
                field,
                format!(
                    "player {owner} is not in the scenario (players 0 to {})",
                    world.state.players.len().saturating_sub(1)
                ),
            ))
        }
    }

    fn name(
        &mut self,
        name: &Option<String>,
        ids: Vec<EntityId>,
        at: usize,
        field: String,
    ) -> Result<(), ScenarioError> {
        let Some(name) = name else { return Ok(()) };
        if name.contains('@') {
            return Err(self.err(at, field, "a name may not contain `@`"));
        }
        if self.names.iter().any(|(n, _)| n == name) {
            return Err(self.err(at, field, format!("the name `{name}` is taken")));
        }
        self.names.push((name.clone(), ids));
        Ok(())
    }

    fn resource(
        &mut self,
        world: &mut World,
        i: usize,
        spec: &Spanned<ResourceSpec>,
    ) -> Result<(), ScenarioError> {
        let (r, at) = (spec.get_ref(), spec.span().start);
        let field = |f: &str| format!("resources[{i}].{f}");
        let kind = world.rules().resource_kind(&r.kind).ok_or_else(|| {
            self.err(
                at,
                field("kind"),
                format!("no resource `{}` in the ruleset", r.kind),
            )
        })?;
        let from = Tile::new(r.at[0], r.at[1]);
        let to = r.to.map(|t| Tile::new(t[0], t[1])).unwrap_or(from);
        for (t, f) in [(from, "at"), (to, "to")] {
            if !world.grid().contains(t) {
                return Err(self.err(at, field(f), format!("({}, {}) is off the map", t.x, t.y)));
            }
        }
        let mut ids = Vec::new();
        for y in from.y.min(to.y)..=from.y.max(to.y) {
            for x in from.x.min(to.x)..=from.x.max(to.x) {
                let id = world.add_resource(kind, Tile::new(x, y)).ok_or_else(|| {
                    self.err(at, field("at"), format!("tile ({x}, {y}) is taken"))
                })?;
                ids.push(id);
            }
        }
        self.name(&r.name, ids, at, field("name"))
    }

    fn building(
        &mut self,
        world: &mut World,
        i: usize,
        spec: &Spanned<BuildingSpec>,
    ) -> Result<(), ScenarioError> {
        let (b, at) = (spec.get_ref(), spec.span().start);
        let field = |f: &str| format!("buildings[{i}].{f}");
        let kind = world.rules().building_kind(&b.kind).ok_or_else(|| {
            self.err(
                at,
                field("kind"),
                format!("no building `{}` in the ruleset", b.kind),
            )
        })?;
        self.owner(world, b.owner, at, &field("owner"))?;
        let id = world
            .place_building(
                kind,
                b.owner,
                Tile::new(b.at[0], b.at[1]),
                b.turned,
                b.complete.unwrap_or(true),
            )
            .map_err(|e| self.err(at, field("at"), e.to_string()))?;
        if b.locked {
            world.set_gate_lock(id, true);
        }
        self.name(&b.name, vec![id], at, field("name"))
    }

    fn units(
        &mut self,
        world: &mut World,
        i: usize,
        spec: &Spanned<UnitBlock>,
    ) -> Result<(), ScenarioError> {
        let (u, at) = (spec.get_ref(), spec.span().start);
        let field = |f: &str| format!("units[{i}].{f}");
        let kind = world.rules().unit_kind(&u.kind).ok_or_else(|| {
            self.err(
                at,
                field("kind"),
                format!("no unit `{}` in the ruleset", u.kind),
            )
        })?;
        self.owner(world, u.owner, at, &field("owner"))?;
        let count = u.count.as_ref().map_or(1, |c| *c.get_ref());
        let columns = match u.columns {
            Some(0) => return Err(self.err(at, field("columns"), "at least 1")),
            Some(c) => c,
            None => ceil_sqrt(count),
        };
        let spacing = u.spacing.map(|d| d.0).unwrap_or(fx(1));
        if u.hit_points == Some(0) {
            return Err(self.err(at, field("hit_points"), "at least 1"));
        }
        let key = Keyed::unkeyed(world.rules().unit(kind).layer);
        let first = Vec2::new(u.at[0].0, u.at[1].0);
        // The map's edges: a point is on the map when its tile is, checked before any tile is
        // taken of it (x = 2^32 + 4 is off a 20-wide map, not on tile 4).
        let (w, h) = (world.grid().width(), world.grid().height());
        let on_map = |x: Fx, y: Fx| {
            let inside = |v: Fx, side: i32| {
                v >= -Fx::from_bits(1 << 15) && v < Fx::from_num(side) - Fx::from_bits(1 << 15)
            };
            inside(x, w) && inside(y, h)
        };
        let mut ids = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
        for n in 0..count {
            let offset = |k: u32| Fx::from_num(k).checked_mul(spacing);
            let p = offset(n % columns)
                .zip(offset(n / columns))
                .and_then(|(dx, dy)| first.x.checked_add(dx).zip(first.y.checked_add(dy)));
            let on_ground = p.filter(|&(x, y)| {
                on_map(x, y) && world.grid().passable(key, Vec2::new(x, y).tile())
            });
            let Some((x, y)) = on_ground else {
                return Err(self.err(
                    at,
                    field("at"),
                    format!(
                        "unit {} of the block is off the map or on ground a {} cannot stand on",
                        n + 1,
                        u.kind
                    ),
                ));
            };
            let id = world.spawn_unit(kind, u.owner, Vec2::new(x, y));
            if let (Some(hp), Some(unit)) = (u.hit_points, world.unit_mut(id)) {
                unit.hit_points = hp;
            }
            ids.push(id);
        }
        self.name(&u.name, ids, at, field("name"))
    }

    /// The units a name stands for: a block's, `kind@player` or `*@player`.
    fn named_units(&self, world: &World, name: &str) -> Option<Vec<EntityId>> {
        if let Some((kind, player)) = name.split_once('@') {
            let player: PlayerId = player.parse().ok()?;
            let kind = if kind == "*" {
                None
            } else {
                Some(world.rules().unit_kind(kind)?)
            };
            return Some(
                world
                    .state
                    .units
                    .iter()
                    .filter(|u| u.owner == player && kind.is_none_or(|k| u.kind == k))
                    .map(|u| u.id)
                    .collect(),
            );
        }
        self.names
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, ids)| ids.clone())
    }

    fn target(
        &self,
        world: &World,
        target: &TargetRef,
        at: usize,
        field: &str,
    ) -> Result<EntityId, ScenarioError> {
        match target {
            TargetRef::Id(id) => Ok(EntityId(*id)),
            TargetRef::Tile(Pair([x, y])) => {
                let t = Tile::new(*x, *y);
                match world.grid().occupant(t) {
                    Occupant::Resource(id) | Occupant::Building(id) => Ok(id),
                    Occupant::Gate { entity, .. } => Ok(entity),
                    Occupant::Nothing => world
                        .state
                        .units
                        .iter()
                        .find(|u| u.position.tile() == t)
                        .map(|u| u.id)
                        .ok_or_else(|| {
                            self.err(at, field, format!("nothing stands on tile ({x}, {y})"))
                        }),
                }
            }
            TargetRef::Name(name) => self
                .named_units(world, name)
                .and_then(|ids| ids.first().copied())
                .ok_or_else(|| self.err(at, field, format!("no entity is named `{name}`"))),
        }
    }

    /// A `[[statuses]]` entry: a player of the world, at a tick the scenario can reach.
    fn status(
        &self,
        world: &World,
        i: usize,
        spec: &Spanned<StatusSpec>,
    ) -> Result<ScheduledStatus, ScenarioError> {
        let (s, at) = (spec.get_ref(), spec.span().start);
        if s.tick > MAX_SCENARIO_TICKS {
            return Err(self.err(
                at,
                format!("statuses[{i}].tick"),
                format!("at most {MAX_SCENARIO_TICKS} (MAX_SCENARIO_TICKS)"),
            ));
        }
        if !world.state.players.iter().any(|p| p.id == s.player) {
            return Err(self.err(
                at,
                format!("statuses[{i}].player"),
                format!("there is no player {}", s.player),
            ));
        }
        let status = match s.status {
            Status::Playing => PlayerStatus::Playing,
            Status::Left => PlayerStatus::Left,
            Status::Resigned => PlayerStatus::Resigned,
            Status::Dropped => PlayerStatus::Dropped,
        };
        Ok(ScheduledStatus {
            tick: s.tick,
            player: s.player,
            status,
        })
    }

    fn command(
        &self,
        world: &World,
        i: usize,
        spec: &Spanned<CommandSpec>,
    ) -> Result<PlayerCommand, ScenarioError> {
        let (c, at) = (spec.get_ref(), spec.span().start);
        let field = |f: &str| format!("commands[{i}].{f}");
        let mut units = Vec::new();
        for r in &c.units {
            match r {
                UnitRef::Id(id) => units.push(EntityId(*id)),
                UnitRef::Name(name) => {
                    units.extend(self.named_units(world, name).ok_or_else(|| {
                        self.err(at, field("units"), format!("no units are named `{name}`"))
                    })?)
                }
            }
        }
        let need = |what: &str| {
            self.err(
                at,
                field(what),
                format!("`{what}` is required to {:?}", c.action).to_lowercase(),
            )
        };
        let to = || {
            c.to.map(|Pair([x, y])| Vec2::new(x.0, y.0))
                .ok_or_else(|| need("to"))
        };
        let target = || {
            let t = c.target.as_ref().ok_or_else(|| need("target"))?;
            self.target(world, t, at, &field("target"))
        };
        let command = match c.action {
            Action::Move => Command::Move { units, to: to()? },
            Action::FormationMove => Command::FormationMove { units, to: to()? },
            Action::AttackMove => Command::AttackMove { units, to: to()? },
            Action::Attack => Command::Attack {
                units,
                target: target()?,
            },
            Action::Follow => Command::Follow {
                units,
                target: target()?,
            },
            Action::Gather => Command::Gather {
                units,
                target: target()?,
            },
            Action::Build => Command::Build {
                units,
                target: target()?,
            },
            Action::PlaceBuilding => Command::PlaceBuilding {
                kind: c.kind.clone().ok_or_else(|| need("kind"))?,
                at: c
                    .at
                    .map(|Pair([x, y])| Tile::new(x, y))
                    .ok_or_else(|| need("at"))?,
                turned: c.turned,
                builders: units,
            },
            Action::Stop => Command::Stop { units },
            Action::Hold => Command::Hold { units },
            Action::SetFormation => Command::SetFormation {
                units,
                formation: c.formation.ok_or_else(|| need("formation"))?,
            },
            Action::Disband => Command::Disband { units },
            Action::Delete => Command::Delete { units },
        };
        Ok(PlayerCommand {
            player: c.player,
            command,
        })
    }
}

/// The smallest whole number whose square is at least `n` (a block's default columns).
fn ceil_sqrt(n: u32) -> u32 {
    let mut c = 1;
    while c * c < n {
        c += 1;
    }
    c
}

/// A file name without its folders and extension.
fn stem(origin: &str) -> String {
    let base = origin.rsplit(['/', '\\']).next().unwrap_or(origin);
    base.split('.').next().unwrap_or(base).to_string()
}

/// A ruleset file's bytes compiled (`origin` names it): refused with its file, line and field
/// when larger than [`MAX_RULESET_BYTES`], not UTF-8, or not a valid ruleset.
pub fn ruleset_from_bytes(bytes: &[u8], origin: &str) -> Result<Ruleset, ScenarioError> {
    let text = text_of(origin, bytes, MAX_RULESET_BYTES, "MAX_RULESET_BYTES")?;
    Ruleset::from_toml(text, origin).map_err(|e| ruleset_error(origin, text, &e))
}

/// A ruleset's error as a scenario error: its file, line and field.
pub fn ruleset_error(file: &str, text: &str, e: &RulesetError) -> ScenarioError {
    match e {
        RulesetError::Parse { source, .. } => ScenarioError::from_toml(file, text, source),
        RulesetError::Invalid { field, message, .. } => ScenarioError::new(
            file,
            locate_field(text, field),
            field.clone(),
            message.clone(),
        ),
    }
}

/// The embedded default map as a scenario: the generated world, and at tick 0 each player's
/// scouts sent to the next player's start and each villager to gather from the nearest resource.
pub fn default_map(rules: Arc<Ruleset>, opts: MapOptions) -> Scenario {
    let world = map::generate(rules, opts);
    let mut commands = Vec::new();
    let rules = world.rules_arc();
    let players = world.state.players.len();
    let worker = |u: &&crate::state::Unit| rules.unit(u.kind).worker;
    for (i, player) in world.state.players.iter().enumerate() {
        let mine: Vec<_> = world
            .state
            .units
            .iter()
            .filter(|u| u.owner == player.id)
            .collect();
        let next = world.state.players[(i + 1) % players].id;
        let goal = world
            .state
            .units
            .iter()
            .filter(|u| u.owner == next)
            .find(worker)
            .map(|u| u.position);
        let scouts: Vec<EntityId> = mine.iter().filter(|u| !worker(u)).map(|u| u.id).collect();
        if let (false, Some(to)) = (scouts.is_empty(), goal) {
            commands.push(Scheduled {
                tick: 0,
                command: PlayerCommand {
                    player: player.id,
                    command: Command::Move { units: scouts, to },
                },
            });
        }
        for u in mine.iter().filter(|u| worker(u)) {
            let nearest = world
                .state
                .resources
                .iter()
                .min_by_key(|r| (Vec2::of_tile(r.tile) - u.position).length_squared());
            if let Some(r) = nearest {
                commands.push(Scheduled {
                    tick: 0,
                    command: PlayerCommand {
                        player: player.id,
                        command: Command::Gather {
                            units: vec![u.id],
                            target: r.id,
                        },
                    },
                });
            }
        }
    }
    Scenario {
        name: format!(
            "default map ({} players, {} tiles, seed {})",
            players,
            world.grid().width(),
            opts.seed
        ),
        description: String::new(),
        world,
        commands,
        statuses: Vec::new(),
        turn_ticks: DEFAULT_TURN_TICKS,
        ticks: DEFAULT_TICKS,
        names: Vec::new(),
    }
}
