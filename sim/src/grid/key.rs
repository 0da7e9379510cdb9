//! Keyed layers (spec: "Passability layers", `Physics::Keyed`).
//!
//! A layer handed to a mover carries, in its upper bits, the players it may pass gates of: its
//! owner and the owner's allies. A gate's tiles are blocked like any building's, but a layer keyed
//! with a friend of the gate's owner finds it open while it is unlocked. Anything that asks
//! without a key (placing a building, spawning a unit) sees a gate as a wall.

use super::LayerId;
use serde::{Deserialize, Serialize};

/// A set of players, one bit each (player ids 0 to 7).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct PlayerMask(pub u8);

impl PlayerMask {
    pub const NONE: PlayerMask = PlayerMask(0);

    pub fn of(player: u8) -> PlayerMask {
        PlayerMask(1u8.checked_shl(u32::from(player)).unwrap_or(0))
    }

    pub fn contains(self, player: u8) -> bool {
        player < 8 && self.0 & (1 << player) != 0
    }

    pub fn with(self, player: u8) -> PlayerMask {
        PlayerMask(self.0 | PlayerMask::of(player).0)
    }
}

/// A layer plus the players whose unlocked gates it may pass: the layer in the low 8 bits, the
/// friends in the next 8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Keyed(u32);

impl Keyed {
    /// A layer asked about without a key: every gate is a wall.
    pub const fn unkeyed(layer: LayerId) -> Keyed {
        Keyed(layer as u32)
    }

    /// A layer keyed for a mover whose owner's friends (the owner and allies) are `friends`.
    pub const fn with_friends(layer: LayerId, friends: PlayerMask) -> Keyed {
        Keyed(layer as u32 | (friends.0 as u32) << 8)
    }

    pub const fn layer(self) -> LayerId {
        (self.0 & 0xff) as LayerId
    }

    pub const fn friends(self) -> PlayerMask {
        PlayerMask((self.0 >> 8) as u8)
    }

    /// The packed form.
    pub const fn bits(self) -> u32 {
        self.0
    }
}
