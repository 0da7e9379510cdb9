//! Step 5: villagers' work — approach, gather, carry, drop, build.
//!
//! A villager told to gather joins that resource's crew. It asks the standing-spot planner for a
//! place at the resource (its crew mates' spots taken) and keeps that spot while it walks; when
//! the open ground is all spoken for it waits a body's width further out until a spot comes
//! free. At the resource it gathers at the resource's rate until it carries its load, then
//! carries it to the nearest drop site of its owner that takes the good (a spot at its edge too),
//! and goes back. A resource runs out: a tree is felled and frees its tile, and the crew moves to
//! the nearest resource of the same kind within [`K_NEXT_RESOURCE_REACH`]. A villager told to
//! build works at a foundation from its own spot until the building is complete, once the
//! foundation's ground has closed (`foundation.rs`: those standing on it step off first).

use super::patch::{part_beside, patch_of};
use crate::grid::Keyed;
use crate::id::{find, EntityId};
use crate::nav::chase::K_WAITING_RINGS;
use crate::nav::spot::{stands_in, K_ROUNDING};
use crate::nav::survey::Body;
use crate::nav::{find_standing_spot, region_here, route_for, Approach, Ask, Spot};
use crate::nav::{in_range, K_INSIDE};
use crate::position::{fx, squared, Bounds, Fx, Tile, Vec2};
use crate::ruleset::Good;
use crate::state::{Order, Progress, UnitState, TICK_MS};
use crate::walk::apart::K_KEEP_APART;
use crate::walk::give_up;
use crate::walk::held::{held_on_a_new_walk, held_ticks};
use crate::world::World;
use std::collections::BTreeMap;

/// A crew whose resource ran out looks this many tiles round it for another of the same kind.
/// Cohort's choice, not the spec's: neither the spec nor the devlog says what a crew does when
/// its resource runs out.
pub const K_NEXT_RESOURCE_REACH: i32 = 8;
/// A villager's walk to its spot ends at the spot, never earlier: its target's range is this far
/// below touching (no body reaches that deep into what it works at).
const K_AT_THE_SPOT: Fx = fx(-1);
/// A worker held on its way to a spot on which a body now stands still asks for a spot again after
/// this long (a second, as long as a walker waits before its detour), and once a second after
/// (Cohort's choice, [`spot_taken_on_the_way`]).
pub const K_SPOT_TAKEN_AFTER_TICKS: u64 = 1000 / TICK_MS as u64;
/// A worker standing at the place it waits at, a body's width out round work whose every spot
/// is taken, asks again for a spot there (and at the resources near by) on one tick in this many,
/// its id's, not on every tick (Cohort's choice, for speed alone: 200 villagers a player at their
/// resources asked about 465 times a tick, most of them waiting, and the asking was half the
/// tick). 8 ticks is 128 ms: a spot that comes free is taken that much later at most.
pub const K_WAIT_ASK_TICKS: u64 = 8;

pub fn run(world: &mut World) {
    super::foundation::run(world);
    let mut crews = Crews::of(world);
    for i in 0..world.state.units.len() {
        let u = &world.state.units[i];
        if u.hit_points == 0 {
            continue;
        }
        match u.order {
            Order::Gather { target } => gather(world, &mut crews, i, target),
            Order::Build { target } => build(world, &mut crews, i, target),
            _ => {}
        }
    }
}

/// Who is told to work where during this step: (target, the worker's index in the state's
/// list) for every unit told to gather or build, sorted; a unit sent to another target during
/// the step is added ([`Crews::join`]). An entry whose unit has since left is read past: each
/// is checked against the unit's order when read, so [`Crews::spots`] finds what a pass over
/// every unit would, in the same order, from a few entries.
struct Crews {
    at: Vec<(EntityId, usize)>,
    /// [`ground_of`] and [`neighbours`] as already answered during the step: both read only the
    /// resources and the ground, which change in the step only when a resource runs out
    /// ([`ran_out`] forgets them then).
    grounds: BTreeMap<EntityId, Option<(Bounds, Vec<EntityId>)>>,
    near: BTreeMap<(EntityId, Keyed), Vec<EntityId>>,
}

impl Crews {
    /// Every unit of the world told to gather or build.
    fn of(world: &World) -> Crews {
        let mut at: Vec<(EntityId, usize)> = world
            .state
            .units
            .iter()
            .enumerate()
            .filter_map(|(k, u)| match u.order {
                Order::Gather { target } | Order::Build { target } => Some((target, k)),
                _ => None,
            })
            .collect();
        at.sort_unstable();
        Crews {
            at,
            grounds: BTreeMap::new(),
            near: BTreeMap::new(),
        }
    }

    /// [`ground_of`] `id`, answered once a step.
    fn ground_of(&mut self, world: &World, id: EntityId) -> Option<(Bounds, Vec<EntityId>)> {
        self.grounds
            .entry(id)
            .or_insert_with(|| ground_of(world, id))
            .clone()
    }

    /// [`neighbours`] of `r` on `key`, answered once a step.
    fn neighbours(&mut self, world: &World, r: &crate::state::Resource, key: Keyed) -> &[EntityId] {
        self.near
            .entry((r.id, key))
            .or_insert_with(|| neighbours(world, r, key))
    }

    /// The resources or the ground changed: what was answered may not hold.
    fn forget(&mut self) {
        self.grounds.clear();
        self.near.clear();
    }

    /// Unit `k` was told to work at `target` during the step.
    fn join(&mut self, target: EntityId, k: usize) {
        if let Err(at) = self.at.binary_search(&(target, k)) {
            self.at.insert(at, (target, k));
        }
    }

    /// Where the crew mates of unit `i` at any of `parts` stand, are headed or wait, in id order,
    /// added to `out`.
    fn spots(&self, world: &World, i: usize, parts: &[EntityId], out: &mut Vec<Vec2>) {
        let crews = parts.iter().map(|&t| {
            let from = self.at.partition_point(|&(x, _)| x < t);
            let to = from + self.at[from..].partition_point(|&(x, _)| x == t);
            &self.at[from..to]
        });
        let mut mates: Vec<usize> = Vec::with_capacity(crews.clone().map(<[_]>::len).sum());
        mates.extend(crews.flatten().map(|&(_, k)| k));
        mates.sort_unstable();
        mates.dedup();
        let me = world.state.units[i].id;
        out.extend(
            mates
                .into_iter()
                .map(|k| &world.state.units[k])
                .filter(|u| {
                    u.id != me
                        && u.hit_points > 0
                        && matches!(u.order, Order::Gather { target: t } | Order::Build { target: t } if parts.contains(&t))
                })
                .filter_map(|u| u.work_spot),
        );
    }
}

/// The ground a worker approaches and what it is made of: a resource's patch
/// ([`patch_of`]: a whole mine), or a building's footprint.
fn ground_of(world: &World, id: EntityId) -> Option<(Bounds, Vec<EntityId>)> {
    if world.resource(id).is_some() {
        return patch_of(world, id);
    }
    world.building(id).map(|b| (b.footprint.bounds(), vec![id]))
}

/// Sends unit `i` to a standing spot at `target`'s ground (its crew mates' spots taken: pass
/// `crew` false for a drop site, where nobody keeps a spot); when all are taken it waits a body's
/// width further out, its waiting place spoken for too — unless a resource of the kind near by
/// has a spot free ([`free_neighbour`]): a crew goes there. At a patch it gathers from the part
/// beside its spot. Gives up when the ground is blocked all round.
fn approach(world: &mut World, crews: &mut Crews, i: usize, target: EntityId, crew: bool) {
    let u = &world.state.units[i];
    let radius = world.rules().radius_of(u.kind);
    let waiting = u.route.is_none()
        && u.work_spot
            .is_some_and(|w| u.position.chebyshev(w) <= radius);
    if waiting && !(world.state.tick.wrapping_add(u.id.0)).is_multiple_of(K_WAIT_ASK_TICKS) {
        return;
    }
    approach_once(world, crews, i, target, crew, true);
}

/// [`approach`], trying the resources near by for a free spot only when `neighbours` is set (once
/// an approach, so two resources each saying the other has room cannot send a worker to and fro).
fn approach_once(
    world: &mut World,
    crews: &mut Crews,
    i: usize,
    target: EntityId,
    crew: bool,
    neighbours: bool,
) {
    let Some((ground, parts)) = crews.ground_of(world, target) else {
        give_up(&mut world.state.units[i]);
        return;
    };
    let u = &world.state.units[i];
    let radius = world.rules().radius_of(u.kind);
    // At a drop site nobody keeps a spot, but where bodies stand still is taken there too.
    let mut taken = Vec::new();
    if crew {
        taken_at(world, crews, i, ground, &parts, radius, &mut taken);
    } else {
        standing_round(world, i, ground, radius, &mut taken);
    }
    let taken = &taken[..];
    let key = world.key_of(u);
    let region = region_here(&world.caches.regions, world.grid(), key, u.position.tile());
    let (id, at) = (u.id, u.position);
    let mut outside = radius - K_INSIDE;
    let mut wait = false;
    let mut spot = None;
    for _ in 0..=K_WAITING_RINGS {
        let ask = Approach {
            ground,
            from: at,
            outside,
            room: radius * 2,
            taken,
            own_face_only: false,
        };
        let stands = |p: Vec2| stands_in(world, key, region, p, radius);
        match find_standing_spot(&ask, stands) {
            Spot::Found(p) => {
                spot = Some(p);
                break;
            }
            Spot::Full if !wait => {
                // Another resource of the kind near by has a spot free: work there (Cohort's
                // choice, as AoE II's villagers do: one tree of a wood line has room for two).
                let free = (crew && neighbours).then(|| free_neighbour(world, crews, i, target));
                if let Some(next) = free.flatten() {
                    world.state.units[i].order = Order::Gather { target: next };
                    crews.join(next, i);
                    approach_once(world, crews, i, next, crew, false);
                    return;
                }
                // A spot will come free: wait a body's width further out.
                wait = true;
                outside += radius * 2;
            }
            Spot::Full | Spot::Blocked => {
                outside += radius * 2;
            }
        }
    }
    let Some(p) = spot else {
        give_up(&mut world.state.units[i]);
        return;
    };
    if wait && at.chebyshev(p) <= radius {
        // Already waiting there.
        world.state.units[i].work_spot = Some(p);
        return;
    }
    let target = match world.state.units[i].order {
        Order::Gather { .. } if !wait && parts.len() > 1 => {
            let part = part_beside(world, &parts, p).unwrap_or(target);
            world.state.units[i].order = Order::Gather { target: part };
            crews.join(part, i);
            part
        }
        _ => target,
    };
    let ask = Ask {
        unit: id,
        from: at,
        to: p,
        target: (!wait).then_some(target),
        range: K_AT_THE_SPOT,
    };
    let route = route_for(world, &ask);
    let u = &mut world.state.units[i];
    u.work_spot = Some(p);
    match route {
        Some(r) => u.route = Some(r),
        None if at.chebyshev(p) <= radius => u.route = None,
        None => give_up(u),
    }
}

/// The spots at `ground` (made of `parts`) spoken for when unit `i` asks for one: its crew mates'
/// and every body standing still round it, into `taken` (cleared first).
fn taken_at(
    world: &World,
    crews: &Crews,
    i: usize,
    ground: Bounds,
    parts: &[EntityId],
    radius: Fx,
    taken: &mut Vec<Vec2>,
) {
    taken.clear();
    crews.spots(world, i, parts, taken);
    standing_round(world, i, ground, radius, taken);
}

/// Where bodies other than unit `i`'s stand still round `ground`, as far out as its waiting rings
/// reach: a spot there is taken too (Cohort's choice: the spec's crew speaks for its own spots
/// only, so a worker at the next tree of a wood line, or one gathering where its crew's ground
/// changed under it, had a crew mate sent into its body). Added to `out`.
fn standing_round(world: &World, i: usize, ground: Bounds, radius: Fx, out: &mut Vec<Vec2>) {
    let me = world.state.units[i].id;
    let rings = Fx::from_num(K_WAITING_RINGS + 2);
    let round = ground.widened(radius * 2 * rings);
    out.extend(
        world
            .caches
            .survey
            .in_tiles(round.min.tile(), round.max.tile())
            .filter(|b| b.entity != me && !b.moving)
            .map(|b| b.middle),
    );
}

/// Whether unit `i`, held on its walk to its spot, finds a body standing still on that spot
/// (within a worker's width of it, as the standing-spot planner counts a spot taken, or nearer
/// than it keeps apart from the worker): then its route is dropped and how it was getting on is
/// returned, for the walk to its next spot ([`held_as_long`]). Looked at once every
/// [`K_SPOT_TAKEN_AFTER_TICKS`] it is held.
///
/// Cohort's choice: a spot is chosen free of those standing still, but one may come to stand on it
/// while the worker walks (a worker at the next resource, a soldier halting there), and nobody
/// standing is pushed: the worker walked at it until it walked through. Asking again then keeps
/// the spec's stable answer for every walk that gets on. A spot whose ground has closed since it
/// was chosen (a foundation laid over it) is asked for again the same way (a miner stepping off a
/// mining camp laid over its spot walked back at that spot for good: `camp_laid_over_miners`).
fn spot_taken_on_the_way(world: &mut World, i: usize) -> Option<Progress> {
    let u = &world.state.units[i];
    let (Some(route), Some(spot)) = (&u.route, u.work_spot) else {
        return None;
    };
    let held = held_ticks(route, world.state.tick);
    if held < K_SPOT_TAKEN_AFTER_TICKS || !held.is_multiple_of(K_SPOT_TAKEN_AFTER_TICKS) {
        return None;
    }
    let radius = world.rules().radius_of(u.kind);
    let room = radius * 2;
    let me = u.id;
    // The widest body of the ruleset (a ship, a trebuchet) keeps further apart than a worker's
    // width.
    let widest = world
        .rules()
        .units
        .iter()
        .map(|k| k.radius)
        .max()
        .unwrap_or(radius);
    let reach = room.max((radius + widest) * K_KEEP_APART);
    let on_spot = |b: &Body| {
        let apart = i128::from(((radius + b.radius) * K_KEEP_APART).to_bits());
        b.middle.chebyshev(spot) < room - K_ROUNDING || squared(b.middle - spot) < apart * apart
    };
    let taken = world
        .caches
        .survey
        .near(spot, reach)
        .any(|b| b.entity != me && !b.moving && on_spot(b));
    // A spot whose ground has closed since (a foundation laid over it) is taken too.
    let key = world.key_of(u);
    let region = region_here(&world.caches.regions, world.grid(), key, u.position.tile());
    if !taken && stands_in(world, key, region, spot, radius) {
        return None;
    }
    world.state.units[i].route.take().map(|r| r.progress)
}

/// The walk unit `i` was just given to a new spot is held as long as the one whose spot was
/// taken (`held`), so asking again never starts a held worker's detour, squeeze and walk
/// through over.
fn held_as_long(world: &mut World, i: usize, held: Option<Progress>) {
    let u = &mut world.state.units[i];
    if let (Some(old), Some(route)) = (held, u.route.as_mut()) {
        route.progress = held_on_a_new_walk(&old, route, u.position);
    }
}

/// Whether unit `i` stands at its work: its body within reach of `target`'s box.
fn at_work(world: &World, i: usize, target: EntityId) -> bool {
    let u = &world.state.units[i];
    let radius = world.rules().radius_of(u.kind);
    in_range(world, u.position, radius, target, K_INSIDE)
}

fn gather(world: &mut World, crews: &mut Crews, i: usize, target: EntityId) {
    let u = &world.state.units[i];
    let kind = &world.rules().unit(u.kind);
    let capacity = kind.carry.max(1);
    let carried = u.carrying.map(|(_, n)| n).unwrap_or(0);
    let resource = world.resource(target).cloned();
    if carried >= capacity || (resource.is_none() && carried > 0) {
        carry_to_drop(world, crews, i);
        return;
    }
    let Some(resource) = resource else {
        give_up(&mut world.state.units[i]);
        return;
    };
    let mut held = None;
    if world.state.units[i].route.is_some() {
        held = if world.state.units[i].work_spot.is_none() {
            // Its resource ran out while it walked there ([`ran_out`]): it asks for a spot at
            // the next, held as long as before.
            world.state.units[i].route.take().map(|r| r.progress)
        } else {
            spot_taken_on_the_way(world, i)
        };
        if held.is_none() {
            return;
        }
    }
    if !at_work(world, i, target) {
        approach(world, crews, i, target, true);
        held_as_long(world, i, held);
        return;
    }
    let rk = &world.rules().resources[resource.kind as usize];
    let (good, rate) = (rk.gives, rk.gather_per_second);
    let u = &mut world.state.units[i];
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
    let Some(k) = find(&world.state.resources, target, |r| r.id) else {
        return;
    };
    world.state.resources[k].amount -= took;
    if world.state.resources[k].amount == 0 {
        ran_out(world, crews, target);
    }
}

/// How many of the nearest resources of its kind a worker tries for a free spot when every
/// spot at its own is taken (Cohort's choice: bounds the work of one refusal).
pub const K_NEIGHBOURS_TRIED: usize = 16;

/// The resources of `r`'s kind within [`K_NEXT_RESOURCE_REACH`] of it, other than `r`, with a
/// side open to a worker on `key` (a tile four ways round it passable: inside a forest a tree
/// has none, and the nearest sixteen of a wood line's trees would otherwise be its inner rows),
/// nearest first (ties in id order).
fn neighbours(world: &World, r: &crate::state::Resource, key: Keyed) -> Vec<EntityId> {
    let grid = world.grid();
    let open_side = |t: Tile| {
        [(0, -1), (1, 0), (0, 1), (-1, 0)]
            .into_iter()
            .any(|(dx, dy)| grid.passable(key, t.offset(dx, dy)))
    };
    let mut near: Vec<(i32, EntityId)> = world
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
fn free_neighbour(
    world: &World,
    crews: &mut Crews,
    i: usize,
    target: EntityId,
) -> Option<EntityId> {
    let r = world.resource(target)?;
    let u = &world.state.units[i];
    let radius = world.rules().radius_of(u.kind);
    let key = world.key_of(u);
    let region = region_here(&world.caches.regions, world.grid(), key, u.position.tile());
    let mut taken = Vec::new();
    let tried: Vec<EntityId> = crews
        .neighbours(world, r, key)
        .iter()
        .take(K_NEIGHBOURS_TRIED)
        .copied()
        .collect();
    tried.into_iter().find(|&n| {
        let Some((ground, parts)) = crews.ground_of(world, n) else {
            return false;
        };
        taken_at(world, crews, i, ground, &parts, radius, &mut taken);
        let ask = Approach {
            ground,
            from: u.position,
            outside: radius - K_INSIDE,
            room: radius * 2,
            taken: &taken,
            own_face_only: false,
        };
        matches!(
            find_standing_spot(&ask, |p| stands_in(world, key, region, p, radius)),
            Spot::Found(_)
        )
    })
}

/// A resource ran out: it is removed (a felled tree frees its tile) and its crew moves on to the
/// nearest resource of the same kind within [`K_NEXT_RESOURCE_REACH`], or carries home and stops.
fn ran_out(world: &mut World, crews: &mut Crews, id: EntityId) {
    let Some(r) = world.resource(id).cloned() else {
        return;
    };
    world.remove_resource(id);
    crews.forget();
    let crew = world
        .state
        .units
        .iter()
        .find(|u| u.order == (Order::Gather { target: id }));
    let next = crew.and_then(|u| neighbours(world, &r, world.key_of(u)).first().copied());
    for (k, u) in world.state.units.iter_mut().enumerate() {
        if u.order == (Order::Gather { target: id }) {
            u.work_spot = None;
            match next {
                // One walking there keeps its walk until it asks for a spot at the next
                // ([`gather`]), so the walk there is held as long as this one (Cohort's choice:
                // a villager held in a crowd on its way to a patch that ran out had its squeeze
                // and walk through begun afresh on its way to the next, and stood 10.4 s).
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
fn drop_for(world: &World, i: usize, good: Good) -> Option<EntityId> {
    let u = &world.state.units[i];
    let rules = world.rules();
    let takes = |b: &crate::state::Building| {
        b.owner == u.owner
            && b.complete
            && rules.buildings[b.kind as usize].drop_site.contains(&good)
    };
    let walking_to = u.route.as_ref().and_then(|r| r.target);
    if let Some(b) = walking_to
        .and_then(|t| world.building(t))
        .filter(|b| takes(b))
    {
        return Some(b.id);
    }
    world
        .state
        .buildings
        .iter()
        .filter(|b| takes(b))
        .map(|b| (b.footprint.bounds().distance_from(u.position), b.id))
        .min()
        .map(|(_, id)| id)
}

/// Unit `i` carries its load to the nearest drop site and drops it into its owner's stock.
fn carry_to_drop(world: &mut World, crews: &mut Crews, i: usize) {
    let Some((good, n)) = world.state.units[i].carrying else {
        return;
    };
    let Some(drop) = drop_for(world, i, good) else {
        give_up(&mut world.state.units[i]);
        return;
    };
    if at_work(world, i, drop) {
        let owner = world.state.units[i].owner;
        if let Some(p) = world.state.players.iter_mut().find(|p| p.id == owner) {
            p.stock[good.index()] = p.stock[good.index()].saturating_add(n);
        }
        let u = &mut world.state.units[i];
        u.carrying = None;
        u.work_spot = None;
        u.route = None;
        return;
    }
    let walking_there = world.state.units[i]
        .route
        .as_ref()
        .is_some_and(|r| r.target == Some(drop));
    let mut held = None;
    if walking_there {
        held = spot_taken_on_the_way(world, i);
        if held.is_none() {
            return;
        }
    }
    world.state.units[i].route = None;
    approach(world, crews, i, drop, false);
    held_as_long(world, i, held);
}

fn build(world: &mut World, crews: &mut Crews, i: usize, target: EntityId) {
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
