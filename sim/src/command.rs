//! Commands: what players ask of their units. Each names the player who gave it; a command
//! naming a unit that player does not own is ignored whole, identically on every peer, and
//! counted ([`crate::state::Counters::ignored_commands`]).

use crate::id::{EntityId, PlayerId};
use crate::position::{Fx, Tile, Vec2};
use serde::{Deserialize, Serialize};

/// The most units one command may name; a longer list is ignored whole.
pub const MAX_UNITS_PER_COMMAND: usize = 512;

/// The formations a group can be set to (spec: "Formations"; devlog: shape-keeping moves).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FormationKind {
    #[default]
    Line,
    Staggered,
    Box,
    Flank,
    /// The devlog's group move: each unit keeps its offset from its cluster's middle.
    Shape,
}

/// One command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// Units sent together to one point: they march and share walks.
    Move {
        units: Vec<EntityId>,
        to: Vec2,
    },
    /// A person's group move: each member to its own place in the formation.
    FormationMove {
        units: Vec<EntityId>,
        to: Vec2,
    },
    Attack {
        units: Vec<EntityId>,
        target: EntityId,
    },
    AttackMove {
        units: Vec<EntityId>,
        to: Vec2,
    },
    Follow {
        units: Vec<EntityId>,
        target: EntityId,
    },
    Gather {
        units: Vec<EntityId>,
        target: EntityId,
    },
    Build {
        units: Vec<EntityId>,
        target: EntityId,
    },
    /// Lay a foundation of a building kind (named as in the ruleset) and send builders to it.
    PlaceBuilding {
        kind: String,
        at: Tile,
        turned: bool,
        builders: Vec<EntityId>,
    },
    Stop {
        units: Vec<EntityId>,
    },
    Hold {
        units: Vec<EntityId>,
    },
    /// Choose a formation for a group: it is locked until disbanded or another is chosen.
    SetFormation {
        units: Vec<EntityId>,
        formation: FormationKind,
    },
    /// Take units out of their formations.
    Disband {
        units: Vec<EntityId>,
    },
    Delete {
        units: Vec<EntityId>,
    },
}

impl Command {
    /// The command with every point and tile it names clamped onto a `width` × `height` map
    /// (points to the middles of its edge tiles), so a target far off the map — from a bad or
    /// hostile peer — can neither overflow the sim's arithmetic nor send a unit off the map.
    pub fn clamped(&self, width: i32, height: i32) -> Command {
        let (w, h) = ((width - 1).max(0), (height - 1).max(0));
        let point = |p: &Vec2| {
            Vec2::new(
                p.x.clamp(Fx::ZERO, Fx::from_num(w)),
                p.y.clamp(Fx::ZERO, Fx::from_num(h)),
            )
        };
        let mut c = self.clone();
        match &mut c {
            Command::Move { to, .. }
            | Command::FormationMove { to, .. }
            | Command::AttackMove { to, .. } => *to = point(to),
            Command::PlaceBuilding { at, .. } => {
                *at = Tile::new(at.x.clamp(0, w), at.y.clamp(0, h))
            }
            _ => {}
        }
        c
    }

    /// The units the command names.
    pub fn units(&self) -> &[EntityId] {
        match self {
            Command::Move { units, .. }
            | Command::FormationMove { units, .. }
            | Command::Attack { units, .. }
            | Command::AttackMove { units, .. }
            | Command::Follow { units, .. }
            | Command::Gather { units, .. }
            | Command::Build { units, .. }
            | Command::Stop { units }
            | Command::Hold { units }
            | Command::SetFormation { units, .. }
            | Command::Disband { units }
            | Command::Delete { units } => units,
            Command::PlaceBuilding { builders, .. } => builders,
        }
    }
}

/// A command and the player who gave it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerCommand {
    pub player: PlayerId,
    pub command: Command,
}
