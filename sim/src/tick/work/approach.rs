//! A worker's approach: a spot at the resource or building from the standing-spot planner, its
//! crew mates' spots taken, kept while it walks, and waiting a body's width out when all are
//! spoken for.

use super::*;
use crate::id::EntityId;
use crate::nav::spot::{stands_in, K_ROUNDING};
use crate::nav::survey::Body;
use crate::nav::{chase::K_WAITING_RINGS, Tick, View};
use crate::nav::{find_standing_spot, region_here, route_for, Approach, Ask, Spot};
use crate::nav::{in_range, K_INSIDE};
use crate::position::{squared, Bounds, Fx, Vec2};
use crate::state::{Order, Progress, State};
use crate::tick::patch::{part_beside, patch_of};
use crate::walk::apart::K_KEEP_APART;
use crate::walk::give_up;
use crate::walk::held::{held_on_a_new_walk, held_ticks};

/// The ground a worker approaches and what it is made of: a resource's patch
/// ([`patch_of`]: a whole mine), or a building's footprint.
pub(super) fn ground_of(view: View<'_>, id: EntityId) -> Option<(Bounds, Vec<EntityId>)> {
    if view.state.resource(id).is_some() {
        return patch_of(view, id);
    }
    view.state
        .building(id)
        .map(|b| (b.footprint.bounds(), vec![id]))
}

/// Sends unit `i` to a standing spot at `target`'s ground (its crew mates' spots taken: pass
/// `crew` false for a drop site, where nobody keeps a spot); when all are taken it waits a body's
/// width further out, its waiting place spoken for too — unless a resource of the kind near by
/// has a spot free ([`free_neighbour`]): a crew goes there. At a patch it gathers from the part
/// beside its spot. Gives up when the ground is blocked all round.
pub(super) fn approach(
    tick: &mut Tick<'_>,
    crews: &mut Crews,
    i: usize,
    target: EntityId,
    crew: bool,
) {
    let u = &tick.state.units[i];
    let radius = tick.rules.radius_of(u.kind);
    let waiting = u.route.is_none()
        && u.work_spot
            .is_some_and(|w| u.position.chebyshev(w) <= radius);
    if waiting && !(tick.state.tick.wrapping_add(u.id.0)).is_multiple_of(K_WAIT_ASK_TICKS) {
        return;
    }
    approach_once(tick, crews, i, target, crew, true);
}

/// [`approach`], trying the resources near by for a free spot only when `neighbours` is set (once
/// an approach, so two resources each saying the other has room cannot send a worker to and fro).
pub(super) fn approach_once(
    tick: &mut Tick<'_>,
    crews: &mut Crews,
    i: usize,
    target: EntityId,
    crew: bool,
    neighbours: bool,
) {
    let Some((ground, parts)) = crews.ground_of(tick.view(), target) else {
        give_up(&mut tick.state.units[i]);
        return;
    };
    let u = &tick.state.units[i];
    let radius = tick.rules.radius_of(u.kind);
    // At a drop site nobody keeps a spot, but where bodies stand still is taken there too.
    let mut round = Round::default();
    if crew {
        taken_at(tick.view(), crews, i, ground, &parts, radius, &mut round);
    } else {
        standing_round(tick.view(), i, ground, radius, &mut round);
    }
    let taken = &round.taken[..];
    let key = tick.key_of(u);
    let region = region_here(tick.regions, tick.grid(), key, u.position.tile());
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
        let stands = |p: Vec2| round.clear(p) && stands_in(tick.view(), key, region, p, radius);
        match find_standing_spot(&ask, stands) {
            Spot::Found(p) => {
                spot = Some(p);
                break;
            }
            Spot::Full if !wait => {
                // Another resource of the kind near by has a spot free: work there (Cohort's
                // choice, as AoE II's villagers do: one tree of a wood line has room for two).
                let free =
                    (crew && neighbours).then(|| free_neighbour(tick.view(), crews, i, target));
                if let Some(next) = free.flatten() {
                    tick.state.units[i].order = Order::Gather { target: next };
                    crews.join(next, i);
                    approach_once(tick, crews, i, next, crew, false);
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
        give_up(&mut tick.state.units[i]);
        return;
    };
    if wait && at.chebyshev(p) <= radius {
        // Already waiting there.
        tick.state.units[i].work_spot = Some(p);
        return;
    }
    let target = match tick.state.units[i].order {
        Order::Gather { .. } if !wait && parts.len() > 1 => {
            let part = part_beside(tick.view(), &parts, p).unwrap_or(target);
            tick.state.units[i].order = Order::Gather { target: part };
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
    let route = route_for(tick, &ask);
    let u = &mut tick.state.units[i];
    u.work_spot = Some(p);
    match route {
        Some(r) => u.route = Some(r),
        None if at.chebyshev(p) <= radius => u.route = None,
        None => give_up(u),
    }
}

/// What stands still round a worker's ground when it asks for a spot there: the spots spoken for
/// (`taken`: its crew mates' and every body standing there, a worker's width round each
/// middle), and of those the other players' (`enemies`: each middle with the square of its
/// radius and the worker's, body beside body).
#[derive(Default)]
pub(super) struct Round {
    pub(super) taken: Vec<Vec2>,
    pub(super) enemies: Vec<(Vec2, i128)>,
}

impl Round {
    /// Whether a worker standing at `p` stands clear of every enemy standing round the ground by
    /// their two radii.
    pub(super) fn clear(&self, p: Vec2) -> bool {
        self.enemies
            .iter()
            .all(|&(m, apart)| squared(p - m) >= apart)
    }
}

/// The spots at `ground` (made of `parts`) spoken for when unit `i` asks for one, and the enemies
/// standing round it: its crew mates' and every body standing still round it, into `round`
/// (cleared first).
pub(super) fn taken_at(
    view: View<'_>,
    crews: &Crews,
    i: usize,
    ground: Bounds,
    parts: &[EntityId],
    radius: Fx,
    round: &mut Round,
) {
    round.taken.clear();
    round.enemies.clear();
    crews.spots(view, i, parts, &mut round.taken);
    standing_round(view, i, ground, radius, round);
}

/// Where bodies other than unit `i`'s stand still round `ground`, as far out as its waiting rings
/// reach: a spot there is taken too (Cohort's choice: the spec's crew speaks for its own spots
/// only, so a worker at the next tree of a wood line, or one gathering where its crew's ground
/// changed under it, had a crew mate sent into its body). A body's middle is spoken for, a
/// worker's width round it; a spot is also clear of an enemy by their two radii (Cohort's choice, as a
/// chaser's place is: a worker never shoves an enemy, and a spot a worker's width from a scout
/// attacking its mill lay behind a gap between two scouts a fiftieth of a tile too narrow for it,
/// and a villager walked at it for 142 s: `soak_10_villagers_between_attacking_scouts`). Added
/// to `round`.
pub(super) fn standing_round(
    view: View<'_>,
    i: usize,
    ground: Bounds,
    radius: Fx,
    round: &mut Round,
) {
    let u = &view.state.units[i];
    let (me, friends) = (u.id, view.state.friends(u.owner));
    let rings = Fx::from_num(K_WAITING_RINGS + 2);
    let near = ground.widened(radius * 2 * rings);
    let standing = view
        .nav
        .survey
        .in_tiles(near.min.tile(), near.max.tile())
        .filter(|b| b.entity != me && !b.moving);
    for b in standing {
        round.taken.push(b.middle);
        if !friends.contains(b.owner) {
            let apart = i128::from((radius + b.radius).to_bits());
            round.enemies.push((b.middle, apart * apart));
        }
    }
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
pub(super) fn spot_taken_on_the_way(tick: &mut Tick<'_>, i: usize) -> Option<Progress> {
    let u = &tick.state.units[i];
    let (Some(route), Some(spot)) = (&u.route, u.work_spot) else {
        return None;
    };
    let held = held_ticks(route, tick.state.tick);
    if held < K_SPOT_TAKEN_AFTER_TICKS || !held.is_multiple_of(K_SPOT_TAKEN_AFTER_TICKS) {
        return None;
    }
    let radius = tick.rules.radius_of(u.kind);
    let room = radius * 2;
    let me = u.id;
    // The widest body of the ruleset (a ship, a trebuchet) keeps further apart than a worker's
    // width.
    let widest = tick
        .rules
        .units
        .iter()
        .map(|k| k.radius)
        .max()
        .unwrap_or(radius);
    let reach = room.max(radius + widest);
    // A friend within a worker's width of the spot, or nearer than it keeps apart from the
    // worker, stands on it; an enemy within their two radii ([`standing_round`]).
    let friends = tick.state.friends(u.owner);
    let on_spot = |b: &Body| {
        let share = if friends.contains(b.owner) {
            K_KEEP_APART
        } else {
            Fx::ONE
        };
        let apart = i128::from(((radius + b.radius) * share).to_bits());
        b.middle.chebyshev(spot) < room - K_ROUNDING || squared(b.middle - spot) < apart * apart
    };
    let taken = tick
        .nav
        .survey
        .near(spot, reach)
        .any(|b| b.entity != me && !b.moving && on_spot(b));
    // A spot whose ground has closed since (a foundation laid over it) is taken too.
    let key = tick.key_of(u);
    let region = region_here(tick.regions, tick.grid(), key, u.position.tile());
    if !taken && stands_in(tick.view(), key, region, spot, radius) {
        return None;
    }
    tick.state.units[i].route.take().map(|r| r.progress)
}

/// The walk unit `i` was just given to a new spot is held as long as the one whose spot was
/// taken (`held`), so asking again never starts a held worker's detour, squeeze and walk
/// through over.
pub(super) fn held_as_long(state: &mut State, i: usize, held: Option<Progress>) {
    let u = &mut state.units[i];
    if let (Some(old), Some(route)) = (held, u.route.as_mut()) {
        route.progress = held_on_a_new_walk(&old, route, u.position);
    }
}

/// Whether unit `i` stands at its work: its body within reach of `target`'s box.
pub(super) fn at_work(view: View<'_>, i: usize, target: EntityId) -> bool {
    let u = &view.state.units[i];
    let radius = view.rules.radius_of(u.kind);
    in_range(view, u.position, radius, target, K_INSIDE)
}
