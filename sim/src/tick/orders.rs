//! Step 3: carry out this tick's commands.
//!
//! A command is checked whole before anything of it is done: its player must still play, and
//! every unit it names must exist and belong to that player. Anything else is ignored, the same
//! way on every peer, and counted.

use crate::command::{Command, PlayerCommand, MAX_UNITS_PER_COMMAND};
use crate::world::{EntityId, Order, PlayerStatus, UnitState, World};

pub fn carry_out(world: &mut World, commands: &[PlayerCommand]) {
    for pc in commands {
        if !valid(world, pc) {
            world.counters.ignored_commands += 1;
            continue;
        }
        apply(world, pc);
    }
}

/// Whether the player may give this command.
fn valid(world: &World, pc: &PlayerCommand) -> bool {
    let Some(player) = world.state.players.iter().find(|p| p.id == pc.player) else {
        return false;
    };
    if player.status != PlayerStatus::Playing {
        return false;
    }
    let units = pc.command.units();
    if units.len() > MAX_UNITS_PER_COMMAND {
        return false;
    }
    units
        .iter()
        .all(|&id| world.unit(id).is_some_and(|u| u.owner == pc.player))
}

fn apply(world: &mut World, pc: &PlayerCommand) {
    match &pc.command {
        Command::Move { units, to } | Command::FormationMove { units, to } => {
            for &id in units {
                send(world, id, *to, Order::Move { to: *to }, UnitState::Moving);
            }
        }
        Command::AttackMove { units, to } => {
            for &id in units {
                send(
                    world,
                    id,
                    *to,
                    Order::AttackMove { to: *to },
                    UnitState::AttackMoving,
                );
            }
        }
        Command::Stop { units } => {
            for &id in units {
                set(world, id, Order::Idle, UnitState::Idle);
            }
        }
        Command::Hold { units } => {
            for &id in units {
                set(world, id, Order::Hold, UnitState::Hold);
            }
        }
        Command::Attack { units, target } => {
            for &id in units {
                set(
                    world,
                    id,
                    Order::Attack { target: *target },
                    UnitState::Attacking,
                );
            }
        }
        Command::Follow { units, target } => {
            for &id in units {
                set(
                    world,
                    id,
                    Order::Follow { target: *target },
                    UnitState::Following,
                );
            }
        }
        Command::Gather { units, target } => {
            for &id in units {
                set(
                    world,
                    id,
                    Order::Gather { target: *target },
                    UnitState::Gathering,
                );
            }
        }
        Command::Build { units, target } => {
            for &id in units {
                set(
                    world,
                    id,
                    Order::Build { target: *target },
                    UnitState::Building,
                );
            }
        }
        Command::PlaceBuilding {
            kind,
            at,
            turned,
            builders,
        } => {
            let Some(k) = world.rules().building_kind(kind) else {
                world.counters.ignored_commands += 1;
                return;
            };
            match world.place_building(k, pc.player, *at, *turned, false) {
                Ok(b) => {
                    for &id in builders {
                        set(world, id, Order::Build { target: b }, UnitState::Building);
                    }
                }
                Err(_) => world.counters.ignored_commands += 1,
            }
        }
        Command::SetFormation {
            units,
            formation: _,
        } => {
            let _ = units;
        }
        Command::Delete { units } => {
            for &id in units {
                if let Some(u) = world.unit_mut(id) {
                    u.hit_points = 0;
                }
            }
        }
    }
}

fn set(world: &mut World, id: EntityId, order: Order, state: UnitState) {
    if let Some(u) = world.unit_mut(id) {
        u.order = order;
        u.state = state;
        u.route = None;
    }
}

fn send(
    world: &mut World,
    id: EntityId,
    to: crate::position::Vec2,
    order: Order,
    state: UnitState,
) {
    let route = crate::nav::route(world, id, to);
    if let Some(u) = world.unit_mut(id) {
        u.order = order;
        u.state = state;
        u.route = route;
    }
}
