//! Walking a route (spec: "Walking a route", `Systems::MovementSystem`).
//!
//! Every unit with a route walks once a tick, in id order: its speed from its owner's rules (the
//! ruleset's tiles per second, raised by technologies) times the tick's share of a second,
//! capped by the route's `speed_cap` when it marches with slower units. Within a step it lands on
//! each corner and goes on round it; within [`K_LOOK_AHEAD`] of a corner, with the next one in
//! sight for its body, it cuts the corner. Ground closed across a step replans from where the
//! unit stands, at most [`K_MOST_REPLANS`] times an order; a walk to something ends within its
//! range ([`reach`]); walkers keep apart ([`apart`]); someone on the goal sends the walker to a
//! free place round it ([`goal`]); under the ruleset's `push_idle`, movers push idle friends
//! aside ([`push`]).

pub mod apart;
pub mod goal;
pub mod held;
pub mod lane;
pub mod push;
pub mod settle;
pub mod short;
pub mod shove;

pub use apart::{Stepper, K_KEEP_APART};
pub use goal::{K_MOST_RING_TRIES, K_RINGS, K_RING_SPACING};

use crate::astar::body_clear;
use crate::astar::K_SHORT_ROUTE;
use crate::id::{find, EntityId};
use crate::nav::{box_of, may_end_by, route_beyond, route_for, Ask, Body, Tick, View};
use crate::position::{fx, fx_ratio, Distance, Fx, Vec2};
use crate::state::{Order, Route, Unit, UnitState, TICK_MS};

/// Within this distance of a corner, with the next in sight, a walker cuts the corner: a tile.
pub const K_LOOK_AHEAD: Fx = fx(1);
/// Ground closing across a walk replans it at most this many times an order.
pub const K_MOST_REPLANS: u8 = 4;
/// A walk whose route ends short of its goal (the search's budget spent on a long way, or a
/// short way walked as far as the search got) is planned on from where it ends, at most this
/// many times an order (Cohort's choice: the spec's walk ends there and the order is dropped
/// hundreds of tiles from its goal).
pub const K_MOST_LEGS: u8 = 32;

/// A unit's speed in tiles per second: its kind's, raised by its owner's technologies.
pub fn speed_of(view: View<'_>, u: &Unit) -> Fx {
    let rules = view.rules;
    let base = rules.unit(u.kind).speed;
    let Some(player) = view.state.players.iter().find(|p| p.id == u.owner) else {
        return base;
    };
    let percent: u32 = player
        .technologies
        .iter()
        .filter_map(|&t| rules.technologies.get(t as usize))
        .filter(|t| t.units.contains(&u.kind))
        .map(|t| t.speed_percent)
        .sum();
    if percent == 0 {
        // `base` × 100 / 100 exactly, without the division's cost.
        return base;
    }
    base * Fx::from_num(100 + percent) / fx(100)
}

/// The pace unit `u` walks `route` at: its speed, capped by the route's `speed_cap` when it
/// marches with slower units, and raised [`settle::K_SETTLE_PACE`] times on a settle walk.
pub fn pace_of(view: View<'_>, u: &Unit, route: &Route) -> Fx {
    let mut speed = speed_of(view, u);
    if let Some(cap) = route.speed_cap {
        speed = speed.min(cap);
    }
    if route.settle {
        speed *= settle::K_SETTLE_PACE;
    }
    speed
}

/// How far a unit of `speed` tiles per second walks in one tick.
pub fn speed_per_tick(speed: Fx) -> Fx {
    speed * Fx::from_num(TICK_MS) / fx(1000)
}

/// The widest radius of any unit kind in the world's rules.
pub fn widest(view: View<'_>) -> Fx {
    view.rules
        .units
        .iter()
        .map(|k| k.radius)
        .max()
        .unwrap_or(Fx::ZERO)
}

/// What one tick's walk came to.
enum Outcome {
    /// Still walking; `ring` when it moved on to a free place round a taken goal.
    Walking { at: Vec2, ring: bool },
    /// The walk is over: arrived, in range, or stopped against whoever holds the goal.
    Done(Vec2),
    /// Ground closed across the step: plan again from here.
    Replan(Vec2),
    /// The route ended short of its goal: plan the next leg from here.
    LegEnd(Vec2),
}

/// Walks every route once (tick step 6, with the pushes of `push_idle`). Same state, same walk.
pub fn walk_all(tick: &mut Tick<'_>) {
    let widest = widest(tick.view());
    let mut nearby = Vec::new();
    for i in 0..tick.state.units.len() {
        if tick.state.units[i].hit_points == 0 {
            continue;
        }
        let Some(mut route) = tick.state.units[i].route.take() else {
            if tick.state.units[i].pushed.is_some() {
                push::pushed_step(tick, i, widest);
            } else {
                settle::settle(tick, i, widest);
            }
            continue;
        };
        shove::clear_way(tick, i, &route, widest);
        let outcome = walk(tick.view(), i, &mut route, widest, &mut nearby);
        let now = tick.state.tick;
        let at = match outcome {
            Outcome::Walking { at, ring } => {
                held::note(&mut route, at, now);
                // A step aside held up is looked for afresh from where the unit stands (Cohort's
                // choice: a body stepping out of another, its way to the free place taken
                // meanwhile, stood inside it for good).
                let shut_in = if route.settle {
                    held::held_ticks(&route, now) >= settle::K_SETTLE_EVERY_TICKS
                } else {
                    held::due_detour(&tick.state.units[i], &route, at, now)
                        && held::detour(tick, i, &mut route, at) == held::Detour::ShutIn
                };
                let u = &mut tick.state.units[i];
                if shut_in {
                    finish(u);
                } else {
                    u.ring_tries += u8::from(ring);
                    u.route = Some(route);
                }
                at
            }
            Outcome::Done(at) => {
                finish(&mut tick.state.units[i]);
                at
            }
            Outcome::Replan(at) => {
                replan(tick, i, route, at);
                at
            }
            Outcome::LegEnd(at) => {
                next_leg(tick, i, route, at);
                at
            }
        };
        tick.state.units[i].position = at;
        tick.nav.survey.move_body(i, at);
        if tick.rules.push_idle {
            push::push_ahead(tick, i, widest);
        }
    }
}

/// The stepper for unit `i` walking `route` this tick.
pub fn stepper<'a>(view: View<'a>, i: usize, route: &Route) -> Stepper<'a> {
    stepper_with(view, i, route, widest(view))
}

/// [`stepper`], the widest radius of any unit kind known (`widest`).
fn stepper_with<'a>(view: View<'a>, i: usize, route: &Route, widest: Fx) -> Stepper<'a> {
    let u = &view.state.units[i];
    Stepper {
        squeeze: held::squeezes(route, view.state.tick).then(|| goal::point_of(u, route)),
        stepping_out: route.settle,
        ..Stepper::of_unit(view, i, widest)
    }
}

/// One unit's walk this tick; `nearby` is room for the bodies about it ([`apart::Nearby`]).
fn walk(
    view: View<'_>,
    i: usize,
    route: &mut Route,
    widest: Fx,
    nearby: &mut Vec<Body>,
) -> Outcome {
    let u = &view.state.units[i];
    let radius = view.rules.radius_of(u.kind);
    let speed = pace_of(view, u, route);
    let mut s = stepper_with(view, i, route, widest);
    // Held under a second, it may queue behind its own file for a walker coming out of a narrow
    // way that gets on (`lane`).
    let now = view.state.tick;
    let getting_on = |id: EntityId| {
        find(&view.state.units, id, |v| v.id).is_some_and(|k| {
            view.state.units[k]
                .route
                .as_ref()
                .is_some_and(|r| held::held_ticks(r, now) < lane::K_QUEUE_FOR_GETTING_ON_TICKS)
        })
    };
    let queue: lane::Queue<'_> =
        (held::held_ticks(route, now) < lane::K_QUEUE_WHILE_HELD_TICKS).then_some(&getting_on);
    let mut nearby = Some(nearby);
    // Nothing but this walker moves during its walk: its target's box is looked up once.
    let target_box = route.target.and_then(|t| box_of(view, t));
    let ends_here = |at: Vec2, route: &Route| {
        target_box.is_some_and(|b| may_end_by(at, radius, &b, route.range))
    };
    let mut at = u.position;
    if ends_here(at, route) {
        return Outcome::Done(at);
    }
    let mut left = speed_per_tick(speed);
    let mut held = false;
    while left > Fx::ZERO {
        let Some(&next) = route.waypoints.first() else {
            break;
        };
        // Compared with bounds by its square; its root is taken only for a step that lands.
        let d = Distance::between(at, next);
        if d.is_zero() {
            route.pass_corner();
            continue;
        }
        if route.waypoints.len() > 1
            && d.at_most(K_LOOK_AHEAD)
            && body_clear(s.grid, s.key, at, route.waypoints[1], radius)
            && (route.fine == 0 || s.sees_past_bodies(at, route.waypoints[1], K_LOOK_AHEAD))
        {
            route.pass_corner();
            continue;
        }
        let (to, lands) = if d.at_most(left) {
            (next, true)
        } else {
            (at + (next - at).with_length(left), false)
        };
        // A straight step of a walk pulled straight turns aside for walkers coming at it; a
        // way through the gaps of a crowd (`fine`) is kept to.
        let to = if lands || route.fine > 0 {
            to
        } else {
            lane::keep_lane(&s, at, to, queue)
        };
        if !s.open_step(at, to) {
            return Outcome::Replan(at);
        }
        // A body about to rub into closed ground beside its line slides along it instead.
        let to = if s.body_open(at, to) {
            to
        } else {
            match slide(&s, at, to, next) {
                Some(p) => p,
                // A corner the body cannot come to for closed ground, held within its radius
                // of it, is passed (Cohort's choice: a line may end against closed ground, so
                // a corner beside a tree can be one the body never reaches, and a trebuchet
                // stood a step from such a corner for good). So is the last corner of a walk to
                // a point or of a leg: the walk ends or plans on from here (a galley stood for
                // good 0.075 tiles from the end of its way through a strait, the shore
                // between); a walk to a target ends within its range instead.
                None if (route.waypoints.len() > 1 || route.target.is_none())
                    && d.at_most(radius) =>
                {
                    route.pass_corner();
                    continue;
                }
                None => {
                    held = true;
                    break;
                }
            }
        };
        let lands = lands && to == next;
        let p = if s.crowds(at, to) {
            // Every point the rest of the step asks about lies within twice what is left of it
            // (a bend is no longer than the step).
            if let Some(room) = nearby.take() {
                let reach = radius + s.survey.widest() + left * 2 + fx_ratio(1, 16);
                s.nearby = apart::Nearby::gather(&view.nav.survey, u.id, at, reach, room);
            }
            s.bend(at, to)
        } else {
            to
        };
        if p == at {
            held = true;
            break;
        }
        left -= if p == to && d.at_most(left) {
            d.value()
        } else {
            left
        };
        at = p;
        if ends_here(at, route) {
            return Outcome::Done(at);
        }
        if p != to {
            break;
        }
        if lands {
            route.pass_corner();
        }
    }
    if route.waypoints.is_empty() {
        let short = !route.has_goal && route.target.is_none();
        return if short {
            Outcome::LegEnd(at)
        } else {
            Outcome::Done(at)
        };
    }
    // A settle walk's place was chosen clear of everyone (`settle`): it walks there and ends,
    // not turned to another place by whoever stands near it (Cohort's choice: a follower
    // settled beside its friend was turned away by the friend standing near its place, and
    // walked to and fro between the two for good).
    if route.target.is_none() && !route.settle {
        // Someone on the goal: stop against them, then make for a free place round it. A walker
        // held still on its last leg, or near the goal, by those walking in does the same.
        let goal = goal::point_of(u, route);
        let near_goal = goal::near_point(u, route, at);
        // Held still: this tick, or, jostled by those milling about, for a second without
        // getting on (Cohort's choice: a walker that moves a little every tick is held too).
        let held = held || held::held_ticks(route, view.state.tick) >= held::K_HELD_STILL_TICKS;
        // Walking into a crowd at the goal: it makes for a free place round the point while one
        // is left (Cohort's choice: a group arriving in file spreads round its point rather
        // than stand in a tail behind it), else stops against those it comes to.
        let into_crowd = held && !near_goal && goal::against_crowd_at(&s, at, goal);
        let up_to_goal = route.waypoints.len() == 1 || near_goal;
        let against = up_to_goal
            && at.chebyshev(goal) <= (radius + widest) * 2
            && goal::taken_by(&s, goal).is_some_and(|b| goal::up_against(&s, at, b));
        if into_crowd || (up_to_goal && held && near_goal) || against {
            if u.ring_tries >= K_MOST_RING_TRIES {
                return Outcome::Done(at);
            }
            return match goal::free_place(view, &s, at, goal) {
                Some(p) => {
                    route.waypoints = vec![p];
                    route.goal = p;
                    route.has_goal = true;
                    route.fine = 0;
                    // Held afresh (the held-still clock and the ring tries count from
                    // here), but its squeeze and press count on from its last stride
                    // (Cohort's choice: a walker in the crowd at its point, turned to a free
                    // place there, squeezed all over again and stood 12.2 s).
                    let old = route.progress;
                    route.progress = crate::state::Progress {
                        strode: old.strode,
                        strode_from: old.strode_from,
                        squeeze_from: old.squeeze_from,
                        ..crate::state::Progress::from(view.state.tick)
                    };
                    Outcome::Walking { at, ring: true }
                }
                None => Outcome::Done(at),
            };
        }
    }
    Outcome::Walking { at, ring: false }
}

/// The step from `at` toward `to` along one axis only, whichever goes further with the body
/// clear of closed ground: sliding along a wall. Along an axis on which the corner lies the way
/// the step goes, it slides the step's whole length, up to the corner's line (Cohort's choice:
/// sliding by the step's share along the axis, a mangonel whose way into a corridor ran at a
/// shallow angle past its mouth crept along the wall at a tenth of its pace, and a file of them
/// stood ten seconds at the mouth); along any other, the step's share.
fn slide(s: &Stepper, at: Vec2, to: Vec2, corner: Vec2) -> Option<Vec2> {
    let len = (to - at).length();
    let along = |from: Fx, to: Fx, corner: Fx| {
        let share = to - from;
        let room = corner - from;
        if share == Fx::ZERO || share.signum() != room.signum() {
            return to;
        }
        from + share.signum() * share.abs().max(room.abs().min(len))
    };
    let along_x = Vec2::new(along(at.x, to.x, corner.x), at.y);
    let along_y = Vec2::new(at.x, along(at.y, to.y, corner.y));
    let mut options = [
        ((to.x - at.x).abs(), along_x),
        ((to.y - at.y).abs(), along_y),
    ];
    options.sort_by_key(|o| std::cmp::Reverse(o.0));
    options
        .into_iter()
        .map(|(_, p)| p)
        .find(|&p| p != at && s.open_step(at, p) && s.body_open(at, p))
}

/// A walk is over: a move (or an attack-move with nothing left to fight) is done.
fn finish(u: &mut Unit) {
    u.route = None;
    match u.order {
        Order::Move { .. } => {
            u.order = Order::Idle;
            u.state = UnitState::Idle;
        }
        Order::AttackMove { .. } if u.fight.is_none() => {
            u.order = Order::Idle;
            u.state = UnitState::Idle;
        }
        _ => {}
    }
}

/// Gives up a unit's order: it stands idle.
pub fn give_up(u: &mut Unit) {
    u.route = None;
    u.fight = None;
    u.order = Order::Idle;
    u.state = UnitState::Idle;
}

/// The route ran out short of its goal: plan the next leg from where the unit stands, up to
/// [`K_MOST_LEGS`] an order; when there is none, or no leg left, the walk is over there. A long
/// way's next leg ([`K_SHORT_ROUTE`] or more) is searched without the budget
/// ([`route_beyond`]); a short way's (walked as far as the search got into a crowd) within it,
/// as the crowd may have moved on. The next leg is held as long as the last was
/// ([`held::held_on_a_new_walk`]).
fn next_leg(tick: &mut Tick<'_>, i: usize, old: Route, at: Vec2) {
    let id = tick.state.units[i].id;
    if old.legs >= K_MOST_LEGS {
        finish(&mut tick.state.units[i]);
        return;
    }
    let ask = Ask {
        unit: id,
        from: at,
        to: old.goal,
        target: None,
        range: old.range,
    };
    tick.counters.replans += 1;
    let long = at.chebyshev(old.goal) >= Fx::from_num(K_SHORT_ROUTE);
    let next = if long {
        route_beyond(tick, &ask)
    } else {
        route_for(tick, &ask)
    };
    match next {
        Some(mut r) => {
            r.legs = old.legs + 1;
            r.replans = old.replans;
            r.speed_cap = old.speed_cap;
            // Held as long as before (Cohort's choice): a detour that ran out a step from where
            // the walker was held is no headway, and a walker held at a corridor's mouth had
            // its squeeze begun afresh with every such leg.
            r.progress = held::held_on_a_new_walk(&old.progress, &r, at);
            tick.state.units[i].route = Some(r);
        }
        None => finish(&mut tick.state.units[i]),
    }
}

/// Ground closed across the walk: plan again from where the unit stands, up to
/// [`K_MOST_REPLANS`] times an order; then the order is given up.
fn replan(tick: &mut Tick<'_>, i: usize, old: Route, at: Vec2) {
    let id = tick.state.units[i].id;
    if old.replans >= K_MOST_REPLANS {
        give_up(&mut tick.state.units[i]);
        return;
    }
    let ask = Ask {
        unit: id,
        from: at,
        to: old.goal,
        target: old.target,
        range: old.range,
    };
    tick.counters.replans += 1;
    match route_for(tick, &ask) {
        Some(mut r) => {
            r.replans = old.replans + 1;
            r.legs = old.legs;
            r.speed_cap = old.speed_cap;
            tick.state.units[i].route = Some(r);
        }
        None => give_up(&mut tick.state.units[i]),
    }
}
