//! The `crowdgoal` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use crate::astar::segment_enters;
use crate::id::EntityId;
use crate::nav::K_GO_ROUND_CROWD;
use crate::position::{Bounds, Fx, Tile, Vec2};
use crate::scenario::Files;
use crate::verify::Outcome;

/// How many of `bodies` (their boxes of `radius`) the walk along `points` from `from` passes
/// through.
fn bodies_crossed(from: Vec2, points: &[Vec2], bodies: &[Vec2], radius: Fx) -> usize {
    bodies
        .iter()
        .filter(|&&b| {
            let bx = Bounds::around(b, radius);
            let mut a = from;
            points.iter().any(|&p| {
                let hit = segment_enters(a, p, &bx);
                a = p;
                hit
            })
        })
        .count()
}

/// The route the walker of a crowdgoal scene is given at tick 0: (crowd tiles, legs, bodies of
/// the crowd it passes through). The crowd is 30 bodies and `rest` more (figures `prefix…`).
fn crowd_walk(
    files: &dyn Files,
    file: &str,
    prefix: &str,
    rest: usize,
    o: &mut Outcome,
) -> Option<(usize, usize, usize)> {
    let mut s = o.scene(files, file)?;
    let walker = o.one(&s, prefix, "walker")?;
    let crowd: Vec<EntityId> = [
        o.group(&s, prefix, "crowd", 30)?,
        o.group(&s, prefix, "rest", rest)?,
    ]
    .concat();
    let w = s.world();
    let from = w.unit(walker)?.position;
    let radius = w.rules().units[w.unit(walker)?.kind as usize].radius;
    let at: Vec<Vec2> = crowd
        .iter()
        .filter_map(|&id| w.unit(id))
        .map(|u| u.position)
        .collect();
    let mut tiles: Vec<Tile> = at.iter().map(|p| p.tile()).collect();
    tiles.sort_unstable_by_key(|t| (t.y, t.x));
    tiles.dedup();
    s.step();
    let route = s.world().unit(walker)?.route.clone()?;
    let crossed = bodies_crossed(from, &route.waypoints, &at, radius);
    Some((tiles.len(), route.waypoints.len(), crossed))
}

/// crowdgoal: a route into a crowd of more than 32 tiles (kGoRoundCrowd) at its goal goes
/// straight in; into a smaller one, round.
pub fn crowdgoal(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("crowdgoal");
    match crowd_walk(files, "crowdgoal_33.toml", "big.", 3, &mut o) {
        Some((tiles, legs, crossed)) => {
            o.require("big.crowd_tiles", tiles, tiles > K_GO_ROUND_CROWD);
            o.require("big.legs", legs, legs == 1);
            o.require("big.bodies_crossed", crossed, crossed > 0);
        }
        None => o.require("big.walker_route", "none", false),
    }
    match crowd_walk(files, "crowdgoal_32.toml", "small.", 2, &mut o) {
        Some((tiles, legs, crossed)) => {
            o.require("small.crowd_tiles", tiles, tiles <= K_GO_ROUND_CROWD);
            o.figure("small.legs", legs);
            o.require("small.bodies_crossed", crossed, crossed == 0);
        }
        None => o.require("small.walker_route", "none", false),
    }
    o
}
