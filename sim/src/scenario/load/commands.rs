//! A scenario's schedule: commands and player status changes at their ticks, their units and
//! targets named as the file names them.

use super::{Loader, ScheduledStatus, MAX_SCENARIO_TICKS};
use crate::command::{Command, PlayerCommand};
use crate::grid::Occupant;
use crate::id::EntityId;
use crate::position::{Tile, Vec2};
use crate::ruleset::Pair;
use crate::scenario::error::ScenarioError;
use crate::scenario::format::*;
use crate::state::PlayerStatus;
use crate::world::World;
use toml::Spanned;

impl Loader<'_> {
    pub(super) fn target(
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
    pub(super) fn status(
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

    pub(super) fn command(
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
