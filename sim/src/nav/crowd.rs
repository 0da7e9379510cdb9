//! A crowd at the goal (spec: "A crowd at the goal").
//!
//! Sending an army to where another army stands is common, and there is no way round a crowd one
//! is going into. Before the search, the tiles with someone standing on them that join the goal's
//! tile (or one beside it), eight ways round, are gathered. If they cover more than
//! [`K_GO_ROUND_CROWD`] tiles they cost nothing to cross, so the route goes straight in; round a
//! smaller crowd (villagers at a mine) the costs stand and the route finds the open side.

use super::route::Ask;
use super::standing::stands_in_the_way;
use super::View;
use crate::grid::TileMarks;
use crate::position::Tile;

/// A crowd at the goal covering more tiles than this is walked straight into.
pub const K_GO_ROUND_CROWD: usize = 32;

/// The tiles (grid indices, sorted) of the crowd standing at `ask`'s goal: those with someone
/// standing in the way on them, joined eight ways to the goal's tile, or to a tile beside it.
pub fn crowd_at_goal(view: View<'_>, ask: &Ask) -> Vec<u32> {
    let grid = view.grid();
    let survey = &view.nav.survey;
    // Whether someone stands in the way on the tile at grid index `i`.
    let stood_on = |i: u32| {
        survey
            .on_tile(i)
            .iter()
            .any(|b| stands_in_the_way(view, ask, b))
    };
    // A tile stood on and not yet in the crowd, marked now: its grid index.
    let mut marks = TileMarks::new();
    let mut joins = |t: Tile| -> Option<u32> {
        let i = grid.index(t)? as u32;
        (!marks.contains(i) && stood_on(i) && marks.insert(i)).then_some(i)
    };
    let goal = ask.to.tile();
    let mut crowd: Vec<u32> = Vec::new();
    let mut stack: Vec<Tile> = Vec::new();
    let seeds: Vec<Tile> = if grid.index(goal).is_some_and(|i| stood_on(i as u32)) {
        vec![goal]
    } else {
        round(goal).collect()
    };
    for s in seeds {
        if let Some(i) = joins(s) {
            crowd.push(i);
            stack.push(s);
        }
    }
    while let Some(t) = stack.pop() {
        for n in round(t) {
            if let Some(i) = joins(n) {
                crowd.push(i);
                stack.push(n);
            }
        }
    }
    crowd.sort_unstable();
    crowd
}

/// Whether the crowd is big enough to walk straight into.
pub fn go_straight_in(crowd: &[u32]) -> bool {
    crowd.len() > K_GO_ROUND_CROWD
}

/// The eight tiles round `t`, in a fixed order.
fn round(t: Tile) -> impl Iterator<Item = Tile> {
    t.round()
}
