//! Checks of standing spots, chases and work: planner, march, replanspread, goldmine,
//! chasetable. Each loads its scene from `scenarios/verify/` and measures.

use super::scene::Scene;
use super::{Outcome, APART_PER_MILLE};
use crate::id::EntityId;
use crate::nav::chase::{K_CHASE_PATCH, K_CHASE_REPLAN_MS, K_CHASE_STAGGER_MS};
use crate::nav::spot::{stands_in, K_ROUNDING};
use crate::nav::{box_of, in_range, reach_gap, K_INSIDE};
use crate::nav::{find_standing_spot, region_here, Approach, Spot};
use crate::position::{tile_of, Bounds, Fx, Vec2};
use crate::scenario::Files;
use crate::state::TICK_MS;
use crate::walk::goal::{K_RINGS, K_RING_SPACING};
use crate::world::World;

/// Where unit `id` could stand round `target`, asked the way a caller `outside` its box asks
/// (room: its width), the spots in `before` spoken for: every spot the planner hands out, one
/// after another, until it says full or blocked.
fn every_spot(
    world: &World,
    id: EntityId,
    target: EntityId,
    outside: Fx,
    before: &[Vec2],
) -> Vec<Vec2> {
    let (Some(u), Some(ground)) = (world.unit(id), box_of(world, target)) else {
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
        match find_standing_spot(&ask, |p| stands_in(world, key, region, p, radius)) {
            Spot::Found(p) => taken.push(p),
            Spot::Full | Spot::Blocked => break,
        }
    }
    taken.split_off(before.len())
}

/// The west face of the ring `ring`: the points on it, by their y.
fn on_west_face(ring: &Bounds, spots: &[Vec2]) -> Vec<Fx> {
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
fn west_face_full(ring: &Bounds, room: Fx, ys: &[Fx]) -> bool {
    let fine = room / 4;
    let (lo, hi) = (ring.min.y + room / 2, ring.max.y - room / 2);
    let Some((&first, &last)) = ys.first().zip(ys.last()) else {
        return false;
    };
    first - lo < room + fine
        && hi - last < room + fine
        && ys.windows(2).all(|w| w[1] - w[0] < room * 2 + fine)
}

/// The fewest thousandths of a tile any two of `spots` lie apart (Chebyshev), or `i64::MAX`.
fn closest_chebyshev_milli(spots: &[Vec2]) -> i64 {
    let mut worst = i64::MAX;
    for (k, a) in spots.iter().enumerate() {
        for b in &spots[k + 1..] {
            worst = worst.min((a.chebyshev(*b) * 1000).to_num::<i64>());
        }
    }
    worst
}

/// planner: the standing-spot planner fills the caller's own face first, finely, hands out
/// spots a worker's width apart on the edge and clear of its corners, says full when all are
/// spoken for (and found again when one comes free), and blocked where none is open.
pub fn planner(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("planner");
    let Some(s) = o.scene(files, "planner.toml") else {
        return o;
    };
    let w = s.world();
    let (Some(barracks), Some(asker), Some(walled)) =
        (s.id("barracks"), s.id("asker"), s.id("walled_mine"))
    else {
        o.require("named", "barracks, asker, walled_mine", false);
        return o;
    };
    let Some((u, ground)) = w.unit(asker).zip(box_of(w, barracks)) else {
        return o;
    };
    let radius = w.rules().radius_of(u.kind);
    let (room, outside) = (radius * 2, radius - K_INSIDE);
    let key = w.key_of(u);
    let region = region_here(&w.caches.regions, w.grid(), key, u.position.tile());
    let stands = |p: Vec2| stands_in(w, key, region, p, radius);
    let taken = every_spot(w, asker, barracks, outside, &[]);
    let ask = |ground: Bounds, taken: &[Vec2]| {
        let a = Approach {
            ground,
            from: u.position,
            outside,
            room,
            taken,
            own_face_only: false,
        };
        find_standing_spot(&a, stands)
    };
    let ring = ground.widened(outside);
    let own = on_west_face(&ring, &taken);
    // The own face's spots come first, and it is full before any other face is used.
    let first_elsewhere = taken
        .iter()
        .position(|p| p.x != ring.min.x)
        .unwrap_or(taken.len());
    let own_first = first_elsewhere == own.len() && !own.is_empty();
    let own_full = west_face_full(&ring, room, &on_west_face(&ring, &taken[..first_elsewhere]));
    let apart = closest_chebyshev_milli(&taken);
    let on_edge = taken.iter().all(|p| {
        let on_a_face =
            p.x == ring.min.x || p.x == ring.max.x || p.y == ring.min.y || p.y == ring.max.y;
        on_a_face && ring.clamp(*p) == *p
    });
    let half = room / 2 - K_ROUNDING;
    let corners_clear = taken.iter().all(|p| {
        let along = if p.x == ring.min.x || p.x == ring.max.x {
            (p.y - ring.min.y).min(ring.max.y - p.y)
        } else {
            (p.x - ring.min.x).min(ring.max.x - p.x)
        };
        along >= half
    });
    let full = ask(ground, &taken);
    // One walks away: its spot is found again.
    let mut one_gone = taken.clone();
    let freed = one_gone
        .len()
        .checked_sub(1)
        .map(|k| one_gone.remove(k / 2));
    let again = ask(ground, &one_gone);
    o.require("spots", taken.len(), taken.len() >= 8);
    o.require("own_face_spots_first", own.len(), own_first);
    o.require("own_face_full_before_another", own_full, own_full);
    o.require(
        "closest_spots_milli_tiles",
        apart,
        apart >= ((room - K_ROUNDING) * 1000).to_num::<i64>(),
    );
    o.require("on_the_edge", on_edge, on_edge);
    o.require("corners_kept_clear", corners_clear, corners_clear);
    o.require("then", format!("{full:?}"), full == Spot::Full);
    o.require(
        "one_freed_then",
        format!("{again:?}"),
        freed.is_some_and(|f| again == Spot::Found(f)),
    );
    let walled = box_of(w, walled).map(|g| ask(g, &[]));
    o.require(
        "walled_in_mine",
        format!("{walled:?}"),
        walled == Some(Spot::Blocked),
    );
    o
}

/// march: soldiers keep their width (never nearer than the keep-apart allowance, walking or
/// standing), do not stack (sent to one point, they take places round it), stand round a target
/// (every place round its body taken, on every side) and spread along a wall (the face in front
/// filled before any goes round a corner).
pub fn march(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("march");
    march_width(files, &mut o);
    march_no_stack(files, &mut o);
    march_surround(files, &mut o);
    march_wall(files, &mut o);
    o
}

fn march_width(files: &dyn Files, o: &mut Outcome) {
    let Some(mut s) = o.scene(files, "march_width.toml") else {
        return;
    };
    let ids = s.ids("block");
    let mut closest = Scene::closest_share(s.world(), &ids);
    let mut ticks = 0;
    while ticks < s.ticks && !(ticks > 0 && Scene::all_stopped(s.world(), &ids)) {
        s.step();
        ticks += 1;
        closest = closest.min(Scene::closest_share(s.world(), &ids));
    }
    o.require(
        "width.arrived_ms",
        ticks * u64::from(TICK_MS),
        ticks < s.ticks,
    );
    o.require(
        "width.closest_pair_per_mille_of_allowance_any_tick",
        closest,
        closest >= APART_PER_MILLE,
    );
}

fn march_no_stack(files: &dyn Files, o: &mut Outcome) {
    let Some(mut s) = o.scene(files, "march_no_stack.toml") else {
        return;
    };
    let ids = s.ids("block");
    let goal = s
        .runner
        .commands
        .first()
        .and_then(|c| match c.command.command {
            crate::command::Command::Move { to, .. } => Some(to),
            _ => None,
        })
        .unwrap_or_default();
    let most = s.ticks;
    let ticks = 1 + s.run_until(most, |w| w.tick() > 0 && Scene::all_stopped(w, &ids));
    let w = s.world();
    let furthest = ids
        .iter()
        .filter_map(|&id| w.unit(id))
        .map(|u| u.position.chebyshev(goal))
        .max()
        .unwrap_or_default();
    o.require(
        "no_stack.stopped_ms",
        ticks * u64::from(TICK_MS),
        ticks < most,
    );
    o.require(
        "no_stack.furthest_from_the_point",
        furthest,
        furthest <= K_RING_SPACING * i64::from(K_RINGS),
    );
    o.kept_apart("no_stack.", w, &ids);
}

/// Which side of `middle` a point is: 0 west, 1 east, 2 north, 3 south.
fn side_of(middle: Vec2, p: Vec2) -> usize {
    let d = p - middle;
    if d.x.abs() >= d.y.abs() {
        usize::from(d.x > Fx::ZERO)
    } else {
        2 + usize::from(d.y > Fx::ZERO)
    }
}

fn march_surround(files: &dyn Files, o: &mut Outcome) {
    let Some(mut s) = o.scene(files, "march_surround.toml") else {
        return;
    };
    let ids = s.ids("attackers");
    let Some(enemy) = s.id("enemy") else {
        o.require("surround.named", "enemy", false);
        return;
    };
    // The places round the target's body the planner offers the attackers as they come (the
    // first ring, then a body's width further out).
    let (first_ring, second_ring) = {
        let w = s.world();
        let (radius, range) =
            ids.first()
                .and_then(|&id| w.unit(id))
                .map_or((Fx::ZERO, Fx::ZERO), |u| {
                    let k = &w.rules().unit(u.kind);
                    (k.radius, k.range)
                });
        let outside = range + radius - K_INSIDE;
        let first = ids
            .first()
            .map_or(Vec::new(), |&a| every_spot(w, a, enemy, outside, &[]));
        let second = ids.first().map_or(Vec::new(), |&a| {
            every_spot(w, a, enemy, outside + radius * 2, &first)
        });
        (first.len(), second.len())
    };
    let ticks = s.ticks;
    s.runner.run(ticks, |_| {});
    let w = s.world();
    let Some(target) = box_of(w, enemy) else {
        o.require("surround.enemy_alive", false, false);
        return;
    };
    let radius = ids
        .first()
        .and_then(|&id| w.unit(id))
        .map_or(Fx::ZERO, |u| w.rules().radius_of(u.kind));
    let range = ids
        .first()
        .and_then(|&id| w.unit(id))
        .map_or(Fx::ZERO, |u| w.rules().unit(u.kind).range);
    let fighting: Vec<Vec2> = ids
        .iter()
        .filter_map(|&id| w.unit(id))
        .filter(|u| in_range(w, u.position, radius, enemy, range))
        .map(|u| u.position)
        .collect();
    let mut sides = [false; 4];
    for u in ids.iter().filter_map(|&id| w.unit(id)) {
        sides[side_of(target.middle(), u.position)] = true;
    }
    let sides = sides.iter().filter(|&&b| b).count();
    let furthest = ids
        .iter()
        .filter_map(|&id| w.unit(id))
        .map(|u| reach_gap(&Bounds::around(u.position, radius), &target))
        .max()
        .unwrap_or_default();
    o.figure("surround.places_round_the_body", first_ring);
    o.figure("surround.places_a_body_further_out", second_ring);
    o.require(
        "surround.fighting",
        fighting.len(),
        fighting.len() >= first_ring.min(ids.len()),
    );
    o.require("surround.sides_stood_on", sides, sides == 4);
    // Every spot taken, the rest stand a body's width further out — and, both rings taken
    // where the others actually stopped (a walk to a target ends wherever it comes in range),
    // further still: a figure, not a rule of the spec's.
    o.figure("surround.furthest_gap", furthest);
    o.kept_apart("surround.", w, &ids);
}

fn march_wall(files: &dyn Files, o: &mut Outcome) {
    let Some(mut s) = o.scene(files, "march_wall.toml") else {
        return;
    };
    let ids = s.ids("attackers");
    let Some(barracks) = s.id("barracks") else {
        o.require("wall.named", "barracks", false);
        return;
    };
    // How many the planner puts on the face in front before it sends anyone round a corner.
    let face_holds = {
        let w = s.world();
        let outside = ids
            .first()
            .and_then(|&id| w.unit(id))
            .map_or(Fx::ZERO, |u| {
                let k = &w.rules().unit(u.kind);
                k.range + k.radius - K_INSIDE
            });
        let spots = ids
            .first()
            .map_or(Vec::new(), |&a| every_spot(w, a, barracks, outside, &[]));
        let ring = box_of(w, barracks).map(|g| g.widened(outside));
        spots
            .iter()
            .position(|p| ring.is_none_or(|r| p.x != r.min.x))
            .unwrap_or(spots.len())
    };
    let ticks = s.ticks;
    s.runner.run(ticks, |_| {});
    let w = s.world();
    let Some(ground) = box_of(w, barracks) else {
        o.require("wall.barracks_standing", false, false);
        return;
    };
    let (radius, range) =
        ids.first()
            .and_then(|&id| w.unit(id))
            .map_or((Fx::ZERO, Fx::ZERO), |u| {
                let k = &w.rules().unit(u.kind);
                (k.radius, k.range)
            });
    let at_wall: Vec<Vec2> = ids
        .iter()
        .filter_map(|&id| w.unit(id))
        .filter(|u| in_range(w, u.position, radius, barracks, range))
        .map(|u| u.position)
        .collect();
    let ring = ground.widened(range + radius - K_INSIDE);
    // Those standing west of the wall, along it (a walk to it ends wherever it comes in range,
    // a little short of the spot it made for).
    let mut west: Vec<Fx> = at_wall
        .iter()
        .filter(|p| p.x < ground.min.x && p.y >= ring.min.y && p.y <= ring.max.y)
        .map(|p| p.y)
        .collect();
    west.sort_unstable();
    let round_a_corner = at_wall.len() - west.len();
    let spread = west
        .last()
        .zip(west.first())
        .map_or(Fx::ZERO, |(a, b)| *a - *b);
    o.require("wall.fighting", at_wall.len(), at_wall.len() == ids.len());
    // Nobody is round a corner while the face in front has room for one more (at the
    // planner's fineness) between those standing there.
    let full = west_face_full(&ring, radius * 2, &west);
    o.figure("wall.the_planner_puts_on_the_face_in_front", face_holds);
    o.figure("wall.on_the_face_in_front", west.len());
    o.require(
        "wall.round_a_corner",
        round_a_corner,
        round_a_corner == 0 || full,
    );
    o.figure("wall.spread_along_it_tiles", spread);
    o.kept_apart("wall.", w, &ids);
}

/// replanspread: an army of 40 round one enemy replans on at least 6 different ticks of every
/// 500 ms (every span of that many ticks, from the first plan to the end of the scene).
pub fn replanspread(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("replanspread");
    let Some(mut s) = o.scene(files, "replanspread.toml") else {
        return o;
    };
    let army: Vec<EntityId> = (1..=4).flat_map(|k| s.ids(&format!("army{k}"))).collect();
    let window = (K_CHASE_REPLAN_MS / u64::from(TICK_MS)) as usize;
    let mut replanned: Vec<bool> = Vec::new();
    let searches_before = s.world().counters.route_searches;
    for _ in 0..s.ticks {
        let before = s.world().counters.replans;
        s.step();
        replanned.push(s.world().counters.replans > before);
    }
    let fewest = replanned
        .windows(window)
        .map(|c| c.iter().filter(|&&b| b).count())
        .min()
        .unwrap_or(0);
    o.figure("army", army.len());
    o.figure(
        "each_500ms",
        replanned
            .chunks(window)
            .map(|c| c.iter().filter(|&&b| b).count().to_string())
            .collect::<Vec<_>>()
            .join("/"),
    );
    o.figure("ticks_in_500ms", window);
    o.figure(
        "route_searches",
        s.world().counters.route_searches - searches_before,
    );
    o.figure("spans", replanned.len().saturating_sub(window - 1));
    o.require("fewest_replan_ticks_in_any_500ms", fewest, fewest >= 6);
    o
}

/// goldmine: 8 villagers at one gold mine stand along its faces, none stacked, and gather.
pub fn goldmine(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("goldmine");
    let Some(mut s) = o.scene(files, "gold_mine_8.toml") else {
        return o;
    };
    let ids = s.ids("villagers");
    let Some(mine) = s.id("mine") else {
        o.require("named", "mine", false);
        return o;
    };
    let radius = |w: &World| {
        ids.first()
            .and_then(|&id| w.unit(id))
            .map_or(Fx::ZERO, |u| w.rules().radius_of(u.kind))
    };
    let at_work = |w: &World| {
        ids.iter()
            .filter(|&&id| {
                w.unit(id).is_some_and(|u| {
                    u.route.is_none() && in_range(w, u.position, radius(w), mine, K_INSIDE)
                })
            })
            .count()
    };
    let most = s.ticks;
    let ticks = s.run_until(most, |w| at_work(w) == ids.len());
    let w = s.world();
    let r = radius(w);
    let working = at_work(w);
    let ground = box_of(w, mine).unwrap_or(Bounds::around(Vec2::default(), Fx::ZERO));
    let along_faces = ids.iter().filter_map(|&id| w.unit(id)).all(|u| {
        let d = ground.distance_from(u.position);
        d >= r - K_INSIDE - K_ROUNDING && d <= r + K_ROUNDING
    });
    let mut sides = [false; 4];
    for u in ids.iter().filter_map(|&id| w.unit(id)) {
        sides[side_of(ground.middle(), u.position)] = true;
    }
    o.require("at_work", working, working == ids.len());
    o.figure("all_at_work_ms", ticks * u64::from(TICK_MS));
    o.require("along_the_faces", along_faces, along_faces);
    o.figure("faces_used", sides.iter().filter(|&&b| b).count());
    let overlap = Scene::most_overlap(w, &ids);
    o.require("most_box_overlap", overlap, overlap <= K_ROUNDING);
    let stacked = Scene::stacked(w, &ids);
    o.require("stacked", stacked, !stacked);
    let carried = |w: &World| -> u32 {
        ids.iter()
            .filter_map(|&id| w.unit(id))
            .filter_map(|u| u.carrying.map(|c| c.1))
            .sum()
    };
    let before = carried(s.world());
    s.run_until(600, |_| false);
    let later = carried(s.world());
    o.require("gold_carried_10s_later", later, later > before);
    o
}

/// The spec's `ReplanWait`, written out again from its text: 500 ms less 16 ms for each of
/// eight places in the cycle of four-tile patches. `chasetable` holds the sim to it.
fn spec_replan_wait(at: Vec2) -> u64 {
    let px = tile_of(at.x) / K_CHASE_PATCH;
    let py = tile_of(at.y) / K_CHASE_PATCH;
    K_CHASE_REPLAN_MS - ((px + 3 * py) & 7) as u64 * K_CHASE_STAGGER_MS
}

/// The spec's table of waits for the first four by four patches, in milliseconds (rows py 0–3,
/// columns px 0–3).
const SPEC_TABLE: [[u64; 4]; 4] = [
    [500, 484, 468, 452],
    [452, 436, 420, 404],
    [404, 388, 500, 484],
    [484, 468, 452, 436],
];

/// chasetable: a chaser of a fleeing unit replans when the wait of the patch it stood in (the
/// spec's table) has passed, at the first tick it has, every time.
pub fn chasetable(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("chasetable");
    let mut table_holds = true;
    for (py, row) in SPEC_TABLE.iter().enumerate() {
        for (px, &ms) in row.iter().enumerate() {
            let at = Vec2::of_tile(crate::position::Tile::new(
                px as i32 * K_CHASE_PATCH,
                py as i32 * K_CHASE_PATCH,
            ));
            table_holds &= spec_replan_wait(at) == ms && crate::nav::replan_wait(at) == ms;
        }
    }
    o.require("waits_as_the_table", table_holds, table_holds);
    let Some(mut s) = o.scene(files, "chase_fleeing.toml") else {
        return o;
    };
    let Some(chaser) = s.id("chaser") else {
        o.require("named", "chaser", false);
        return o;
    };
    let mut plans = 0;
    let mut off_table = 0;
    let mut patches = Vec::new();
    let mut last: Option<u64> = None;
    let searches_before = s.world().counters.route_searches;
    for _ in 0..s.ticks {
        let before = s
            .world()
            .unit(chaser)
            .map(|u| (u.replan_at_ms, u.position, u.route.is_none()));
        s.step();
        let Some(u) = s.world().unit(chaser) else {
            break;
        };
        let Some((was, stood, walk_ran_out)) = before else {
            break;
        };
        if u.replan_at_ms == was || u.hit_points == 0 {
            continue;
        }
        plans += 1;
        let planned_ms = (s.world().tick() - 1) * u64::from(TICK_MS);
        let wait = spec_replan_wait(stood);
        let patch = (
            tile_of(stood.x) / K_CHASE_PATCH,
            tile_of(stood.y) / K_CHASE_PATCH,
        );
        if !patches.contains(&patch) {
            patches.push(patch);
        }
        // Planned for the wait of where it stood, at the first tick the last wait had passed
        // (or at once, its walk having run out).
        let on_time = walk_ran_out
            || last.is_none_or(|due| planned_ms >= due && planned_ms < due + u64::from(TICK_MS));
        if u.replan_at_ms != planned_ms + wait || !on_time {
            off_table += 1;
        }
        last = Some(u.replan_at_ms);
    }
    let searches = s.world().counters.route_searches - searches_before;
    o.require("plans", plans, plans >= 20);
    o.figure("patches_planned_in", patches.len());
    o.require("off_the_table", off_table, off_table == 0);
    o.figure("searches", searches);
    o
}
