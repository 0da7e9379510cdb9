//! The gatherers' scene: 1,600 villagers at work on the default map, 200 a player, each crew at
//! a resource with a drop site of its kind laid beside it. A start has one wood line, one gold
//! mine, one stone mine and one patch of berry bushes (too little for 200); the scene lays a
//! second gold mine, a second stone mine and two more patches of bushes at every start.

use crate::bench::{self, PLAYERS};
use crate::scenes::Scene;
use cohort_sim::command::{Command, PlayerCommand};
use cohort_sim::grid::Keyed;
use cohort_sim::map::START_CLEARING;
use cohort_sim::{fx, fx_ratio, EntityId, Fx, PlayerId, Tile, Vec2, World};

/// A block of resource tiles laid for the scene, placed from the start's town center.
struct Lot {
    /// Tiles toward the map's middle.
    forward: i32,
    /// Tiles to the right, facing the middle.
    right: i32,
    /// Its size in tiles on the grid's axes.
    width: i32,
    height: i32,
}

/// One crew's work at every start.
struct Site {
    /// The resource kind.
    resource: &'static str,
    /// `None`: the start's own resources of the kind; a lot: resources laid for the scene.
    laid: Option<Lot>,
    /// The drop site laid beside it.
    drop: &'static str,
    /// Villagers working it.
    crew: usize,
}

/// Every start's crews: 72 on the wood line, 24 at each gold mine, 12 at each stone mine, 18
/// or 19 at each patch of bushes (about as many as round one in a busy economy).
const SITES: [Site; 8] = [
    site("tree", None, "lumber_camp", 72),
    site("gold_mine", None, "mining_camp", 24),
    site("gold_mine", lot(9, -8, 2, 2), "mining_camp", 24),
    site("stone_mine", None, "mining_camp", 12),
    site("stone_mine", lot(9, 8, 2, 1), "mining_camp", 12),
    site("berry_bush", None, "mill", 18),
    site("berry_bush", lot(13, -5, 3, 2), "mill", 19),
    site("berry_bush", lot(13, 4, 3, 2), "mill", 19),
];

const fn site(resource: &'static str, laid: Option<Lot>, drop: &'static str, crew: usize) -> Site {
    Site {
        resource,
        laid,
        drop,
        crew,
    }
}

const fn lot(forward: i32, right: i32, width: i32, height: i32) -> Option<Lot> {
    Some(Lot {
        forward,
        right,
        width,
        height,
    })
}

/// Villagers each player sets to work.
pub const PER_PLAYER: usize = 200;
const _: () = assert!(crews() == PER_PLAYER, "the crews make up each player's 200");

const fn crews() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < SITES.len() {
        n += SITES[i].crew;
        i += 1;
    }
    n
}

/// A start's own resources are those this close (Chebyshev, tiles) to its town center: the
/// generator grows no other forest there.
const START_REACH: i32 = START_CLEARING;
/// A drop site is laid this far (tiles) from its resources' middle, toward the town center.
const DROP_FROM_MIDDLE: Fx = fx(4);
/// Rings of tiles searched outward for open ground to lay a block or a building on.
const SEARCH_RINGS: i32 = 10;
/// Villagers of a crew stand this far apart (tiles) at the start: a villager is 0.4 across.
const VILLAGER_SPACING: Fx = fx_ratio(1, 2);
/// Columns of the block a crew's standing places are picked from.
const VILLAGER_COLUMNS: i64 = 8;

/// The scene: the sites laid at every start, then every crew set to gather, each villager
/// already carrying a part of its load (0 to 9 of its 10, in turn), so that the crew's trips to
/// the drop site are spread over the timed ticks as in an economy long at work.
pub fn scene() -> Scene {
    let mut world = bench::default_map();
    let starts = bench::starts(&world);
    let side = world.grid().width();
    let centre = Vec2::new(fx(side / 2), fx(side / 2));
    // The starts' own resources, found before anything is laid beside them.
    let own: Vec<Vec<Vec<EntityId>>> = starts
        .iter()
        .map(|&tc| SITES.iter().map(|s| own_resources(&world, tc, s)).collect())
        .collect();
    let mut crews = Vec::new();
    for (p, (&tc, own)) in (0..PLAYERS).zip(starts.iter().zip(own)) {
        let forward = (centre - tc).with_length(fx(1));
        let right = forward.perp();
        for (s, own) in SITES.iter().zip(own) {
            let parts = match &s.laid {
                None => own,
                Some(l) => lay(
                    &mut world,
                    s.resource,
                    tc + forward * fx(l.forward) + right * fx(l.right),
                    l,
                ),
            };
            let middle = middle_of(&world, &parts);
            let drop = drop_site(
                &mut world,
                s.drop,
                p,
                middle + (tc - middle).with_length(DROP_FROM_MIDDLE),
            );
            crews.push((p, parts, middle.lerp(drop, fx(1), fx(2)), s.crew));
        }
    }
    // Crews stand only once every building and resource is laid, clear of each other.
    let mut orders = Vec::new();
    for (player, parts, at, n) in crews {
        let ids = spawn_crew(&mut world, player, at, n, &parts);
        for (k, &target) in parts.iter().enumerate() {
            let units: Vec<EntityId> = ids.iter().skip(k).step_by(parts.len()).copied().collect();
            if !units.is_empty() {
                orders.push(PlayerCommand {
                    player,
                    command: Command::Gather { units, target },
                });
            }
        }
    }
    Scene { world, orders }
}

/// The start's own resources of `s`'s kind, in id order (none for a site laid for the scene).
fn own_resources(world: &World, tc: Vec2, s: &Site) -> Vec<EntityId> {
    let kind = world.rules().resource_kind(s.resource);
    if s.laid.is_some() {
        return Vec::new();
    }
    world
        .state()
        .resources
        .iter()
        .filter(|r| Some(r.kind) == kind && Vec2::of_tile(r.tile).chebyshev(tc) <= fx(START_REACH))
        .map(|r| r.id)
        .collect()
}

/// The middle of the resources `ids`.
fn middle_of(world: &World, ids: &[EntityId]) -> Vec2 {
    let n = Fx::from_num(ids.len().max(1));
    let sum = ids
        .iter()
        .filter_map(|&id| world.resource(id))
        .fold(Vec2::ZERO, |s, r| s + Vec2::of_tile(r.tile));
    Vec2::new(sum.x / n, sum.y / n)
}

/// Tiles round `t`, ring after ring out to [`SEARCH_RINGS`], each ring row by row.
fn rings(t: Tile) -> impl Iterator<Item = Tile> {
    (0..=SEARCH_RINGS).flat_map(move |r| {
        (-r..=r)
            .flat_map(move |dy| (-r..=r).map(move |dx| (dx, dy)))
            .filter(move |&(dx, dy)| dx.abs().max(dy.abs()) == r)
            .map(move |(dx, dy)| t.offset(dx, dy))
    })
}

/// Whether `t` and the eight tiles round it are open land with nobody on them: what is laid
/// there leaves a path round it.
fn open_round(world: &World, t: Tile) -> bool {
    let land = Keyed::unkeyed(0);
    std::iter::once(t).chain(t.round()).all(|c| {
        world.grid().passable(land, c)
            && !world.state().units.iter().any(|u| u.position.tile() == c)
    })
}

/// Lays a lot of `kind` on the open ground nearest `want`; returns the resources laid.
fn lay(world: &mut World, kind: &str, want: Vec2, l: &Lot) -> Vec<EntityId> {
    let kind = world
        .rules()
        .resource_kind(kind)
        .expect("a default resource kind");
    let tiles =
        |o: Tile| (0..l.height).flat_map(move |dy| (0..l.width).map(move |dx| o.offset(dx, dy)));
    let Some(origin) = rings(want.tile()).find(|&o| tiles(o).all(|t| open_round(world, t))) else {
        return Vec::new();
    };
    tiles(origin)
        .filter_map(|t| world.add_resource(kind, t))
        .collect()
}

/// Lays a complete drop site of `kind` for `owner` on the open ground nearest `want`; returns
/// its middle (`want` when no ground is open).
fn drop_site(world: &mut World, kind: &str, owner: PlayerId, want: Vec2) -> Vec2 {
    let kind = world
        .rules()
        .building_kind(kind)
        .expect("a default building kind");
    let fits = |o: Tile| {
        world
            .footprint_of(kind, o, false)
            .tiles()
            .all(|t| open_round(world, t))
    };
    let Some(origin) = rings(want.tile()).find(|&o| fits(o)) else {
        return want;
    };
    match world.place_building(kind, owner, origin, false, true) {
        Ok(_) => world.footprint_of(kind, origin, false).bounds().middle(),
        Err(_) => want,
    }
}

/// Spawns a crew of `n` villagers for `player` on the free points nearest `at` (no two within
/// [`VILLAGER_SPACING`]), each carrying in turn 0 to 9 of its load of what `parts` give.
fn spawn_crew(
    world: &mut World,
    player: PlayerId,
    at: Vec2,
    n: usize,
    parts: &[EntityId],
) -> Vec<EntityId> {
    let rules = world.rules_arc();
    let villager = rules.unit_kind("villager").expect("a default unit kind");
    let carry = rules.units[usize::from(villager)].carry.max(1);
    let good = parts
        .first()
        .and_then(|&r| world.resource(r))
        .map(|r| rules.resources[usize::from(r.kind)].gives);
    let clear = |p: Vec2| {
        world
            .state()
            .units
            .iter()
            .all(|u| u.position.chebyshev(p) >= VILLAGER_SPACING)
    };
    let mut places: Vec<Vec2> = bench::block(world, at, n * 4, VILLAGER_COLUMNS, VILLAGER_SPACING)
        .into_iter()
        .filter(|&p| clear(p))
        .collect();
    places.sort_by_key(|&p| ((p - at).length_squared(), p.y, p.x));
    let mut ids = Vec::new();
    for (k, p) in places.into_iter().take(n).enumerate() {
        let id = world.spawn_unit(villager, player, p);
        let load = u32::try_from(k).unwrap_or(0) % carry;
        if let (Some(u), Some(good)) = (world.unit_mut(id), good) {
            u.carrying = (load > 0).then_some((good, load));
        }
        ids.push(id);
    }
    ids
}
