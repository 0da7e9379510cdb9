//! The ruleset file format as written (docs/RULESET.md): TOML tables read by serde, every
//! figure a decimal, every kind by name. [`super::compile`] turns it into the [`super::Ruleset`].

use super::{Decimal, Good, Pair};
use crate::position::fx;
use serde::Deserialize;
use std::collections::BTreeMap;

/// A ruleset file as written (see docs/RULESET.md).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesetFile {
    pub name: String,
    #[serde(default)]
    pub push_idle: bool,
    pub terrains: BTreeMap<String, TerrainFile>,
    pub restrictions: BTreeMap<String, Vec<String>>,
    pub units: BTreeMap<String, UnitFile>,
    pub buildings: BTreeMap<String, BuildingFile>,
    pub resources: BTreeMap<String, ResourceFile>,
    #[serde(default)]
    pub technologies: BTreeMap<String, TechnologyFile>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainFile {
    #[serde(default)]
    pub colour: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitFile {
    pub radius: Decimal,
    pub speed: Decimal,
    pub restriction: String,
    pub hit_points: u32,
    pub attack: u32,
    pub range: Decimal,
    pub reload_ms: u32,
    pub melee: bool,
    #[serde(default)]
    pub worker: bool,
    #[serde(default)]
    pub carry: u32,
    #[serde(default)]
    pub packs: bool,
    #[serde(default = "default_sight")]
    pub sight: Decimal,
}

fn default_sight() -> Decimal {
    Decimal(fx(4))
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildingFile {
    pub half_extent: Pair<Decimal>,
    pub hit_points: u32,
    pub build_ms: u32,
    #[serde(default)]
    pub drop_site: Vec<Good>,
    #[serde(default)]
    pub on_water: bool,
    #[serde(default)]
    pub gate: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceFile {
    pub gives: Good,
    pub amount: u32,
    pub gather_per_second: Decimal,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TechnologyFile {
    pub speed_percent: u32,
    pub units: Vec<String>,
}
