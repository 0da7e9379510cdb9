//! Keeping apart (spec: "Walking a route", "Keeping apart").
//!
//! Nobody standing is pushed. A walker bends its own step away from any body it would come nearer
//! than [`K_KEEP_APART`] of their two radii together, by no more than the step's own length and
//! only onto open ground. What would push it back the way it came turns it aside instead, so a
//! crowd cannot hold it still for good.

use crate::astar::middle_clear;
use crate::grid::{Grid, Keyed};
use crate::nav::{Body, Survey};
use crate::position::{fx_ratio, tile_of, Fx, Tile, Vec2};

/// The tile a coordinate falls on.
trait TileX {
    fn tile_x(self) -> i32;
}

impl TileX for Fx {
    fn tile_x(self) -> i32 {
        tile_of(self)
    }
}
use crate::world::EntityId;

/// A walker keeps at least this share of its and another body's radii together between them.
pub const K_KEEP_APART: Fx = fx_ratio(3, 4);

/// A body's box is tested this much inside its edge (a 32nd of a tile, more than `K_INSIDE`), so
/// a body standing against what it works at or fights does not count as touching it.
pub const K_BODY_SLACK: Fx = fx_ratio(1, 32);

/// The walker and what it walks over, for one step.
pub struct Stepper<'a> {
    pub grid: &'a Grid,
    pub survey: &'a Survey,
    pub key: Keyed,
    pub me: EntityId,
    pub radius: Fx,
    /// The widest radius of any unit kind: how far round a point bodies are looked for.
    pub widest: Fx,
}

/// The squared length of `v` in raw fixed-point bits (32 fraction bits): exact, no root.
pub fn squared(v: Vec2) -> i128 {
    let (x, y) = (i128::from(v.x.to_bits()), i128::from(v.y.to_bits()));
    x * x + y * y
}

impl Stepper<'_> {
    /// The keep-apart allowance between the walker and `b`, squared (raw bits).
    fn allowance_sq(&self, b: &Body) -> i128 {
        let allow = (self.radius + b.radius) * K_KEEP_APART;
        let a = i128::from(allow.to_bits());
        a * a
    }

    /// Whether the ground lets the walker step from `from` to `p`: the line's middle crosses no
    /// closed tile, and `p` stands on open ground unless it is still on the starting tile (a
    /// walker inside a building just put up walks out of it).
    pub fn open_step(&self, from: Vec2, p: Vec2) -> bool {
        (p.tile() == from.tile() || self.grid.passable_point(self.key, p))
            && middle_clear(self.grid, self.key, from, p)
    }

    /// Whether the walker's body at `p` touches no closed tile it did not already touch at
    /// `from`: a bend never pushes a body into a wall, a tree or a mine.
    pub fn body_open(&self, from: Vec2, p: Vec2) -> bool {
        let r = self.radius - K_BODY_SLACK;
        let span = |c: Vec2| {
            (
                (c.x - r).tile_x(),
                (c.x + r).tile_x(),
                (c.y - r).tile_x(),
                (c.y + r).tile_x(),
            )
        };
        let (ax0, ax1, ay0, ay1) = span(from);
        let (x0, x1, y0, y1) = span(p);
        (y0..=y1).all(|y| {
            (x0..=x1).all(|x| {
                (x >= ax0 && x <= ax1 && y >= ay0 && y <= ay1)
                    || self.grid.passable(self.key, Tile::new(x, y))
            })
        })
    }

    /// Bodies a walker at `p` might come too near.
    fn near(&self, p: Vec2) -> impl Iterator<Item = &Body> + '_ {
        let me = self.me;
        self.survey
            .near(p, self.radius + self.widest)
            .filter(move |b| b.entity != me)
    }

    /// Whether stepping from `from` to `p` brings the walker nearer than the allowance to a body
    /// it was not already nearer to.
    pub fn crowds(&self, from: Vec2, p: Vec2) -> bool {
        self.near(p).any(|b| {
            let now = squared(p - b.middle);
            now < self.allowance_sq(b) && now < squared(from - b.middle)
        })
    }

    /// Where a step from `from` toward `to` really goes: `to` when it keeps apart; else bent away
    /// from the bodies it would crowd (by at most the step's length, only onto open ground), or
    /// turned aside when the bend would send it back; `from` when no way keeps apart.
    pub fn keep_apart(&self, from: Vec2, to: Vec2) -> Vec2 {
        if !self.crowds(from, to) {
            return to;
        }
        let step = to - from;
        let len = step.length();
        if len == Fx::ZERO {
            return from;
        }
        let mut bend = Vec2::ZERO;
        for b in self.near(to) {
            let now = squared(to - b.middle);
            if now >= self.allowance_sq(b) || now >= squared(from - b.middle) {
                continue;
            }
            let allow = (self.radius + b.radius) * K_KEEP_APART;
            let away = to - b.middle;
            let away = if away == Vec2::ZERO {
                step.perp()
            } else {
                away
            };
            bend = bend + away.with_length(allow - away.length());
        }
        if bend.length() > len {
            bend = bend.with_length(len);
        }
        let perp = step.perp().with_length(len);
        let side = if bend.dot(perp) >= Fx::ZERO {
            perp
        } else {
            -perp
        };
        let mut bent = to + bend;
        if (bent - from).dot(step) < Fx::ZERO {
            bent = from + side;
        }
        [bent, from + side, from - side]
            .into_iter()
            .find(|&p| p != from && self.open_step(from, p) && !self.crowds(from, p))
            .unwrap_or(from)
    }
}
