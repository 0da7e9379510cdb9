//! Checks of walking and units sent together: sharedwalk, crowdgoal, arrive50, shore, gap,
//! formation. Each loads its scene from `scenarios/verify/` and measures.

use super::scene::Scene;
use super::Outcome;
use crate::astar::segment_enters;
use crate::command::Command;
use crate::formation::K_SPACING;
use crate::id::EntityId;
use crate::nav::{region_here, K_GO_ROUND_CROWD};
use crate::position::{fx_ratio, tile_of, Bounds, Fx, Tile, Vec2};
use crate::scenario::Files;
use crate::state::{Order, TICK_MS};
use crate::walk::speed_of;
use crate::world::World;

/// Members of a formation arrive "together" when the first and the last reach their places
/// within this many milliseconds (a second: less than the slowest member takes to walk one
/// rank and a half, 0.7 tiles apart, at 0.9 tiles a second).
pub const K_TOGETHER_MS: u64 = 1000;

/// The point the scene's first move command sends its units to.
fn move_point(s: &Scene) -> Option<Vec2> {
    s.runner
        .commands
        .iter()
        .find_map(|c| match c.command.command {
            Command::Move { to, .. } => Some(to),
            _ => None,
        })
}

/// sharedwalk: 100 soldiers sent as a block to one point cost at most 10 searches.
pub fn sharedwalk(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("sharedwalk");
    let Some(mut s) = o.scene(files, "sharedwalk.toml") else {
        return o;
    };
    let ids = s.ids("block");
    let before = s.world().counters.clone();
    s.step();
    let w = s.world();
    let searches = w.counters.route_searches - before.route_searches;
    let shared = w.counters.shared_walks - before.shared_walks;
    let walking = ids
        .iter()
        .filter(|&&id| w.unit(id).is_some_and(|u| u.route.is_some()))
        .count();
    o.figure("units", ids.len());
    o.require("searches", searches, searches <= 10 && ids.len() == 100);
    o.figure("shared_walks", shared);
    o.require("walking", walking, walking == ids.len());
    o
}

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
/// the crowd it passes through).
fn crowd_walk(files: &dyn Files, file: &str, o: &mut Outcome) -> Option<(usize, usize, usize)> {
    let mut s = o.scene(files, file)?;
    let walker = s.id("walker")?;
    let crowd: Vec<EntityId> = [s.ids("crowd"), s.ids("rest")].concat();
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
    match crowd_walk(files, "crowdgoal_33.toml", &mut o) {
        Some((tiles, legs, crossed)) => {
            o.require("big.crowd_tiles", tiles, tiles > K_GO_ROUND_CROWD);
            o.require("big.legs", legs, legs == 1);
            o.require("big.bodies_crossed", crossed, crossed > 0);
        }
        None => o.require("big.walker_route", "none", false),
    }
    match crowd_walk(files, "crowdgoal_32.toml", &mut o) {
        Some((tiles, legs, crossed)) => {
            o.require("small.crowd_tiles", tiles, tiles <= K_GO_ROUND_CROWD);
            o.figure("small.legs", legs);
            o.require("small.bodies_crossed", crossed, crossed == 0);
        }
        None => o.require("small.walker_route", "none", false),
    }
    o
}

/// arrive50: after a group of 50 arrives, no two bodies overlap by more than the keep-apart
/// allowance.
pub fn arrive50(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("arrive50");
    let Some(mut s) = o.scene(files, "group50_arrival.toml") else {
        return o;
    };
    let ids = s.ids("group");
    let most = s.ticks;
    let ticks = 1 + s.run_until(most, |w| w.tick() > 0 && Scene::all_stopped(w, &ids));
    o.require("group", ids.len(), ids.len() == 50);
    o.require("all_arrived_ms", ticks * u64::from(TICK_MS), ticks < most);
    o.kept_apart("", s.world(), &ids);
    o
}

/// shore: a villager sent into the sea stops on the shore nearest the point it was sent to.
pub fn shore(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("shore");
    let Some(mut s) = o.scene(files, "sea_shore.toml") else {
        return o;
    };
    let (Some(v), Some(asked)) = (s.id("villager"), move_point(&s)) else {
        o.require("named", "villager and its move", false);
        return o;
    };
    // The ring round the point asked (in tiles) of the nearest ground of the villager's region.
    let nearest_ring = {
        let w = s.world();
        let u = w.unit(v);
        let key = u.map(|u| w.key_of(u));
        let region = key.and_then(|k| {
            u.and_then(|u| region_here(&w.caches.regions, w.grid(), k, u.position.tile()))
        });
        let grid = w.grid();
        let at = asked.tile();
        let mut best = i32::MAX;
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                let t = Tile::new(x, y);
                let ours = key.is_some_and(|k| {
                    region.is_some() && w.caches.regions.region_of(grid, k, t) == region
                });
                if ours {
                    best = best.min((t.x - at.x).abs().max((t.y - at.y).abs()));
                }
            }
        }
        best
    };
    let most = s.ticks;
    let ticks = 1 + s.run_until(most, |w| w.tick() > 0 && Scene::all_stopped(w, &[v]));
    let w = s.world();
    let Some(u) = w.unit(v) else {
        return o;
    };
    let key = w.key_of(u);
    let t = u.position.tile();
    let ring = (t.x - asked.tile().x)
        .abs()
        .max((t.y - asked.tile().y).abs());
    let on_land = w.grid().passable(key, t);
    let by_the_sea = (-1..=1).any(|dy| {
        (-1..=1).any(|dx| {
            let n = Tile::new(t.x + dx, t.y + dy);
            w.grid().contains(n) && !w.grid().passable(key, n)
        })
    });
    o.require("stopped_ms", ticks * u64::from(TICK_MS), ticks < most);
    o.figure("at", format!("({}, {})", u.position.x, u.position.y));
    o.require("on_land", on_land, on_land);
    o.require("beside_the_sea", by_the_sea, by_the_sea);
    o.figure("nearest_shore_ring", nearest_ring);
    o.require("ring_from_the_point", ring, ring == nearest_ring);
    o
}

/// The tiles a box covers inside (touching an edge is not covering).
fn tiles_under(b: &Bounds) -> impl Iterator<Item = Tile> {
    let bit = Fx::from_bits(1);
    let (x0, x1) = (tile_of(b.min.x + bit), tile_of(b.max.x - bit));
    let (y0, y1) = (tile_of(b.min.y + bit), tile_of(b.max.y - bit));
    (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| Tile::new(x, y)))
}

/// gap: a unit walks through a gap one body wide, never onto closed ground.
pub fn gap(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("gap");
    let Some(mut s) = o.scene(files, "gap_one_body.toml") else {
        return o;
    };
    let (Some(k), Some(to)) = (s.id("walker"), move_point(&s)) else {
        o.require("named", "walker and its move", false);
        return o;
    };
    let width = s
        .world()
        .unit(k)
        .map_or(Fx::ZERO, |u| s.world().rules().radius_of(u.kind) * 2);
    // The wall's one open tile: the gap.
    let wall_x = 20;
    let mut crossed_at = None;
    let mut on_closed = 0;
    let most = s.ticks;
    let ticks = 1 + s.run_until(most, |w| {
        if let Some(u) = w.unit(k) {
            if crossed_at.is_none() && u.position.x > Fx::from_num(wall_x) {
                crossed_at = Some(u.position.y);
            }
            let key = w.key_of(u);
            if let Some(b) = Scene::body(w, k) {
                on_closed += usize::from(tiles_under(&b).any(|t| !w.grid().passable(key, t)));
            }
        }
        w.tick() > 0 && Scene::all_stopped(w, &[k])
    });
    let at = s.world().unit(k).map(|u| u.position).unwrap_or_default();
    o.figure("body_width", width);
    let open = (0..s.world().grid().height())
        .filter(|&y| {
            s.world()
                .grid()
                .passable(crate::grid::Keyed::unkeyed(0), Tile::new(wall_x, y))
        })
        .count();
    o.require("gap_tiles", open, open == 1 && width == Fx::from_num(1));
    o.require(
        "arrived_ms",
        ticks * u64::from(TICK_MS),
        ticks < most && at.distance(to) <= fx_ratio(1, 2),
    );
    o.require(
        "crossed_the_wall_at_y",
        crossed_at.map_or("never".to_string(), |y| y.to_string()),
        crossed_at.is_some(),
    );
    o.require("ticks_on_closed_ground", on_closed, on_closed == 0);
    o
}

/// formation: a formation of mixed speeds walks at its slowest member's pace and arrives
/// together (within [`K_TOGETHER_MS`]).
pub fn formation(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("formation");
    let Some(mut s) = o.scene(files, "formation_mixed_speeds.toml") else {
        return o;
    };
    let ids: Vec<EntityId> = ["knights", "militia", "archers"]
        .iter()
        .flat_map(|n| s.ids(n))
        .collect();
    let slowest = {
        let w = s.world();
        ids.iter()
            .filter_map(|&id| w.unit(id))
            .map(|u| speed_of(w, u))
            .min()
            .unwrap_or_default()
    };
    // Through the tick the move is given (the set_formation and the move: ticks 0 and 1).
    let given = s.runner.commands.iter().map(|c| c.tick).max().unwrap_or(0);
    while s.world().tick() <= given {
        s.step();
    }
    let caps: Vec<Option<Fx>> = ids
        .iter()
        .map(|&id| {
            s.world()
                .unit(id)
                .and_then(|u| u.route.as_ref().and_then(|r| r.speed_cap))
        })
        .collect();
    // At the slowest speed, or below it for a shorter walk (so all arrive together).
    let all_capped = caps.iter().all(|c| c.is_some_and(|c| c <= slowest));
    // The place each was dealt: where its move order sends it.
    let places: Vec<Option<Vec2>> = ids
        .iter()
        .map(|&id| match s.world().unit(id).map(|u| &u.order) {
            Some(Order::Move { to }) => Some(*to),
            _ => None,
        })
        .collect();
    let start = s.world().tick();
    let mut arrived: Vec<Option<u64>> = vec![None; ids.len()];
    // Members whose ways cross let each other through on the march (`Stepper::lets_through`):
    // how near any two come is printed, not held.
    let mut on_the_march = i64::MAX;
    let most = s.ticks;
    let ran = s.run_until(most, |w: &World| {
        on_the_march = on_the_march.min(Scene::closest_share(w, &ids));
        for (k, &id) in ids.iter().enumerate() {
            if arrived[k].is_none() && w.unit(id).is_some_and(|u| u.route.is_none()) {
                arrived[k] = Some(w.tick() - start);
            }
        }
        arrived.iter().all(|a| a.is_some())
    });
    let first = arrived.iter().flatten().min().copied().unwrap_or(0);
    let last = arrived.iter().flatten().max().copied().unwrap_or(0);
    let spread_ms = (last - first) * u64::from(TICK_MS);
    o.figure("members", ids.len());
    o.require("capped_at_slowest", slowest, all_capped && !ids.is_empty());
    o.require("all_arrived", ran < most, ran < most);
    o.figure("first_arrival_ms", first * u64::from(TICK_MS));
    o.require("arrival_spread_ms", spread_ms, spread_ms <= K_TOGETHER_MS);
    // "So a formation arrives without anyone shuffling apart": each stands on its place, within
    // half the spacing of a formation.
    let off_place = ids
        .iter()
        .zip(&places)
        .filter(|(&id, place)| {
            let at = s.world().unit(id).map(|u| u.position);
            at.zip(**place)
                .is_none_or(|(a, p)| a.distance(p) > K_SPACING / 2)
        })
        .count();
    o.require("off_their_places", off_place, off_place == 0);
    o.figure(
        "closest_pair_on_the_march_per_mille_of_allowance",
        on_the_march,
    );
    o.kept_apart("", s.world(), &ids);
    o
}
