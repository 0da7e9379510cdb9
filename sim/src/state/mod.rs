//! The state: everything the next tick depends on, and nothing else (DESIGN.md, "The
//! simulation"). Every field is hashed (`crate::hash`) and snapshotted; the caches derived from
//! it live with the layers that fill them, and the `World` façade holds both.

mod change;
mod entity;
mod lookup;
mod player;
mod rng;

pub use change::PlaceError;
pub use entity::{
    held_ticks, Building, Formation, Order, Progress, Push, Resource, Route, Unit, UnitState,
};
pub use player::{friends_of, Player, PlayerStatus};
pub use rng::Rng;

use crate::grid::Grid;
use serde::{Deserialize, Serialize};

/// One tick of game time, in milliseconds.
pub const TICK_MS: u32 = 16;

/// Everything the next tick depends on. Every field is hashed and snapshotted.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct State {
    /// Ticks run so far.
    pub tick: u64,
    pub grid: Grid,
    pub players: Vec<Player>,
    /// In id order.
    pub units: Vec<Unit>,
    /// In id order.
    pub buildings: Vec<Building>,
    /// In id order.
    pub resources: Vec<Resource>,
    /// The next entity id to hand out; ids are never reused.
    pub next_id: u64,
    pub rng: Rng,
    /// Formations chosen, in id order.
    pub formations: Vec<Formation>,
    /// The next formation id to hand out.
    pub next_formation: u32,
}

/// What the sim has done, for reports and benchmarks. Deterministic, but not part of the hash.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Route searches run (A* calls).
    pub route_searches: u64,
    /// Nodes expanded by all searches.
    pub node_expansions: u64,
    /// Walks handed out as a copy of one planned this tick (route_beside, shared chases).
    pub shared_walks: u64,
    /// Routes planned again: closed ground, legs, detours, chases (a chase that keeps its walk,
    /// or waits where it stands, plans nothing and is not counted).
    pub replans: u64,
    /// Commands ignored: naming units their player does not own, or otherwise invalid.
    pub ignored_commands: u64,
    /// The most nodes any one search expanded (each search stays within its budget).
    pub most_expansions: u64,
}
