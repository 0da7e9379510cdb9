//! Every route in play is asked for here (spec: "Finding a route", `Navigation::Route`).
//!
//! A route that cannot exist (the goal in another region) is refused at once, without a search.
//! Otherwise the units standing about the way are gathered (a big crowd at the goal costing
//! nothing), the A* searches with the unit's layer, and the chain of tiles is pulled straight for
//! the unit's body.

use super::crowd::{crowd_at_goal, go_straight_in};
use super::standing::{holds_ground, standing_in_the_way};
use super::survey::Body;
use super::{Tick, View};
use crate::astar::{
    find_route, straighten, wider_than_a_tile, Budget, Search, StandingBody, Walker,
};
use crate::grid::{Grid, Keyed, RegionId, Regions};
use crate::id::EntityId;
use crate::position::{Bounds, Fx, Tile, Vec2};
use crate::state::{Progress, Route};

/// What a route is asked for: who walks, from where, to where, and to what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    /// The walker: its layer, key and radius come from it, and it is never in its own way.
    pub unit: EntityId,
    /// Where the walk starts (where the unit stands, for every caller but a replan test).
    pub from: Vec2,
    /// Where the walk should end.
    pub to: Vec2,
    /// What the walk goes to, if anything: never counted among the standing units in the way,
    /// and kept in the route so the walk can end within `range` of its box.
    pub target: Option<EntityId>,
    /// A walk to `target` ends within this range of its box.
    pub range: Fx,
}

impl Ask {
    /// A walk for `unit` from where it stands to the point `to`, or `None` when there is no such
    /// unit.
    pub fn to_point(view: View<'_>, unit: EntityId, to: Vec2) -> Option<Ask> {
        let u = view.unit(unit)?;
        Some(Ask {
            unit,
            from: u.position,
            to,
            target: None,
            range: Fx::ZERO,
        })
    }
}

/// A route for `unit` from where it stands to `to`, or `None` when there is none.
pub fn route(tick: &mut Tick<'_>, unit: EntityId, to: Vec2) -> Option<Route> {
    let ask = Ask::to_point(tick.view(), unit, to)?;
    route_for(tick, &ask)
}

/// A route as asked, or `None` when there is none: the goal is in another region than the start
/// (refused without a search), or the search got nowhere from the start. Counts the searches run
/// and their expansions in `world.counters`. Same world and ask, same route, every machine.
pub fn route_for(tick: &mut Tick<'_>, ask: &Ask) -> Option<Route> {
    plan(tick, ask, None, Budget::Spec)
}

/// The next leg of a long way whose route ended short of its goal (Cohort's choice,
/// `crate::walk::K_MOST_LEGS`): [`route_for`] searched without the budget, so a way one search
/// cannot reach (a maze of forest, where the landmarks, which see the terrain and not the
/// trees, leave the estimate no better than a straight line) is found whole once the first
/// leg has been walked, since the goal is known to be in the walker's region.
pub fn route_beyond(tick: &mut Tick<'_>, ask: &Ask) -> Option<Route> {
    plan(tick, ask, None, Budget::Unlimited)
}

/// A detour for a walker held up by a crowd (Cohort's choice, `crate::walk::held`): a route as
/// asked, searched from tile `start` (the walker's, or the free one beside it when another body
/// stands on it), that steps on none of `blocked` (the tiles of the bodies about it) nor onto a
/// tile anyone stands on (but the walk's target), as though they were closed ground. Its first
/// corner is `start`'s middle when that is not the walker's tile. `None` as for [`route_for`].
pub fn route_round(tick: &mut Tick<'_>, ask: &Ask, start: Tile, blocked: &[Tile]) -> Option<Route> {
    let round = Round {
        start,
        blocked,
        closing: Closing::AnyoneStanding,
    };
    plan(tick, ask, Some(round), Budget::Spec)
}

/// A way for a walker shut in by bodies (Cohort's choice, `crate::walk::held`): [`route_round`]
/// from tile `start` with nothing else blocked, but only the bodies that hold their ground
/// against the walker closed ([`Closing::HoldingGround`]): its own player's standing units make
/// room for it (`crate::walk::shove`), so a way through them is a way. A route that does not
/// reach the goal, its search not cut short, means those holding their ground shut it out.
pub fn route_past_the_yielding(tick: &mut Tick<'_>, ask: &Ask, start: Tile) -> Option<Route> {
    let round = Round {
        start,
        blocked: &[],
        closing: Closing::HoldingGround,
    };
    plan(tick, ask, Some(round), Budget::Spec)
}

/// Which standing bodies a detour's search treats as closed ground.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Closing {
    /// Anyone standing still (but the walker and its target).
    AnyoneStanding,
    /// Only those that never make room for the walker: units on hold, any player's, and other
    /// players' units standing still.
    HoldingGround,
}

/// A detour's search: from `start`, `blocked` tiles closed, standing bodies closed by `closing`.
#[derive(Clone, Copy)]
struct Round<'a> {
    start: Tile,
    blocked: &'a [Tile],
    closing: Closing,
}

/// [`route_for`], with `round` a detour's ([`route_round`]), with `budget` [`route_beyond`].
fn plan(tick: &mut Tick<'_>, ask: &Ask, round: Option<Round<'_>>, budget: Budget) -> Option<Route> {
    let unit = tick.unit(ask.unit)?;
    let key = tick.key_of(unit);
    let radius = tick.rules.radius_of(unit.kind);
    let owner = unit.owner;
    let (from, to) = (round.map_or(ask.from.tile(), |r| r.start), ask.to.tile());
    let grid = tick.grid();
    let region = region_here(tick.regions, grid, key, from)?;
    if tick.regions.region_of(grid, key, to) != Some(region) {
        return None;
    }

    let standing = standing_in_the_way(tick.view(), ask);
    let crowd = crowd_at_goal(tick.view(), ask);
    let free = go_straight_in(&crowd);
    let in_the_way: Vec<_> = standing
        .iter()
        .filter(|b| !(free && crowd.binary_search(&b.tile).is_ok()))
        .collect();
    let tiles: Vec<Tile> = in_the_way
        .iter()
        .map(|b| grid.tile(b.tile as usize))
        .collect();
    let bodies: Vec<StandingBody> = in_the_way
        .iter()
        .map(|b| StandingBody {
            tile: grid.tile(b.tile as usize),
            bounds: Bounds::around(b.middle, b.radius),
        })
        .collect();

    // Whether a standing body closes its tile to a detour's search.
    let closes = |b: &Body, units: &[crate::state::Unit]| match round.map(|r| r.closing) {
        Some(Closing::HoldingGround) => holds_ground(units, owner, b),
        _ => true,
    };
    let closed: Vec<Tile> = match round {
        Some(r) => {
            let standing = in_the_way
                .iter()
                .filter(|b| closes(b, &tick.state.units))
                .map(|b| grid.tile(b.tile as usize));
            r.blocked.iter().copied().chain(standing).collect()
        }
        None => Vec::new(),
    };
    let found = {
        let Tick {
            state,
            search: caches,
            nav,
            ..
        } = &mut *tick;
        let survey = &nav.survey;
        let grid = &state.grid;
        let stood_on = |t: Tile| {
            grid.index(t).is_some_and(|i| {
                survey.on_tile(i as u32).iter().any(|b| {
                    !b.moving
                        && b.entity != ask.unit
                        && Some(b.entity) != ask.target
                        && closes(b, &state.units)
                })
            })
        };
        let search = Search {
            key,
            from,
            to,
            standing: &tiles,
            blocked: &closed,
            closed_by: round
                .is_some()
                .then_some(&stood_on as &dyn Fn(Tile) -> bool),
            beside_closed: true,
            wide: wider_than_a_tile(radius),
            budget,
            landmarks: caches.landmarks.layer(&state.grid, key.layer()),
        };
        find_route(grid, &mut caches.scratch, &search)
    };
    tick.counters.route_searches += 1;
    tick.counters.node_expansions += u64::from(found.expansions);
    tick.counters.most_expansions = tick
        .counters
        .most_expansions
        .max(u64::from(found.expansions));
    if !found.is_route(from) {
        return None;
    }
    let walker = Walker {
        key,
        radius,
        standing: &bodies,
    };
    // A detour searched from the free tile beside the walker is pulled straight from where the
    // walker stands with that tile's middle as its first point: the search's steps are walkable
    // from there, where from the walker's own position the next of them may lie past a wall's
    // corner (a mangonel pressed against a tree beside a gap had been sent round the corner,
    // which its walk refused for good).
    let mut path = Vec::new();
    if from != ask.from.tile() {
        path.push(ask.from.tile());
    }
    path.extend_from_slice(tick.search.scratch.path());
    let waypoints = straighten(
        tick.grid(),
        &walker,
        ask.from,
        &path,
        found.reached.then_some(ask.to),
    );
    if waypoints.is_empty() {
        return None;
    }
    Some(Route {
        waypoints,
        goal: ask.to,
        has_goal: found.reached,
        speed_cap: None,
        target: ask.target,
        range: ask.range,
        replans: 0,
        progress: Progress::from(tick.state.tick),
        fine: 0,
        settle: false,
        legs: 0,
    })
}

/// The region a walker on tile `t` is in: its tile's, or when its tile is closed (a building put
/// up round it), the first open tile beside it, straights first.
pub fn region_here(regions: &Regions, grid: &Grid, key: Keyed, t: Tile) -> Option<RegionId> {
    regions
        .region_of(grid, key, t)
        .or_else(|| t.round().find_map(|n| regions.region_of(grid, key, n)))
}
