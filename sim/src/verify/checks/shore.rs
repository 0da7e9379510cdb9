//! The `shore` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use super::common::*;
use crate::nav::region_here;
use crate::position::Tile;
use crate::scenario::Files;
use crate::state::TICK_MS;
use crate::verify::scene::Scene;
use crate::verify::Outcome;

/// shore: a villager sent into the sea stops on the shore nearest the point it was sent to.
pub fn shore(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("shore");
    let Some(mut s) = o.scene(files, "sea_shore.toml") else {
        return o;
    };
    let Some(v) = o.one(&s, "", "villager") else {
        return o;
    };
    let Some(asked) = move_point(&s) else {
        o.require("sent_to_a_point", false, false);
        return o;
    };
    // The ring round the point asked (in tiles) of the nearest ground of the villager's region.
    let nearest_ring = {
        let w = s.world();
        let u = w.unit(v);
        let key = u.map(|u| w.key_of(u));
        let region = key.and_then(|k| {
            u.and_then(|u| region_here(&w.caches.regions, w.grid(), k, u.position.tile()))
        });
        let grid = w.grid();
        let at = asked.tile();
        let mut best = i32::MAX;
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                let t = Tile::new(x, y);
                let ours = key.is_some_and(|k| {
                    region.is_some() && w.caches.regions.region_of(grid, k, t) == region
                });
                if ours {
                    best = best.min((t.x - at.x).abs().max((t.y - at.y).abs()));
                }
            }
        }
        best
    };
    let most = s.ticks;
    let ticks = 1 + s.run_until(most, |w| w.tick() > 0 && Scene::all_stopped(w, &[v]));
    let w = s.world();
    let Some(u) = w.unit(v) else {
        o.require("villager_there", false, false);
        return o;
    };
    let key = w.key_of(u);
    let t = u.position.tile();
    let ring = (t.x - asked.tile().x)
        .abs()
        .max((t.y - asked.tile().y).abs());
    let on_land = w.grid().passable(key, t);
    let by_the_sea = (-1..=1).any(|dy| {
        (-1..=1).any(|dx| {
            let n = Tile::new(t.x + dx, t.y + dy);
            w.grid().contains(n) && !w.grid().passable(key, n)
        })
    });
    o.require("stopped_ms", ticks * u64::from(TICK_MS), ticks < most);
    o.figure("at", format!("({}, {})", u.position.x, u.position.y));
    o.require("on_land", on_land, on_land);
    o.require("beside_the_sea", by_the_sea, by_the_sea);
    o.figure("nearest_shore_ring", nearest_ring);
    o.require("ring_from_the_point", ring, ring == nearest_ring);
    o
}
