//! The `gap` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use super::common::*;
use crate::position::{fx_ratio, tile_of, Bounds, Fx, Tile};
use crate::scenario::Files;
use crate::state::TICK_MS;
use crate::verify::scene::Scene;
use crate::verify::Outcome;

/// The tiles a box covers inside (touching an edge is not covering).
fn tiles_under(b: &Bounds) -> impl Iterator<Item = Tile> {
    let bit = Fx::from_bits(1);
    let (x0, x1) = (tile_of(b.min.x + bit), tile_of(b.max.x - bit));
    let (y0, y1) = (tile_of(b.min.y + bit), tile_of(b.max.y - bit));
    (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| Tile::new(x, y)))
}

/// gap: a unit walks through a gap one body wide, never onto closed ground.
pub fn gap(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("gap");
    let Some(mut s) = o.scene(files, "gap_one_body.toml") else {
        return o;
    };
    let Some(k) = o.one(&s, "", "walker") else {
        return o;
    };
    let Some(to) = move_point(&s) else {
        o.require("sent_to_a_point", false, false);
        return o;
    };
    let width = s
        .world()
        .unit(k)
        .map_or(Fx::ZERO, |u| s.world().rules().radius_of(u.kind) * 2);
    // The wall's one open tile: the gap.
    let wall_x = 20;
    let mut crossed_at = None;
    let mut on_closed = 0;
    let most = s.ticks;
    let ticks = 1 + s.run_until(most, |w| {
        if let Some(u) = w.unit(k) {
            if crossed_at.is_none() && u.position.x > Fx::from_num(wall_x) {
                crossed_at = Some(u.position.y);
            }
            let key = w.key_of(u);
            if let Some(b) = Scene::body(w, k) {
                on_closed += usize::from(tiles_under(&b).any(|t| !w.grid().passable(key, t)));
            }
        }
        w.tick() > 0 && Scene::all_stopped(w, &[k])
    });
    let at = s.world().unit(k).map(|u| u.position).unwrap_or_default();
    o.figure("body_width", width);
    let open = (0..s.world().grid().height())
        .filter(|&y| {
            s.world()
                .grid()
                .passable(crate::grid::Keyed::unkeyed(0), Tile::new(wall_x, y))
        })
        .count();
    o.require("gap_tiles", open, open == 1 && width == Fx::from_num(1));
    o.require(
        "arrived_ms",
        ticks * u64::from(TICK_MS),
        ticks < most && at.distance(to) <= fx_ratio(1, 2),
    );
    o.require(
        "crossed_the_wall_at_y",
        crossed_at.map_or("never".to_string(), |y| y.to_string()),
        crossed_at.is_some(),
    );
    o.require("ticks_on_closed_ground", on_closed, on_closed == 0);
    o
}
