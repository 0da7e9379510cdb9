//! Loading a scenario file into a [`World`] and its schedule of commands.
//!
//! Entities are created in a fixed order, so their ids follow the file: the map's resources (in
//! reading order), then `[[resources]]`, `[[buildings]]` and `[[units]]` in the order written.

mod commands;
mod entities;
mod map;

use crate::command::{Command, PlayerCommand};
use crate::id::{EntityId, PlayerId};
use crate::map::MapOptions;
use crate::position::Vec2;
use crate::ruleset::{Ruleset, RulesetError, MAX_RULESET_BYTES};
use crate::scenario::error::{line_of, locate_field, text_of, ScenarioError};
use crate::scenario::format::*;
use crate::scenario::{DEFAULT_TICKS, DEFAULT_TURN_TICKS, MAX_TURN_TICKS};
use crate::state::PlayerStatus;
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
    let world = crate::map::generate(rules, opts);
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
