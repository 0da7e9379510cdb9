//! The soldiers' crowd scenes at 1,600 units: who stands where, and the orders given on the
//! first timed tick. The gatherers' scene is in `gatherers.rs`.

use crate::bench::{self, PLAYERS};
use crate::gatherers;
use cohort_sim::command::{Command, PlayerCommand};
use cohort_sim::grid::Grid;
use cohort_sim::world::Player;
use cohort_sim::{fx, EntityId, Fx, PlayerId, Ruleset, Vec2, World};
use std::sync::Arc;

/// A scene: the world before the orders, and the orders.
pub struct Scene {
    pub world: World,
    pub orders: Vec<PlayerCommand>,
}

/// The scenes, in the order they run when none is named.
pub const NAMES: [&str; 5] = [
    "crossing",
    "crossing_formation",
    "siege",
    "gatherers",
    "fights",
];

/// The scene called `name`.
pub fn build(name: &str) -> Option<Scene> {
    match name {
        "crossing" => Some(crossing(false)),
        "crossing_formation" => Some(crossing(true)),
        "siege" => Some(siege()),
        "gatherers" => Some(gatherers::scene()),
        "fights" => Some(fights()),
        _ => None,
    }
}

/// How far apart soldiers of mixed kinds stand in a block, in tiles: a knight is 0.8 across.
const ARMY_SPACING: Fx = fx(1);
/// Columns of each player's block on the default map (as in the walking scene).
const COLUMNS: i64 = 16;
/// Each player's army in the siege (8 × 200): mostly melee, some archers and knights.
const SIEGE_ARMY: [(&str, usize); 3] = [("militia", 120), ("archer", 40), ("knight", 40)];
/// Each player's army in the fights (8 × 200): melee, ranged and cavalry.
const FIGHT_ARMY: [(&str, usize); 3] = [("militia", 100), ("archer", 60), ("knight", 40)];
/// Each of the crossing's two armies (2 × 800).
const CROSSING_ARMY: [(&str, usize); 3] = [("militia", 400), ("archer", 200), ("knight", 200)];
/// Columns of a crossing army's block: 16 deep along the way it walks, 50 rows across it.
const CROSSING_COLUMNS: i64 = 16;
/// The crossing's open map's side, in tiles: the default map's.
const OPEN_SIDE: i32 = 120;
/// How far each crossing army's middle stands from the map's middle, in tiles: the two
/// blocks' fronts are 16 tiles apart.
const CROSSING_OFFSET: i32 = 16;
/// The crossing world's seed (nothing in the scene is random).
const CROSSING_SEED: u64 = 10;

/// Spawns `mix` (kind, how many) for `player` in one block round `middle`, kind after kind,
/// row by row; returns each kind's ids.
fn army(
    world: &mut World,
    player: PlayerId,
    middle: Vec2,
    cols: i64,
    mix: &[(&str, usize)],
) -> Vec<Vec<EntityId>> {
    let total = mix.iter().map(|&(_, n)| n).sum();
    let mut at = bench::block(world, middle, total, cols, ARMY_SPACING).into_iter();
    let mut kinds = Vec::new();
    for &(name, n) in mix {
        let kind = world.rules().unit_kind(name).expect("a default unit kind");
        let ids = at
            .by_ref()
            .take(n)
            .map(|p| world.spawn_unit(kind, player, p))
            .collect();
        kinds.push(ids);
    }
    kinds
}

/// The middle of where `ids` stand.
fn middle_of(world: &World, ids: &[EntityId]) -> Vec2 {
    let n = Fx::from_num(ids.len().max(1));
    let sum = ids
        .iter()
        .filter_map(|&id| world.unit(id))
        .fold(Vec2::ZERO, |s, u| s + u.position);
    Vec2::new(sum.x / n, sum.y / n)
}

/// Two armies of 800 (player 0 west, player 1 east) on open grass the default map's size, sent
/// head-on through each other: each kind of each army to the mirror image (across the map's
/// middle line) of where it stands, with `move`, or with `formation_move` when `formation`.
/// The east army's kinds stand in the reverse order, so its knights meet the west's militia.
fn crossing(formation: bool) -> Scene {
    let rules = Arc::new(Ruleset::default_rules());
    let grass = rules
        .terrain("grass")
        .expect("the default ruleset has grass");
    let grid = Grid::new(&rules, OPEN_SIDE, OPEN_SIDE, grass);
    let players = vec![Player::new(0, 0), Player::new(1, 1)];
    let mut world = World::new(rules, grid, players, CROSSING_SEED);
    let mid = fx(OPEN_SIDE / 2);
    let mut orders = Vec::new();
    for (player, side) in [(0, -1), (1, 1)] {
        let middle = Vec2::new(mid + fx(side * CROSSING_OFFSET), mid);
        let mut mix = CROSSING_ARMY.to_vec();
        if player == 1 {
            mix.reverse();
        }
        for units in army(&mut world, player, middle, CROSSING_COLUMNS, &mix) {
            let here = middle_of(&world, &units);
            let to = Vec2::new(mid * 2 - here.x, here.y);
            let command = if formation {
                Command::FormationMove { units, to }
            } else {
                Command::Move { units, to }
            };
            orders.push(PlayerCommand { player, command });
        }
    }
    Scene { world, orders }
}

/// The default map with every player's army of `mix` standing at the army middle `stand`
/// names for it, each given the order `order` makes from the world, the player and its units.
fn on_default_map(
    mix: &[(&str, usize)],
    stand: impl Fn(PlayerId) -> PlayerId,
    order: impl Fn(&World, &[Vec2], PlayerId, Vec<EntityId>) -> Command,
) -> Scene {
    let mut world = bench::default_map();
    let middles = bench::army_middles(&world);
    let mut orders = Vec::new();
    for player in 0..PLAYERS {
        let at = middles[usize::from(stand(player))];
        let units = army(&mut world, player, at, COLUMNS, mix).concat();
        let command = order(&world, &middles, player, units);
        orders.push(PlayerCommand { player, command });
    }
    Scene { world, orders }
}

/// The default map; each player's 200 stand where its neighbour's army stands in the walking
/// scene (between that neighbour's town center and the lake) and attack that town center.
fn siege() -> Scene {
    let next = |p: PlayerId| (p + 1) % PLAYERS;
    on_default_map(&SIEGE_ARMY, next, |world, _, p, units| {
        let target = world
            .state()
            .buildings
            .iter()
            .find(|b| b.owner == next(p))
            .map(|b| b.id)
            .expect("every player has a town center");
        Command::Attack { units, target }
    })
}

/// The default map; each player's 200 stand where they stand in the walking scene and
/// attack-move to where their neighbour's stand (players 0 and 1, 2 and 3, ...): four battles
/// of 400.
fn fights() -> Scene {
    on_default_map(
        &FIGHT_ARMY,
        |p| p,
        |_, middles, p, units| Command::AttackMove {
            units,
            to: middles[usize::from(p ^ 1)],
        },
    )
}
