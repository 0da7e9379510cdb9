//! Who stands in the way (spec: "Who stands in the way").
//!
//! A route takes in the units standing still within [`K_STANDING_REACH`] tiles of the box
//! spanning its start and goal, leaving out the walker itself, its target, anyone on the move and
//! anyone marching with it. The search pays `K_PAST_STANDING` for each on a tile it steps onto,
//! and the straightened line keeps clear of those whose tiles it did not cross.

use super::route::Ask;
use super::survey::Body;
use super::View;
use crate::id::{find, PlayerId};
use crate::position::Tile;
use crate::state::{Order, Unit};

/// How far round the box spanning start and goal standing units are taken in, in tiles.
pub const K_STANDING_REACH: i32 = 3;

/// Whether a body filed in the survey stands in the way of `ask`'s walk: it stands still, and is
/// not the walker, its target, nor marching with it.
pub fn stands_in_the_way(view: View<'_>, ask: &Ask, b: &Body) -> bool {
    !b.moving
        && b.entity != ask.unit
        && Some(b.entity) != ask.target
        && view.nav.marching.binary_search(&b.entity).is_err()
}

/// The units standing in the way of `ask`'s walk, in (tile, entity) order.
pub fn standing_in_the_way(view: View<'_>, ask: &Ask) -> Vec<Body> {
    let (a, b) = (ask.from.tile(), ask.to.tile());
    let min = Tile::new(a.x.min(b.x), a.y.min(b.y)).offset(-K_STANDING_REACH, -K_STANDING_REACH);
    let max = Tile::new(a.x.max(b.x), a.y.max(b.y)).offset(K_STANDING_REACH, K_STANDING_REACH);
    view.nav
        .survey
        .in_tiles(min, max)
        .filter(|body| stands_in_the_way(view, ask, body))
        .copied()
        .collect()
}

/// Whether the standing body `b` holds its ground against a walker of `owner`'s, never making
/// room for it (Cohort's choice, `crate::walk::shove`): a unit on hold, any player's, or another
/// player's unit. `units` are the world's, in id order.
pub fn holds_ground(units: &[Unit], owner: PlayerId, b: &Body) -> bool {
    b.owner != owner
        || find(units, b.entity, |v| v.id).is_some_and(|k| units[k].order == Order::Hold)
}
