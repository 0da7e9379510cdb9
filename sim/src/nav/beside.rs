//! Units sent together (spec: "Units sent together", `Navigation::RouteBeside`).
//!
//! Units given the same order in the same tick all set off at once. While a group is sent it is
//! *marching* (`NavCaches::marching`), so no member plans round the others as though they stood
//! still, and a block of them shares its walks: every walk planned this tick is remembered, and a
//! unit going to exactly the same point, on the same ground, starting within [`K_SHARE_REACH`]
//! of one (across and along), no wider than the body it was planned for, and able to walk
//! straight to its first bend, is handed a copy. A copy handed out is remembered too, from the
//! start of the unit it was handed to (still for the body it was planned for), so a block wider
//! than the sharing reach shares across its width: every unit still walks straight to the
//! first bend, and starts within reach of one that holds the same walk. The list is forgotten
//! at the next survey.

use super::route::{route_for, Ask};
use super::Tick;
use crate::astar::body_clear;
use crate::grid::Keyed;
use crate::id::EntityId;
use crate::position::{fx, Fx, Vec2};
use crate::state::Route;

/// How far apart, across and along, two starts may be for one walk to serve both: two tiles.
pub const K_SHARE_REACH: Fx = fx(2);

/// A walk planned this tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedWalk {
    pub from: Vec2,
    pub to: Vec2,
    pub key: Keyed,
    /// The width (radius) of the body it was planned for.
    pub radius: Fx,
    pub route: Route,
}

/// Whether `walk` may serve a body of `radius` on `key` going from `from` to `to`: same point,
/// same ground, starts within [`K_SHARE_REACH`] both ways, planned for a body at least as wide.
pub fn may_share(walk: &SharedWalk, from: Vec2, to: Vec2, key: Keyed, radius: Fx) -> bool {
    walk.to == to
        && walk.key == key
        && walk.radius >= radius
        && (walk.from.x - from.x).abs() <= K_SHARE_REACH
        && (walk.from.y - from.y).abs() <= K_SHARE_REACH
}

/// The route for `ask`: a copy of a walk planned this tick when one may serve it and the unit can
/// walk straight to its first bend, else a new search (remembered for the rest of the tick).
/// Counts shared walks in `world.counters.shared_walks`. Same world and ask, same route.
pub fn route_beside(tick: &mut Tick<'_>, ask: &Ask) -> Option<Route> {
    let unit = tick.unit(ask.unit)?;
    let key = tick.key_of(unit);
    let radius = tick.rules.radius_of(unit.kind);
    let grid = tick.grid();
    // Copies of one walk share its first bend: a bend out of sight is tried once.
    let mut out_of_sight: Vec<Vec2> = Vec::new();
    let shared = tick.nav.shared_walks.iter().find(|s| {
        if s.route.target != ask.target || !may_share(s, ask.from, ask.to, key, radius) {
            return false;
        }
        let Some(&bend) = s.route.waypoints.first() else {
            return false;
        };
        if out_of_sight.contains(&bend) {
            return false;
        }
        let clear = body_clear(grid, key, ask.from, bend, radius);
        if !clear {
            out_of_sight.push(bend);
        }
        clear
    });
    if let Some(s) = shared {
        let route = s.route.clone();
        let handed = SharedWalk {
            from: ask.from,
            ..s.clone()
        };
        tick.nav.shared_walks.push(handed);
        tick.counters.shared_walks += 1;
        return Some(route);
    }
    let route = route_for(tick, ask)?;
    tick.nav.shared_walks.push(SharedWalk {
        from: ask.from,
        to: ask.to,
        key,
        radius,
        route: route.clone(),
    });
    Some(route)
}

/// Runs `send` with `group` marching: routes planned inside leave its members out of the units
/// standing in the way (the spec's `Navigation::Marching`). The group is sorted first.
pub fn marching<R>(
    tick: &mut Tick<'_>,
    group: &[EntityId],
    send: impl FnOnce(&mut Tick<'_>) -> R,
) -> R {
    let mut members = group.to_vec();
    members.sort_unstable();
    members.dedup();
    let before = std::mem::replace(&mut tick.nav.marching, members);
    let r = send(tick);
    tick.nav.marching = before;
    r
}
