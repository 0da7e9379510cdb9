//! Navigation: every route in play is asked for here (spec: "Finding a route"), the survey of who
//! stands where that routes, arrivals and walks read, who stands in the way, crowds at the goal,
//! where a unit sent where it cannot stand goes instead, units sent together, chases and
//! standing spots.

pub mod beside;
pub mod chase;
pub mod crowd;
pub mod parts;
pub mod reach;
pub mod route;
pub mod spot;
pub mod standing;
pub mod survey;
pub mod toward;

pub use beside::{marching, route_beside, SharedWalk, K_SHARE_REACH};
pub use chase::{keep_lane, plan_chase, replan_wait, ChasePlan, SetOn, SharedChase};
pub use crowd::{crowd_at_goal, K_GO_ROUND_CROWD};
pub use parts::{Tick, View};
pub use reach::{box_of, in_range, may_end_by, reach_gap, K_INSIDE};
pub use route::{
    region_here, route, route_beyond, route_for, route_past_the_yielding, route_round, Ask,
};
pub use spot::{find_standing_spot, Approach, Spot};
pub use standing::{holds_ground, standing_in_the_way, K_STANDING_REACH};
pub use survey::{Body, Near, Survey};
pub use toward::{toward, toward_clear_of, K_TOWARD_REACH};

/// Navigation's caches, owned per world and filled by this layer's callers within a tick:
/// derived from the state, never hashed, forgotten or filed again before they could outlive it.
#[derive(Clone, Debug, Default)]
pub struct NavCaches {
    /// Who stands where, filed at the start of every tick (tick step 2).
    pub survey: Survey,
    /// The members of a group being sent together, sorted: routes leave them out of the
    /// standing units (the spec's `Navigation::Marching`). Empty outside a group send.
    pub marching: Vec<crate::id::EntityId>,
    /// Walks planned this tick, handed out by `route_beside`; forgotten at the next survey.
    pub shared_walks: Vec<SharedWalk>,
    /// Chases planned in this tick's combat pass, shared by far chasers of the same target.
    pub shared_chases: Vec<SharedChase>,
    /// What each unit (by its place in the state's list) is set on, filed by the combat pass
    /// and kept true unit by unit as it runs (only the unit fighting changes what it is set on):
    /// a chaser's place is asked of this compact list, not of every unit's whole record.
    pub set_on: Vec<SetOn>,
}
