//! Building: a worker at a foundation works from its own spot until the building is complete.

use super::*;
use crate::id::{find, EntityId};
use crate::nav::Tick;
use crate::state::{UnitState, TICK_MS};
use crate::walk::give_up;

pub(super) fn build(tick: &mut Tick<'_>, crews: &mut Crews, i: usize, target: EntityId) {
    let Some(b) = tick.state.building(target).cloned() else {
        give_up(&mut tick.state.units[i]);
        return;
    };
    if b.complete {
        give_up(&mut tick.state.units[i]);
        return;
    }
    let mut held = None;
    if tick.state.units[i].route.is_some() {
        held = spot_taken_on_the_way(tick, i);
        if held.is_none() {
            return;
        }
    }
    if !at_work(tick.view(), i, target) {
        approach(tick, crews, i, target, true);
        held_as_long(tick.state, i, held);
        return;
    }
    let u = &mut tick.state.units[i];
    u.state = UnitState::Building;
    u.work_spot.get_or_insert(u.position);
    // Building begins once the foundation's ground has closed (`super::foundation`).
    if !tick.state.ground_closed(target) {
        return;
    }
    let spec = &tick.rules.buildings[b.kind as usize];
    let (build_ms, full) = (spec.build_ms.max(1), spec.hit_points);
    let Some(k) = find(&tick.state.buildings, target, |x| x.id) else {
        return;
    };
    let b = &mut tick.state.buildings[k];
    b.built_ms = (b.built_ms + TICK_MS).min(build_ms);
    let gained = (u64::from(full) * u64::from(TICK_MS) / u64::from(build_ms)).max(1) as u32;
    b.hit_points = (b.hit_points + gained).min(full);
    if b.built_ms >= build_ms {
        b.complete = true;
        b.hit_points = full;
    }
}
