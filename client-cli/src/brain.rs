//! Bots' brains: what a `cohort bot` client orders each turn.
//!
//! A [`Script`] plays the orders of a script file at their turns; a [`RandomBrain`] orders its
//! own units about at random, drawn from a seed. Both are deterministic: the same seed or
//! script and the same world give the same orders on every machine. Neither ever names a unit
//! its player does not own (a bot tests the lockstep, not the ownership rule).

use crate::text::{parse_line, Line, TextError};
use cohort_sim::{Command, EntityId, FormationKind, Fx, PlayerId, Vec2, World};

/// What decides a bot's orders for a turn.
pub trait Brain: Send {
    /// The orders to send during `turn`, seeing `world` as the client last simulated it
    /// (the initial world for a client that does not simulate).
    fn orders(&mut self, turn: u64, world: &World, me: PlayerId) -> Vec<Command>;
}

/// Orders read from a script file: one per line, `TURN ORDER`, the order in the text syntax
/// of [`crate::text`]; `#` starts a comment line. Several lines may share a turn.
///
/// ```text
/// # send the villagers out, then stop one
/// 5  move 3 4 5 to 30 30
/// 40 stop 4
/// ```
#[derive(Clone, Debug, Default)]
pub struct Script {
    /// (turn, order), sorted by turn, file order within a turn.
    entries: Vec<(u64, Command)>,
    next: usize,
}

/// A script line that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("script line {line}: {reason}")]
pub struct ScriptError {
    pub line: usize,
    pub reason: String,
}

impl Script {
    /// Reads a script's text. Every bad line is refused with its number.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let err = |reason: String| ScriptError {
                line: i + 1,
                reason,
            };
            let raw = raw.trim();
            if raw.is_empty() || raw.starts_with('#') {
                continue;
            }
            let (turn, order) = raw
                .split_once(char::is_whitespace)
                .ok_or_else(|| err("expected `TURN ORDER`".into()))?;
            let turn: u64 = turn
                .parse()
                .map_err(|_| err(format!("`{turn}` is not a turn number")))?;
            match parse_line(order).map_err(|e: TextError| err(e.to_string()))? {
                Line::Command(c) => entries.push((turn, c)),
                other => {
                    return Err(err(format!(
                        "only sim orders may be scripted, not {other:?}"
                    )))
                }
            }
        }
        entries.sort_by_key(|(turn, _)| *turn);
        Ok(Script { entries, next: 0 })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Brain for Script {
    /// The script's orders for every turn up to `turn` not yet given (a bot that joined late
    /// gives the missed ones at once rather than never).
    fn orders(&mut self, turn: u64, _world: &World, _me: PlayerId) -> Vec<Command> {
        let mut out = Vec::new();
        while let Some((t, c)) = self.entries.get(self.next) {
            if *t > turn {
                break;
            }
            out.push(c.clone());
            self.next += 1;
        }
        out
    }
}

/// One in how many turns a random bot gives an order, on average.
pub const RANDOM_ORDER_EVERY: u64 = 4;
/// The most units a random order names.
pub const RANDOM_GROUP_MAX: u16 = 4;

/// A player that orders its own units about at random, from a seed.
#[derive(Clone, Debug)]
pub struct RandomBrain {
    rng: SplitMix64,
    /// An order about once in this many turns.
    every: u64,
    /// The most units one order names.
    group_max: usize,
}

impl RandomBrain {
    /// An order about once in [`RANDOM_ORDER_EVERY`] turns, to up to [`RANDOM_GROUP_MAX`] units.
    pub fn new(seed: u64) -> RandomBrain {
        RandomBrain::with(seed, RANDOM_ORDER_EVERY, usize::from(RANDOM_GROUP_MAX))
    }

    /// An order about once in `every` turns (1: every turn), to up to `group_max` units (a
    /// crowd, for load: `cohort bot --order-every 1 --group-max 50`).
    pub fn with(seed: u64, every: u64, group_max: usize) -> RandomBrain {
        RandomBrain {
            rng: SplitMix64(seed),
            every: every.max(1),
            group_max: group_max.max(1),
        }
    }

    fn point(&mut self, world: &World) -> Vec2 {
        let g = world.grid();
        let x = self.rng.below(g.width().max(1) as u64 * 4) as i64;
        let y = self.rng.below(g.height().max(1) as u64 * 4) as i64;
        // Quarter tiles: whole positions and halves, all well inside the map.
        Vec2::new(Fx::from_bits(x << 14), Fx::from_bits(y << 14))
    }
}

impl Brain for RandomBrain {
    fn orders(&mut self, _turn: u64, world: &World, me: PlayerId) -> Vec<Command> {
        if self.rng.below(self.every) != 0 {
            return Vec::new();
        }
        let mine: Vec<EntityId> = world
            .state()
            .units
            .iter()
            .filter(|u| u.owner == me && u.hit_points > 0)
            .map(|u| u.id)
            .collect();
        if mine.is_empty() {
            return Vec::new();
        }
        let n = 1 + self.rng.below(self.group_max.min(mine.len()) as u64) as usize;
        let start = self.rng.below(mine.len() as u64) as usize;
        let mut units: Vec<EntityId> = (0..n).map(|i| mine[(start + i) % mine.len()]).collect();
        units.sort();
        let enemies: Vec<EntityId> = world
            .state()
            .units
            .iter()
            .filter(|u| !world.allied(me, u.owner))
            .map(|u| u.id)
            .collect();
        let command = match self.rng.below(8) {
            0..=2 => Command::Move {
                units,
                to: self.point(world),
            },
            3 => Command::FormationMove {
                units,
                to: self.point(world),
            },
            4 => Command::AttackMove {
                units,
                to: self.point(world),
            },
            5 if !enemies.is_empty() => {
                let target = enemies[self.rng.below(enemies.len() as u64) as usize];
                Command::Attack { units, target }
            }
            6 => {
                let formation = match self.rng.below(5) {
                    0 => FormationKind::Line,
                    1 => FormationKind::Staggered,
                    2 => FormationKind::Box,
                    3 => FormationKind::Flank,
                    _ => FormationKind::Shape,
                };
                Command::SetFormation { units, formation }
            }
            _ => Command::Stop { units },
        };
        vec![command]
    }
}

/// A small, well-known generator (splitmix64): the bot's own, seeded, never the OS's.
#[derive(Clone, Debug)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_sim::map::{generate, MapOptions};
    use cohort_sim::Ruleset;
    use std::sync::Arc;

    fn world() -> World {
        generate(Arc::new(Ruleset::default_rules()), MapOptions::default())
    }

    fn play(brain: &mut dyn Brain, w: &World, me: PlayerId, turns: u64) -> Vec<(u64, Command)> {
        (0..turns)
            .flat_map(|t| brain.orders(t, w, me).into_iter().map(move |c| (t, c)))
            .collect()
    }

    #[test]
    fn random_brain_is_the_same_from_the_same_seed() {
        let w = world();
        let a = play(&mut RandomBrain::new(7), &w, 0, 200);
        let b = play(&mut RandomBrain::new(7), &w, 0, 200);
        let c = play(&mut RandomBrain::new(8), &w, 0, 200);
        assert!(!a.is_empty());
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn random_brain_orders_only_its_own_units() {
        let w = world();
        for me in [0, 1] {
            for (_, c) in play(&mut RandomBrain::new(u64::from(me) + 11), &w, me, 400) {
                for u in c.units() {
                    assert_eq!(w.unit(*u).map(|u| u.owner), Some(me), "{c:?}");
                }
            }
        }
    }

    #[test]
    fn script_gives_orders_at_their_turns() {
        let mut s = Script::parse("# c\n5 stop 3\n2 move 3 4 to 1 2\n\n5 hold 4\n").unwrap();
        assert_eq!(s.len(), 3);
        let w = world();
        assert!(s.orders(1, &w, 0).is_empty());
        assert_eq!(s.orders(2, &w, 0).len(), 1);
        assert!(s.orders(3, &w, 0).is_empty());
        assert_eq!(s.orders(9, &w, 0).len(), 2);
        assert!(s.orders(10, &w, 0).is_empty());
    }

    #[test]
    fn script_errors_name_the_line() {
        let e = Script::parse("1 stop 3\nx stop 3").unwrap_err();
        assert_eq!(e.line, 2);
        let e = Script::parse("1 dance").unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
        assert!(Script::parse("3 pause").is_err());
    }
}
