//! A world loaded from a snapshot taken at any turn of a busy match continues exactly as the one
//! it was taken from (DESIGN.md, "Determinism": a rejoining client gets a snapshot and plays on).
//! So nothing the sim keeps from one tick to the next may live outside the snapshot: caches must
//! be rebuilt from the state or forgotten within their tick.
//!
//! Random matches on the default map generator: every few turns each player gives one of the
//! commands a person gives (sends to a handful of shared points, so walks to the same point from
//! nearby starts are common; formation moves, attacks, gathering, formations, stop and hold),
//! and the match is cut at a random turn by a snapshot that goes through a real encoding.

use cohort_sim::command::{Command, FormationKind, PlayerCommand};
use cohort_sim::map::{generate, MapOptions};
use cohort_sim::world::{Rng, Snapshot};
use cohort_sim::{fx, EntityId, Ruleset, StateHash, Vec2, World};
use proptest::prelude::*;
use std::sync::Arc;

/// Ticks in a turn, as the server's default.
const TURN_TICKS: u32 = 4;
/// Turns in one random match.
const TURNS: u64 = 150;

/// The test's dice: the sim's own seeded generator, used outside any world.
struct Dice(Rng);

impl Dice {
    fn new(seed: u64) -> Dice {
        Dice(Rng::new(seed))
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
}

/// One player's command for this turn, or none.
fn command(world: &World, player: u8, dice: &mut Dice, points: &[Vec2]) -> Option<PlayerCommand> {
    if dice.below(3) != 0 {
        return None;
    }
    let mine: Vec<EntityId> = world
        .state()
        .units
        .iter()
        .filter(|u| u.owner == player)
        .map(|u| u.id)
        .collect();
    if mine.is_empty() {
        return None;
    }
    let take = 1 + dice.below(mine.len());
    let start = dice.below(mine.len());
    let units: Vec<EntityId> = (0..take).map(|k| mine[(start + k) % mine.len()]).collect();
    let to = points[dice.below(points.len())];
    let enemy = |dice: &mut Dice| {
        let theirs: Vec<EntityId> = world
            .state()
            .units
            .iter()
            .filter(|u| u.owner != player)
            .map(|u| u.id)
            .chain(world.state().buildings.iter().map(|b| b.id))
            .collect();
        theirs.get(dice.below(theirs.len())).copied()
    };
    let command = match dice.below(9) {
        0..=2 => Command::Move { units, to },
        3 => Command::FormationMove { units, to },
        4 => Command::AttackMove { units, to },
        5 => Command::Attack {
            units,
            target: enemy(dice)?,
        },
        6 => {
            let r = &world.state().resources;
            Command::Gather {
                units,
                target: r.get(dice.below(r.len()))?.id,
            }
        }
        7 => Command::SetFormation {
            units,
            formation: [
                FormationKind::Line,
                FormationKind::Staggered,
                FormationKind::Box,
                FormationKind::Flank,
                FormationKind::Shape,
            ][dice.below(5)],
        },
        _ => {
            if dice.below(2) == 0 {
                Command::Stop { units }
            } else {
                Command::Hold { units }
            }
        }
    };
    Some(PlayerCommand { player, command })
}

/// Every turn's commands and the hash after it, played from `world`.
fn play(world: &mut World, from_turn: u64, seed: u64, turns: &mut Vec<Vec<PlayerCommand>>) {
    let players = world.state().players.len() as u8;
    let size = world.grid().width();
    let points: Vec<Vec2> = (0..6)
        .map(|k| {
            let mut d = Dice::new(seed ^ k);
            Vec2::new(
                fx(4 + d.below(size as usize - 8) as i32),
                fx(4 + d.below(size as usize - 8) as i32),
            )
        })
        .collect();
    for turn in from_turn..TURNS {
        if turns.len() as u64 <= turn {
            let mut dice = Dice::new(seed.wrapping_mul(31).wrapping_add(turn));
            let commands = (0..players)
                .filter_map(|p| command(world, p, &mut dice, &points))
                .collect();
            turns.push(commands);
        }
        world.run_turn(&turns[turn as usize], TURN_TICKS);
    }
}

fn hashes_after_each_turn(
    mut world: World,
    from_turn: u64,
    turns: &[Vec<PlayerCommand>],
) -> Vec<StateHash> {
    (from_turn..TURNS)
        .map(|turn| {
            world.run_turn(&turns[turn as usize], TURN_TICKS);
            world.hash()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_world_loaded_at_any_turn_continues_as_the_one_it_was_taken_from(
        seed in any::<u64>(),
        cut in 1..TURNS,
    ) {
        let rules = Arc::new(Ruleset::default_rules());
        let options = MapOptions { seed: seed % 1000, size: 64, players: 2 };
        // The match's commands, chosen from the state as it is played.
        let mut turns = Vec::new();
        play(&mut generate(rules.clone(), options), 0, seed, &mut turns);

        let straight = hashes_after_each_turn(generate(rules.clone(), options), 0, &turns);

        let mut first = generate(rules.clone(), options);
        for t in &turns[..cut as usize] {
            first.run_turn(t, TURN_TICKS);
        }
        let json = serde_json::to_string(&first.snapshot()).unwrap();
        let snap: Snapshot = serde_json::from_str(&json).unwrap();
        let loaded = World::from_snapshot(rules.clone(), snap).unwrap();
        prop_assert_eq!(loaded.hash(), first.hash());
        let from_snapshot = hashes_after_each_turn(loaded, cut, &turns);
        let kept_on = hashes_after_each_turn(first, cut, &turns);
        prop_assert_eq!(&kept_on[..], &straight[cut as usize..]);
        let first_differing = (0..kept_on.len())
            .find(|&k| from_snapshot[k] != kept_on[k])
            .map(|k| k as u64 + cut);
        prop_assert_eq!(first_differing, None, "the loaded world's first differing turn");
    }
}
