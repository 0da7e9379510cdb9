//! Route search over the tile grid (spec: "Finding a route", "The estimate and landmarks", "The
//! budget", "Pulling the route straight").
//!
//! [`find_route`] is the A*: integer step costs, eight ways round, never cutting the corner of a
//! closed tile, ties broken by one 64-bit key. [`Landmarks`] sharpen its estimate across water
//! and cliffs. [`straighten`] pulls the chain of tiles into the fewest straight lines a body can
//! walk, asking [`body_clear`]. Everything is integers: same inputs, same route, every machine.

mod board;
mod clear;
mod landmarks;
mod search;
mod straighten;

pub use clear::{
    body_clear, middle_clear, tested_radius, wider_than_a_tile, K_BODY_SLACK, K_BODY_STEP,
    K_MIN_BODY_RADIUS,
};
pub use landmarks::{Landmarks, LayerLandmarks, K_CHOSEN_LANDMARKS, K_FAR, K_LANDMARKS};
pub use search::{
    find_route, octile, Budget, Found, Scratch, Search, K_BESIDE_CLOSED, K_DIAGONAL,
    K_MAX_EXPANSIONS, K_PAST_STANDING, K_SHORT_BUDGET, K_SHORT_BUDGET_PER_TILE, K_SHORT_ROUTE,
    K_STRAIGHT,
};
pub use straighten::{
    segment_enters, straighten, StandingBody, Walker, K_HIDDEN_STRETCHES, K_STRETCH_POINTS,
};

/// The route search's caches, owned per world and filled by this layer: each layer's landmarks
/// (measured again only when its terrain changes) and the search's reusable scratch.
#[derive(Clone, Debug, Default)]
pub struct SearchCaches {
    pub landmarks: Landmarks,
    pub scratch: Scratch,
}
