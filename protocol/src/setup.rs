//! A match's configuration, the world it starts from, and how every peer runs a turn's bundle.
//! Server, clients and replays all go through [`MatchConfig::world`] and [`run_bundle`], so they
//! build and step the same world.

use crate::limits::{MAX_MATCH_ID_BYTES, MAX_NAME_BYTES, MAX_PLAYERS};
use crate::message::{Membership, TurnBundle};
use cohort_sim::hash::TickHash;
use cohort_sim::map::{
    generate, raise_armies, start_tiles, MapOptions, DEFAULT_MAP_SEED, DEFAULT_MAP_SIZE, MAX_ARMY,
};
use cohort_sim::world::PlayerStatus;
use cohort_sim::{PlayerId, Ruleset, World};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The default turn length, in ticks of 16 ms (128 ms).
pub const DEFAULT_TURN_TICKS: u32 = 8;

/// The default starting input delay, in turns.
pub const DEFAULT_INPUT_DELAY: u32 = 2;

/// The map a match is played on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MapSpec {
    /// The default map's generator with this seed and side (48 to 512 tiles).
    Generated { seed: u64, size: i32 },
    /// The same map, each player's units topped up to an army of `army` (1 to `MAX_ARMY`,
    /// 200) soldiers round its start (`cohort_sim::map::raise_armies`): full armies for load
    /// tests (8 players × 200 = 1,600 units).
    Armies { seed: u64, size: i32, army: u32 },
}

impl MapSpec {
    /// The generator's seed and side.
    pub fn seed_and_size(&self) -> (u64, i32) {
        match *self {
            MapSpec::Generated { seed, size } | MapSpec::Armies { seed, size, .. } => (seed, size),
        }
    }
}

impl Default for MapSpec {
    fn default() -> Self {
        MapSpec::Generated {
            seed: DEFAULT_MAP_SEED,
            size: DEFAULT_MAP_SIZE,
        }
    }
}

/// A player's place in a match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerSlot {
    /// The player's id in the sim, 0 to 7; slots are numbered from 0 without gaps.
    pub slot: PlayerId,
    /// The name the sim records.
    pub name: String,
    /// Players with the same team are allies.
    pub team: u8,
}

/// Everything needed to build a match's starting world and run it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchConfig {
    /// Letters, digits, `-` and `_`, at most [`MAX_MATCH_ID_BYTES`].
    pub match_id: String,
    /// blake3 of the ruleset ([`Ruleset::hash`]); clients with another are refused.
    pub ruleset_hash: [u8; 32],
    pub map: MapSpec,
    /// 2 to 8 players, slots 0, 1, 2… in order.
    pub players: Vec<PlayerSlot>,
    /// One tick, in milliseconds (16).
    pub tick_ms: u32,
    /// Ticks per turn.
    pub turn_ticks: u32,
    /// The input delay at the start, in turns.
    pub input_delay: u32,
}

/// Why a configuration cannot be played.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("match id `{0}` must be 1 to {MAX_MATCH_ID_BYTES} letters, digits, `-` or `_`")]
    MatchId(String),
    #[error("a match has 2 to {MAX_PLAYERS} players, not {0}")]
    PlayerCount(usize),
    #[error("player slots must be numbered 0, 1, 2… in order")]
    SlotOrder,
    #[error("player name `{0}` is empty or longer than {MAX_NAME_BYTES} bytes")]
    Name(String),
    #[error("a turn lasts 1 to 64 ticks, not {0}")]
    TurnTicks(u32),
    #[error("the map side must be 48 to 512 tiles, not {0}")]
    MapSize(i32),
    #[error("the ruleset's hash is not the configuration's")]
    Ruleset,
    #[error("an army is 1 to {MAX_ARMY} units, not {0}")]
    Army(u32),
}

/// Whether a match id is well formed.
pub fn valid_match_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_MATCH_ID_BYTES
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl MatchConfig {
    /// A configuration on the default map with `players` players named "Player 1"…, each its
    /// own team.
    pub fn standard(match_id: &str, rules: &Ruleset, players: u8) -> MatchConfig {
        MatchConfig {
            match_id: match_id.to_string(),
            ruleset_hash: rules.hash(),
            map: MapSpec::default(),
            players: (0..players)
                .map(|p| PlayerSlot {
                    slot: p,
                    name: format!("Player {}", p + 1),
                    team: p,
                })
                .collect(),
            tick_ms: cohort_sim::world::TICK_MS,
            turn_ticks: DEFAULT_TURN_TICKS,
            input_delay: DEFAULT_INPUT_DELAY,
        }
    }

    /// Checks every field against its limits.
    pub fn check(&self) -> Result<(), ConfigError> {
        if !valid_match_id(&self.match_id) {
            return Err(ConfigError::MatchId(self.match_id.clone()));
        }
        if !(2..=MAX_PLAYERS).contains(&self.players.len()) {
            return Err(ConfigError::PlayerCount(self.players.len()));
        }
        if self
            .players
            .iter()
            .enumerate()
            .any(|(i, p)| usize::from(p.slot) != i)
        {
            return Err(ConfigError::SlotOrder);
        }
        if let Some(p) = self
            .players
            .iter()
            .find(|p| p.name.is_empty() || p.name.len() > MAX_NAME_BYTES)
        {
            return Err(ConfigError::Name(p.name.clone()));
        }
        if !(1..=64).contains(&self.turn_ticks) {
            return Err(ConfigError::TurnTicks(self.turn_ticks));
        }
        let (_, size) = self.map.seed_and_size();
        if !(48..=512).contains(&size) {
            return Err(ConfigError::MapSize(size));
        }
        if let MapSpec::Armies { army, .. } = self.map {
            if !(1..=MAX_ARMY).contains(&army) {
                return Err(ConfigError::Army(army));
            }
        }
        Ok(())
    }

    /// How long a turn lasts, in milliseconds.
    pub fn turn_ms(&self) -> u64 {
        u64::from(self.turn_ticks) * u64::from(self.tick_ms)
    }

    /// The world the match starts from. Same configuration and ruleset, same world, everywhere.
    pub fn world(&self, rules: Arc<Ruleset>) -> Result<World, ConfigError> {
        self.check()?;
        if rules.hash() != self.ruleset_hash {
            return Err(ConfigError::Ruleset);
        }
        let (seed, size) = self.map.seed_and_size();
        let opts = MapOptions {
            seed,
            size,
            players: u8::try_from(self.players.len())
                .map_err(|_| ConfigError::PlayerCount(self.players.len()))?,
        };
        let mut world = generate(rules, opts);
        if let MapSpec::Armies { army, .. } = self.map {
            raise_armies(&mut world, &start_tiles(opts), army);
        }
        for (p, slot) in world.state_mut().players.iter_mut().zip(&self.players) {
            p.name = slot.name.clone();
            p.team = slot.team;
        }
        Ok(world)
    }
}

/// The sim status a membership change leaves a player in.
pub fn status_after(change: Membership) -> PlayerStatus {
    match change {
        Membership::Joined => PlayerStatus::Playing,
        Membership::Left => PlayerStatus::Left,
        Membership::Resigned => PlayerStatus::Resigned,
        Membership::Dropped => PlayerStatus::Dropped,
    }
}

/// Runs one turn's bundle: its membership events, then its commands at the turn's first tick,
/// then the rest of the turn's `turn_ticks` ticks. Every peer runs every bundle through this.
pub fn run_bundle(world: &mut World, bundle: &TurnBundle, turn_ticks: u32) {
    run_bundle_ticks(world, bundle, turn_ticks, |_| {});
}

/// [`run_bundle`], calling `after_tick` after each of the turn's ticks (the tick just run is
/// `world.tick()`).
pub fn run_bundle_ticks(
    world: &mut World,
    bundle: &TurnBundle,
    turn_ticks: u32,
    mut after_tick: impl FnMut(&mut World),
) {
    for e in &bundle.events {
        world.set_player_status(e.player, status_after(e.change));
    }
    for t in 0..turn_ticks {
        world.step(if t == 0 { &bundle.commands } else { &[] });
        after_tick(world);
    }
}

/// [`run_bundle`], returning the tick hash after each of the turn's ticks: what every peer keeps
/// of its recent turns ([`crate::limits::TICK_HASH_TURNS`]) to narrow a desync to its tick.
pub fn run_bundle_hashed(world: &mut World, bundle: &TurnBundle, turn_ticks: u32) -> Vec<TickHash> {
    let mut hashes = Vec::with_capacity(turn_ticks as usize);
    run_bundle_ticks(world, bundle, turn_ticks, |w| hashes.push(w.tick_hash()));
    hashes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode_snapshot, encode_snapshot};
    use crate::message::MembershipEvent;
    use cohort_sim::{Command, PlayerCommand, Vec2};

    fn rules() -> Arc<Ruleset> {
        Arc::new(Ruleset::default_rules())
    }

    #[test]
    fn the_same_configuration_builds_the_same_world() {
        let config = MatchConfig::standard("m", &rules(), 3);
        let a = config.world(rules()).unwrap();
        let b = config.world(rules()).unwrap();
        assert_eq!(a.hash(), b.hash());
        assert_eq!(a.state().players.len(), 3);
    }

    #[test]
    fn a_bad_configuration_is_refused() {
        let mut c = MatchConfig::standard("m", &rules(), 2);
        c.players.truncate(1);
        assert_eq!(c.check(), Err(ConfigError::PlayerCount(1)));
        let mut c = MatchConfig::standard("m.x", &rules(), 2);
        assert!(matches!(c.check(), Err(ConfigError::MatchId(_))));
        c.match_id = "m".into();
        c.ruleset_hash = [0; 32];
        assert!(matches!(c.world(rules()), Err(ConfigError::Ruleset)));
    }

    fn armies(players: u8, army: u32) -> MatchConfig {
        let mut c = MatchConfig::standard("m", &rules(), players);
        c.map = MapSpec::Armies {
            seed: DEFAULT_MAP_SEED,
            size: DEFAULT_MAP_SIZE,
            army,
        };
        c
    }

    #[test]
    fn full_armies_give_every_player_its_count_on_the_same_map() {
        let world = armies(8, MAX_ARMY).world(rules()).unwrap();
        assert_eq!(world.state().units.len(), 1600);
        for p in 0..8 {
            let mine = world.state().units.iter().filter(|u| u.owner == p).count();
            assert_eq!(mine, 200, "player {p}");
        }
        let plain = MatchConfig::standard("m", &rules(), 8)
            .world(rules())
            .unwrap();
        assert_eq!(world.grid().width(), plain.grid().width());
        // Every unit of the plain map is still there, with the same id and place; the
        // soldiers come after them.
        for (a, b) in plain.state().units.iter().zip(&world.state().units) {
            assert_eq!(
                (a.id, a.kind, a.owner, a.position),
                (b.id, b.kind, b.owner, b.position)
            );
        }
        let small = armies(2, 30).world(rules()).unwrap();
        assert_eq!(small.state().units.len(), 60);
    }

    #[test]
    fn full_armies_are_the_same_everywhere_and_play_on_identically() {
        let config = armies(8, MAX_ARMY);
        let mut a = config.world(rules()).unwrap();
        let mut b = config.world(rules()).unwrap();
        assert_eq!(a.hash(), b.hash());
        assert_ne!(
            a.hash(),
            MatchConfig::standard("m", &rules(), 8)
                .world(rules())
                .unwrap()
                .hash()
        );
        // A crowd of each player's first 50 units ordered across the map, then a few turns.
        let commands: Vec<PlayerCommand> = (0..8u8)
            .map(|p| PlayerCommand {
                player: p,
                command: Command::Move {
                    units: a
                        .state()
                        .units
                        .iter()
                        .filter(|u| u.owner == p)
                        .take(50)
                        .map(|u| u.id)
                        .collect(),
                    to: Vec2::new(cohort_sim::fx(60), cohort_sim::fx(60)),
                },
            })
            .collect();
        for turn in 0..4 {
            let bundle = TurnBundle {
                turn,
                input_delay: None,
                events: vec![],
                commands: if turn == 0 { commands.clone() } else { vec![] },
                previous_hash: None,
            };
            run_bundle(&mut a, &bundle, config.turn_ticks);
            run_bundle(&mut b, &bundle, config.turn_ticks);
            assert_eq!(a.hash(), b.hash(), "turn {turn}");
        }
        let moved = a
            .state()
            .units
            .iter()
            .zip(&config.world(rules()).unwrap().state().units)
            .filter(|(now, then)| now.position != then.position)
            .count();
        assert!(moved >= 8 * 40, "only {moved} units moved");
    }

    #[test]
    fn an_army_map_survives_the_codec() {
        let config = armies(8, 123);
        let bytes = crate::codec::encode_message(&config).unwrap();
        let back: MatchConfig = crate::codec::decode_message(&bytes).unwrap();
        assert_eq!(back, config);
        // Variant 1 of MapSpec (docs/PROTOCOL.md).
        let map = crate::codec::encode_message(&config.map).unwrap();
        assert_eq!(map[0], 1);
    }

    #[test]
    fn an_army_out_of_range_is_refused() {
        for army in [0, MAX_ARMY + 1, u32::MAX] {
            let c = armies(2, army);
            assert_eq!(c.check(), Err(ConfigError::Army(army)));
            assert!(matches!(c.world(rules()), Err(ConfigError::Army(_))));
        }
        assert_eq!(armies(2, 1).check(), Ok(()));
        assert_eq!(armies(2, MAX_ARMY).check(), Ok(()));
    }

    #[test]
    fn a_snapshot_survives_the_codec_and_runs_on_identically() {
        let config = MatchConfig::standard("m", &rules(), 2);
        let mut world = config.world(rules()).unwrap();
        let unit = world.state().units[0].id;
        let bundle = TurnBundle {
            turn: 0,
            input_delay: None,
            events: vec![MembershipEvent {
                player: 1,
                change: Membership::Resigned,
            }],
            commands: vec![PlayerCommand {
                player: 0,
                command: Command::Move {
                    units: vec![unit],
                    to: Vec2::new(cohort_sim::fx(30), cohort_sim::fx(40)),
                },
            }],
            previous_hash: None,
        };
        run_bundle(&mut world, &bundle, config.turn_ticks);
        assert_eq!(world.state().players[1].status, PlayerStatus::Resigned);
        assert_eq!(world.tick(), u64::from(config.turn_ticks));
        let bytes = encode_snapshot(&world.snapshot()).unwrap();
        let mut back = World::from_snapshot(rules(), decode_snapshot(&bytes).unwrap()).unwrap();
        assert_eq!(back.hash(), world.hash());
        let next = TurnBundle {
            turn: 1,
            events: vec![],
            commands: vec![],
            ..bundle
        };
        run_bundle(&mut world, &next, 8);
        run_bundle(&mut back, &next, 8);
        assert_eq!(back.hash(), world.hash());
    }
}
