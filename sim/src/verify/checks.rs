//! Checks of standing spots, chases and work: planner, march, replanspread, goldmine,
//! chasetable.

use super::scene::Scene;
use super::Outcome;
use crate::command::Command;
use crate::nav::{find_standing_spot, replan_wait, spot::K_ROUNDING, Approach, Spot};
use crate::position::{fx, fx_ratio, Bounds, Fx, Tile, Vec2};
use crate::walk::{in_range, K_INSIDE};
use crate::world::{EntityId, TICK_MS};

/// planner: the standing-spot planner fills the caller's own face first, hands out spots a
/// worker's width apart, and says full when all are spoken for and blocked when none is open.
pub fn planner() -> Outcome {
    let mut o = Outcome::new("planner");
    let ground = Bounds::of_tile(Tile::new(10, 10));
    let room = fx_ratio(2, 5);
    let outside = fx_ratio(1, 5) - K_INSIDE;
    let from = Vec2::new(fx(6), fx(10));
    let mut taken: Vec<Vec2> = Vec::new();
    let mut first_on_own_face = 0;
    loop {
        let ask = Approach {
            ground,
            from,
            outside,
            room,
            taken: &taken,
        };
        match find_standing_spot(&ask, |_| true) {
            Spot::Found(p) => {
                if p.x < ground.min.x {
                    first_on_own_face += 1;
                }
                taken.push(p);
            }
            Spot::Full | Spot::Blocked => break,
        }
        if taken.len() > 64 {
            break;
        }
    }
    let ask = Approach {
        ground,
        from,
        outside,
        room,
        taken: &taken,
    };
    let full = find_standing_spot(&ask, |_| true);
    let apart = taken.iter().enumerate().all(|(k, a)| {
        taken[k + 1..]
            .iter()
            .all(|b| a.chebyshev(*b) >= room - K_ROUNDING)
    });
    let ring = ground.widened(outside);
    let on_ring = taken.iter().all(|p| {
        (p.x == ring.min.x || p.x == ring.max.x || p.y == ring.min.y || p.y == ring.max.y)
            && ring.widened(Fx::from_bits(1)).clamp(*p) == *p
    });
    o.require("spots", taken.len(), taken.len() >= 8);
    o.require(
        "own_face_first",
        first_on_own_face,
        first_on_own_face >= 2
            && taken[..first_on_own_face]
                .iter()
                .all(|p| p.x < ground.min.x),
    );
    o.require("a_width_apart", apart, apart);
    o.require("on_the_edge", on_ring, on_ring);
    o.require("then_full", format!("{full:?}"), full == Spot::Full);
    let ask = Approach {
        ground,
        from,
        outside,
        room,
        taken: &[],
    };
    let blocked = find_standing_spot(&ask, |_| false);
    o.require(
        "walled_in",
        format!("{blocked:?}"),
        blocked == Spot::Blocked,
    );
    o
}

/// An enemy that stands and takes blows for the whole check.
fn stout_enemy(s: &mut Scene, at: Vec2) -> EntityId {
    let e = s.unit("militia", 1, at);
    if let Some(u) = s.world.unit_mut(e) {
        u.hit_points = 1_000_000;
    }
    e
}

/// march: soldiers keep their width and do not stack, stand round a target, and spread along a
/// wall.
pub fn march() -> Outcome {
    let mut o = Outcome::new("march");
    // Round a unit: 12 militia set on one enemy from the west.
    let mut s = Scene::open(48, 48);
    let e = stout_enemy(&mut s, Vec2::new(fx(30), fx(24)));
    let ids = s.block(
        "militia",
        0,
        Vec2::new(fx(12), fx(22)),
        4,
        3,
        fx_ratio(7, 10),
    );
    s.order(
        0,
        Command::Attack {
            units: ids.clone(),
            target: e,
        },
    );
    s.run_until(1500, |_| false);
    let radius = fx_ratio(1, 5);
    let at_target: Vec<Vec2> = ids
        .iter()
        .filter_map(|&id| s.world.unit(id))
        .filter(|u| in_range(&s.world, u.position, radius, e, Fx::ZERO))
        .map(|u| u.position)
        .collect();
    let enemy = s.world.unit(e).map(|u| u.position).unwrap_or_default();
    let mut sides = [false; 4];
    for p in &at_target {
        let d = *p - enemy;
        let k = if d.x.abs() >= d.y.abs() {
            usize::from(d.x > Fx::ZERO)
        } else {
            2 + usize::from(d.y > Fx::ZERO)
        };
        sides[k] = true;
    }
    let sides = sides.iter().filter(|&&b| b).count();
    let share = Scene::closest_share(&s.world, &ids);
    // Round a body 0.4 wide, bodies 0.4 wide find a place on each face, corners kept clear.
    o.require(
        "fighting_round_the_unit",
        at_target.len(),
        at_target.len() >= 4,
    );
    o.require("sides_of_the_unit", sides, sides >= 3);
    o.require("closest_pair_per_mille", share, share >= 999);
    o.require(
        "stacked",
        Scene::stacked(&s.world, &ids),
        !Scene::stacked(&s.world, &ids),
    );

    // Along a wall: 12 militia set on a barracks.
    let mut s = Scene::open(48, 48);
    let kind = s.world.rules().building_kind("barracks").unwrap_or(0);
    let b = s
        .world
        .place_building(kind, 1, Tile::new(30, 24), false, true)
        .ok();
    let ids = s.block(
        "militia",
        0,
        Vec2::new(fx(12), fx(22)),
        4,
        3,
        fx_ratio(7, 10),
    );
    if let Some(b) = b {
        s.order(
            0,
            Command::Attack {
                units: ids.clone(),
                target: b,
            },
        );
        s.run_until(1500, |_| false);
        let at_wall: Vec<Vec2> = ids
            .iter()
            .filter_map(|&id| s.world.unit(id))
            .filter(|u| in_range(&s.world, u.position, radius, b, Fx::ZERO))
            .map(|u| u.position)
            .collect();
        let ys: Vec<Fx> = at_wall.iter().map(|p| p.y).collect();
        let spread = ys.iter().max().copied().unwrap_or_default()
            - ys.iter().min().copied().unwrap_or_default();
        o.require("fighting_at_the_wall", at_wall.len(), at_wall.len() >= 8);
        o.require("spread_along_the_wall_tiles", spread, spread >= fx(2));
        let share = Scene::closest_share(&s.world, &ids);
        o.require("wall_closest_pair_per_mille", share, share >= 999);
    } else {
        o.require("barracks_placed", false, false);
    }
    o
}

/// replanspread: an army of 40 round one enemy replans on at least 6 different ticks of each
/// 500 ms.
pub fn replanspread() -> Outcome {
    let mut o = Outcome::new("replanspread");
    let mut s = Scene::open(64, 64);
    let e = stout_enemy(&mut s, Vec2::new(fx(32), fx(32)));
    let mut ids = Vec::new();
    for (cx, cy) in [(24, 24), (36, 24), (24, 36), (36, 36)] {
        ids.extend(s.block("militia", 0, Vec2::new(fx(cx), fx(cy)), 5, 2, fx(1)));
    }
    s.order(
        0,
        Command::Attack {
            units: ids.clone(),
            target: e,
        },
    );
    let window = (500 / TICK_MS) as usize;
    let mut ticks_with_replans: Vec<bool> = Vec::new();
    for _ in 0..window * 6 {
        let before = s.world.counters.replans;
        s.world.step(&[]);
        ticks_with_replans.push(s.world.counters.replans > before);
    }
    // Every 500 ms after the first (when all start at once).
    let fewest = ticks_with_replans[window..]
        .chunks(window)
        .filter(|c| c.len() == window)
        .map(|c| c.iter().filter(|&&b| b).count())
        .min()
        .unwrap_or(0);
    o.figure("army", ids.len());
    o.figure("windows", (ticks_with_replans.len() - window) / window);
    o.require("fewest_replan_ticks_per_500ms", fewest, fewest >= 6);
    o
}

/// goldmine: 8 villagers at one gold mine stand along its faces, none stacked.
pub fn goldmine() -> Outcome {
    let mut o = Outcome::new("goldmine");
    let mut s = Scene::open(48, 48);
    let gold = s.world.rules().resource_kind("gold_mine").unwrap_or(0);
    let mine = s.world.add_resource(gold, Tile::new(24, 24));
    let ids = s.block("villager", 0, Vec2::new(fx(14), fx(22)), 4, 2, fx(1));
    let Some(mine) = mine else {
        o.require("mine_placed", false, false);
        return o;
    };
    s.order(
        0,
        Command::Gather {
            units: ids.clone(),
            target: mine,
        },
    );
    let radius = fx_ratio(1, 5);
    let at_work = |w: &crate::World| {
        ids.iter()
            .filter(|&&id| {
                w.unit(id).is_some_and(|u| {
                    u.route.is_none() && in_range(w, u.position, radius, mine, K_INSIDE)
                })
            })
            .count()
    };
    let ticks = s.run_until(1200, |w| at_work(w) == ids.len());
    let working = at_work(&s.world);
    let ground = Bounds::of_tile(Tile::new(24, 24));
    let along_faces = ids.iter().filter_map(|&id| s.world.unit(id)).all(|u| {
        let d = ground.distance_from(u.position);
        d >= radius - K_INSIDE - fx_ratio(1, 64) && d <= radius + fx_ratio(1, 64)
    });
    o.require("at_work", working, working == ids.len());
    o.figure("seconds", ticks * TICK_MS / 1000);
    o.require("along_the_faces", along_faces, along_faces);
    let share = Scene::closest_share(&s.world, &ids);
    o.require("closest_pair_per_mille", share, share >= 999);
    o.require(
        "stacked",
        Scene::stacked(&s.world, &ids),
        !Scene::stacked(&s.world, &ids),
    );
    let gathered: u32 = ids
        .iter()
        .filter_map(|&id| s.world.unit(id))
        .filter_map(|u| u.carrying.map(|c| c.1))
        .sum();
    s.run_until(600, |_| false);
    let later: u32 = ids
        .iter()
        .filter_map(|&id| s.world.unit(id))
        .filter_map(|u| u.carrying.map(|c| c.1))
        .sum();
    o.require("gathering", later, later > gathered);
    o
}

/// chasetable: a chaser of a fleeing unit replans when its patch's wait from the spec's table
/// has passed, every time.
pub fn chasetable() -> Outcome {
    let mut o = Outcome::new("chasetable");
    let mut s = Scene::open(128, 64);
    let fleeing = s.unit("scout_cavalry", 1, Vec2::new(fx(20), fx(30)));
    let chaser = s.unit("militia", 0, Vec2::new(fx(14), fx(30)));
    s.world.step(&[crate::command::PlayerCommand {
        player: 1,
        command: Command::Move {
            units: vec![fleeing],
            to: Vec2::new(fx(120), fx(34)),
        },
    }]);
    s.order(
        0,
        Command::Attack {
            units: vec![chaser],
            target: fleeing,
        },
    );
    let mut plans = 0;
    let mut off_table = 0;
    let mut last = s.world.unit(chaser).map_or(0, |u| u.replan_at_ms);
    let searches_before = s.world.counters.route_searches;
    for _ in 0..2000 {
        s.world.step(&[]);
        let Some(u) = s.world.unit(chaser) else { break };
        if u.replan_at_ms != last {
            plans += 1;
            let planned_ms = (s.world.tick() - 1) * u64::from(TICK_MS);
            let want = planned_ms + replan_wait(u.previous_position);
            // Planned at the first tick its wait had passed, for the wait of where it stood.
            if u.replan_at_ms != want
                || planned_ms < last
                || planned_ms >= last + u64::from(TICK_MS)
            {
                off_table += 1;
            }
            last = u.replan_at_ms;
        }
    }
    let searches = s.world.counters.route_searches - searches_before;
    o.require("plans", plans, plans >= 20);
    o.require("off_the_table", off_table, off_table == 0);
    o.figure("searches", searches);
    o
}
