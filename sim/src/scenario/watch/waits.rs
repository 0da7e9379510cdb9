//! Waits judged (the orders issue, item 6): every wait for a place, what it waits for and how
//! long, and how long of it a place the unit could take stood free.
//!
//! A unit **waits** when it stands with no walk for a place at a target every place of which its
//! planner counts taken ([`super::waiting`]). What it waits for:
//!
//! - a **spot** at its work: a villager a body's width out from a full mine, drop site or
//!   foundation;
//! - a **place** at its target: a soldier that fights hand to hand, round a crowded enemy;
//! - a **firing place**: a unit that shoots (range over [`K_SHOOTS_FROM`]) with no place in range.
//!
//! The watch looks for itself, every [`K_WAIT_LOOK_TICKS`], whether a place the unit could take
//! is free — never asking the unit's own planner, so a planner that counts a free place taken is
//! caught: a point on open ground of the unit's own region (its whole body clear of closed
//! ground) within reach of the target (touching a spot's ground, within its range of a target),
//! whose body would touch no other body (each kept its own and the unit's two radii off, body
//! beside body). On a ring round the target's box a sixteenth of a tile apart, for a shooter on
//! rings a body's width apart from its range line in to the box's edge. A wait during which such
//! a place stood free for [`K_WAIT_WHILE_FREE_TICKS`] fails the scene and the soak.

use crate::id::EntityId;
use crate::nav::{box_of, reach_gap, region_here, spot::stands_in, K_INSIDE};
use crate::position::{fx_ratio, squared, tile_of, Bounds, Fx, Vec2};
use crate::state::{Order, Unit, TICK_MS};
use crate::world::World;
use std::collections::BTreeMap;

/// A wait is listed when it lasts this long (a second of game time).
pub const K_WAIT_LISTED_TICKS: u64 = 1000 / TICK_MS as u64;
/// The watch looks whether a place is free for each waiting unit once in this many ticks
/// (a quarter of a second, about).
pub const K_WAIT_LOOK_TICKS: u64 = 16;
/// A wait during which a place the unit could take stood free this long (a minute of game
/// time, the figure) fails the run.
pub const K_WAIT_WHILE_FREE_TICKS: u64 = 60_000 / TICK_MS as u64;
/// A unit whose range is over this (a tile) shoots: it waits for a firing place.
pub const K_SHOOTS_FROM: Fx = Fx::ONE;
/// Points on a ring round a target are looked at this far apart (a sixteenth of a tile).
const K_RING_STEP: Fx = fx_ratio(1, 16);

/// What a unit waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WaitFor {
    /// A spot at its work (a resource, a drop site, a foundation).
    Spot,
    /// A place at its target, to fight it hand to hand.
    Place,
    /// A place within its range of its target, to shoot it from.
    FiringPlace,
}

impl WaitFor {
    /// Its name in `cohort sim --json` (`spot`, `place`, `firing_place`).
    pub fn name(self) -> &'static str {
        match self {
            WaitFor::Spot => "spot",
            WaitFor::Place => "place",
            WaitFor::FiringPlace => "firing_place",
        }
    }
}

/// One wait for a place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    pub unit: EntityId,
    pub waits_for: WaitFor,
    /// The tick it began waiting.
    pub since: u64,
    /// Ticks it waited.
    pub ticks: u64,
    /// Ticks of those a place it could take stood free (looked at every [`K_WAIT_LOOK_TICKS`]).
    pub free_ticks: u64,
    /// The last such place seen free.
    pub free_at: Option<Vec2>,
}

impl Wait {
    /// Whether a place it could take stood free for [`K_WAIT_WHILE_FREE_TICKS`] of it.
    pub fn fails(&self) -> bool {
        self.free_ticks >= K_WAIT_WHILE_FREE_TICKS
    }
}

/// Every wait of a run: those going on (in unit id order) and those over.
#[derive(Clone, Debug, Default)]
pub(super) struct Waits {
    open: Vec<Wait>,
    over: Vec<Wait>,
}

impl Waits {
    /// After a tick: `waiting` says which units stand waiting now.
    pub(super) fn observe(&mut self, world: &World, tick: u64, waiting: impl Fn(&Unit) -> bool) {
        let look = tick.is_multiple_of(K_WAIT_LOOK_TICKS);
        let mut bodies = None;
        let mut open = Vec::with_capacity(self.open.len());
        let mut old = std::mem::take(&mut self.open).into_iter().peekable();
        for u in &world.state.units {
            while let Some(w) = old.next_if(|w| w.unit < u.id) {
                self.close(w);
            }
            let before = old.next_if(|w| w.unit == u.id);
            let now = waiting(u).then(|| wait_for(world, u)).flatten();
            let mut w = match (before, now) {
                (Some(w), Some(f)) if w.waits_for == f => w,
                (before, Some(f)) => {
                    if let Some(w) = before {
                        self.close(w);
                    }
                    Wait {
                        unit: u.id,
                        waits_for: f,
                        since: tick,
                        ticks: 0,
                        free_ticks: 0,
                        free_at: None,
                    }
                }
                (before, None) => {
                    if let Some(w) = before {
                        self.close(w);
                    }
                    continue;
                }
            };
            w.ticks += 1;
            if look {
                let bodies = bodies.get_or_insert_with(|| Bodies::of(world));
                if let Some(p) = place_free(world, bodies, u, w.waits_for) {
                    w.free_ticks += K_WAIT_LOOK_TICKS;
                    w.free_at = Some(p);
                }
            }
            open.push(w);
        }
        for w in old {
            self.close(w);
        }
        self.open = open;
    }

    fn close(&mut self, w: Wait) {
        if w.ticks >= K_WAIT_LISTED_TICKS {
            self.over.push(w);
        }
    }

    /// Every wait of [`K_WAIT_LISTED_TICKS`] or more, over or going on, in the order each
    /// began (then by unit id).
    pub(super) fn report(&self) -> Vec<Wait> {
        let mut all: Vec<Wait> = self
            .over
            .iter()
            .chain(self.open.iter().filter(|w| w.ticks >= K_WAIT_LISTED_TICKS))
            .copied()
            .collect();
        all.sort_by_key(|w| (w.since, w.unit));
        all
    }
}

/// What unit `u`, standing waiting, waits for; `None` when it has nothing to wait at.
fn wait_for(world: &World, u: &Unit) -> Option<WaitFor> {
    match u.order {
        Order::Gather { .. } | Order::Build { .. } => Some(WaitFor::Spot),
        Order::Attack { .. } | Order::AttackMove { .. } | Order::Hold => {
            let range = world.rules().units[u.kind as usize].range;
            Some(if range > K_SHOOTS_FROM {
                WaitFor::FiringPlace
            } else {
                WaitFor::Place
            })
        }
        _ => None,
    }
}

/// A body as a look reads it: who, its middle, its radius.
type Seen = (EntityId, Vec2, Fx);

/// Every living body's middle and radius, filed by tile, for the looks of one tick.
struct Bodies {
    by_tile: BTreeMap<(i32, i32), Vec<Seen>>,
    widest: Fx,
}

impl Bodies {
    fn of(world: &World) -> Bodies {
        let mut by_tile: BTreeMap<(i32, i32), Vec<Seen>> = BTreeMap::new();
        let mut widest = Fx::ZERO;
        for u in world.state.units.iter().filter(|u| u.hit_points > 0) {
            let r = world.rules().radius_of(u.kind);
            widest = widest.max(r);
            let t = u.position.tile();
            by_tile
                .entry((t.x, t.y))
                .or_default()
                .push((u.id, u.position, r));
        }
        Bodies { by_tile, widest }
    }

    /// Whether a body of `radius` at `p` would touch no body but `me`'s and `target`'s.
    fn clear(&self, p: Vec2, radius: Fx, me: EntityId, target: Option<EntityId>) -> bool {
        let reach = radius + self.widest;
        let (lo, hi) = (tile_of(p.x - reach), tile_of(p.x + reach));
        let (top, bottom) = (tile_of(p.y - reach), tile_of(p.y + reach));
        (top..=bottom).all(|y| {
            (lo..=hi).all(|x| {
                self.by_tile.get(&(x, y)).is_none_or(|bs| {
                    bs.iter().all(|&(id, m, r)| {
                        let apart = i128::from((radius + r).to_bits());
                        id == me || Some(id) == target || squared(p - m) >= apart * apart
                    })
                })
            })
        })
    }
}

/// A place unit `u` could take, of the kind it waits for, that stands free (see the module).
fn place_free(world: &World, bodies: &Bodies, u: &Unit, waits_for: WaitFor) -> Option<Vec2> {
    let view = world.view();
    let kind = &world.rules().units[u.kind as usize];
    let radius = kind.radius;
    let (target, reach) = match u.order {
        Order::Gather { target } | Order::Build { target } => (Some(target), K_INSIDE),
        _ => (u.fight, kind.range.max(K_INSIDE)),
    };
    let tbox = box_of(view, target?)?;
    let key = world.key_of(u);
    let region = region_here(view.regions, view.grid(), key, u.position.tile());
    let free = |p: Vec2| {
        reach_gap(&Bounds::around(p, radius), &tbox) <= reach
            && stands_in(view, key, region, p, radius)
            && bodies.clear(p, radius, u.id, target)
    };
    // The rings: at the reach, and for a shooter a body's width at a time in to the box.
    let mut gap = reach - K_INSIDE / 2;
    loop {
        if let Some(p) = ring(&tbox, gap.max(Fx::ZERO) + radius).find(|&p| free(p)) {
            return Some(p);
        }
        if waits_for != WaitFor::FiringPlace || gap <= Fx::ZERO {
            return None;
        }
        gap -= radius * 2;
    }
}

/// Points round `tbox`, `out` off its edges, [`K_RING_STEP`] apart along each side (corners
/// squared: what lies out of reach there is passed over by the caller).
fn ring(tbox: &Bounds, out: Fx) -> impl Iterator<Item = Vec2> {
    let b = tbox.widened(out);
    let steps = |lo: Fx, hi: Fx| {
        let n = ((hi - lo) / K_RING_STEP).to_num::<i64>().max(0);
        (0..=n).map(move |k| lo + K_RING_STEP * Fx::from_num(k))
    };
    let top = steps(b.min.x, b.max.x).map(move |x| Vec2::new(x, b.min.y));
    let bottom = steps(b.min.x, b.max.x).map(move |x| Vec2::new(x, b.max.y));
    let left = steps(b.min.y, b.max.y).map(move |y| Vec2::new(b.min.x, y));
    let right = steps(b.min.y, b.max.y).map(move |y| Vec2::new(b.max.x, y));
    top.chain(bottom).chain(left).chain(right)
}
