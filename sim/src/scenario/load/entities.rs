//! A scenario's entities: resources, buildings and unit blocks, created in the order written so
//! their ids follow the file, and the names they are given for commands to refer to.

use super::Loader;
use crate::grid::Keyed;
use crate::id::{EntityId, PlayerId};
use crate::position::{fx, Fx, Tile, Vec2};
use crate::scenario::error::ScenarioError;
use crate::scenario::format::*;
use crate::world::World;
use toml::Spanned;

impl Loader<'_> {
    pub(super) fn owner(
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

    pub(super) fn name(
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

    pub(super) fn resource(
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

    pub(super) fn building(
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

    pub(super) fn units(
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
    pub(super) fn named_units(&self, world: &World, name: &str) -> Option<Vec<EntityId>> {
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
}

/// The smallest whole number whose square is at least `n` (a block's default columns).
fn ceil_sqrt(n: u32) -> u32 {
    let mut c = 1;
    while c * c < n {
        c += 1;
    }
    c
}
