//! Keeping apart (spec: "Walking a route", "Keeping apart").
//!
//! Nobody standing is pushed. A walker bends its own step away from any body it would come nearer
//! than [`K_KEEP_APART`] of their two radii together, by no more than the step's own length and
//! only onto open ground. What would push it back the way it came turns it aside instead, so a
//! crowd cannot hold it still for good.

pub use crate::astar::K_BODY_SLACK;
use crate::astar::{middle_clear, tested_radius};
use crate::grid::{Grid, Keyed};
use crate::id::EntityId;
use crate::nav::{Body, Near, Survey};
use crate::position::{fx, squared, tile_of, Fx, Tile, Vec2};

/// The tile a coordinate falls on.
trait TileX {
    fn tile_x(self) -> i32;
}

impl TileX for Fx {
    fn tile_x(self) -> i32 {
        tile_of(self)
    }
}

/// A walker keeps at least this share of its and another body's radii together between them
/// (filed with the bodies, [`crate::nav::survey`], so the planners below the walk read it too).
pub use crate::nav::survey::K_KEEP_APART;

/// The walker and what it walks over, for one step.
pub struct Stepper<'a> {
    pub grid: &'a Grid,
    pub survey: &'a Survey,
    pub key: Keyed,
    pub me: EntityId,
    pub radius: Fx,
    /// The widest radius of any unit kind: how far round a point the looks of an arrival reach
    /// (the keep-apart scan reaches only the widest body filed, [`Survey::widest`]).
    pub widest: Fx,
    /// Held up long enough to squeeze past those on the move: it keeps only
    /// [`super::held::K_SQUEEZE_APART`] of their radii from walkers going elsewhere (Cohort's
    /// choice): `Some` of the point it walks to.
    pub squeeze: Option<Vec2>,
    /// Stepping out of others (a settle walk, Cohort's choice): a step may come nearer a body it
    /// stands inside the allowance of, so long as the nearest of those (as a share of the
    /// allowance) comes no nearer ([`Stepper::crowds_stepping_out`]).
    pub stepping_out: bool,
    /// The bodies about where its step begins, gathered once for the whole step
    /// ([`Nearby::gather`]); [`Nearby::NONE`] asks the survey every time.
    pub nearby: Nearby<'a>,
}

/// The bodies within `reach` (box distance) of `centre`, gathered once from the survey for the
/// rest of a walker's step when it first crowds someone: bending round them asks three or more
/// times more round points a step apart. For speed alone: every ask that falls inside gets the
/// same bodies a look in the survey would, only in another order, and no answer depends on it.
#[derive(Clone, Copy, Debug)]
pub struct Nearby<'a> {
    pub centre: Vec2,
    pub reach: Fx,
    pub bodies: &'a [Body],
}

impl<'a> Nearby<'a> {
    /// Nothing gathered: every ask goes to the survey.
    pub const NONE: Nearby<'static> = Nearby {
        centre: Vec2::ZERO,
        reach: Fx::ZERO,
        bodies: &[],
    };

    /// Fills `into` with the bodies within `reach` of `centre` but the walker `me` and returns
    /// them as a neighbourhood.
    pub fn gather(
        survey: &Survey,
        me: EntityId,
        centre: Vec2,
        reach: Fx,
        into: &'a mut Vec<Body>,
    ) -> Nearby<'a> {
        into.clear();
        into.extend(survey.near(centre, reach).filter(|b| b.entity != me));
        Nearby {
            centre,
            reach,
            bodies: into,
        }
    }

    /// The gathered bodies, when they hold every body within `reach` of `p`.
    fn covering(&self, p: Vec2, reach: Fx) -> Option<&'a [Body]> {
        let Nearby {
            centre,
            reach: have,
            bodies,
        } = *self;
        (have > Fx::ZERO && p.chebyshev(centre) + reach <= have).then_some(bodies)
    }
}

/// Whether a walker stepping `step` and one walking `heading` come at each other: their ways
/// are more than 135° apart (Cohort's choice, with the head-on rule of [`Stepper::keep_apart`]).
pub(super) fn meets_head_on(step: Vec2, heading: Vec2) -> bool {
    let dot = step.dot(heading);
    // cos 135° = -1/√2: dot < 0 and dot² > |step|²|heading|² / 2.
    dot < Fx::ZERO && {
        let d = i128::from(dot.to_bits());
        2 * d * d > (squared(step) * squared(heading)) >> 32
    }
}

impl<'a> Stepper<'a> {
    /// The stepper of unit `i` (a settle walk's place looked for, a shove, a push; a walk's own
    /// sets its squeeze): it squeezes past nobody and asks the survey for every body.
    pub fn of_unit(view: crate::nav::View<'a>, i: usize, widest: Fx) -> Stepper<'a> {
        let u = &view.state.units[i];
        Stepper {
            grid: view.grid(),
            survey: &view.nav.survey,
            key: view.key_of(u),
            me: u.id,
            radius: view.rules.radius_of(u.kind),
            widest,
            squeeze: None,
            stepping_out: false,
            nearby: Nearby::NONE,
        }
    }
}

impl Stepper<'_> {
    /// The keep-apart allowance between the walker and `b`, squared (raw bits).
    pub fn allowance_sq(&self, b: &Body) -> i128 {
        let a = i128::from(self.allowance(b).to_bits());
        a * a
    }

    /// The keep-apart allowance between the walker and `b`: [`K_KEEP_APART`] of their radii,
    /// or [`super::held::K_SQUEEZE_APART`] of them from a walker it squeezes past.
    pub fn allowance(&self, b: &Body) -> Fx {
        let elsewhere = |to: Vec2| b.goal.chebyshev(to) > super::held::K_SAME_WAY;
        let share = if b.moving && self.squeeze.is_some_and(elsewhere) {
            super::held::K_SQUEEZE_APART
        } else {
            K_KEEP_APART
        };
        (self.radius + b.radius) * share
    }

    /// Whether the ground lets the walker step from `from` to `p`: the line's middle crosses no
    /// closed tile, and `p` stands on open ground unless it is still on the starting tile (a
    /// walker inside a building just put up walks out of it).
    pub fn open_step(&self, from: Vec2, p: Vec2) -> bool {
        // A step within its starting tile crosses no other (`middle_clear` of it is true).
        p.tile() == from.tile()
            || (self.grid.passable_point(self.key, p) && middle_clear(self.grid, self.key, from, p))
    }

    /// Whether the walker's body at `p` touches no closed tile it did not already touch at
    /// `from`: a bend never pushes a body into a wall, a tree or a mine. The body is the box
    /// `body_clear` tests ([`tested_radius`]), so a line pulled straight is one it can walk.
    pub fn body_open(&self, from: Vec2, p: Vec2) -> bool {
        let r = tested_radius(self.radius);
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
        if (x0, x1, y0, y1) == (ax0, ax1, ay0, ay1) {
            // Most steps touch no tile the body did not touch already.
            return true;
        }
        (y0..=y1).all(|y| {
            (x0..=x1).all(|x| {
                (x >= ax0 && x <= ax1 && y >= ay0 && y <= ay1)
                    || self.grid.passable(self.key, Tile::new(x, y))
            })
        })
    }

    /// Whether a walker at `at` can go straight on to `next` past the bodies about it: the line
    /// brings it nearer than the allowance to none it is not already nearer to, among those
    /// within `reach` of `at` (bodies further along are kept apart from as it comes to them). What
    /// the look-ahead asks before cutting a corner besides the ground (Cohort's choice: the
    /// corners of a way through the gaps of a crowd lie close together, and cutting them walks
    /// into the crowd).
    pub fn sees_past_bodies(&self, at: Vec2, next: Vec2, reach: Fx) -> bool {
        let line = next - at;
        let along = line.dot(line);
        self.survey
            .near(at, reach + self.radius + self.widest)
            .filter(|b| b.entity != self.me)
            .all(|b| {
                let to_b = b.middle - at;
                let t = if along == Fx::ZERO {
                    Fx::ZERO
                } else {
                    (to_b.dot(line) / along).clamp(Fx::ZERO, fx(1))
                };
                let nearest = squared(at + line * t - b.middle);
                nearest >= self.allowance_sq(b) || nearest >= squared(to_b)
            })
    }

    /// Bodies a walker at `p` might come too near: everyone but itself within its radius and the
    /// widest filed body's radius ([`Survey::widest`]) together
    /// (box distance), which is more than any allowance; read from the step's gathered [`Nearby`]
    /// when they cover `p`.
    pub fn near(&self, p: Vec2) -> impl Iterator<Item = &Body> + '_ {
        let me = self.me;
        let reach = self.radius + self.survey.widest();
        let bodies = match self.nearby.covering(p, reach) {
            Some(gathered) => Near::among(gathered, p, reach),
            None => self.survey.near(p, reach),
        };
        bodies.filter(move |b| b.entity != me)
    }

    /// Whether stepping from `from` to `p` brings the walker nearer than the allowance to a body
    /// it was not already nearer to. This scan is the tick's hottest loop.
    pub fn crowds(&self, from: Vec2, p: Vec2) -> bool {
        if self.stepping_out {
            return self.crowds_stepping_out(from, p);
        }
        self.near(p).any(|b| self.too_near(from, p, b))
    }

    /// [`Stepper::crowds`] for a walker stepping out of others: a step to `p` crowds when it
    /// comes within the allowance of a body it was not within at `from`, or when the nearest
    /// body it is within the allowance of (as a share of that allowance) is nearer at `p` than
    /// the nearest was at `from` (Cohort's choice: in a pile of sixty knights placed on one
    /// point, those in the middle could take no step that came nearer any of the bodies half
    /// out round them, and stood inside the others 2.2 s, until those had walked clear).
    fn crowds_stepping_out(&self, from: Vec2, p: Vec2) -> bool {
        let share = |at: Vec2, b: &Body| (at - b.middle).length() / self.allowance(b);
        let mut before = Fx::MAX;
        let mut after = Fx::MAX;
        for b in self.near(p).chain(self.near(from)) {
            let (was, now) = (share(from, b), share(p, b));
            if now >= Fx::ONE {
                continue;
            }
            if was >= Fx::ONE {
                return true;
            }
            before = before.min(was);
            after = after.min(now);
        }
        after < before
    }

    /// [`Stepper::crowds`] leaving `but` out: whether a body moved from `from` to `p` comes too
    /// near anyone else (a shove, [`super::shove`]).
    pub fn crowds_but(&self, from: Vec2, p: Vec2, but: EntityId) -> bool {
        self.near(p)
            .any(|b| b.entity != but && self.too_near(from, p, b))
    }

    /// Whether a walker at `p` is nearer than the allowance to `b`, and nearer than it was at
    /// `from`.
    #[inline]
    pub fn too_near(&self, from: Vec2, p: Vec2, b: &Body) -> bool {
        // First the cheap test: no allowance is wider than the two radii together.
        let (d, most) = (p - b.middle, self.radius + b.radius);
        if d.x.abs() >= most || d.y.abs() >= most {
            return false;
        }
        let now = squared(d);
        now < self.allowance_sq(b) && now < squared(from - b.middle)
    }

    /// Where a step from `from` toward `to` really goes: `to` when it keeps apart; else bent away
    /// from the bodies it would crowd (by at most the step's length, only onto open ground), or
    /// turned aside when the bend would send it back; `from` when no way keeps apart.
    pub fn keep_apart(&self, from: Vec2, to: Vec2) -> Vec2 {
        if !self.crowds(from, to) {
            return to;
        }
        self.bend(from, to)
    }

    /// [`Stepper::keep_apart`] of a step known to crowd someone.
    pub fn bend(&self, from: Vec2, to: Vec2) -> Vec2 {
        let step = to - from;
        let len = step.length();
        if len == Fx::ZERO {
            return from;
        }
        let mut bend = Vec2::ZERO;
        let mut head_on = false;
        for b in self.near(to) {
            let now = squared(to - b.middle);
            if now >= self.allowance_sq(b) || now >= squared(from - b.middle) {
                continue;
            }
            head_on |= b.moving && meets_head_on(step, b.heading);
            let allow = self.allowance(b);
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
        // Movers meeting head-on both turn to their right (Cohort's choice): each turned its
        // own way by the bend, two walkers coming at each other would step into each other.
        let side = if head_on || bend.dot(perp) >= Fx::ZERO {
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
            .chain(std::iter::once_with(|| self.out_between(from, step, len)).flatten())
            .find(|&p| {
                p != from
                    && self.open_step(from, p)
                    && self.body_open(from, p)
                    && !self.crowds(from, p)
            })
            .unwrap_or(from)
    }

    /// The way out from between the bodies a walker at `from` stands at the allowance of (within
    /// it and a step more), `len` long: away from all of them at once, when that is no step
    /// back against `step`, or at any way while the walker squeezes (Cohort's choice: a knight at
    /// the allowance of two others, one either side, its step between them leaning a hair toward
    /// one, found the bend toward either refused and stood for minutes with open ground straight
    /// ahead).
    fn out_between(&self, from: Vec2, step: Vec2, len: Fx) -> Option<Vec2> {
        let mut away = Vec2::ZERO;
        for b in self.near(from) {
            let d = from - b.middle;
            let reach = self.allowance(b) + len;
            if d != Vec2::ZERO && squared(d) < i128::from(reach.to_bits()).pow(2) {
                away = away + d.with_length(fx(1));
            }
        }
        // Squeezing (held three seconds), it may step back out from between them too: wedged
        // between two, each pinned by another, neither had room to let the other by.
        let back_ok = self.squeeze.is_some();
        (away != Vec2::ZERO && (back_ok || away.dot(step) > Fx::ZERO))
            .then(|| from + away.with_length(len))
    }
}
