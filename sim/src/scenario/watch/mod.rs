//! Watching a run for what a player would call broken: units that have an order but make no
//! progress (stalls), bodies nearer than keep-apart allows (overlaps), bodies pressed into closed
//! ground, and what each player gathered. The instrument of `cohort sim --json`
//! (docs/SCENARIOS.md, "What a run came to"), of the crowd soak and of the behaviour tests.
//!
//! It only reads the world after each tick, from what anyone can see of it (positions, orders,
//! routes, loads, reloads, hit points), never the walk's own idea of whether it is getting on,
//! so a rule that fools itself is still caught. Deterministic like the sim: same run, same
//! figures.

use crate::grid::Keyed;
use crate::id::{EntityId, PlayerId};
use crate::nav::in_range;
use crate::position::{fx_ratio, tile_of, Fx, Vec2};
use crate::ruleset::Good;
use crate::state::{Counters, Order, Unit, TICK_MS};
use crate::tick::K_FOLLOW_RANGE;
use crate::walk::apart::K_BODY_SLACK;
use crate::world::World;

pub mod bodies;
pub use bodies::{BodiesReport, CloseRun, Overlap, Pile};
pub mod waits;
pub use waits::{Wait, WaitFor};

/// A unit with an order that has made no progress for this many ticks (10 s of game time) is
/// stalled.
pub const K_STALL_TICKS: u64 = 10_000 / TICK_MS as u64;
/// Progress is walking at least this far (half a tile) from where the unit stood when it last
/// made progress, or doing its work.
pub const K_STALL_REACH: Fx = fx_ratio(1, 2);
/// Ticks in a second of game time, rounded up: replan storms are counted per second.
const TICKS_PER_SECOND: u64 = 1000_u64.div_ceil(TICK_MS as u64);

/// One unit not getting on: who, since when, for how long, and whether it stands waiting for a
/// place at a target whose every place is taken (rather than held with a walk it cannot make).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stall {
    pub unit: EntityId,
    /// The tick of its last progress.
    pub since: u64,
    /// Ticks since then: of those it stood waiting (`waiting`), or since it last stood waiting
    /// (a wait that ends in a walk is not a stall of the walk).
    pub ticks: u64,
    /// It stands, with no walk, waiting for a place at a full target (a villager a body's width
    /// out from a full mine, a soldier round a crowded enemy).
    pub waiting: bool,
}

/// A stall that reached [`K_STALL_TICKS`], and the order the unit had when it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongStall {
    pub stall: Stall,
    pub order: Order,
}

/// An order that ended on its own (not by a command): the unit stands idle now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ended {
    pub unit: EntityId,
    pub tick: u64,
    /// The order it had.
    pub order: Order,
    /// How far it stood from what the order was about: the point of a move, the box of a
    /// target; `None` when the target is gone.
    pub distance: Option<Fx>,
}

/// A body over closed ground.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InClosed {
    pub unit: EntityId,
    /// How deep its box reaches into closed ground, past the body's slack.
    pub depth: Fx,
    pub tick: u64,
}

/// What one unit looked like after the last tick, and where it last made progress.
#[derive(Clone, Debug)]
struct Track {
    unit: EntityId,
    anchor: Vec2,
    since: u64,
    carrying: Option<(Good, u32)>,
    gather_progress: Fx,
    reload_ticks: u32,
    order: Order,
    /// Whether it stood waiting for a place after the last tick.
    waiting: bool,
    /// Ticks since `since` it stood waiting.
    waited: u64,
    /// The last tick since `since` it stood waiting (`since` if none).
    last_waited: u64,
}

impl Track {
    /// How it is getting on at `tick`: waiting, for the ticks it waited; else held, for the
    /// ticks since it last stood waiting (a wait ended, its walk starts its count afresh).
    fn stall(&self, tick: u64) -> Stall {
        Stall {
            unit: self.unit,
            since: self.since,
            ticks: if self.waiting {
                self.waited
            } else {
                tick - self.last_waited.max(self.since)
            },
            waiting: self.waiting,
        }
    }
}

/// The watch over a run.
#[derive(Clone, Debug, Default)]
pub struct Watch {
    /// In unit id order.
    tracks: Vec<Track>,
    longest_stall: Option<Stall>,
    longest_wait: Option<Stall>,
    /// Every stall (waits apart) that reached [`K_STALL_TICKS`], in the order each reached it.
    long_stalls: Vec<LongStall>,
    /// How near bodies came, and for how long.
    bodies: bodies::Bodies,
    /// Every wait for a place, and how long of it a place stood free.
    waits: waits::Waits,
    deepest_in_closed: Option<InClosed>,
    ended: Vec<Ended>,
    /// Units named by a command this tick: their orders may end without their ending.
    commanded: Vec<EntityId>,
    start_stock: Vec<(PlayerId, [u32; 4])>,
    started: bool,
    /// Unit-ticks of units with an order to carry out (not idle, not holding).
    busy_unit_ticks: u64,
    /// Replans in the current second and units with an order in it, and the worst second.
    second: (u64, u64, u64),
    peak_replans_per_unit_second: Option<(u64, u64)>,
    last_counters: Counters,
    /// The counters' rise at every tick, when asked for.
    per_tick: Option<Vec<Counters>>,
}

/// What the watch saw, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchReport {
    /// Units stalled now (no progress for [`K_STALL_TICKS`] or more), in id order.
    pub stalled: Vec<Stall>,
    /// The longest stall seen during the run, over or not (waits apart).
    pub longest_stall: Option<Stall>,
    /// The longest wait for a place seen during the run.
    pub longest_wait: Option<Stall>,
    /// Every stall (waits apart) that reached [`K_STALL_TICKS`] during the run, over or not, in
    /// the order each reached it: its length when it ended, or now.
    pub long_stalls: Vec<LongStall>,
    /// Bodies nearer than keep-apart allows: now, during the run, standing ([`BodiesReport`]).
    pub bodies: BodiesReport,
    /// Every wait for a place of [`waits::K_WAIT_LISTED_TICKS`] or more, over or going on, in
    /// the order each began ([`waits`]).
    pub waits: Vec<Wait>,
    /// Bodies over closed ground now, in id order.
    pub in_closed_ground: Vec<InClosed>,
    /// The deepest any body reached into closed ground during the run.
    pub deepest_in_closed_ground: Option<InClosed>,
    /// Orders that ended on their own during the run, in the order they ended.
    pub ended: Vec<Ended>,
    /// What each player gathered during the run (stock now less stock at the start), by good.
    pub gathered: Vec<(PlayerId, [u32; 4])>,
    /// Seconds of game time times units with an order, summed over the run.
    pub busy_unit_seconds: Fx,
    /// The worst second for replans: (replans in it, units with an order in it).
    pub peak_replans_per_unit_second: Option<(u64, u64)>,
    /// The counters' rise at every tick, when asked for ([`Watch::keep_per_tick`]).
    pub per_tick: Option<Vec<Counters>>,
}

impl Watch {
    /// A watch that also keeps the counters' rise at every tick.
    pub fn keep_per_tick(&mut self) {
        self.per_tick.get_or_insert_with(Vec::new);
    }

    /// The units named by the commands given at the tick about to run: an order they lose is
    /// not an order that ended on its own.
    pub fn commanded(&mut self, units: impl IntoIterator<Item = EntityId>) {
        self.commanded.clear();
        self.commanded.extend(units);
        self.commanded.sort_unstable();
    }

    /// Looks at the world before the first tick the watch sees (nothing after that).
    pub fn observe_start(&mut self, world: &World) {
        if !self.started {
            self.observe(world);
        }
    }

    /// Looks at the world after a tick (and once before the first).
    pub fn observe(&mut self, world: &World) {
        let tick = world.tick();
        self.bodies.observe(world);
        if !self.started {
            self.started = true;
            self.start_stock = world
                .state
                .players
                .iter()
                .map(|p| (p.id, p.stock))
                .collect();
            self.last_counters = world.counters.clone();
        }
        self.progress(world, tick);
        // Waiting this tick: standing waiting, and no progress made (a worker at its spot at
        // work has a spot and no walk too).
        let tracks = &self.tracks;
        self.waits.observe(world, tick, |u| {
            tracks
                .binary_search_by_key(&u.id, |t| t.unit)
                .is_ok_and(|k| tracks[k].waiting && tracks[k].since < tick)
        });
        for c in closed_now(world, tick) {
            if self.deepest_in_closed.is_none_or(|d| c.depth > d.depth) {
                self.deepest_in_closed = Some(c);
            }
        }
        self.count(world, tick);
        self.commanded.clear();
    }

    /// Follows every unit's progress.
    fn progress(&mut self, world: &World, tick: u64) {
        let mut tracks = Vec::with_capacity(world.state.units.len());
        let mut old = std::mem::take(&mut self.tracks).into_iter().peekable();
        for u in &world.state.units {
            while old.next_if(|t| t.unit < u.id).is_some() {}
            let before = old.next_if(|t| t.unit == u.id);
            let mut t = before.unwrap_or(Track {
                unit: u.id,
                anchor: u.position,
                since: tick,
                carrying: u.carrying,
                gather_progress: u.gather_progress,
                reload_ticks: u.reload_ticks,
                order: u.order.clone(),
                waiting: false,
                waited: 0,
                last_waited: tick,
            });
            let was_busy = !matches!(t.order, Order::Idle | Order::Hold);
            if was_busy && u.order == Order::Idle && self.commanded.binary_search(&u.id).is_err() {
                self.ended.push(Ended {
                    unit: u.id,
                    tick,
                    order: t.order.clone(),
                    distance: distance_from(world, u, &t.order),
                });
            }
            t.order = u.order.clone();
            let worked = t.carrying != u.carrying
                || t.gather_progress != u.gather_progress
                || u.reload_ticks > t.reload_ticks;
            let moved = squared(u.position - t.anchor) >= squared_fx(K_STALL_REACH);
            if !has_work(u) || worked || moved || content(world, u) {
                t.anchor = u.position;
                t.since = tick;
                t.waited = 0;
                t.last_waited = tick;
            }
            t.carrying = u.carrying;
            t.gather_progress = u.gather_progress;
            t.reload_ticks = u.reload_ticks;
            t.waiting = waiting(u);
            if t.waiting && t.since < tick {
                t.waited += 1;
                t.last_waited = tick;
            }
            let stall = t.stall(tick);
            let longest = if stall.waiting {
                &mut self.longest_wait
            } else {
                &mut self.longest_stall
            };
            if stall.ticks > 0 && longest.is_none_or(|l| stall.ticks > l.ticks) {
                *longest = Some(stall);
            }
            if !stall.waiting && stall.ticks >= K_STALL_TICKS {
                let same = |s: &&mut LongStall| s.stall.unit == u.id && s.stall.since == t.since;
                match self.long_stalls.iter_mut().rev().find(same) {
                    Some(s) => s.stall.ticks = stall.ticks,
                    None => self.long_stalls.push(LongStall {
                        stall,
                        order: u.order.clone(),
                    }),
                }
            }
            tracks.push(t);
        }
        self.tracks = tracks;
    }

    /// Rates: busy unit-time, replans per second, counters per tick.
    fn count(&mut self, world: &World, tick: u64) {
        let busy = world.state.units.iter().filter(|u| has_work(u)).count() as u64;
        self.busy_unit_ticks += busy;
        let c = &world.counters;
        let rise = Counters {
            route_searches: c.route_searches - self.last_counters.route_searches,
            node_expansions: c.node_expansions - self.last_counters.node_expansions,
            shared_walks: c.shared_walks - self.last_counters.shared_walks,
            replans: c.replans - self.last_counters.replans,
            ignored_commands: c.ignored_commands - self.last_counters.ignored_commands,
            most_expansions: c.most_expansions,
        };
        self.second.0 += rise.replans;
        self.second.1 = self.second.1.max(busy);
        if tick > 0 && tick.is_multiple_of(TICKS_PER_SECOND) {
            let (replans, units, _) = self.second;
            let worse = |(r, n): (u64, u64)| {
                u128::from(replans) * u128::from(n.max(1))
                    > u128::from(r) * u128::from(units.max(1))
            };
            if replans > 0 && self.peak_replans_per_unit_second.is_none_or(worse) {
                self.peak_replans_per_unit_second = Some((replans, units));
            }
            self.second = (0, 0, 0);
        }
        if let Some(per_tick) = &mut self.per_tick {
            if tick > 0 {
                per_tick.push(rise);
            }
        }
        self.last_counters = c.clone();
    }

    /// What the watch saw, with the world as it is now.
    pub fn report(&self, world: &World) -> WatchReport {
        let tick = world.tick();
        let stalled = self
            .tracks
            .iter()
            .map(|t| t.stall(tick))
            .filter(|s| s.ticks >= K_STALL_TICKS)
            .collect();
        let gathered = world
            .state
            .players
            .iter()
            .map(|p| {
                let start = self
                    .start_stock
                    .iter()
                    .find(|s| s.0 == p.id)
                    .map_or([0; 4], |s| s.1);
                let mut g = [0u32; 4];
                for k in 0..4 {
                    g[k] = p.stock[k].saturating_sub(start[k]);
                }
                (p.id, g)
            })
            .collect();
        WatchReport {
            stalled,
            longest_stall: self.longest_stall,
            longest_wait: self.longest_wait,
            long_stalls: self.long_stalls.clone(),
            bodies: self.bodies.report(),
            waits: self.waits.report(),
            in_closed_ground: closed_now(world, tick),
            deepest_in_closed_ground: self.deepest_in_closed,
            ended: self.ended.clone(),
            gathered,
            busy_unit_seconds: Fx::from_num(self.busy_unit_ticks) * Fx::from_num(TICK_MS)
                / Fx::from_num(1000),
            peak_replans_per_unit_second: self.peak_replans_per_unit_second,
            per_tick: self.per_tick.clone(),
        }
    }
}

/// Whether a unit has an order it must move or work to carry out (idle and holding units never
/// stall).
fn has_work(u: &Unit) -> bool {
    u.hit_points > 0 && !matches!(u.order, Order::Idle | Order::Hold)
}

/// Whether a unit stands where its order wants it, with nothing to walk: a follower near its
/// target, a fighter in range of what it fights, a builder at its foundation.
fn content(world: &World, u: &Unit) -> bool {
    let kind = &world.rules().unit(u.kind);
    match u.order {
        Order::Follow { target } => {
            u.route.is_none()
                && in_range(
                    world.view(),
                    u.position,
                    kind.radius,
                    target,
                    K_FOLLOW_RANGE,
                )
        }
        Order::Attack { .. } | Order::AttackMove { .. } => {
            u.route.is_none()
                && u.fight
                    .is_some_and(|t| in_range(world.view(), u.position, kind.radius, t, kind.range))
        }
        Order::Build { target } => {
            u.route.is_none()
                && world.building(target).is_some_and(|b| !b.complete)
                && in_range(
                    world.view(),
                    u.position,
                    kind.radius,
                    target,
                    crate::nav::K_INSIDE,
                )
        }
        _ => false,
    }
}

/// How far `u` stands from what `order` was about: a move's point, a target's box.
fn distance_from(world: &World, u: &Unit, order: &Order) -> Option<Fx> {
    let radius = world.rules().radius_of(u.kind);
    match *order {
        Order::Move { to } | Order::AttackMove { to } => Some(u.position.distance(to)),
        Order::Attack { target }
        | Order::Follow { target }
        | Order::Gather { target }
        | Order::Build { target } => crate::nav::box_of(world.view(), target).map(|b| {
            crate::nav::reach_gap(&crate::position::Bounds::around(u.position, radius), &b)
        }),
        Order::Idle | Order::Hold => None,
    }
}

/// Whether a unit stands, with no walk, waiting for a place at a full target.
fn waiting(u: &Unit) -> bool {
    u.route.is_none()
        && (u.chase_waits
            || (matches!(u.order, Order::Gather { .. } | Order::Build { .. })
                && u.work_spot.is_some()))
}

/// Every body over closed ground now (past its slack), in id order.
fn closed_now(world: &World, tick: u64) -> Vec<InClosed> {
    world
        .state
        .units
        .iter()
        .filter(|u| u.hit_points > 0)
        .filter_map(|u| {
            let radius = world.rules().radius_of(u.kind);
            let depth = depth_in_closed(world, world.key_of(u), u.position, radius);
            (depth > Fx::ZERO).then_some(InClosed {
                unit: u.id,
                depth,
                tick,
            })
        })
        .collect()
}

/// How deep a body's box (less its slack) reaches into the closed tiles it overlaps: on each
/// closed tile the lesser of its two overlaps, the deepest over the tiles.
fn depth_in_closed(world: &World, key: Keyed, at: Vec2, radius: Fx) -> Fx {
    let r = radius - K_BODY_SLACK;
    if r <= Fx::ZERO {
        return Fx::ZERO;
    }
    let half = fx_ratio(1, 2);
    let grid = world.grid();
    let mut deepest = Fx::ZERO;
    for y in tile_of(at.y - r)..=tile_of(at.y + r) {
        for x in tile_of(at.x - r)..=tile_of(at.x + r) {
            let t = crate::position::Tile::new(x, y);
            if grid.passable(key, t) {
                continue;
            }
            let (cx, cy) = (Fx::from_num(x), Fx::from_num(y));
            let ox = (at.x + r).min(cx + half) - (at.x - r).max(cx - half);
            let oy = (at.y + r).min(cy + half) - (at.y - r).max(cy - half);
            let d = ox.min(oy);
            if d > deepest {
                deepest = d;
            }
        }
    }
    deepest
}

fn squared(v: Vec2) -> i128 {
    crate::position::squared(v)
}

fn squared_fx(d: Fx) -> i128 {
    let b = i128::from(d.to_bits());
    b * b
}
