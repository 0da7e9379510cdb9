//! The scenario file as written (docs/SCENARIOS.md). Every table is spanned so that a fault
//! found after parsing (an unknown kind, a unit on closed ground) still names its line.

use crate::command::FormationKind;
use crate::ruleset::{Decimal, Pair};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// A scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Defaults to the file's name.
    pub name: Option<String>,
    #[serde(default)]
    pub description: String,
    /// Seed of the world's random generator (default 0; a generated map's seed otherwise).
    pub seed: Option<u64>,
    /// Ticks in a network turn: a hash is taken after each (default 4).
    pub turn_ticks: Option<Spanned<u32>>,
    /// Ticks to run when the caller does not say (default 600).
    pub ticks: Option<Spanned<u64>>,
    /// A ruleset file, relative to the scenario; the embedded default when absent.
    pub rules: Option<Spanned<String>>,
    /// A snapshot file relative to the scenario (written by `cohort replay --at TURN
    /// --scenario`): the whole state to start from, which then stands for `map`, `seed`,
    /// `players`, `buildings`, `resources` and `units` (none of them may be given with it).
    pub state: Option<Spanned<String>>,
    /// Required unless `state` is given.
    pub map: Option<Spanned<MapSpec>>,
    #[serde(default)]
    pub players: Vec<Spanned<PlayerSpec>>,
    #[serde(default)]
    pub buildings: Vec<Spanned<BuildingSpec>>,
    #[serde(default)]
    pub resources: Vec<Spanned<ResourceSpec>>,
    #[serde(default)]
    pub units: Vec<Spanned<UnitBlock>>,
    #[serde(default)]
    pub commands: Vec<Spanned<CommandSpec>>,
    /// Players' status changes (a player leaving, resigning, dropping, joining again), each at
    /// its tick: a match's membership events.
    #[serde(default)]
    pub statuses: Vec<Spanned<StatusSpec>>,
}

/// The map: exactly one of `ascii`, `file` or `generate`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSpec {
    /// The map inline, in the ASCII format.
    pub ascii: Option<Spanned<String>>,
    /// A map file relative to the scenario: `.map` is Moving AI, anything else ASCII.
    pub file: Option<Spanned<String>>,
    /// The default map's generator.
    pub generate: Option<Spanned<GenerateSpec>>,
    /// Extra or replaced ASCII characters: `"x" = "grass"` or `"x" = "forest+tree"`.
    #[serde(default)]
    pub legend: BTreeMap<String, String>,
}

/// Where a scenario's map comes from: the one of `[map]`'s three sources it gives.
#[derive(Clone, Copy, Debug)]
pub enum MapSource<'a> {
    Ascii(&'a Spanned<String>),
    File(&'a Spanned<String>),
    Generate(&'a Spanned<GenerateSpec>),
}

impl MapSpec {
    /// The map's source, or `None` unless exactly one of `ascii`, `file` and `generate` is given.
    pub fn source(&self) -> Option<MapSource<'_>> {
        match (&self.ascii, &self.file, &self.generate) {
            (Some(a), None, None) => Some(MapSource::Ascii(a)),
            (None, Some(f), None) => Some(MapSource::File(f)),
            (None, None, Some(g)) => Some(MapSource::Generate(g)),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateSpec {
    pub size: Option<i32>,
    pub players: Option<u8>,
    pub seed: Option<u64>,
}

/// A player; ids are given in order, from 0.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerSpec {
    /// Players with the same team are allies (default: a team of its own, its id).
    pub team: Option<u8>,
    pub name: Option<String>,
}

/// One unit, or a block of `count` in rows of `columns`, `spacing` tiles apart, the first at `at`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitBlock {
    pub kind: String,
    pub owner: u8,
    pub at: Pair<Decimal>,
    pub count: Option<Spanned<u32>>,
    pub columns: Option<u32>,
    pub spacing: Option<Decimal>,
    /// Hit points each unit of the block starts with, instead of its kind's (at least 1).
    pub hit_points: Option<u32>,
    /// A name commands can use for the whole block.
    pub name: Option<String>,
}

/// A building: its origin tile (the footprint as in the spec's BuildingGeometry).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildingSpec {
    pub kind: String,
    pub owner: u8,
    pub at: Pair<i32>,
    #[serde(default)]
    pub turned: bool,
    /// A finished building (default) or a foundation.
    pub complete: Option<bool>,
    /// A gate's lock.
    #[serde(default)]
    pub locked: bool,
    pub name: Option<String>,
}

/// A resource on a tile, or on every tile of the rectangle `at` to `to`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceSpec {
    pub kind: String,
    pub at: Pair<i32>,
    pub to: Option<Pair<i32>>,
    pub name: Option<String>,
}

/// What a command does (the sim's [`crate::Command`] variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Move,
    FormationMove,
    Attack,
    AttackMove,
    Follow,
    Gather,
    Build,
    PlaceBuilding,
    Stop,
    Hold,
    SetFormation,
    Disband,
    Delete,
}

/// A player's status set at a tick, before that tick's orders step (as a turn's membership
/// events come before its commands).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusSpec {
    pub tick: u64,
    pub player: u8,
    pub status: Status,
}

/// A player's status as written: `playing`, `left`, `resigned` or `dropped`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Playing,
    Left,
    Resigned,
    Dropped,
}

/// A unit named in a command: its id, or a name (a block's, or `kind@player`, `*@player`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum UnitRef {
    Id(u64),
    Name(String),
}

/// What a command aims at: an id, a tile (whatever stands on it), or a name.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum TargetRef {
    Id(u64),
    Tile(Pair<i32>),
    Name(String),
}

/// A command given at a tick.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    /// The tick whose orders step carries it out.
    pub tick: u64,
    pub player: u8,
    #[serde(rename = "do")]
    pub action: Action,
    #[serde(default)]
    pub units: Vec<UnitRef>,
    pub to: Option<Pair<Decimal>>,
    pub target: Option<TargetRef>,
    /// place_building: the building kind, its origin tile and whether it is turned.
    pub kind: Option<String>,
    pub at: Option<Pair<i32>>,
    #[serde(default)]
    pub turned: bool,
    pub formation: Option<FormationKind>,
}
