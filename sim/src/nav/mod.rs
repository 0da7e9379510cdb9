//! Navigation: every route in play is asked for here (spec: "Finding a route"), and the survey
//! of who stands where that routes, arrivals and walks read.

pub mod survey;

pub use survey::{Body, Survey};

use crate::position::Vec2;
use crate::world::{EntityId, Route, World};

/// A route for `unit` from where it stands to `to`.
///
/// For now a single straight leg; the search (A*, landmarks, budgets, pulling straight) comes
/// with the route-search work.
pub fn route(world: &mut World, unit: EntityId, to: Vec2) -> Option<Route> {
    let _ = world.unit(unit)?;
    Some(Route {
        waypoints: vec![to],
        goal: to,
        has_goal: true,
        ..Route::default()
    })
}
