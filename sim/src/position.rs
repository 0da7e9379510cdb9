//! Positions and tiles (spec: "Positions and tiles").
//!
//! A unit stands at a continuous fixed-point position, never snapped to a tile. A tile is one unit
//! across and centred on its whole-number coordinates, so the tile under a position is the
//! position rounded ([`tile_of`]). Everything here is fixed point or integer: same inputs, same
//! output on every machine.

use fixed::types::I48F16;
use serde::{Deserialize, Serialize};
use std::ops::{Add, Mul, Neg, Sub};

/// The sim's number: 48 integer bits and 16 fraction bits. Wide enough that squared distances
/// across the largest map never overflow; fine enough (1/65536 tile) that a walk never stalls.
pub type Fx = I48F16;

/// A whole number as [`Fx`].
pub const fn fx(n: i32) -> Fx {
    Fx::const_from_int(n as i64)
}

/// `num / den` as [`Fx`], rounded toward zero. For constants such as 0.7 = `fx_ratio(7, 10)`.
pub const fn fx_ratio(num: i64, den: i64) -> Fx {
    Fx::from_bits((num << 16) / den)
}

/// The tile a world coordinate is on: tiles are a unit across and centred on whole numbers, so
/// a coordinate rounds to the nearest whole number, halves upward (the spec's `TileOf`).
/// Coordinates beyond `i32`'s tiles (never on a map) saturate to its ends instead of wrapping.
pub fn tile_of(v: Fx) -> i32 {
    let whole = v
        .saturating_add(Fx::from_bits(1 << 15))
        .floor()
        .to_num::<i64>();
    i32::try_from(whole).unwrap_or(if whole < 0 { i32::MIN } else { i32::MAX })
}

/// A point or a direction on the ground.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Vec2 {
    pub x: Fx,
    pub y: Fx,
}

impl Vec2 {
    pub const ZERO: Vec2 = Vec2 {
        x: Fx::ZERO,
        y: Fx::ZERO,
    };

    pub const fn new(x: Fx, y: Fx) -> Vec2 {
        Vec2 { x, y }
    }

    /// The middle of tile `t`.
    pub fn of_tile(t: Tile) -> Vec2 {
        Vec2::new(Fx::from_num(t.x), Fx::from_num(t.y))
    }

    /// The tile this point is on.
    pub fn tile(self) -> Tile {
        Tile::new(tile_of(self.x), tile_of(self.y))
    }

    pub fn dot(self, o: Vec2) -> Fx {
        self.x * o.x + self.y * o.y
    }

    /// The z of the cross product: positive when `o` lies anticlockwise of `self` (y down: to
    /// the right on screen).
    pub fn cross(self, o: Vec2) -> Fx {
        self.x * o.y - self.y * o.x
    }

    pub fn length_squared(self) -> Fx {
        self.dot(self)
    }

    /// Euclidean length, by an integer square root of the raw bits: exact to the last bit on
    /// every machine.
    pub fn length(self) -> Fx {
        let sq = (self.x.to_bits() as i128) * (self.x.to_bits() as i128)
            + (self.y.to_bits() as i128) * (self.y.to_bits() as i128);
        Fx::from_bits(isqrt_u128(sq as u128) as i64)
    }

    /// The distance between two points.
    pub fn distance(self, o: Vec2) -> Fx {
        (o - self).length()
    }

    /// This direction scaled to `len`; the zero vector stays zero.
    pub fn with_length(self, len: Fx) -> Vec2 {
        let l = self.length();
        if l == Fx::ZERO {
            return Vec2::ZERO;
        }
        Vec2::new(mul_div(self.x, len, l), mul_div(self.y, len, l))
    }

    /// A quarter turn: (x, y) → (−y, x).
    pub fn perp(self) -> Vec2 {
        Vec2::new(-self.y, self.x)
    }

    /// The larger of the two axis distances (Chebyshev).
    pub fn chebyshev(self, o: Vec2) -> Fx {
        (o.x - self.x).abs().max((o.y - self.y).abs())
    }

    /// `self + (o - self) * num / den`.
    pub fn lerp(self, o: Vec2, num: Fx, den: Fx) -> Vec2 {
        if den == Fx::ZERO {
            return self;
        }
        Vec2::new(
            self.x + mul_div(o.x - self.x, num, den),
            self.y + mul_div(o.y - self.y, num, den),
        )
    }
}

/// A distance known by its square until its value is asked for: comparing it with a bound takes
/// no square root. [`Distance::value`] is [`Vec2::length`] to the last bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Distance {
    /// The square of the length, in raw bits squared.
    squared: u128,
}

impl Distance {
    /// From `a` to `b`.
    pub fn between(a: Vec2, b: Vec2) -> Distance {
        let v = b - a;
        let (x, y) = (i128::from(v.x.to_bits()), i128::from(v.y.to_bits()));
        Distance {
            squared: (x * x + y * y).unsigned_abs(),
        }
    }

    pub fn is_zero(self) -> bool {
        self.squared == 0
    }

    /// Whether the distance is at most `bound`: its root's floor is at most `bound`'s bits when
    /// the square is below one bit more, squared.
    pub fn at_most(self, bound: Fx) -> bool {
        u128::try_from(bound.to_bits()).is_ok_and(|b| self.squared < (b + 1) * (b + 1))
    }

    pub fn value(self) -> Fx {
        Fx::from_bits(isqrt_u128(self.squared) as i64)
    }
}

/// `a * b / c` computed in 128 bits, rounded toward zero.
pub fn mul_div(a: Fx, b: Fx, c: Fx) -> Fx {
    let n = i128::from(a.to_bits()) * i128::from(b.to_bits());
    // The same quotient in 64 bits when the product fits (truncating either way): a 128-bit
    // division is the walk's dearest instruction.
    let q = match i64::try_from(n) {
        Ok(n) => n.wrapping_div(c.to_bits()),
        Err(_) => (n / i128::from(c.to_bits())) as i64,
    };
    Fx::from_bits(q)
}

/// The integer square root (floor) of a 128-bit number, as raw fixed-point bits: for a value
/// `v` with 32 fraction bits this gives `sqrt(v)` with 16.
pub fn isqrt_u128(n: u128) -> u128 {
    // The floor of the root is one number whatever computes it: the standard library's, in 64
    // bits when `n` fits (nearly always: bodies lie within a few hundred tiles of each other).
    match u64::try_from(n) {
        Ok(n) => u128::from(n.isqrt()),
        Err(_) => n.isqrt(),
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}

impl Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}

impl Neg for Vec2 {
    type Output = Vec2;
    fn neg(self) -> Vec2 {
        Vec2::new(-self.x, -self.y)
    }
}

impl Mul<Fx> for Vec2 {
    type Output = Vec2;
    fn mul(self, k: Fx) -> Vec2 {
        Vec2::new(self.x * k, self.y * k)
    }
}

/// A tile's whole-number coordinates. May lie off the map; [`crate::grid::Grid::index`] says.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Tile {
    pub x: i32,
    pub y: i32,
}

impl Tile {
    pub const fn new(x: i32, y: i32) -> Tile {
        Tile { x, y }
    }

    pub const fn offset(self, dx: i32, dy: i32) -> Tile {
        Tile::new(self.x + dx, self.y + dy)
    }

    /// The eight tiles round this one, in [`EIGHT_WAYS`] order.
    pub fn round(self) -> impl Iterator<Item = Tile> {
        EIGHT_WAYS
            .into_iter()
            .map(move |(dx, dy)| self.offset(dx, dy))
    }
}

/// The eight steps round a tile, straights first (N, E, S, W, then NE, SE, SW, NW): the one
/// fixed order every search and every look round a tile uses.
pub const EIGHT_WAYS: [(i32, i32); 8] = [
    (0, -1),
    (1, 0),
    (0, 1),
    (-1, 0),
    (1, -1),
    (1, 1),
    (-1, 1),
    (-1, -1),
];

/// A box on the ground in world units: `min` to `max`, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounds {
    pub min: Vec2,
    pub max: Vec2,
}

impl Bounds {
    /// The box reaching `radius` each way from `middle` (a unit's body).
    pub fn around(middle: Vec2, radius: Fx) -> Bounds {
        Bounds {
            min: Vec2::new(middle.x - radius, middle.y - radius),
            max: Vec2::new(middle.x + radius, middle.y + radius),
        }
    }

    /// The box round a single tile (the spec's `TileBounds`: a tree or a mine).
    pub fn of_tile(t: Tile) -> Bounds {
        Bounds::around(Vec2::of_tile(t), fx_ratio(1, 2))
    }

    /// How far outside the box a point is (zero inside): the spec's `Bounds::DistanceFrom`.
    pub fn distance_from(&self, p: Vec2) -> Fx {
        let dx = (self.min.x - p.x).max(p.x - self.max.x).max(Fx::ZERO);
        let dy = (self.min.y - p.y).max(p.y - self.max.y).max(Fx::ZERO);
        Vec2::new(dx, dy).length()
    }

    /// The gap between two boxes (zero when they touch or overlap), measured as a distance.
    pub fn gap(&self, o: &Bounds) -> Fx {
        let dx = (o.min.x - self.max.x)
            .max(self.min.x - o.max.x)
            .max(Fx::ZERO);
        let dy = (o.min.y - self.max.y)
            .max(self.min.y - o.max.y)
            .max(Fx::ZERO);
        Vec2::new(dx, dy).length()
    }

    /// The nearest point of the box to `p`.
    pub fn clamp(&self, p: Vec2) -> Vec2 {
        Vec2::new(
            p.x.clamp(self.min.x, self.max.x),
            p.y.clamp(self.min.y, self.max.y),
        )
    }

    /// The box grown by `by` on every side.
    pub fn widened(&self, by: Fx) -> Bounds {
        Bounds {
            min: Vec2::new(self.min.x - by, self.min.y - by),
            max: Vec2::new(self.max.x + by, self.max.y + by),
        }
    }

    pub fn middle(&self) -> Vec2 {
        Vec2::new((self.min.x + self.max.x) / 2, (self.min.y + self.max.y) / 2)
    }

    pub fn overlaps(&self, o: &Bounds) -> bool {
        self.min.x < o.max.x && o.min.x < self.max.x && self.min.y < o.max.y && o.min.y < self.max.y
    }
}

/// The squared length of `v` in raw fixed-point bits (32 fraction bits): exact, no root.
pub fn squared(v: Vec2) -> i128 {
    let (x, y) = (i128::from(v.x.to_bits()), i128::from(v.y.to_bits()));
    x * x + y * y
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A distance compared by its square answers as its root does, and its root is
        /// `Vec2::length`'s.
        #[test]
        fn a_distance_by_its_square_agrees_with_its_root(
            ax in -(1i64 << 30)..(1i64 << 30), ay in -(1i64 << 30)..(1i64 << 30),
            bx in -(1i64 << 30)..(1i64 << 30), by in -(1i64 << 30)..(1i64 << 30),
            bound in -(1i64 << 20)..(1i64 << 33),
        ) {
            let (a, b) = (
                Vec2::new(Fx::from_bits(ax), Fx::from_bits(ay)),
                Vec2::new(Fx::from_bits(bx), Fx::from_bits(by)),
            );
            let d = Distance::between(a, b);
            let root = a.distance(b);
            proptest::prop_assert_eq!(d.value(), root);
            proptest::prop_assert_eq!(d.is_zero(), root == Fx::ZERO);
            for bound in [Fx::from_bits(bound), root, root - Fx::from_bits(1), root + Fx::from_bits(1)] {
                proptest::prop_assert_eq!(d.at_most(bound), root <= bound);
            }
        }
    }

    #[test]
    fn tile_of_rounds_halves_up() {
        assert_eq!(tile_of(fx_ratio(49, 100)), 0);
        assert_eq!(tile_of(fx_ratio(1, 2)), 1);
        assert_eq!(tile_of(fx_ratio(-1, 2)), 0);
        assert_eq!(tile_of(fx_ratio(-51, 100)), -1);
        assert_eq!(tile_of(fx(7)), 7);
        assert_eq!(
            tile_of(Fx::from_num(4_294_967_300i64)),
            i32::MAX,
            "2^32 + 4 saturates"
        );
        assert_eq!(tile_of(Fx::from_num(-4_294_967_300i64)), i32::MIN);
        assert_eq!(tile_of(Fx::MAX), i32::MAX);
    }

    #[test]
    fn isqrt_is_the_floor_of_the_root_in_64_and_128_bits() {
        let mut n: u128 = 1;
        for k in 0..2_000u32 {
            // A spread of sizes either side of 2^64, and squares and their neighbours.
            n = n
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(u128::from(k))
                >> (k % 97);
            for m in [n, n.saturating_sub(1), u128::from(k) * u128::from(k)] {
                let r = isqrt_u128(m);
                assert!(r * r <= m, "{m}");
                assert!((r + 1).checked_mul(r + 1).is_none_or(|s| s > m), "{m}");
            }
        }
        assert_eq!(isqrt_u128(u128::from(u64::MAX)), u128::from(u32::MAX));
        assert_eq!(isqrt_u128(1u128 << 64), 1u128 << 32);
    }

    #[test]
    fn mul_div_agrees_in_64_and_128_bits() {
        let wide = |a: Fx, b: Fx, c: Fx| {
            let n = i128::from(a.to_bits()) * i128::from(b.to_bits());
            Fx::from_bits((n / i128::from(c.to_bits())) as i64)
        };
        let mut x: i64 = 7;
        for _ in 0..2_000 {
            x = x
                .wrapping_mul(2_862_933_555_777_941_757)
                .wrapping_add(3_037_000_493);
            let (a, b) = (
                Fx::from_bits(x >> 20),
                Fx::from_bits(x.rotate_left(17) >> 25),
            );
            let c = Fx::from_bits((x >> 40) | 1);
            assert_eq!(mul_div(a, b, c), wide(a, b, c));
            assert_eq!(mul_div(a, a, -c), wide(a, a, -c));
        }
    }

    #[test]
    fn length_is_exact_integer_sqrt() {
        assert_eq!(Vec2::new(fx(3), fx(4)).length(), fx(5));
        let d = Vec2::new(fx(1), fx(1)).length();
        assert_eq!(d.to_bits(), 92681, "floor(sqrt(2) * 65536)");
    }

    #[test]
    fn distance_from_bounds() {
        let b = Bounds::of_tile(Tile::new(0, 0));
        assert_eq!(b.distance_from(Vec2::new(fx(0), fx(0))), Fx::ZERO);
        assert_eq!(b.distance_from(Vec2::new(fx(2), fx(0))), fx_ratio(3, 2));
    }
}
