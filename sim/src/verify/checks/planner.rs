//! The `planner` check of `cohort verify` (docs/SCENARIOS.md, "`cohort verify`").

use super::common::*;
use crate::nav::spot::{stands_in, K_ROUNDING};
use crate::nav::{box_of, K_INSIDE};
use crate::nav::{find_standing_spot, region_here, Approach, Spot};
use crate::position::{Bounds, Vec2};
use crate::scenario::Files;
use crate::verify::Outcome;

/// The fewest thousandths of a tile any two of `spots` lie apart (Chebyshev), or `i64::MAX`.
fn closest_chebyshev_milli(spots: &[Vec2]) -> i64 {
    let mut worst = i64::MAX;
    for (k, a) in spots.iter().enumerate() {
        for b in &spots[k + 1..] {
            worst = worst.min((a.chebyshev(*b) * 1000).to_num::<i64>());
        }
    }
    worst
}

/// planner: the standing-spot planner fills the caller's own face first, finely, hands out
/// spots a worker's width apart on the edge and clear of its corners, says full when all are
/// spoken for (and found again when one comes free), and blocked where none is open.
pub fn planner(files: &dyn Files) -> Outcome {
    let mut o = Outcome::new("planner");
    let Some(s) = o.scene(files, "planner.toml") else {
        return o;
    };
    let w = s.world();
    let (Some(barracks), Some(asker), Some(walled)) = (
        o.one(&s, "", "barracks"),
        o.one(&s, "", "asker"),
        o.one(&s, "", "walled_mine"),
    ) else {
        return o;
    };
    let Some((u, ground)) = w.unit(asker).zip(box_of(w.view(), barracks)) else {
        o.require("asker_and_barracks_there", false, false);
        return o;
    };
    let radius = w.rules().radius_of(u.kind);
    let (room, outside) = (radius * 2, radius - K_INSIDE);
    let key = w.key_of(u);
    let region = region_here(&w.caches.regions, w.grid(), key, u.position.tile());
    let stands = |p: Vec2| stands_in(w.view(), key, region, p, radius);
    let taken = every_spot(w, asker, barracks, outside, &[]);
    let ask = |ground: Bounds, taken: &[Vec2]| {
        let a = Approach {
            ground,
            from: u.position,
            outside,
            room,
            taken,
            own_face_only: false,
        };
        find_standing_spot(&a, stands)
    };
    let ring = ground.widened(outside);
    let own = on_west_face(&ring, &taken);
    // The own face's spots come first, and it is full before any other face is used.
    let first_elsewhere = taken
        .iter()
        .position(|p| p.x != ring.min.x)
        .unwrap_or(taken.len());
    let own_first = first_elsewhere == own.len() && !own.is_empty();
    let own_full = west_face_full(&ring, room, &on_west_face(&ring, &taken[..first_elsewhere]));
    let apart = closest_chebyshev_milli(&taken);
    let on_edge = taken.iter().all(|p| {
        let on_a_face =
            p.x == ring.min.x || p.x == ring.max.x || p.y == ring.min.y || p.y == ring.max.y;
        on_a_face && ring.clamp(*p) == *p
    });
    let half = room / 2 - K_ROUNDING;
    let corners_clear = taken.iter().all(|p| {
        let along = if p.x == ring.min.x || p.x == ring.max.x {
            (p.y - ring.min.y).min(ring.max.y - p.y)
        } else {
            (p.x - ring.min.x).min(ring.max.x - p.x)
        };
        along >= half
    });
    let full = ask(ground, &taken);
    // One walks away: its spot is found again.
    let mut one_gone = taken.clone();
    let freed = one_gone
        .len()
        .checked_sub(1)
        .map(|k| one_gone.remove(k / 2));
    let again = ask(ground, &one_gone);
    o.require("spots", taken.len(), taken.len() >= 8);
    o.require("own_face_spots_first", own.len(), own_first);
    o.require("own_face_full_before_another", own_full, own_full);
    o.require(
        "closest_spots_milli_tiles",
        apart,
        apart >= ((room - K_ROUNDING) * 1000).to_num::<i64>(),
    );
    o.require("on_the_edge", on_edge, on_edge);
    o.require("corners_kept_clear", corners_clear, corners_clear);
    o.require("then", format!("{full:?}"), full == Spot::Full);
    o.require(
        "one_freed_then",
        format!("{again:?}"),
        freed.is_some_and(|f| again == Spot::Found(f)),
    );
    let walled = box_of(w.view(), walled).map(|g| ask(g, &[]));
    o.require(
        "walled_in_mine",
        format!("{walled:?}"),
        walled == Some(Spot::Blocked),
    );
    o
}
