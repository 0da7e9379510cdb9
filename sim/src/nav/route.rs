//! Every route in play is asked for here (spec: "Finding a route", `Navigation::Route`).

use crate::position::{Fx, Vec2};
use crate::world::{EntityId, Route, World};

/// What a route is asked for: who walks, from where, to where, and to what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    /// The walker: its layer, key and radius come from it, and it is never in its own way.
    pub unit: EntityId,
    /// Where the walk starts (where the unit stands, for every caller but a replan test).
    pub from: Vec2,
    /// Where the walk should end.
    pub to: Vec2,
    /// What the walk goes to, if anything: never counted among the standing units in the way,
    /// and kept in the route so the walk can end within `range` of its box.
    pub target: Option<EntityId>,
    /// A walk to `target` ends within this range of its box.
    pub range: Fx,
}

impl Ask {
    /// A walk for `unit` from where it stands to the point `to`, or `None` when there is no such
    /// unit.
    pub fn to_point(world: &World, unit: EntityId, to: Vec2) -> Option<Ask> {
        let u = world.unit(unit)?;
        Some(Ask {
            unit,
            from: u.position,
            to,
            target: None,
            range: Fx::ZERO,
        })
    }
}

/// A route for `unit` from where it stands to `to`, or `None` when there is none.
pub fn route(world: &mut World, unit: EntityId, to: Vec2) -> Option<Route> {
    let ask = Ask::to_point(world, unit, to)?;
    route_for(world, &ask)
}

/// A route as asked, or `None` when there is none.
pub fn route_for(world: &mut World, ask: &Ask) -> Option<Route> {
    let _ = world.unit(ask.unit)?;
    Some(Route {
        waypoints: vec![ask.to],
        goal: ask.to,
        has_goal: true,
        target: ask.target,
        range: ask.range,
        ..Route::default()
    })
}
