//! Navigation: every route in play is asked for here (spec: "Finding a route"), and the survey
//! of who stands where that routes, arrivals and walks read.

pub mod route;
pub mod survey;

pub use route::{route, route_for, Ask};
pub use survey::{Body, Survey};
