//! Checks of walking and units sent together: sharedwalk, crowdgoal, arrive50, shore, gap,
//! formation.

use super::scene::Scene;
use super::Outcome;
use crate::astar::segment_enters;
use crate::command::{Command, FormationKind};
use crate::nav::{route, K_GO_ROUND_CROWD};
use crate::position::{fx, fx_ratio, Bounds, Fx, Tile, Vec2};
use crate::world::TICK_MS;

/// sharedwalk: 100 soldiers sent as a block to one point cost at most 10 searches.
pub fn sharedwalk() -> Outcome {
    let mut o = Outcome::new("sharedwalk");
    let mut s = Scene::open(96, 96);
    let ids = s.block(
        "militia",
        0,
        Vec2::new(fx(8), fx(8)),
        10,
        10,
        fx_ratio(7, 10),
    );
    let before = s.world.counters.clone();
    s.order(
        0,
        Command::Move {
            units: ids.clone(),
            to: Vec2::new(fx(80), fx(70)),
        },
    );
    let searches = s.world.counters.route_searches - before.route_searches;
    let shared = s.world.counters.shared_walks - before.shared_walks;
    let walking = ids
        .iter()
        .filter(|&&id| s.world.unit(id).is_some_and(|u| u.route.is_some()))
        .count();
    o.figure("units", ids.len());
    o.require("searches", searches, searches <= 10);
    o.figure("shared_walks", shared);
    o.require("walking", walking, walking == ids.len());
    o
}

/// How many of the `bodies` standing at the goal the walk along `points` from `from` passes
/// through (its line entering their box), not counting those on `goal`'s tile.
fn bodies_crossed(from: Vec2, points: &[Vec2], bodies: &[Vec2], goal: Tile) -> usize {
    let radius = fx_ratio(1, 5);
    bodies
        .iter()
        .filter(|b| b.tile() != goal)
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

/// crowdgoal: a route into a crowd of more than 32 tiles at its goal goes straight in; into a
/// smaller one, round.
pub fn crowdgoal() -> Outcome {
    let mut o = Outcome::new("crowdgoal");
    // A big crowd: 6 × 6 tiles of standing soldiers round the goal.
    let mut s = Scene::open(64, 64);
    let goal = Tile::new(40, 30);
    let mut big = Vec::new();
    let mut big_at = Vec::new();
    for y in goal.y - 3..goal.y + 3 {
        for x in goal.x - 3..goal.x + 3 {
            s.unit("militia", 1, Vec2::of_tile(Tile::new(x, y)));
            big.push(Tile::new(x, y));
            big_at.push(Vec2::of_tile(Tile::new(x, y)));
        }
    }
    let walker = s.unit("militia", 0, Vec2::of_tile(Tile::new(20, 30)));
    s.world.step(&[]);
    let r = route(&mut s.world, walker, Vec2::of_tile(goal));
    let (legs, crossed) = r.as_ref().map_or((0, 0), |r| {
        (
            r.waypoints.len(),
            bodies_crossed(
                Vec2::of_tile(Tile::new(20, 30)),
                &r.waypoints,
                &big_at,
                goal,
            ),
        )
    });
    o.figure("big_crowd_tiles", big.len());
    o.require(
        "big_crowd_legs",
        legs,
        legs == 1 && big.len() > K_GO_ROUND_CROWD,
    );
    o.require("big_crowd_bodies_crossed", crossed, crossed > 0);

    // A small crowd: villagers standing two deep and three across in front of the goal, as
    // at a mine.
    let mut s = Scene::open(64, 64);
    let mut small = Vec::new();
    let mut small_at = Vec::new();
    for y in goal.y - 1..=goal.y + 1 {
        for x in goal.x - 2..goal.x {
            s.unit("villager", 1, Vec2::of_tile(Tile::new(x, y)));
            small.push(Tile::new(x, y));
            small_at.push(Vec2::of_tile(Tile::new(x, y)));
        }
    }
    let walker = s.unit("militia", 0, Vec2::of_tile(Tile::new(20, 30)));
    s.world.step(&[]);
    let r = route(&mut s.world, walker, Vec2::of_tile(goal));
    let crossed = r.as_ref().map_or(usize::MAX, |r| {
        bodies_crossed(
            Vec2::of_tile(Tile::new(20, 30)),
            &r.waypoints,
            &small_at,
            goal,
        )
    });
    o.figure("small_crowd_tiles", small.len());
    o.require("small_crowd_bodies_crossed", crossed, crossed == 0);
    o
}

/// arrive50: after a group of 50 arrives, no two bodies overlap by more than the keep-apart
/// allowance.
pub fn arrive50() -> Outcome {
    let mut o = Outcome::new("arrive50");
    let mut s = Scene::open(64, 64);
    let ids = s.block(
        "militia",
        0,
        Vec2::new(fx(6), fx(6)),
        10,
        5,
        fx_ratio(7, 10),
    );
    s.order(
        0,
        Command::Move {
            units: ids.clone(),
            to: Vec2::new(fx(45), fx(40)),
        },
    );
    let ticks = s.run_until(8000, |w| Scene::all_stopped(w, &ids));
    let share = Scene::closest_share(&s.world, &ids);
    o.require("all_arrived", ticks < 8000, ticks < 8000);
    o.figure("seconds", ticks * TICK_MS / 1000);
    o.require("closest_pair_per_mille_of_allowance", share, share >= 999);
    o.require(
        "stacked",
        Scene::stacked(&s.world, &ids),
        !Scene::stacked(&s.world, &ids),
    );
    o
}

/// shore: a villager sent into the sea stops on the nearest shore.
pub fn shore() -> Outcome {
    let mut o = Outcome::new("shore");
    let mut s = Scene::open(64, 48);
    s.terrain("deep_water", Tile::new(32, 0), Tile::new(63, 47));
    let v = s.unit("villager", 0, Vec2::of_tile(Tile::new(10, 20)));
    s.order(
        0,
        Command::Move {
            units: vec![v],
            to: Vec2::of_tile(Tile::new(50, 24)),
        },
    );
    let ticks = s.run_until(6000, |w| Scene::all_stopped(w, &[v]));
    let at = s.world.unit(v).map(|u| u.position).unwrap_or_default();
    let on_land = at.tile().x < 32;
    // The land nearest the point asked ends 18.5 tiles from it (the shore at x = 31.5); the
    // villager should come within a tile of that.
    let asked = Vec2::of_tile(Tile::new(50, 24));
    let off = at.chebyshev(asked) - (fx(50) - fx_ratio(63, 2));
    o.require("stopped", ticks < 6000, ticks < 6000);
    o.require("on_land", on_land, on_land);
    o.figure("at", format!("({}, {})", at.x, at.y));
    o.require("tiles_further_than_the_shore", off, off <= fx(1));
    o
}

/// gap: a unit walks through a gap one body wide.
pub fn gap() -> Outcome {
    let mut o = Outcome::new("gap");
    let mut s = Scene::open(48, 32);
    // A cliff wall across the map at x = 20, open on one tile only: y = 15.
    s.terrain("cliff", Tile::new(20, 0), Tile::new(20, 14));
    s.terrain("cliff", Tile::new(20, 16), Tile::new(20, 31));
    let k = s.unit("knight", 0, Vec2::of_tile(Tile::new(8, 5)));
    let to = Vec2::of_tile(Tile::new(34, 26));
    s.order(0, Command::Move { units: vec![k], to });
    let mut crossed_at = None;
    let ticks = s.run_until(6000, |w| {
        if let Some(u) = w.unit(k) {
            if crossed_at.is_none() && u.position.x > fx(20) {
                crossed_at = Some(u.position.y);
            }
        }
        Scene::all_stopped(w, &[k])
    });
    let at = s.world.unit(k).map(|u| u.position).unwrap_or_default();
    let width = s.world.rules().units[s.world.unit(k).map_or(0, |u| u.kind) as usize].radius * 2;
    o.figure("body_width", width);
    o.require(
        "arrived",
        at.distance(to) <= fx_ratio(1, 2),
        ticks < 6000 && at.distance(to) <= fx_ratio(1, 2),
    );
    let through = crossed_at.is_some_and(|y| (y - fx(15)).abs() <= fx_ratio(1, 2));
    o.require("crossed_in_the_gap", through, through);
    o
}

/// formation: a formation of mixed speeds arrives together.
pub fn formation() -> Outcome {
    let mut o = Outcome::new("formation");
    let mut s = Scene::open(96, 64);
    let mut ids = s.block("knight", 0, Vec2::new(fx(6), fx(6)), 4, 2, fx(1));
    ids.extend(s.block("militia", 0, Vec2::new(fx(6), fx(9)), 4, 2, fx(1)));
    ids.extend(s.block("archer", 0, Vec2::new(fx(6), fx(12)), 4, 2, fx(1)));
    s.order(
        0,
        Command::SetFormation {
            units: ids.clone(),
            formation: FormationKind::Line,
        },
    );
    s.order(
        0,
        Command::Move {
            units: vec![ids[0]],
            to: Vec2::new(fx(70), fx(40)),
        },
    );
    // How far each has to walk, and the speed cap they share.
    let dist: Vec<Fx> = ids
        .iter()
        .filter_map(|&id| s.world.unit(id))
        .map(|u| {
            u.route
                .as_ref()
                .map_or(Fx::ZERO, |r| r.goal.distance(u.position))
        })
        .collect();
    let caps: Vec<Fx> = ids
        .iter()
        .filter_map(|&id| s.world.unit(id))
        .filter_map(|u| u.route.as_ref().and_then(|r| r.speed_cap))
        .collect();
    let one_cap = caps.len() == ids.len() && caps.iter().all(|&c| c == caps[0]);
    let mut arrived: Vec<Option<u64>> = vec![None; ids.len()];
    let start = s.world.tick();
    let ticks = s.run_until(12000, |w| {
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
    let cap = caps.first().copied().unwrap_or(fx(1));
    let (near, far) = (
        dist.iter().min().copied().unwrap_or_default(),
        dist.iter().max().copied().unwrap_or_default(),
    );
    // Walking at one pace, arrivals part only by how much further some walk, plus a second.
    let allowed_ms = ((far - near) * 1000 / cap).to_num::<u64>() + 1000;
    // At their own paces the knights (1.35 tiles/s) would be in this long before the militia.
    let uncapped_ms = (near * 1000 / cap - near * 1000 / fx_ratio(135, 100)).to_num::<u64>();
    o.require("all_arrived", ticks < 12000, ticks < 12000);
    o.require("one_speed_cap", cap, one_cap);
    o.figure("first_arrival_ms", first * u64::from(TICK_MS));
    o.figure("walks_differ_by_tiles", far - near);
    o.figure("uncapped_spread_ms_at_least", uncapped_ms);
    o.require(
        "arrival_spread_ms",
        spread_ms,
        spread_ms <= allowed_ms && spread_ms < uncapped_ms / 2,
    );
    o.require(
        "stacked",
        Scene::stacked(&s.world, &ids),
        !Scene::stacked(&s.world, &ids),
    );
    o
}
