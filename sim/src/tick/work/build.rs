//! Building: a worker at a foundation works from its own spot until the building is complete.

use super::*;
use crate::id::{find, EntityId};
use crate::state::{UnitState, TICK_MS};
use crate::walk::give_up;
use crate::world::World;

pub(super) fn build(world: &mut World, crews: &mut Crews, i: usize, target: EntityId) {
    let Some(b) = world.building(target).cloned() else {
        give_up(&mut world.state.units[i]);
        return;
    };
    if b.complete {
        give_up(&mut world.state.units[i]);
        return;
    }
    let mut held = None;
    if world.state.units[i].route.is_some() {
        held = spot_taken_on_the_way(world, i);
        if held.is_none() {
            return;
        }
    }
    if !at_work(world, i, target) {
        approach(world, crews, i, target, true);
        held_as_long(world, i, held);
        return;
    }
    let u = &mut world.state.units[i];
    u.state = UnitState::Building;
    u.work_spot.get_or_insert(u.position);
    // Building begins once the foundation's ground has closed (`super::foundation`).
    if !world.ground_closed(target) {
        return;
    }
    let spec = &world.rules().buildings[b.kind as usize];
    let (build_ms, full) = (spec.build_ms.max(1), spec.hit_points);
    let Some(k) = find(&world.state.buildings, target, |x| x.id) else {
        return;
    };
    let b = &mut world.state.buildings[k];
    b.built_ms = (b.built_ms + TICK_MS).min(build_ms);
    let gained = (u64::from(full) * u64::from(TICK_MS) / u64::from(build_ms)).max(1) as u32;
    b.hit_points = (b.hit_points + gained).min(full);
    if b.built_ms >= build_ms {
        b.complete = true;
        b.hit_points = full;
    }
}
