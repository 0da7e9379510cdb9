//! The ground a worker approaches at a resource: its patch.
//!
//! The spec approaches a mine as "the same rectangle round a single tile". Cohort's maps lay a
//! gold mine as a block of gold tiles (2 × 2 on the default map; stone 2 × 1, berries 3 × 2),
//! each its own resource, so a crew sent to one tile of a mine would find only the faces of that
//! tile open and bunch there. Cohort's choice, not the spec's: a resource whose same-kind
//! neighbours (four ways round) make a full rectangle of at most [`K_PATCH_TILES`] tiles is
//! approached as that rectangle — the whole mine — and each worker gathers from the tile of it
//! beside the spot it was given. A tree in a forest (a block larger than that, or not a
//! rectangle) is approached as its own tile, as the spec says.

use crate::grid::Occupant;
use crate::id::EntityId;
use crate::nav::View;
use crate::position::{Bounds, Tile, Vec2};

/// The most tiles a patch approached as one ground may have (Cohort's choice): a mine or a
/// berry patch, never a forest.
pub const K_PATCH_TILES: usize = 9;

/// The ground approached at resource `id` and the resources it is made of (in id order): the
/// patch's rectangle when its tiles fill one, else the resource's own tile. `None` when there
/// is no such resource.
pub fn patch_of(view: View<'_>, id: EntityId) -> Option<(Bounds, Vec<EntityId>)> {
    let r = view.state.resource(id)?;
    let alone = || Some((Bounds::of_tile(r.tile), vec![id]));
    let same_kind = |t: Tile| match view.grid().contains(t).then(|| view.grid().occupant(t)) {
        Some(Occupant::Resource(o)) => view.state.resource(o).filter(|o| o.kind == r.kind),
        _ => None,
    };
    // Four ways round from the resource's tile, at most one tile more than a patch may have.
    let mut tiles = vec![r.tile];
    let mut ids = vec![id];
    let mut k = 0;
    while k < tiles.len() && tiles.len() <= K_PATCH_TILES {
        let t = tiles[k];
        for (dx, dy) in [(0, -1), (1, 0), (0, 1), (-1, 0)] {
            let n = t.offset(dx, dy);
            if tiles.contains(&n) {
                continue;
            }
            if let Some(o) = same_kind(n) {
                tiles.push(n);
                ids.push(o.id);
            }
        }
        k += 1;
    }
    if tiles.len() == 1 || tiles.len() > K_PATCH_TILES {
        return alone();
    }
    let (lo_x, hi_x) = (
        tiles.iter().map(|t| t.x).min()?,
        tiles.iter().map(|t| t.x).max()?,
    );
    let (lo_y, hi_y) = (
        tiles.iter().map(|t| t.y).min()?,
        tiles.iter().map(|t| t.y).max()?,
    );
    let area = ((hi_x - lo_x + 1) * (hi_y - lo_y + 1)) as usize;
    if area != tiles.len() {
        return alone();
    }
    ids.sort_unstable();
    let lo = Bounds::of_tile(Tile::new(lo_x, lo_y));
    let hi = Bounds::of_tile(Tile::new(hi_x, hi_y));
    Some((
        Bounds {
            min: lo.min,
            max: hi.max,
        },
        ids,
    ))
}

/// The resource of `parts` whose tile is nearest `spot` (ties to the lower id): what a worker
/// standing there gathers from.
pub fn part_beside(view: View<'_>, parts: &[EntityId], spot: Vec2) -> Option<EntityId> {
    parts
        .iter()
        .filter_map(|&id| view.state.resource(id))
        .map(|r| (Bounds::of_tile(r.tile).distance_from(spot), r.id))
        .min()
        .map(|(_, id)| id)
}
