//! Compiling a ruleset file ([`RulesetFile`]) into a [`Ruleset`]: one step per table of the
//! file, each refusing what it cannot take with the field at fault.

use super::file::{BuildingFile, ResourceFile, RulesetFile, TechnologyFile, TerrainFile, UnitFile};
use super::{
    BuildingKind, Good, LayerId, ResourceKind, Restriction, Ruleset, RulesetError, Technology,
    Terrain, TerrainMask, UnitKind, UnitKindId, MAX_LAYERS,
};
use crate::position::{fx, Fx};
use std::collections::BTreeMap;

/// A ruleset file compiled: names to dense indices, restrictions to layers, decimals to fixed
/// point; refused with the field at fault.
pub(super) fn compile(file: RulesetFile, origin: &str) -> Result<Ruleset, RulesetError> {
    let terrains = terrains(&file.terrains, origin)?;
    let (layers, restrictions) = layers(&file.restrictions, &terrains, origin)?;
    let units = units(&file.units, &restrictions, origin)?;
    let buildings = buildings(&file.buildings, origin)?;
    let resources = resources(&file.resources);
    let technologies = technologies(&file.technologies, &units, origin)?;
    let mut rules = Ruleset {
        name: file.name,
        push_idle: file.push_idle,
        terrains,
        restrictions,
        layers,
        units,
        buildings,
        resources,
        technologies,
        hash: [0; 32],
    };
    rules.hash = crate::canon::hash_of(&rules);
    Ok(rules)
}

/// The terrains, in the order of their names.
fn terrains(
    file: &BTreeMap<String, TerrainFile>,
    origin: &str,
) -> Result<Vec<Terrain>, RulesetError> {
    if file.is_empty() || file.len() > 32 {
        return Err(invalid(
            origin,
            "terrains",
            "between 1 and 32 terrains are needed",
        ));
    }
    Ok(file
        .iter()
        .map(|(name, t)| Terrain {
            name: name.clone(),
            colour: t.colour.clone().unwrap_or_else(|| "#808080".to_string()),
        })
        .collect())
}

/// Restrictions and the passability layers they come to.
fn layers(
    file: &BTreeMap<String, Vec<String>>,
    terrains: &[Terrain],
    origin: &str,
) -> Result<(Vec<TerrainMask>, Vec<Restriction>), RulesetError> {
    let terrain_id = |name: &str| terrains.iter().position(|t| t.name == name);

    // Restrictions → layers. Land (the villager's) is layer 0; other distinct terrain sets follow
    // in the order of their restriction's name.
    let mut masks = Vec::new();
    for (name, allowed) in file {
        let mut mask: TerrainMask = 0;
        for t in allowed {
            let id = terrain_id(t).ok_or_else(|| {
                invalid(
                    origin,
                    format!("restrictions.{name}"),
                    format!("unknown terrain `{t}`"),
                )
            })?;
            mask |= 1 << id;
        }
        if mask == 0 {
            return Err(invalid(
                origin,
                format!("restrictions.{name}"),
                "allows no terrain",
            ));
        }
        masks.push((name.clone(), mask));
    }
    let land = masks
        .iter()
        .find(|(n, _)| n == "land")
        .map(|(_, m)| *m)
        .ok_or_else(|| {
            invalid(
                origin,
                "restrictions",
                "a restriction named `land` is required (layer 0)",
            )
        })?;
    let mut layers: Vec<TerrainMask> = vec![land];
    let mut restrictions = Vec::new();
    for (name, mask) in masks {
        let layer = match layers.iter().position(|m| *m == mask) {
            Some(l) => l,
            None => {
                layers.push(mask);
                layers.len() - 1
            }
        };
        if layers.len() > MAX_LAYERS {
            return Err(invalid(
                origin,
                "restrictions",
                format!("at most {MAX_LAYERS} distinct sets of terrains (passability layers)"),
            ));
        }
        restrictions.push(Restriction {
            name,
            allowed: mask,
            layer: layer as LayerId,
        });
    }

    Ok((layers, restrictions))
}

/// The unit kinds, each on its restriction's layer.
fn units(
    file: &BTreeMap<String, UnitFile>,
    restrictions: &[Restriction],
    origin: &str,
) -> Result<Vec<UnitKind>, RulesetError> {
    let mut units = Vec::new();
    for (name, u) in file {
        let field = |f: &str| format!("units.{name}.{f}");
        let restriction = restrictions
            .iter()
            .position(|r| r.name == u.restriction)
            .ok_or_else(|| {
                invalid(
                    origin,
                    field("restriction"),
                    format!("unknown restriction `{}`", u.restriction),
                )
            })?;
        if u.radius.0 <= Fx::ZERO || u.radius.0 > fx(4) {
            return Err(invalid(
                origin,
                field("radius"),
                "must be above 0 and at most 4 tiles",
            ));
        }
        if u.speed.0 < Fx::ZERO || u.speed.0 > fx(10) {
            return Err(invalid(
                origin,
                field("speed"),
                "must be between 0 and 10 tiles per second",
            ));
        }
        if u.range.0 < Fx::ZERO || u.range.0 > fx(64) {
            return Err(invalid(
                origin,
                field("range"),
                "must be between 0 and 64 tiles",
            ));
        }
        if u.hit_points == 0 {
            return Err(invalid(origin, field("hit_points"), "must be at least 1"));
        }
        units.push(UnitKind {
            name: name.clone(),
            radius: u.radius.0,
            speed: u.speed.0,
            restriction: restriction as u16,
            layer: restrictions[restriction].layer,
            hit_points: u.hit_points,
            attack: u.attack,
            range: u.range.0,
            reload_ms: u.reload_ms,
            melee: u.melee,
            worker: u.worker,
            carry: u.carry,
            packs: u.packs,
            sight: u.sight.0,
        });
    }
    if units.is_empty() {
        return Err(invalid(origin, "units", "at least one unit kind is needed"));
    }

    Ok(units)
}

/// The building kinds.
fn buildings(
    file: &BTreeMap<String, BuildingFile>,
    origin: &str,
) -> Result<Vec<BuildingKind>, RulesetError> {
    let mut buildings = Vec::new();
    for (name, b) in file {
        for (axis, h) in b.half_extent.iter().enumerate() {
            if h.0 <= Fx::ZERO || h.0 > fx(8) {
                return Err(invalid(
                    origin,
                    format!("buildings.{name}.half_extent[{axis}]"),
                    "must be above 0 and at most 8 tiles",
                ));
            }
        }
        if b.hit_points == 0 {
            return Err(invalid(
                origin,
                format!("buildings.{name}.hit_points"),
                "must be at least 1",
            ));
        }
        buildings.push(BuildingKind {
            name: name.clone(),
            half_extent: [b.half_extent[0].0, b.half_extent[1].0],
            hit_points: b.hit_points,
            build_ms: b.build_ms,
            drop_site: b.drop_site.clone(),
            on_water: b.on_water,
            gate: b.gate,
        });
    }

    Ok(buildings)
}

/// The resource kinds.
fn resources(file: &BTreeMap<String, ResourceFile>) -> Vec<ResourceKind> {
    file.iter()
        .map(|(name, r)| ResourceKind {
            name: name.clone(),
            gives: r.gives,
            amount: r.amount,
            gather_per_second: r.gather_per_second.0,
            is_tree: r.gives == Good::Wood,
        })
        .collect()
}

/// The technologies, naming the unit kinds they raise.
fn technologies(
    file: &BTreeMap<String, TechnologyFile>,
    units: &[UnitKind],
    origin: &str,
) -> Result<Vec<Technology>, RulesetError> {
    let mut technologies = Vec::new();
    for (name, t) in file {
        let mut ids = Vec::new();
        for u in &t.units {
            let id = units.iter().position(|k| &k.name == u).ok_or_else(|| {
                invalid(
                    origin,
                    format!("technologies.{name}.units"),
                    format!("unknown unit `{u}`"),
                )
            })?;
            ids.push(id as UnitKindId);
        }
        technologies.push(Technology {
            name: name.clone(),
            speed_percent: t.speed_percent,
            units: ids,
        });
    }

    Ok(technologies)
}

fn invalid(origin: &str, field: impl Into<String>, message: impl Into<String>) -> RulesetError {
    RulesetError::Invalid {
        origin: origin.to_string(),
        field: field.into(),
        message: message.into(),
    }
}
