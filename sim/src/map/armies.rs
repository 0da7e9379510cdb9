//! Full armies on the default map (Cohort's choice, for load tests and benchmarks): each
//! player's units are topped up to an army of a given size with soldiers standing one a tile in
//! rings round its start, the kinds taken in turn. Deterministic: tiles in a fixed order, units
//! spawned player by player, so ids follow.

use crate::grid::{Keyed, Occupant};
use crate::position::{Tile, Vec2};
use crate::ruleset::UnitKindId;
use crate::world::World;
use std::collections::BTreeSet;

/// The most units an army may have: Age of Empires II's population limit per player (8 players
/// make the 1,600 units of a full match).
pub const MAX_ARMY: u32 = 200;

/// The soldiers an army is made of, in turn (those the ruleset has; any land unit that is no
/// worker when it has none of them).
pub const ARMY_KINDS: [&str; 6] = [
    "militia",
    "spearman",
    "archer",
    "skirmisher",
    "knight",
    "scout_cavalry",
];

/// Tops each player's units up to `army` (at most [`MAX_ARMY`]): soldiers on free land tiles
/// round `starts[player]`, nearest rings first. Returns how many were added.
pub fn raise_armies(world: &mut World, starts: &[Tile], army: u32) -> usize {
    let army = army.min(MAX_ARMY);
    let kinds = army_kinds(world);
    if kinds.is_empty() {
        return 0;
    }
    let mut taken: BTreeSet<(i32, i32)> = world
        .state
        .units
        .iter()
        .map(|u| {
            let t = u.position.tile();
            (t.x, t.y)
        })
        .collect();
    let (w, h) = (world.grid().width(), world.grid().height());
    let land = Keyed::unkeyed(0);
    let mut added = 0;
    let players: Vec<_> = world.state.players.iter().map(|p| p.id).collect();
    for (player, start) in players.into_iter().zip(starts) {
        let have = world
            .state
            .units
            .iter()
            .filter(|u| u.owner == player)
            .count();
        let mut missing = usize::try_from(army).unwrap_or(0).saturating_sub(have);
        let mut next_kind = 0;
        'rings: for r in 1..w.max(h) {
            for t in ring(*start, r) {
                if missing == 0 {
                    break 'rings;
                }
                let free = t.x >= 0
                    && t.y >= 0
                    && t.x < w
                    && t.y < h
                    && world.grid().passable(land, t)
                    && world.grid().occupant(t) == Occupant::Nothing
                    && !taken.contains(&(t.x, t.y));
                if free {
                    taken.insert((t.x, t.y));
                    world.spawn_unit(kinds[next_kind % kinds.len()], player, Vec2::of_tile(t));
                    next_kind += 1;
                    missing -= 1;
                    added += 1;
                }
            }
        }
    }
    world.prepare();
    added
}

/// The tiles at Chebyshev distance `r` from `c`, row by row.
fn ring(c: Tile, r: i32) -> impl Iterator<Item = Tile> {
    (c.y - r..=c.y + r).flat_map(move |y| {
        (c.x - r..=c.x + r)
            .filter(move |x| (x - c.x).abs() == r || (y - c.y).abs() == r)
            .map(move |x| Tile::new(x, y))
    })
}

fn army_kinds(world: &World) -> Vec<UnitKindId> {
    let rules = world.rules();
    let named: Vec<UnitKindId> = ARMY_KINDS
        .iter()
        .filter_map(|n| rules.unit_kind(n))
        .filter(|k| rules.units[usize::from(*k)].layer == 0)
        .collect();
    if !named.is_empty() {
        return named;
    }
    (0..rules.units.len())
        .filter(|k| !rules.units[*k].worker && rules.units[*k].layer == 0)
        .filter_map(|k| UnitKindId::try_from(k).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::{generate, start_tiles, MapOptions};
    use crate::Ruleset;
    use std::sync::Arc;

    #[test]
    fn eight_armies_of_200_make_1600_units_on_free_land_the_same_every_time() {
        let opts = MapOptions {
            players: 8,
            ..MapOptions::default()
        };
        let raise = || {
            let mut w = generate(Arc::new(Ruleset::default_rules()), opts);
            raise_armies(&mut w, &start_tiles(opts), MAX_ARMY);
            w
        };
        let w = raise();
        assert_eq!(w.state.units.len(), 1600);
        for p in 0..8 {
            assert_eq!(w.state.units.iter().filter(|u| u.owner == p).count(), 200);
        }
        let tiles: BTreeSet<_> = w.state.units.iter().map(|u| u.position.tile()).collect();
        assert_eq!(tiles.len(), 1600, "one unit a tile");
        assert!(w
            .state
            .units
            .iter()
            .all(|u| w.grid().passable(Keyed::unkeyed(0), u.position.tile())));
        assert_eq!(raise().hash(), w.hash());
    }
}
