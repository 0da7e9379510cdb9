//! Part of step 5 (work): a foundation laid where bodies stand closes its ground once they have
//! left it (Cohort's choice; the spec says nothing of a building laid where units stand).
//!
//! Closed at once, such a foundation held them inside a building for good: a walk lets a body
//! touch closed ground only where it already did (`astar::body_clear`), so one on an inner tile
//! of a barracks could never walk out, and villagers standing on their own house built it round
//! themselves. As AoE II's foundations do, it waits with its ground open instead: units of its
//! owner and allies standing still on it walk off to the nearest free place round it
//! (`walk::settle::step_off`, looked for once every [`K_SETTLE_EVERY_TICKS`] each, staggered by
//! id; those not building it [`K_BUILDERS_LANE`] clear of its edge), and its ground closes on the
//! first tick no living body's box, less its slack, reaches into it. An enemy standing there
//! holds it open as long as it stands. Builders build only on closed ground (`work::build`).
//!
//! Reads the units, buildings and the survey; writes the grid (closing a foundation's ground)
//! and the walks of those stepping off.

use crate::id::EntityId;
use crate::nav::{Tick, View};
use crate::position::{fx_ratio, Bounds, Fx, Vec2};
use crate::state::Order;
use crate::walk::apart::K_BODY_SLACK;
use crate::walk::settle::{step_off, K_SETTLE_EVERY_TICKS};
use crate::walk::widest;

/// Those stepping off a foundation who do not build it stand at least this far from its edge
/// (half a tile, room for a villager): the builders' way to it stays open.
pub const K_BUILDERS_LANE: Fx = fx_ratio(1, 2);

/// Every foundation whose ground is still open: closed when nobody stands on it, else its
/// owner's and allies' units standing still there are sent off. Buildings in id order.
pub fn run(tick: &mut Tick<'_>) {
    let open: Vec<EntityId> = tick
        .state
        .buildings
        .iter()
        .map(|b| b.id)
        .filter(|&id| !tick.state.ground_closed(id))
        .collect();
    for id in open {
        if !close_when_clear(tick, id) {
            send_off(tick, id);
        }
    }
}

/// Closes building `id`'s ground when no living body stands on it; whether it did.
pub fn close_when_clear(tick: &mut Tick<'_>, id: EntityId) -> bool {
    let Some(ground) = tick.state.building(id).map(|b| b.footprint.bounds()) else {
        return false;
    };
    if (0..tick.state.units.len()).any(|i| stands_on(tick.view(), i, &ground)) {
        return false;
    }
    tick.state.close_ground(tick.rules, id);
    true
}

/// Whether unit `i`'s box, less its slack, reaches into `ground`.
fn stands_on(view: View<'_>, i: usize, ground: &Bounds) -> bool {
    let u = &view.state.units[i];
    let radius = view.rules.radius_of(u.kind);
    u.hit_points > 0
        && Bounds::around(u.position, (radius - K_BODY_SLACK).max(Fx::ZERO)).overlaps(ground)
}

/// The units of building `id`'s owner and allies standing still on its ground, each on its turn
/// to look, are sent to the nearest free place round it.
fn send_off(tick: &mut Tick<'_>, id: EntityId) {
    let Some((ground, owner)) = tick
        .state
        .building(id)
        .map(|b| (b.footprint.bounds(), b.owner))
    else {
        return;
    };
    let (now, widest) = (tick.state.tick, widest(tick.view()));
    // Where others already walk to settle, this tick's among them: two sent off together had
    // been given one place, and two on hold stood inside each other there for good.
    let mut taken: Vec<Vec2> = tick
        .state
        .units
        .iter()
        .filter_map(|u| u.route.as_ref().filter(|r| r.settle).map(|r| r.goal))
        .collect();
    for i in 0..tick.state.units.len() {
        let u = &tick.state.units[i];
        let turn =
            u.id.0
                .wrapping_add(now)
                .is_multiple_of(K_SETTLE_EVERY_TICKS);
        let still = u.route.is_none() && u.pushed.is_none();
        if turn && still && tick.state.allied(owner, u.owner) && stands_on(tick.view(), i, &ground)
        {
            let builds = u.order == (Order::Build { target: id });
            let clear = if builds { Fx::ZERO } else { K_BUILDERS_LANE };
            if step_off(tick, i, ground, clear, widest, &taken) {
                taken.extend(tick.state.units[i].route.as_ref().map(|r| r.goal));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Keyed;
    use crate::map::{parse_ascii, Legend};
    use crate::position::{fx, Tile};
    use crate::state::{Player, Unit};
    use crate::world::{PlaceError, World};
    use crate::Ruleset;
    use std::sync::Arc;

    fn world() -> World {
        let rules = Arc::new(Ruleset::default_rules());
        let rows = vec!["..........".to_string(); 10].join("\n");
        parse_ascii(&rows, &rules, &Legend::default())
            .unwrap()
            .into_world(rules, vec![Player::new(0, 0), Player::new(1, 1)], 1)
            .unwrap()
    }

    fn add_unit(tick: &mut Tick<'_>, owner: u8, at: Vec2) -> usize {
        let kind = tick.rules.unit_kind("villager").unwrap();
        let id = tick.state.spawn_unit(tick.rules, kind, owner, at);
        tick.state.units.iter().position(|u| u.id == id).unwrap()
    }

    #[test]
    fn a_foundation_laid_on_a_body_closes_its_ground_once_the_body_has_left() {
        let mut w = world();
        let i = add_unit(&mut w.parts(), 1, Vec2::new(fx(5), fx(5)));
        let house = w.rules().building_kind("house").unwrap();
        let id = w
            .lay_building(house, 0, Tile::new(5, 5), false, false)
            .unwrap();
        let land = Keyed::unkeyed(0);
        assert!(
            !close_when_clear(&mut w.parts(), id),
            "an enemy's body stands on it"
        );
        assert!(!w.ground_closed(id) && w.grid().passable(land, Tile::new(5, 5)));
        // Nothing may be laid over a foundation whose ground is still open.
        let mill = w.rules().building_kind("mill").unwrap();
        assert_eq!(
            w.lay_building(mill, 0, Tile::new(6, 6), false, false),
            Err(PlaceError::Blocked(5, 5))
        );
        // Its owner's units are sent off, on their turn; an enemy is not.
        let j = add_unit(&mut w.parts(), 0, Vec2::new(fx(4), fx(5)));
        w.prepare();
        let own = w.state.units[j].id.0;
        w.state.tick = K_SETTLE_EVERY_TICKS - own % K_SETTLE_EVERY_TICKS;
        run(&mut w.parts());
        assert!(w.state.units[i].route.is_none(), "the enemy stays");
        let off = w.state.units[j].route.as_ref().expect("sent off").goal;
        let ground = w.building(id).unwrap().footprint.bounds();
        assert!(
            ground.distance_from(off) >= K_BUILDERS_LANE,
            "{off:?} beside {ground:?}"
        );
        for k in [i, j] {
            let unit: &mut Unit = &mut w.state.units[k];
            unit.position = Vec2::new(fx(8), fx(8) + fx(k as i32));
        }
        run(&mut w.parts());
        assert!(w.ground_closed(id) && !w.grid().passable(land, Tile::new(5, 5)));
    }
}
