//! What several checks ask: the standing-spot planner's spots round a target, a ring's west
//! face, which side of a middle a point is, and where a scene's first move sends its units.

use crate::command::Command;
use crate::id::EntityId;
use crate::nav::box_of;
use crate::nav::spot::stands_in;
use crate::nav::{find_standing_spot, region_here, Approach, Spot};
use crate::position::{Bounds, Fx, Vec2};
use crate::verify::scene::Scene;
use crate::world::World;

/// Where unit `id` could stand round `target`, asked the way a caller `outside` its box asks
/// (room: its width), the spots in `before` spoken for: every spot the planner hands out, one
/// after another, until it says full or blocked.
pub(super) fn every_spot(
    world: &World,
    id: EntityId,
    target: EntityId,
    outside: Fx,
    before: &[Vec2],
) -> Vec<Vec2> {
    let (Some(u), Some(ground)) = (world.unit(id), box_of(world.view(), target)) else {
        return Vec::new();
    };
    let radius = world.rules().radius_of(u.kind);
    let room = radius * 2;
    let key = world.key_of(u);
    let region = region_here(&world.caches.regions, world.grid(), key, u.position.tile());
    let mut taken: Vec<Vec2> = before.to_vec();
    while taken.len() < before.len() + 400 {
        let ask = Approach {
            ground,
            from: u.position,
            outside,
            room,
            taken: &taken,
            own_face_only: false,
        };
        match find_standing_spot(&ask, |p| stands_in(world.view(), key, region, p, radius)) {
            Spot::Found(p) => taken.push(p),
            Spot::Full | Spot::Blocked => break,
        }
    }
    taken.split_off(before.len())
}

/// The west face of the ring `ring`: the points on it, by their y.
pub(super) fn on_west_face(ring: &Bounds, spots: &[Vec2]) -> Vec<Fx> {
    let mut ys: Vec<Fx> = spots
        .iter()
        .filter(|p| p.x == ring.min.x)
        .map(|p| p.y)
        .collect();
    ys.sort_unstable();
    ys
}

/// Whether the west face of `ring` is full at the planner's fineness: no stretch of it, kept
/// `room / 2` clear of the corners, has room for one more body between those standing there
/// (`ys`, sorted) with a quarter of the room to spare.
pub(super) fn west_face_full(ring: &Bounds, room: Fx, ys: &[Fx]) -> bool {
    let fine = room / 4;
    let (lo, hi) = (ring.min.y + room / 2, ring.max.y - room / 2);
    let Some((&first, &last)) = ys.first().zip(ys.last()) else {
        return false;
    };
    first - lo < room + fine
        && hi - last < room + fine
        && ys.windows(2).all(|w| w[1] - w[0] < room * 2 + fine)
}

/// Which side of `middle` a point is: 0 west, 1 east, 2 north, 3 south.
pub(super) fn side_of(middle: Vec2, p: Vec2) -> usize {
    let d = p - middle;
    if d.x.abs() >= d.y.abs() {
        usize::from(d.x > Fx::ZERO)
    } else {
        2 + usize::from(d.y > Fx::ZERO)
    }
}

/// The point the scene's first move command sends its units to.
pub(super) fn move_point(s: &Scene) -> Option<Vec2> {
    s.runner
        .commands
        .iter()
        .find_map(|c| match c.command.command {
            Command::Move { to, .. } => Some(to),
            _ => None,
        })
}
