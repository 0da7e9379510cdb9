//! The ruleset: unit, building, resource and terrain figures (DESIGN.md, "Data").
//!
//! A TOML document (format in docs/RULESET.md) is read into [`RulesetFile`] and compiled into a
//! [`Ruleset`]: names become dense indices (alphabetical, so the order never depends on the
//! file's layout), restrictions become passability layers, decimals become fixed point. The
//! ruleset's identity is the blake3 hash of its compiled, canonical form ([`Ruleset::hash`]), so
//! two files that differ only in layout or comments are the same ruleset.

mod compile;
mod decimal;
mod file;
mod pair;

pub use decimal::{parse_decimal, Decimal};
pub use file::{BuildingFile, ResourceFile, RulesetFile, TechnologyFile, TerrainFile, UnitFile};
pub use pair::Pair;

/// The largest ruleset file, in bytes (the embedded default is a few kilobytes).
pub const MAX_RULESET_BYTES: usize = 1 << 20;

use crate::position::Fx;
use serde::{Deserialize, Serialize};

/// The embedded default ruleset's text.
pub const DEFAULT_RULESET_TOML: &str = include_str!("default.toml");

/// Index of a terrain in the ruleset.
pub type TerrainId = u8;
/// A set of terrains, one bit per [`TerrainId`].
pub type TerrainMask = u32;
/// Index of a passability layer; layer 0 is land.
pub type LayerId = u8;
/// At most this many passability layers (the spec's `Physics::kMaxLayers`).
pub const MAX_LAYERS: usize = 8;
/// Index of a unit kind in [`Ruleset::units`].
pub type UnitKindId = u16;
/// Index of a building kind in [`Ruleset::buildings`].
pub type BuildingKindId = u16;
/// Index of a resource kind in [`Ruleset::resources`].
pub type ResourceKindId = u16;

/// What a resource gives when gathered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Good {
    Food,
    Wood,
    Gold,
    Stone,
}

impl Good {
    pub const ALL: [Good; 4] = [Good::Food, Good::Wood, Good::Gold, Good::Stone];

    pub fn index(self) -> usize {
        self as usize
    }
}

/// An error in a ruleset file: where, and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum RulesetError {
    #[error("{origin}: {source}")]
    Parse {
        origin: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("{origin}: {field}: {message}")]
    Invalid {
        origin: String,
        field: String,
        message: String,
    },
}

/// A terrain.
#[derive(Clone, Debug, Serialize)]
pub struct Terrain {
    pub name: String,
    /// Drawing colour (`#rrggbb`), for pictures only.
    pub colour: String,
}

/// A terrain restriction: which terrains its movers may cross, and the layer it moves on.
#[derive(Clone, Debug, Serialize)]
pub struct Restriction {
    pub name: String,
    pub allowed: TerrainMask,
    pub layer: LayerId,
}

/// A unit kind.
#[derive(Clone, Debug, Serialize)]
pub struct UnitKind {
    pub name: String,
    /// Half the body's width: the body is a box reaching this far each way from its middle.
    pub radius: Fx,
    /// Tiles per second before technologies.
    pub speed: Fx,
    pub restriction: u16,
    pub layer: LayerId,
    pub hit_points: u32,
    pub attack: u32,
    /// Reach of its attack, box to box, in tiles (0 for hand to hand).
    pub range: Fx,
    pub reload_ms: u32,
    pub melee: bool,
    /// Villagers: gather, carry and build; take no part in formations.
    pub worker: bool,
    /// How much a worker carries before walking to a drop site.
    pub carry: u32,
    /// A siege unit that must stop and unpack before it fires.
    pub packs: bool,
    /// How far it sees targets when attack-moving or holding.
    pub sight: Fx,
}

/// A building kind.
#[derive(Clone, Debug, Serialize)]
pub struct BuildingKind {
    pub name: String,
    /// Half-extents on the building's own axes (x, y), as the data gives them.
    pub half_extent: [Fx; 2],
    pub hit_points: u32,
    pub build_ms: u32,
    pub drop_site: Vec<Good>,
    pub on_water: bool,
    pub gate: bool,
}

/// A resource kind (tree, mine, bush).
#[derive(Clone, Debug, Serialize)]
pub struct ResourceKind {
    pub name: String,
    pub gives: Good,
    pub amount: u32,
    pub gather_per_second: Fx,
    /// Trees stand on forest ground and are felled; mines and bushes are not.
    pub is_tree: bool,
}

/// A technology that raises units' speed.
#[derive(Clone, Debug, Serialize)]
pub struct Technology {
    pub name: String,
    pub speed_percent: u32,
    pub units: Vec<UnitKindId>,
}

/// A compiled ruleset. Immutable once built; shared by every world playing by it.
#[derive(Clone, Debug, Serialize)]
pub struct Ruleset {
    pub name: String,
    /// Movers push idle friendly units aside (the devlog's rule); off: nobody standing is pushed.
    pub push_idle: bool,
    pub terrains: Vec<Terrain>,
    pub restrictions: Vec<Restriction>,
    /// Each layer's allowed terrains; layer 0 is land, the villager's.
    pub layers: Vec<TerrainMask>,
    pub units: Vec<UnitKind>,
    pub buildings: Vec<BuildingKind>,
    pub resources: Vec<ResourceKind>,
    pub technologies: Vec<Technology>,
    #[serde(skip)]
    hash: [u8; 32],
}

impl Ruleset {
    /// The embedded default, modelled on Age of Empires II.
    pub fn default_rules() -> Ruleset {
        Ruleset::from_toml(DEFAULT_RULESET_TOML, "embedded default ruleset")
            .expect("the embedded default ruleset is valid")
    }

    /// Reads and compiles a ruleset. `origin` names the file in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Ruleset, RulesetError> {
        let file: RulesetFile = toml::from_str(text).map_err(|source| RulesetError::Parse {
            origin: origin.to_string(),
            source,
        })?;
        compile::compile(file, origin)
    }

    /// A unit kind's figures.
    pub fn unit(&self, kind: UnitKindId) -> &UnitKind {
        &self.units[usize::from(kind)]
    }

    /// The radius of a unit kind's body.
    pub fn radius_of(&self, kind: UnitKindId) -> Fx {
        self.unit(kind).radius
    }

    /// The first layer that is not land (the sea), if the ruleset has one.
    pub fn water_layer(&self) -> Option<u8> {
        (1..self.layers.len()).next().map(|l| l as u8)
    }

    /// blake3 of the compiled ruleset's canonical encoding: its identity in a match.
    pub fn hash(&self) -> [u8; 32] {
        self.hash
    }

    pub fn unit_kind(&self, name: &str) -> Option<UnitKindId> {
        self.units
            .iter()
            .position(|u| u.name == name)
            .map(|i| i as UnitKindId)
    }

    pub fn building_kind(&self, name: &str) -> Option<BuildingKindId> {
        self.buildings
            .iter()
            .position(|b| b.name == name)
            .map(|i| i as BuildingKindId)
    }

    pub fn resource_kind(&self, name: &str) -> Option<ResourceKindId> {
        self.resources
            .iter()
            .position(|r| r.name == name)
            .map(|i| i as ResourceKindId)
    }

    pub fn terrain(&self, name: &str) -> Option<TerrainId> {
        self.terrains
            .iter()
            .position(|t| t.name == name)
            .map(|i| i as TerrainId)
    }

    /// The land layer's allowed terrains.
    pub fn land(&self) -> TerrainMask {
        self.layers[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_ruleset_compiles_with_the_required_kinds() {
        let r = Ruleset::default_rules();
        for u in [
            "villager",
            "militia",
            "spearman",
            "archer",
            "skirmisher",
            "scout_cavalry",
            "knight",
            "mangonel",
            "trebuchet",
            "fishing_ship",
            "transport_ship",
            "galley",
        ] {
            assert!(r.unit_kind(u).is_some(), "{u}");
        }
        for b in [
            "town_center",
            "house",
            "barracks",
            "mill",
            "lumber_camp",
            "mining_camp",
            "dock",
            "wall",
            "gate",
        ] {
            assert!(r.building_kind(b).is_some(), "{b}");
        }
        for x in ["tree", "gold_mine", "stone_mine", "berry_bush"] {
            assert!(r.resource_kind(x).is_some(), "{x}");
        }
        for t in ["grass", "forest", "shallows", "deep_water", "beach"] {
            assert!(r.terrain(t).is_some(), "{t}");
        }
    }

    #[test]
    fn ships_share_the_sea_layer_and_land_is_layer_zero() {
        let r = Ruleset::default_rules();
        let layer = |u: &str| r.units[r.unit_kind(u).unwrap() as usize].layer;
        assert_eq!(layer("villager"), 0);
        assert_eq!(layer("knight"), 0);
        assert_ne!(layer("galley"), 0);
        assert_eq!(layer("galley"), layer("fishing_ship"));
        assert_eq!(layer("galley"), layer("transport_ship"));
        assert_eq!(r.layers.len(), 2);
    }

    #[test]
    fn hash_ignores_layout_but_not_figures() {
        let a = Ruleset::default_rules();
        let spaced = DEFAULT_RULESET_TOML.replace("radius = 0.2", "radius   =   0.2   # body");
        let b = Ruleset::from_toml(&spaced, "b").unwrap();
        assert_eq!(a.hash(), b.hash());
        let changed = DEFAULT_RULESET_TOML.replacen("speed = 1.35", "speed = 1.36", 1);
        let c = Ruleset::from_toml(&changed, "c").unwrap();
        assert_ne!(a.hash(), c.hash());
    }

    #[test]
    fn bad_rulesets_name_the_field() {
        let e = Ruleset::from_toml(
            &DEFAULT_RULESET_TOML.replacen("restriction = \"land\"", "restriction = \"lava\"", 1),
            "x.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("x.toml") && e.contains("units.villager.restriction") && e.contains("lava"),
            "{e}"
        );
        let e = Ruleset::from_toml("name = 3", "y.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("y.toml") && e.contains("line 1"), "{e}");
    }
}
