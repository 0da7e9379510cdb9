//! Players: teams, stockpiles, technologies and whether they still play.

use crate::grid::PlayerMask;
use crate::id::PlayerId;
use serde::{Deserialize, Serialize};

/// Whether a player still plays. Every change is an event of the turn stream, applied by every
/// peer on the same turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlayerStatus {
    #[default]
    Playing,
    Left,
    Resigned,
    Dropped,
}

/// A player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub id: PlayerId,
    pub name: String,
    /// Players with the same team are allies.
    pub team: u8,
    /// Food, wood, gold, stone (indexed by [`crate::ruleset::Good::index`]).
    pub stock: [u32; 4],
    /// Technologies researched (indices into the ruleset), sorted.
    pub technologies: Vec<u16>,
    pub status: PlayerStatus,
}

impl Player {
    pub fn new(id: PlayerId, team: u8) -> Player {
        Player {
            id,
            name: format!("Player {}", id + 1),
            team,
            stock: [200, 200, 100, 200],
            technologies: Vec::new(),
            status: PlayerStatus::Playing,
        }
    }
}

/// The players allied with `player`, itself included.
pub fn friends_of(players: &[Player], player: PlayerId) -> PlayerMask {
    let Some(me) = players.iter().find(|p| p.id == player) else {
        return PlayerMask::NONE;
    };
    players
        .iter()
        .filter(|p| p.team == me.team)
        .fold(PlayerMask::NONE, |m, p| m.with(p.id))
}
