//! Villagers' jobs in a generated scene: a free spot for a building near their start, and the
//! work the seed picks (gather, lay a building, or build a foundation the scene lays).

use super::*;
use crate::soak::text::{Extra, Who};
use crate::soak::Rng;
use crate::world::World;

/// A free spot for a building of `kind` near `start`: its footprint and a tile round it free,
/// taken once found.
pub(super) fn spot(
    world: &World,
    rng: &mut Rng,
    ground: &mut Ground,
    kind: &str,
    start: (i64, i64),
) -> Option<(i64, i64)> {
    let k = world.rules().building_kind(kind)?;
    (0..TRIES).find_map(|_| {
        let at = (
            start.0 + rng.range(-START_REACH, START_REACH),
            start.1 + rng.range(-START_REACH, START_REACH),
        );
        let f = world.footprint_of(k, tile(at.0, at.1), false);
        let area = (
            at.0 + i64::from(f.min.x) - 1,
            at.1 + i64::from(f.min.y) - 1,
            at.0 + i64::from(f.max.x) + 1,
            at.1 + i64::from(f.max.y) + 1,
        );
        ground.free(area).then(|| {
            ground.take(area);
            at
        })
    })
}

/// Villagers set to work: whom the order is for, their start, where they stand, their pace,
/// and the name a foundation laid for them takes.
pub(super) struct Job {
    pub(super) who: Who,
    pub(super) start: (i64, i64),
    pub(super) from: (i64, i64),
    pub(super) speed: i64,
    pub(super) name: String,
}

/// Villagers' work: gather from a resource of the map near their start (the nearest of a kind
/// the seed picks), lay a building for themselves there, or build a foundation the scene lays.
pub(super) fn work(
    rng: &mut Rng,
    plan: &mut Plan,
    foundations: &mut Vec<Foundation>,
    ground: &mut Ground,
    world: &World,
    job: Job,
) {
    let Job {
        who,
        start,
        from,
        speed,
        name,
    } = job;
    let order = |action, extra| who.order(action, extra);
    let choice = rng.range(0, 3);
    if choice >= 2 {
        let kind = *rng.pick(&BUILDINGS);
        if let Some(at) = spot(world, rng, ground, kind, start) {
            if choice == 2 {
                plan.give(
                    &order("place_building", Extra::Lay(kind, at)),
                    from,
                    Some(at),
                    speed,
                );
            } else {
                let name = format!("f_{name}");
                plan.give(&order("build", Extra::Named(&name)), from, Some(at), speed);
                foundations.push(Foundation {
                    name,
                    kind,
                    owner: who.player,
                    at,
                });
            }
            return;
        }
    }
    let resource = *rng.pick(&RESOURCES);
    let kind = world.rules().resource_kind(resource);
    let nearest = world
        .state
        .resources
        .iter()
        .filter(|r| Some(r.kind) == kind)
        .map(|r| (r.id, (i64::from(r.tile.x), i64::from(r.tile.y))))
        .min_by_key(|&(id, (x, y))| ((x - start.0).pow(2) + (y - start.1).pow(2), id));
    if let Some((id, at)) = nearest {
        plan.give(&order("gather", Extra::Id(id)), from, Some(at), speed);
    }
}
