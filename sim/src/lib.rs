//! cohort-sim: the deterministic simulation of an Age of Empires II style RTS's movement tick.
//!
//! No I/O, no async, no clocks, no floats, no iteration over hashed collections: same inputs
//! give bit-identical state on every machine, in debug and release. See ARCHITECTURE.md for the
//! map of this crate and `../shared/seeds` (the movement spec) for the vocabulary its modules are
//! named after.

pub mod astar;
pub mod canon;
pub mod command;
pub mod formation;
pub mod grid;
pub mod hash;
pub mod id;
pub mod map;
pub mod nav;
pub mod position;
pub mod ruleset;
pub mod scenario;
pub mod soak;
pub mod state;
pub mod tick;
pub mod verify;
pub mod walk;
pub mod world;

pub use command::{Command, FormationKind, PlayerCommand};
pub use hash::StateHash;
pub use position::{fx, fx_ratio, tile_of, Bounds, Fx, Tile, Vec2};
pub use ruleset::Ruleset;
pub use world::{EntityId, PlayerId, World};
