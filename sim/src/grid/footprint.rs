//! Building footprints, worked out in one place (spec: "Footprints", `ecs/BuildingGeometry`):
//! for blocking the grid when a building is placed, freeing it when it falls, and telling a
//! villager where its wall is.
//!
//! The data gives a building's clearance as a half-extent on each of its own axes. Those axes lie
//! a quarter turn from the grid's: a piece the data places at (dx, dy) stands at (dy, −dx) here
//! (the spec's `Buildings::FromDatAxes`), so the data's x extent is the grid's y extent. The tiles
//! on each axis are twice the half-extent, rounded, at least one; an even footprint is anchored
//! up and to the left of its origin tile (a two-tile building covers offsets −1 and 0).

use crate::position::{fx_ratio, Bounds, Fx, Tile, Vec2};
use serde::{Deserialize, Serialize};

/// A gate's length along its wall, in tiles.
pub const GATE_ALONG: i32 = 4;
/// A gate's depth across its wall, in tiles.
pub const GATE_ACROSS: i32 = 1;

/// The tiles a building covers: `origin + (dx, dy)` for dx in `min.x..=max.x`, dy likewise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footprint {
    pub origin: Tile,
    /// Offsets of the first tile covered on each grid axis (≤ 0).
    pub min: Tile,
    /// Offsets of the last tile covered on each grid axis (≥ 0).
    pub max: Tile,
}

/// Tiles on one axis from a half-extent: twice it, rounded (halves up), at least one.
pub fn tiles_for(half_extent: Fx) -> i32 {
    let twice = half_extent * 2;
    let rounded = (twice + fx_ratio(1, 2)).floor().to_num::<i64>() as i32;
    rounded.max(1)
}

/// Offsets covered by `n` tiles on an axis: even spans anchored up and left.
fn span(n: i32) -> (i32, i32) {
    let first = -(n / 2);
    (first, first + n - 1)
}

/// Maps the data's axes onto the grid's: (dx, dy) → (dy, −dx) (the spec's `FromDatAxes`).
pub fn from_dat_axes(dx: Fx, dy: Fx) -> (Fx, Fx) {
    (dy, -dx)
}

impl Footprint {
    /// The footprint a building of `kind` covers at `origin`.
    pub fn of_building(
        rules: &crate::ruleset::Ruleset,
        kind: crate::ruleset::BuildingKindId,
        origin: Tile,
        turned: bool,
    ) -> Footprint {
        Footprint::of(rules.buildings[kind as usize].half_extent, origin, turned)
    }

    /// The footprint of a building whose data half-extents are `half_extent` (data x, data y),
    /// placed at `origin`; `turned` lays it a quarter turn round (a gate across the other way).
    pub fn of(half_extent: [Fx; 2], origin: Tile, turned: bool) -> Footprint {
        let (gx, gy) = from_dat_axes(half_extent[0], half_extent[1]);
        let (mut wx, mut wy) = (tiles_for(gx.abs()), tiles_for(gy.abs()));
        if turned {
            std::mem::swap(&mut wx, &mut wy);
        }
        let (x0, x1) = span(wx);
        let (y0, y1) = span(wy);
        Footprint {
            origin,
            min: Tile::new(x0, y0),
            max: Tile::new(x1, y1),
        }
    }

    /// A tree's or a mine's single tile.
    pub fn single(origin: Tile) -> Footprint {
        Footprint {
            origin,
            min: Tile::new(0, 0),
            max: Tile::new(0, 0),
        }
    }

    pub fn width(&self) -> i32 {
        self.max.x - self.min.x + 1
    }

    pub fn height(&self) -> i32 {
        self.max.y - self.min.y + 1
    }

    /// Every tile covered, row by row.
    pub fn tiles(&self) -> impl Iterator<Item = Tile> + '_ {
        (self.min.y..=self.max.y)
            .flat_map(move |dy| (self.min.x..=self.max.x).map(move |dx| self.origin.offset(dx, dy)))
    }

    pub fn covers(&self, t: Tile) -> bool {
        let (dx, dy) = (t.x - self.origin.x, t.y - self.origin.y);
        dx >= self.min.x && dx <= self.max.x && dy >= self.min.y && dy <= self.max.y
    }

    /// The ground it occupies in world units: the span of tiles widened by half a tile on every
    /// side (the spec's `Buildings::Bounds`).
    pub fn bounds(&self) -> Bounds {
        let half = fx_ratio(1, 2);
        let lo = self.origin.offset(self.min.x, self.min.y);
        let hi = self.origin.offset(self.max.x, self.max.y);
        Bounds {
            min: Vec2::new(Fx::from_num(lo.x) - half, Fx::from_num(lo.y) - half),
            max: Vec2::new(Fx::from_num(hi.x) + half, Fx::from_num(hi.y) + half),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::fx;

    #[test]
    fn two_tile_building_covers_offsets_minus_one_and_zero() {
        let f = Footprint::of([fx(1), fx(1)], Tile::new(10, 10), false);
        assert_eq!((f.min, f.max), (Tile::new(-1, -1), Tile::new(0, 0)));
        let b = f.bounds();
        assert_eq!(b.min, Vec2::new(fx_ratio(17, 2), fx_ratio(17, 2)));
        assert_eq!(b.max, Vec2::new(fx_ratio(21, 2), fx_ratio(21, 2)));
    }

    #[test]
    fn odd_footprints_are_centred_and_small_ones_take_a_tile() {
        let f = Footprint::of([fx_ratio(3, 2), fx_ratio(3, 2)], Tile::new(5, 5), false);
        assert_eq!((f.min, f.max), (Tile::new(-1, -1), Tile::new(1, 1)));
        let w = Footprint::of([fx_ratio(1, 5), fx_ratio(1, 5)], Tile::new(0, 0), false);
        assert_eq!((w.width(), w.height()), (1, 1));
    }

    #[test]
    fn data_x_extent_is_the_grid_y_extent() {
        // A gate: data half-extents (0.5 across, 2.0 along) lie four tiles along the grid's x.
        let g = Footprint::of([fx_ratio(1, 2), fx(2)], Tile::new(8, 8), false);
        assert_eq!((g.width(), g.height()), (GATE_ALONG, GATE_ACROSS));
        assert_eq!((g.min.x, g.max.x), (-2, 1));
        let turned = Footprint::of([fx_ratio(1, 2), fx(2)], Tile::new(8, 8), true);
        assert_eq!((turned.width(), turned.height()), (GATE_ACROSS, GATE_ALONG));
    }

    #[test]
    fn distance_from_measures_outside_the_bounds() {
        let f = Footprint::single(Tile::new(0, 0));
        assert_eq!(
            f.bounds().distance_from(Vec2::new(fx(1), fx(0))),
            fx_ratio(1, 2)
        );
        assert_eq!(f.bounds().distance_from(Vec2::new(fx(0), fx(0))), Fx::ZERO);
    }
}
