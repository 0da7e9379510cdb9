//! Gathering: at the resource's rate until the load is carried, to the nearest drop site that
//! takes the good and back; a resource run out sends its crew to the nearest of its kind.

use super::*;
use crate::grid::Keyed;
use crate::id::{find, EntityId};
use crate::nav::K_INSIDE;
use crate::nav::{find_standing_spot, region_here, Approach, Spot};
use crate::nav::{spot::stands_in, Tick, View};
use crate::position::{fx, Fx, Tile};
use crate::ruleset::Good;
use crate::state::{Order, UnitState, TICK_MS};
use crate::walk::give_up;

pub(super) fn gather(tick: &mut Tick<'_>, crews: &mut Crews, i: usize, target: EntityId) {
    let u = &tick.state.units[i];
    let kind = &tick.rules.unit(u.kind);
    let capacity = kind.carry.max(1);
    let carried = u.carrying.map(|(_, n)| n).unwrap_or(0);
    let resource = tick.state.resource(target).cloned();
    if carried >= capacity || (resource.is_none() && carried > 0) {
        carry_to_drop(tick, crews, i);
        return;
    }
    let Some(resource) = resource else {
        give_up(&mut tick.state.units[i]);
        return;
    };
    let mut held = None;
    if tick.state.units[i].route.is_some() {
        held = if tick.state.units[i].work_spot.is_none() {
            // Its resource ran out while it walked there ([`ran_out`]): it asks for a spot at
            // the next, held as long as before.
            tick.state.units[i].route.take().map(|r| r.progress)
        } else {
            spot_taken_on_the_way(tick, i)
        };
        if held.is_none() {
            return;
        }
    }
    if !at_work(tick.view(), i, target) {
        approach(tick, crews, i, target, true);
        held_as_long(tick.state, i, held);
        return;
    }
    let rk = &tick.rules.resources[resource.kind as usize];
    let (good, rate) = (rk.gives, rk.gather_per_second);
    let u = &mut tick.state.units[i];
    u.state = UnitState::Gathering;
    // Where it gathers is its spot, spoken for, though it came to stand there without asking
    // (its crew moved to the next resource round it).
    u.work_spot.get_or_insert(u.position);
    if u.carrying.is_some_and(|(g, _)| g != good) {
        u.carrying = None;
    }
    u.gather_progress += rate * Fx::from_num(TICK_MS) / fx(1000);
    let mut took = 0u32;
    while u.gather_progress >= fx(1) && took < resource.amount {
        u.gather_progress -= fx(1);
        took += 1;
    }
    if took == 0 {
        return;
    }
    let n = u.carrying.map(|(_, n)| n).unwrap_or(0) + took;
    u.carrying = Some((good, n));
    let Some(k) = find(&tick.state.resources, target, |r| r.id) else {
        return;
    };
    tick.state.resources[k].amount -= took;
    if tick.state.resources[k].amount == 0 {
        ran_out(tick, crews, target);
    }
}

/// How many of the nearest resources of its kind a worker tries for a free spot when every
/// spot at its own is taken (Cohort's choice: bounds the work of one refusal).
pub const K_NEIGHBOURS_TRIED: usize = 16;

/// The resources of `r`'s kind within [`K_NEXT_RESOURCE_REACH`] of it, other than `r`, with a
/// side open to a worker on `key` (a tile four ways round it passable: inside a forest a tree
/// has none, and the nearest sixteen of a wood line's trees would otherwise be its inner rows),
/// nearest first (ties in id order).
pub(super) fn neighbours(view: View<'_>, r: &crate::state::Resource, key: Keyed) -> Vec<EntityId> {
    let grid = view.grid();
    let open_side = |t: Tile| {
        [(0, -1), (1, 0), (0, 1), (-1, 0)]
            .into_iter()
            .any(|(dx, dy)| grid.passable(key, t.offset(dx, dy)))
    };
    let mut near: Vec<(i32, EntityId)> = view
        .state
        .resources
        .iter()
        .filter(|o| o.kind == r.kind && o.id != r.id && open_side(o.tile))
        .map(|o| {
            let d = (o.tile.x - r.tile.x).abs().max((o.tile.y - r.tile.y).abs());
            (d, o.id)
        })
        .filter(|&(d, _)| d <= K_NEXT_RESOURCE_REACH)
        .collect();
    near.sort_unstable();
    near.into_iter().map(|(_, id)| id).collect()
}

/// The nearest resource of `target`'s kind (of the [`K_NEIGHBOURS_TRIED`] nearest) with a spot
/// free for unit `i`, its crew's spots and the bodies standing there taken ([`taken_at`]).
pub(super) fn free_neighbour(
    view: View<'_>,
    crews: &mut Crews,
    i: usize,
    target: EntityId,
) -> Option<EntityId> {
    let r = view.state.resource(target)?;
    let u = &view.state.units[i];
    let radius = view.rules.radius_of(u.kind);
    let key = view.key_of(u);
    let region = region_here(view.regions, view.grid(), key, u.position.tile());
    let mut round = Round::default();
    let tried: Vec<EntityId> = crews
        .neighbours(view, r, key)
        .iter()
        .take(K_NEIGHBOURS_TRIED)
        .copied()
        .collect();
    tried.into_iter().find(|&n| {
        let Some((ground, parts)) = crews.ground_of(view, n) else {
            return false;
        };
        taken_at(view, crews, i, ground, &parts, radius, &mut round);
        let ask = Approach {
            ground,
            from: u.position,
            outside: radius - K_INSIDE,
            room: radius * 2,
            taken: &round.taken,
            own_face_only: false,
        };
        let stands = |p: Vec2| round.clear(p) && stands_in(view, key, region, p, radius);
        matches!(find_standing_spot(&ask, stands), Spot::Found(_))
    })
}

/// A resource ran out: it is removed (a felled tree frees its tile) and its crew moves on to the
/// nearest resource of the same kind within [`K_NEXT_RESOURCE_REACH`], or carries home and stops.
pub(super) fn ran_out(tick: &mut Tick<'_>, crews: &mut Crews, id: EntityId) {
    let Some(r) = tick.state.resource(id).cloned() else {
        return;
    };
    tick.state.remove_resource(id);
    crews.forget();
    let crew = tick
        .state
        .units
        .iter()
        .find(|u| u.order == (Order::Gather { target: id }));
    let next = crew.and_then(|u| neighbours(tick.view(), &r, tick.key_of(u)).first().copied());
    for (k, u) in tick.state.units.iter_mut().enumerate() {
        if u.order == (Order::Gather { target: id }) {
            u.work_spot = None;
            match next {
                // One walking there keeps its walk until it asks for a spot at the next
                // ([`gather`]), so the walk there is held as long as this one (Cohort's choice:
                // a villager held in a crowd on its way to a patch that ran out had its squeeze
                // and press begun afresh on its way to the next, and stood 10.4 s).
                Some(n) => {
                    u.order = Order::Gather { target: n };
                    crews.join(n, k);
                }
                None => u.route = None,
            }
        }
    }
}

/// The drop site unit `i` carries `good` to: the one it is walking to while that still takes it
/// (Cohort's choice: a carrier about as far from two drop sites, jostled in a crowd, had turned
/// from one to the other every few ticks, each a fresh walk never held long enough to detour or
/// squeeze, and stood 248 s), else the nearest complete drop site of its owner that takes it.
pub(super) fn drop_for(view: View<'_>, i: usize, good: Good) -> Option<EntityId> {
    let u = &view.state.units[i];
    let rules = view.rules;
    let takes = |b: &crate::state::Building| {
        b.owner == u.owner
            && b.complete
            && rules.buildings[b.kind as usize].drop_site.contains(&good)
    };
    let walking_to = u.route.as_ref().and_then(|r| r.target);
    if let Some(b) = walking_to
        .and_then(|t| view.state.building(t))
        .filter(|b| takes(b))
    {
        return Some(b.id);
    }
    view.state
        .buildings
        .iter()
        .filter(|b| takes(b))
        .map(|b| (b.footprint.bounds().distance_from(u.position), b.id))
        .min()
        .map(|(_, id)| id)
}

/// Unit `i` carries its load to the nearest drop site and drops it into its owner's stock.
pub(super) fn carry_to_drop(tick: &mut Tick<'_>, crews: &mut Crews, i: usize) {
    let Some((good, n)) = tick.state.units[i].carrying else {
        return;
    };
    let Some(drop) = drop_for(tick.view(), i, good) else {
        give_up(&mut tick.state.units[i]);
        return;
    };
    if at_work(tick.view(), i, drop) {
        let owner = tick.state.units[i].owner;
        if let Some(p) = tick.state.players.iter_mut().find(|p| p.id == owner) {
            p.stock[good.index()] = p.stock[good.index()].saturating_add(n);
        }
        let u = &mut tick.state.units[i];
        u.carrying = None;
        u.work_spot = None;
        u.route = None;
        return;
    }
    let walking_there = tick.state.units[i]
        .route
        .as_ref()
        .is_some_and(|r| r.target == Some(drop));
    let mut held = None;
    if walking_there {
        held = spot_taken_on_the_way(tick, i);
        if held.is_none() {
            return;
        }
    }
    tick.state.units[i].route = None;
    approach(tick, crews, i, drop, false);
    held_as_long(tick.state, i, held);
}
