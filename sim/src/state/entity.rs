//! The things in a world: units, buildings and resources, each with a stable integer id.
//!
//! Ids come from one counter in the state and are never reused, so every list kept in id order
//! stays in id order by pushing at its end.

use crate::grid::Footprint;
use crate::id::{EntityId, PlayerId};
use crate::position::{Bounds, Fx, Tile, Vec2};
use crate::ruleset::{BuildingKindId, Good, ResourceKindId, UnitKindId};
use serde::{Deserialize, Serialize};

/// What a unit has been told to do (the devlog's commands).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Order {
    /// Nothing: it stands, and fights back only when hit (it then attacks whoever struck it,
    /// and stands idle again once that fight is over).
    #[default]
    Idle,
    /// Walk to a point.
    Move { to: Vec2 },
    /// Walk to a point, fighting what it meets on the way, then go on.
    AttackMove { to: Vec2 },
    /// Fight one unit or building.
    Attack { target: EntityId },
    /// Keep near a unit.
    Follow { target: EntityId },
    /// Gather from a resource (a villager).
    Gather { target: EntityId },
    /// Build or repair a building (a villager).
    Build { target: EntityId },
    /// Never move; fight whatever comes in range.
    Hold,
}

/// What a unit is doing right now (the devlog's unit states, plus a villager's work).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnitState {
    #[default]
    Idle,
    Moving,
    Attacking,
    AttackMoving,
    Following,
    Hold,
    Gathering,
    Building,
    Dead,
}

/// A walk: the straight legs left to walk, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Route {
    /// Corners still ahead; the first is being walked to.
    pub waypoints: Vec<Vec2>,
    /// Where the walk was asked to end.
    pub goal: Vec2,
    /// Whether the last waypoint is the goal itself (the search reached it).
    pub has_goal: bool,
    /// The walk's top speed when marching with slower units, tiles per second.
    pub speed_cap: Option<Fx>,
    /// A walk to something ends within `range` of its box (less the spec's `kInside`).
    pub target: Option<EntityId>,
    pub range: Fx,
    /// Replans spent on this order (at most the spec's `kMostReplans`).
    pub replans: u8,
    /// How the walk is getting on: what a walker held up by a crowd does depends on how long it
    /// has been held (`crate::walk::held`, Cohort's choice).
    #[serde(default)]
    pub progress: Progress,
    /// How many of the first corners are a way through the gaps of a crowd
    /// (`crate::walk::short`): the look-ahead cuts those only past the bodies about them too.
    #[serde(default)]
    pub fine: u8,
    /// Legs walked of a way one search does not reach (`crate::walk::K_MOST_LEGS`, Cohort's
    /// choice): a route that ends short of its goal is planned on from where it ends.
    #[serde(default)]
    pub legs: u8,
    /// A walk out of another body it stood inside of (`crate::walk::settle`, Cohort's choice):
    /// a soldier in range of its target keeps it, as it does no other walk.
    #[serde(default)]
    pub settle: bool,
}

impl Route {
    /// The first corner is passed (landed on, or cut).
    pub fn pass_corner(&mut self) {
        if !self.waypoints.is_empty() {
            self.waypoints.remove(0);
        }
        self.fine = self.fine.saturating_sub(1);
    }
}

/// How many ticks the walk on `route` has been held, at tick `now`.
pub fn held_ticks(route: &Route, now: u64) -> u64 {
    now.saturating_sub(route.progress.since)
}

/// How a walk is getting on (Cohort's choice: no crowd holds a walker still for good; see
/// `crate::walk::held`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The nearest the walker has come to its first corner since it last got on.
    pub nearest: Fx,
    /// The corners its walk had left then.
    pub corners: u32,
    /// The tick it last got on: came `K_PROGRESS` nearer its first corner, or reached one.
    pub since: u64,
    /// The tick of its last detour (a plan round the bodies in its way), if it made one.
    pub detoured: Option<u64>,
    /// Squeezing past walkers: where it stood when it began (it goes on squeezing until it
    /// stands a tile from there).
    #[serde(default)]
    pub squeeze_from: Option<Vec2>,
    /// Where it stood when it last got on.
    #[serde(default)]
    pub anchor: Vec2,
    /// Where it stood when it last strode: stood `K_HEADWAY` from where it strode before.
    #[serde(default)]
    pub strode_from: Vec2,
    /// The tick it last strode: coming an eighth of a tile nearer its corner is getting on, not
    /// a stride, so a walker jostled forward a little at a time still squeezes and walks through
    /// (`crate::walk::held`).
    #[serde(default)]
    pub strode: u64,
}

impl Default for Progress {
    fn default() -> Progress {
        Progress {
            nearest: Fx::MAX,
            corners: u32::MAX,
            since: 0,
            detoured: None,
            squeeze_from: None,
            anchor: Vec2::ZERO,
            strode_from: Vec2::ZERO,
            strode: 0,
        }
    }
}

impl Progress {
    /// A walk that set off at `tick`.
    pub fn from(tick: u64) -> Progress {
        Progress {
            since: tick,
            strode: tick,
            ..Progress::default()
        }
    }
}

/// A unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub id: EntityId,
    pub kind: UnitKindId,
    pub owner: PlayerId,
    pub position: Vec2,
    /// Where it stood at the start of this tick, for drawing between ticks.
    pub previous_position: Vec2,
    pub hit_points: u32,
    pub order: Order,
    pub state: UnitState,
    pub route: Option<Route>,
    /// Ticks until it may strike again.
    pub reload_ticks: u32,
    /// What a villager carries.
    pub carrying: Option<(Good, u32)>,
    /// Fractional gathering progress, in units of the good.
    pub gather_progress: Fx,
    /// The formation it belongs to, if any.
    pub formation: Option<u32>,
    /// What it fights now: an attack's target, or what an attack-move or hold met.
    pub fight: Option<EntityId>,
    /// Times this order moved on to a free place round a taken goal (spec: "Someone on the
    /// goal", at most `K_MOST_RING_TRIES`).
    pub ring_tries: u8,
    /// When its chase plans again, in milliseconds of game time (spec: "Chases").
    pub replan_at_ms: u64,
    /// Its chase's last plan led to a waiting place a body's width further out, every place round
    /// the target taken: standing there, its walk has not run out, and it plans again only at
    /// `replan_at_ms`.
    #[serde(default)]
    pub chase_waits: bool,
    /// The standing spot its work gave it (a villager keeps it while it walks).
    pub work_spot: Option<Vec2>,
    /// Pushed aside by a mover (ruleset `push_idle`): who pushes, and the nudge per tick.
    pub pushed: Option<Push>,
    /// The last enemy to strike it since its own turn in the combat pass: an idle unit fights
    /// back against it. Read and cleared on its next turn.
    #[serde(default)]
    pub hit_by: Option<EntityId>,
}

/// A push under the ruleset's `push_idle` (devlog: "Unit Pushing").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Push {
    pub by: EntityId,
    pub nudge: Vec2,
}

/// A formation chosen for a group (spec: "Formations"): locked until disbanded or replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Formation {
    pub id: u32,
    pub owner: PlayerId,
    pub kind: crate::command::FormationKind,
    /// Its members, in id order.
    pub members: Vec<EntityId>,
}

impl Unit {
    /// Its body: a box reaching `radius` each way from its middle.
    pub fn body(&self, radius: Fx) -> Bounds {
        Bounds::around(self.position, radius)
    }
}

/// A building or a foundation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Building {
    pub id: EntityId,
    pub kind: BuildingKindId,
    pub owner: PlayerId,
    pub footprint: Footprint,
    /// Laid a quarter turn round (gates along the other axis).
    pub turned: bool,
    pub hit_points: u32,
    /// Milliseconds of building work done; complete at the kind's `build_ms`.
    pub built_ms: u32,
    pub complete: bool,
    /// A gate's lock: locked gates are shut even to their owner.
    pub locked: bool,
}

/// A tree, mine or bush on one tile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    pub id: EntityId,
    pub kind: ResourceKindId,
    pub tile: Tile,
    pub amount: u32,
}

impl Resource {
    pub fn footprint(&self) -> Footprint {
        Footprint::single(self.tile)
    }
}
