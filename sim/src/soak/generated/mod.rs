//! The soak's generated maps: the default map's generator (docs/MAPS.md), 48, 56 or 64 tiles a
//! side, 2 to 4 players, each with its town center, villagers, scout and resources as the
//! generator lays them, and one to three armies of its own (1 to 20 of a soldier kind, in a
//! block on free ground round its start), sometimes a block of villagers more. Every group is
//! given an order of a kind picked by the seed — `move`, `formation_move` (sometimes after
//! `set_formation`), `attack_move` to an enemy's start, `attack` on an enemy army, villager or
//! town center, `follow` a friendly army or scout, `hold` then an attack move — and a third of
//! them a second order later (`stop`, a move back, `disband`, now and then `delete`).
//! Villagers `gather` from the resources of the map, `place_building` (a house, mill, camp) or
//! `build` a foundation the scene lays; scouts follow, attack or move.
//!
//! The map's entities come first (ids fixed by the generator), so commands name them by id;
//! the scene's own blocks and foundations by name.

mod jobs;

use super::text::{self, Block, Extra, Order, Who};
use super::{figures, scene_ticks, square_columns, Layout, Rng, LAND_KINDS};
use crate::grid::{Keyed, Occupant};
use crate::id::EntityId;
use crate::map::{generate, start_tiles, MapOptions};
use crate::position::Tile;
use crate::ruleset::Ruleset;
use crate::world::World;
use jobs::*;
use std::fmt::Write;
use std::sync::Arc;

/// The soldier kinds an army may be of: every land kind but the villager.
const SOLDIERS: &[&str] = LAND_KINDS.split_at(1).1;

/// The most units in one army.
const MOST_IN_ARMY: i64 = 20;

/// The most villagers in a scene's own block of villagers.
const MOST_VILLAGERS: i64 = 12;

/// How far from its start (in tiles, each way) a player's armies and buildings are laid.
const START_REACH: i64 = 14;

/// Places tried for a block or a building before it is left out.
const TRIES: usize = 40;

/// What villagers may gather from.
const RESOURCES: [&str; 4] = ["tree", "gold_mine", "stone_mine", "berry_bush"];

/// What villagers may lay and build.
const BUILDINGS: [&str; 4] = ["house", "mill", "lumber_camp", "mining_camp"];

/// The formations `set_formation` may choose.
const FORMATIONS: [&str; 4] = ["line", "staggered", "box", "flank"];

/// The first tick of a second order, and the last.
const SECOND_ORDER_TICKS: (i64, i64) = (600, 3000);

/// Seconds every generated scene runs past its walks three times over (fights and work take
/// time), before a second for every two units.
const FIGHT_SECONDS: i64 = 60;

/// The map's tiles, each free or taken (closed, something standing on it, a unit on it or
/// beside it, a block or building of the scene laid there).
struct Ground {
    size: i64,
    taken: Vec<bool>,
}

impl Ground {
    fn of(world: &World) -> Ground {
        let size = i64::from(world.grid().width());
        let land = Keyed::unkeyed(0);
        let mut g = Ground {
            size,
            taken: Vec::with_capacity(usize::try_from(size * size).unwrap_or(0)),
        };
        for y in 0..size {
            for x in 0..size {
                let t = tile(x, y);
                let open =
                    world.grid().passable(land, t) && world.grid().occupant(t) == Occupant::Nothing;
                g.taken.push(!open);
            }
        }
        for u in &world.state.units {
            let t = u.position.tile();
            let (x, y) = (i64::from(t.x), i64::from(t.y));
            g.take((x - 1, y - 1, x + 1, y + 1));
        }
        g
    }

    fn index(&self, x: i64, y: i64) -> Option<usize> {
        let inside = (0..self.size).contains(&x) && (0..self.size).contains(&y);
        inside.then(|| usize::try_from(y * self.size + x).ok())?
    }

    /// Whether every tile of the box (x0, y0, x1, y1), both corners included, is on the map
    /// and free.
    fn free(&self, a: (i64, i64, i64, i64)) -> bool {
        (a.1..=a.3).all(|y| (a.0..=a.2).all(|x| self.index(x, y).is_some_and(|i| !self.taken[i])))
    }

    /// A free tile anywhere (the map's middle when none is found).
    fn open_point(&self, rng: &mut Rng) -> (i64, i64) {
        (0..TRIES)
            .map(|_| (rng.range(1, self.size - 2), rng.range(1, self.size - 2)))
            .find(|&(x, y)| self.free((x, y, x, y)))
            .unwrap_or((self.size / 2, self.size / 2))
    }

    fn take(&mut self, a: (i64, i64, i64, i64)) {
        for y in a.1..=a.3 {
            for x in a.0..=a.2 {
                if let Some(i) = self.index(x, y) {
                    self.taken[i] = true;
                }
            }
        }
    }
}

fn tile(x: i64, y: i64) -> Tile {
    Tile::new(
        i32::try_from(x).unwrap_or(i32::MAX),
        i32::try_from(y).unwrap_or(i32::MAX),
    )
}

/// One of the scene's blocks of units.
struct Army {
    name: String,
    kind: &'static str,
    owner: i64,
    block: Layout,
}

/// What the map's generator laid for one player.
struct Base {
    start: (i64, i64),
    town_center: Option<(EntityId, (i64, i64))>,
    villagers: Vec<(EntityId, (i64, i64))>,
    scout: Option<(EntityId, (i64, i64))>,
}

/// A foundation the scene lays for villagers to build.
struct Foundation {
    name: String,
    kind: &'static str,
    owner: i64,
    at: (i64, i64),
}

/// The scene being written: its orders so far, and what its length must allow for.
struct Plan {
    orders: Vec<(i64, String)>,
    /// The longest way any group is sent: its square, in tiles.
    longest_d2: i64,
    /// The slowest pace of a group sent anywhere, in thousandths of a tile a second.
    slowest_milli: i64,
}

impl Plan {
    /// Adds an order, for a group standing at `from` of pace `speed_milli` sent toward `goal`.
    fn give(&mut self, o: &Order, from: (i64, i64), goal: Option<(i64, i64)>, speed_milli: i64) {
        let mut out = String::new();
        text::order(&mut out, o);
        self.orders.push((o.tick, out));
        if let Some(g) = goal {
            let d2 = (g.0 - from.0).pow(2) + (g.1 - from.1).pow(2);
            self.longest_d2 = self.longest_d2.max(d2);
            self.slowest_milli = self.slowest_milli.min(speed_milli);
        }
    }
}

fn at_of(world: &World, id: EntityId) -> (i64, i64) {
    world.unit(id).map_or((0, 0), |u| {
        let t = u.position.tile();
        (i64::from(t.x), i64::from(t.y))
    })
}

/// Each player's town center, villagers and scout as the generator laid them.
fn bases(world: &World, starts: &[Tile]) -> Vec<Base> {
    let rules = world.rules();
    let villager = rules.unit_kind("villager");
    let scout = rules.unit_kind("scout_cavalry");
    let tc = rules.building_kind("town_center");
    starts
        .iter()
        .zip(0u8..)
        .map(|(s, p)| {
            let start = (i64::from(s.x), i64::from(s.y));
            let mine = |kind| {
                world
                    .state
                    .units
                    .iter()
                    .filter(move |u| u.owner == p && Some(u.kind) == kind)
                    .map(|u| (u.id, at_of(world, u.id)))
            };
            Base {
                start,
                town_center: world
                    .state
                    .buildings
                    .iter()
                    .find(|b| b.owner == p && Some(b.kind) == tc)
                    .map(|b| (b.id, start)),
                villagers: mine(villager).collect(),
                scout: mine(scout).next(),
            }
        })
        .collect()
}

/// The scene of `seed`, as a scenario file.
pub(super) fn scene(seed: u64) -> String {
    let rules = Arc::new(Ruleset::default_rules());
    let mut rng = Rng::new(seed);
    let size = rng.range(6, 8) * 8;
    let players = rng.range(2, 4);
    let map_seed = rng.next() >> 16;
    let opts = MapOptions {
        seed: map_seed,
        size: i32::try_from(size).unwrap_or(48),
        players: u8::try_from(players).unwrap_or(2),
    };
    let world = generate(rules.clone(), opts);
    let bases = bases(&world, &start_tiles(opts));
    let mut ground = Ground::of(&world);

    // Armies round each start, and now and then a block of villagers more.
    let mut armies: Vec<Army> = Vec::new();
    for (p, base) in (0..players).zip(&bases) {
        let blocks = rng.range(1, 3);
        for k in 0..=blocks {
            let villagers = k == blocks;
            if villagers && !rng.chance(2) {
                continue;
            }
            let (kind, count) = if villagers {
                ("villager", rng.range(2, MOST_VILLAGERS))
            } else {
                (*rng.pick(SOLDIERS), rng.range(1, MOST_IN_ARMY))
            };
            let columns = (square_columns(count) + rng.range(-1, 2)).max(1);
            let least = 2 * figures(&rules, kind).0 + 1;
            let spacing_tenths = least.max(rng.range(5, 12));
            let name = if villagers {
                format!("v{p}")
            } else {
                format!("a{p}_{k}")
            };
            for _ in 0..TRIES {
                let at = (
                    base.start.0 + rng.range(-START_REACH, START_REACH),
                    base.start.1 + rng.range(-START_REACH, START_REACH),
                );
                let army = Army {
                    name: name.clone(),
                    kind,
                    owner: p,
                    block: Layout {
                        at,
                        count,
                        columns,
                        spacing_tenths,
                    },
                };
                if ground.free(army.block.area()) {
                    ground.take(army.block.area());
                    armies.push(army);
                    break;
                }
            }
        }
    }

    let mut plan = Plan {
        orders: Vec::new(),
        longest_d2: 0,
        slowest_milli: i64::MAX,
    };
    let mut foundations: Vec<Foundation> = Vec::new();
    let first_tick = |rng: &mut Rng| if rng.chance(2) { 0 } else { rng.range(0, 120) };
    let enemy_of = |rng: &mut Rng, p: i64| (p + rng.range(1, players - 1)) % players;
    let base_of = |p: i64| &bases[usize::try_from(p).unwrap_or(0)];
    let open_points: Vec<(i64, i64)> = (0..armies.len() * 2)
        .map(|_| ground.open_point(&mut rng))
        .collect();

    // The armies' orders.
    for (i, army) in armies.iter().enumerate() {
        let speed = figures(&rules, army.kind).1;
        let from = army.block.middle();
        let units = text::named(&army.name);
        let p = army.owner;
        let tick = first_tick(&mut rng);
        if army.kind == "villager" {
            let job = Job {
                who: Who {
                    tick,
                    player: p,
                    units,
                },
                start: base_of(p).start,
                from,
                speed,
                name: army.name.clone(),
            };
            work(
                &mut rng,
                &mut plan,
                &mut foundations,
                &mut ground,
                &world,
                job,
            );
            continue;
        }
        let q = enemy_of(&mut rng, p);
        let enemy = base_of(q);
        let enemy_army = armies
            .iter()
            .filter(|a| a.owner == q)
            .nth(usize::try_from(rng.range(0, 2)).unwrap_or(0));
        let friend = armies
            .iter()
            .find(|a| a.owner == p && a.name != army.name && a.kind != "villager");
        let enemy_front = enemy.villagers.first().map_or(enemy.start, |v| v.1);
        let who = Who {
            tick,
            player: p,
            units: units.clone(),
        };
        let order = |action, extra| who.order(action, extra);
        let goal;
        match rng.range(0, 7) {
            0 => {
                goal = if rng.chance(2) {
                    open_points[2 * i]
                } else {
                    armies[(i + 1) % armies.len()].block.middle()
                };
                plan.give(&order("move", Extra::To(goal)), from, Some(goal), speed);
            }
            1 => {
                goal = enemy_army.map_or(open_points[2 * i + 1], |a| a.block.middle());
                if rng.chance(2) {
                    let f = *rng.pick(&FORMATIONS);
                    plan.give(
                        &order("set_formation", Extra::Formation(f)),
                        from,
                        None,
                        speed,
                    );
                }
                plan.give(
                    &order("formation_move", Extra::To(goal)),
                    from,
                    Some(goal),
                    speed,
                );
            }
            2 => {
                goal = enemy_front;
                plan.give(
                    &order("attack_move", Extra::To(goal)),
                    from,
                    Some(goal),
                    speed,
                );
            }
            3 => match enemy_army {
                Some(e) => {
                    goal = e.block.middle();
                    plan.give(
                        &order("attack", Extra::Named(&e.name)),
                        from,
                        Some(goal),
                        speed,
                    );
                }
                None => {
                    goal = enemy_front;
                    plan.give(
                        &order("attack_move", Extra::To(goal)),
                        from,
                        Some(goal),
                        speed,
                    );
                }
            },
            4 => match enemy.town_center {
                Some((id, at)) => {
                    goal = at;
                    // By id, or by a tile it stands on.
                    let target = if rng.chance(2) {
                        Extra::Id(id)
                    } else {
                        Extra::Tile(at)
                    };
                    plan.give(&order("attack", target), from, Some(goal), speed);
                }
                None => {
                    goal = enemy.start;
                    plan.give(
                        &order("attack_move", Extra::To(goal)),
                        from,
                        Some(goal),
                        speed,
                    );
                }
            },
            5 => match (friend, base_of(p).scout) {
                (Some(f), _) => {
                    goal = f.block.middle();
                    plan.give(
                        &order("follow", Extra::Named(&f.name)),
                        from,
                        Some(goal),
                        speed,
                    );
                }
                (None, Some((id, at))) => {
                    goal = at;
                    plan.give(&order("follow", Extra::Id(id)), from, Some(goal), speed);
                }
                (None, None) => {
                    goal = from;
                    plan.give(&order("hold", Extra::None), from, None, speed);
                }
            },
            6 => {
                goal = enemy_front;
                plan.give(&order("hold", Extra::None), from, None, speed);
                let later = Order {
                    tick: rng.range(SECOND_ORDER_TICKS.0, SECOND_ORDER_TICKS.1),
                    ..order("attack_move", Extra::To(goal))
                };
                plan.give(&later, from, Some(goal), speed);
            }
            _ => match enemy.villagers.first() {
                Some(&(id, at)) => {
                    goal = at;
                    plan.give(&order("attack", Extra::Id(id)), from, Some(goal), speed);
                }
                None => {
                    goal = enemy.start;
                    plan.give(
                        &order("attack_move", Extra::To(goal)),
                        from,
                        Some(goal),
                        speed,
                    );
                }
            },
        }
        // A third of them are told something else later.
        if rng.chance(3) {
            let tick = rng.range(SECOND_ORDER_TICKS.0, SECOND_ORDER_TICKS.1);
            let later = Who {
                tick,
                player: p,
                units: units.clone(),
            };
            let second = |action, extra| later.order(action, extra);
            match rng.range(0, 9) {
                0..=2 => plan.give(&second("stop", Extra::None), from, None, speed),
                3..=5 => plan.give(&second("move", Extra::To(from)), goal, Some(from), speed),
                6..=7 => plan.give(&second("disband", Extra::None), from, None, speed),
                _ => plan.give(&second("delete", Extra::None), from, None, speed),
            }
        }
    }

    // The map's own villagers work, and its scouts follow, attack or move.
    let villager_speed = figures(&rules, "villager").1;
    let scout_speed = figures(&rules, "scout_cavalry").1;
    for (p, base) in (0..players).zip(&bases) {
        let tick = first_tick(&mut rng);
        let ids: Vec<EntityId> = base.villagers.iter().map(|v| v.0).collect();
        if let Some(&(_, from)) = base.villagers.first() {
            let job = Job {
                who: Who {
                    tick,
                    player: p,
                    units: text::ids(&ids),
                },
                start: base.start,
                from,
                speed: villager_speed,
                name: format!("m{p}"),
            };
            work(
                &mut rng,
                &mut plan,
                &mut foundations,
                &mut ground,
                &world,
                job,
            );
        }
        let Some((scout, from)) = base.scout else {
            continue;
        };
        let q = enemy_of(&mut rng, p);
        let enemy = base_of(q);
        let who = Who {
            tick,
            player: p,
            units: text::ids(&[scout]),
        };
        let order = |action, extra| who.order(action, extra);
        match rng.range(0, 3) {
            0 => match base.villagers.first() {
                Some(&(id, at)) => {
                    plan.give(&order("follow", Extra::Id(id)), from, Some(at), scout_speed)
                }
                None => plan.give(&order("hold", Extra::None), from, None, scout_speed),
            },
            1 => match enemy.villagers.last() {
                Some(&(id, at)) => {
                    plan.give(&order("attack", Extra::Id(id)), from, Some(at), scout_speed)
                }
                None => plan.give(&order("hold", Extra::None), from, None, scout_speed),
            },
            2 => {
                let to = ground.open_point(&mut rng);
                plan.give(&order("move", Extra::To(to)), from, Some(to), scout_speed)
            }
            _ => plan.give(
                &order("attack_move", Extra::To(enemy.start)),
                from,
                Some(enemy.start),
                scout_speed,
            ),
        }
    }

    let units: i64 = armies.iter().map(|a| a.block.count).sum::<i64>()
        + i64::try_from(world.state.units.len()).unwrap_or(0);
    let ticks = scene_ticks(
        plan.longest_d2,
        plan.slowest_milli.min(villager_speed),
        FIGHT_SECONDS + units / 2,
    );

    let mut toml = String::new();
    text::header(&mut toml, seed, "generated", ticks);
    let _ = writeln!(
        toml,
        "[map]\ngenerate = {{ size = {size}, players = {players}, seed = {map_seed} }}\n"
    );
    for f in &foundations {
        let _ = writeln!(
            toml,
            "[[buildings]]\nkind = \"{}\"\nowner = {}\nat = [{}, {}]\ncomplete = false\nname = \"{}\"\n",
            f.kind, f.owner, f.at.0, f.at.1, f.name
        );
    }
    for a in &armies {
        text::block(
            &mut toml,
            &Block {
                kind: a.kind,
                owner: a.owner,
                layout: a.block,
                name: &a.name,
            },
        );
    }
    // Commands of one tick are given in the order written: sorted by tick, stably.
    plan.orders.sort_by_key(|o| o.0);
    for (_, o) in &plan.orders {
        toml.push_str(o);
    }
    toml
}
