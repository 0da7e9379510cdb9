//! Step 3: carry out this tick's commands (devlog: "Movement States and Controller").
//!
//! A command is checked whole before anything of it is done: its player must still play, and
//! every unit it names must exist and belong to that player. Anything else is ignored, the same
//! way on every peer, and counted.
//!
//! Units sent together march and share walks (`nav::marching`, `nav::route_beside`); a point a
//! unit cannot stand on or reach goes through `nav::toward` (and the standing-spot planner, so a
//! crowd sent into the sea spreads along the shore); a unit is never left moving without a
//! route. A member of a locked formation takes its whole formation along.

use crate::command::{Command, FormationKind, PlayerCommand, MAX_UNITS_PER_COMMAND};
use crate::formation;
use crate::id::EntityId;
use crate::nav::{
    find_standing_spot, marching, region_here, route_beside, spot::stands_in, toward, Approach,
    Ask, Spot, Tick, View,
};
use crate::position::{Bounds, Fx, Vec2};
use crate::state::{Order, PlayerStatus, State, UnitState};
use crate::walk::held::held_on_a_new_walk;

pub fn carry_out(tick: &mut Tick<'_>, commands: &[PlayerCommand]) {
    for pc in commands {
        if !valid(tick.view(), pc) {
            tick.counters.ignored_commands += 1;
            continue;
        }
        // Points and tiles off the map are brought onto it before anything uses them.
        let (width, height) = (tick.grid().width(), tick.grid().height());
        let pc = PlayerCommand {
            player: pc.player,
            command: pc.command.clamped(width, height),
        };
        apply(tick, &pc);
    }
}

/// Whether the player may give this command.
fn valid(view: View<'_>, pc: &PlayerCommand) -> bool {
    let Some(player) = view.state.players.iter().find(|p| p.id == pc.player) else {
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
        .all(|&id| view.unit(id).is_some_and(|u| u.owner == pc.player))
}

fn apply(tick: &mut Tick<'_>, pc: &PlayerCommand) {
    match &pc.command {
        Command::Move { units, to } => {
            let (group, kind) = formation::locked_group(tick.view(), units);
            match kind {
                Some(kind) => formation::march_in_formation(tick, &group, *to, kind),
                None if group.len() > units.len() => {
                    formation::march_in_formation(tick, &group, *to, FormationKind::Line)
                }
                None => send_together(tick, units, *to, false),
            }
        }
        Command::FormationMove { units, to } => {
            let (group, kind) = formation::locked_group(tick.view(), units);
            formation::march_in_formation(tick, &group, *to, kind.unwrap_or_default());
        }
        Command::AttackMove { units, to } => send_together(tick, units, *to, true),
        Command::Stop { units } => {
            for &id in units {
                set(tick.state, id, Order::Idle, UnitState::Idle);
            }
        }
        Command::Hold { units } => {
            for &id in units {
                set(tick.state, id, Order::Hold, UnitState::Hold);
            }
        }
        Command::Attack { units, target } => {
            if tick.unit(*target).is_none() && tick.state.building(*target).is_none() {
                tick.counters.ignored_commands += 1;
                return;
            }
            for &id in units {
                set(
                    tick.state,
                    id,
                    Order::Attack { target: *target },
                    UnitState::Attacking,
                );
                if let Some(u) = tick.state.unit_mut(id) {
                    u.fight = Some(*target);
                }
            }
        }
        Command::Follow { units, target } => {
            for &id in units {
                set(
                    tick.state,
                    id,
                    Order::Follow { target: *target },
                    UnitState::Following,
                );
            }
        }
        Command::Gather { units, target } => {
            for &id in units {
                if is_worker(tick.view(), id) {
                    set(
                        tick.state,
                        id,
                        Order::Gather { target: *target },
                        UnitState::Gathering,
                    );
                }
            }
        }
        Command::Build { units, target } => {
            for &id in units {
                if is_worker(tick.view(), id) {
                    set(
                        tick.state,
                        id,
                        Order::Build { target: *target },
                        UnitState::Building,
                    );
                }
            }
        }
        Command::PlaceBuilding {
            kind,
            at,
            turned,
            builders,
        } => {
            let Some(k) = tick.rules.building_kind(kind) else {
                tick.counters.ignored_commands += 1;
                return;
            };
            // Its ground closes now if nobody stands there, else once they have left it.
            match tick
                .state
                .lay_building(tick.rules, k, pc.player, *at, *turned, false)
            {
                Ok(b) => {
                    super::foundation::close_when_clear(tick, b);
                    for &id in builders {
                        if is_worker(tick.view(), id) {
                            set(
                                tick.state,
                                id,
                                Order::Build { target: b },
                                UnitState::Building,
                            );
                        }
                    }
                }
                Err(_) => tick.counters.ignored_commands += 1,
            }
        }
        Command::SetFormation { units, formation } => {
            formation::lock(tick.state, pc.player, units, *formation);
        }
        Command::Disband { units } => formation::disband(tick.state, units),
        Command::Delete { units } => {
            for &id in units {
                if let Some(u) = tick.state.unit_mut(id) {
                    u.hit_points = 0;
                }
            }
        }
    }
}

fn is_worker(view: View<'_>, id: EntityId) -> bool {
    view.unit(id)
        .is_some_and(|u| view.rules.unit(u.kind).worker)
}

/// Gives a unit a new order that starts standing (the step that follows plans its walk).
fn set(state: &mut State, id: EntityId, order: Order, unit_state: UnitState) {
    if let Some(u) = state.unit_mut(id) {
        u.order = order;
        u.state = unit_state;
        u.route = None;
        u.fight = None;
        u.ring_tries = 0;
        u.work_spot = None;
        u.pushed = None;
        u.replan_at_ms = 0;
        u.chase_waits = false;
    }
}

/// Sends `units` to `to` together (the spec's `SendTogether`): marching, each with an ordinary
/// move (or attack-move) order, sharing walks.
pub fn send_together(tick: &mut Tick<'_>, units: &[EntityId], to: Vec2, attack: bool) {
    marching(tick, units, |tick| {
        let mut headed: Vec<Vec2> = Vec::new();
        for id in share_first(tick.view(), units) {
            let (order, state) = if attack {
                (Order::AttackMove { to }, UnitState::AttackMoving)
            } else {
                (Order::Move { to }, UnitState::Moving)
            };
            // Sent on from where a crowd holds it, it is held as long as before (Cohort's
            // choice: sent again from the jam it stood in, a soldier began its squeeze and walk
            // through afresh and stood 10.3 s).
            let held = tick
                .unit(id)
                .and_then(|u| u.route.as_ref().map(|r| r.progress));
            set(tick.state, id, order, state);
            let Some(goal) = reachable_goal(tick.view(), id, to, &headed) else {
                set(tick.state, id, Order::Idle, UnitState::Idle);
                continue;
            };
            let route =
                Ask::to_point(tick.view(), id, goal).and_then(|ask| route_beside(tick, &ask));
            match route {
                Some(mut r) => {
                    if goal != to {
                        headed.push(goal);
                    }
                    if let Some(u) = tick.state.unit_mut(id) {
                        if let Some(old) = held {
                            r.progress = held_on_a_new_walk(&old, &r, u.position);
                        }
                        u.route = Some(r);
                    }
                }
                None => set(tick.state, id, Order::Idle, UnitState::Idle),
            }
        }
    });
}

/// The units in the order they are sent: outward from the middle of the ground the group stands
/// on, nearest first (ties by id). The first plans its walk; each after it starts beside one
/// already sent (a block stands 0.7 of a tile apart, well within [`K_SHARE_REACH`]), so it takes
/// a copy of that walk whenever it can walk straight to its first bend, and searches only where
/// it cannot — and then those further out share the new walk.
fn share_first(view: View<'_>, units: &[EntityId]) -> Vec<EntityId> {
    let mut at: Vec<(EntityId, Vec2)> = units
        .iter()
        .filter_map(|&id| view.unit(id).map(|u| (id, u.position)))
        .collect();
    at.sort_unstable_by_key(|a| a.0);
    at.dedup_by_key(|a| a.0);
    let Some(first) = at.first().map(|a| a.1) else {
        return Vec::new();
    };
    let ground = at
        .iter()
        .fold(Bounds::around(first, Fx::ZERO), |b, a| Bounds {
            min: Vec2::new(b.min.x.min(a.1.x), b.min.y.min(a.1.y)),
            max: Vec2::new(b.max.x.max(a.1.x), b.max.y.max(a.1.y)),
        });
    let middle = ground.middle();
    let mut keyed: Vec<(i128, EntityId)> = at
        .iter()
        .map(|&(id, p)| (crate::position::squared(p - middle), id))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|k| k.1).collect()
}

/// The point a unit sent to `to` makes for: `to` itself when it can stand there and reach it;
/// else (a unit sent where it cannot stand) the nearest point `nav::toward` finds, spread by the
/// standing-spot planner round the ground between so that those sent with it (`headed`) stand
/// beside it rather than on it.
fn reachable_goal(view: View<'_>, id: EntityId, to: Vec2, headed: &[Vec2]) -> Option<Vec2> {
    let near = toward(view, id, to)?;
    if near == to {
        return Some(to);
    }
    let u = view.unit(id)?;
    let radius = view.rules.radius_of(u.kind);
    let key = view.key_of(u);
    let region = region_here(view.regions, view.grid(), key, u.position.tile());
    let reach = to.chebyshev(near) - radius;
    if reach <= Fx::ZERO {
        return Some(near);
    }
    let approach = Approach {
        ground: Bounds::around(to, reach),
        from: near,
        outside: radius,
        room: radius * 2,
        taken: headed,
        own_face_only: false,
    };
    match find_standing_spot(&approach, |p| stands_in(view, key, region, p, radius)) {
        Spot::Found(p) => Some(p),
        Spot::Full | Spot::Blocked => Some(near),
    }
}
