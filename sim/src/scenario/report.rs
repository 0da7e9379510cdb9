//! A run's report: every unit's final state, the counters and the hashes. Nothing in it depends
//! on the machine or the clock, so two runs of one scenario give identical reports.

use super::watch::WatchReport;
use crate::hash::StateHash;
use crate::id::{EntityId, PlayerId};
use crate::position::{Tile, Vec2};
use crate::ruleset::Good;
use crate::state::{Counters, Order, UnitState};
use crate::world::World;

/// The final state of one unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitReport {
    pub id: EntityId,
    /// Its kind's name.
    pub kind: String,
    pub owner: PlayerId,
    pub position: Vec2,
    pub hit_points: u32,
    pub order: Order,
    pub state: UnitState,
    /// The corners of its route still ahead (empty when it has none).
    pub route: Vec<Vec2>,
    pub carrying: Option<(Good, u32)>,
}

/// The final state of one building.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildingReport {
    pub id: EntityId,
    /// Its kind's name.
    pub kind: String,
    pub owner: PlayerId,
    pub hit_points: u32,
    pub complete: bool,
    /// The tile it was placed at.
    pub origin: Tile,
    /// The first and last tiles it covers on each axis (inclusive).
    pub first: Tile,
    pub last: Tile,
    /// Laid a quarter turn round.
    pub turned: bool,
    /// Whether its ground is closed (false for a foundation laid where bodies still stand).
    pub closes_ground: bool,
}

/// The tiles closed on one passability layer, as runs along rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosedGround {
    /// The restrictions moving on the layer (`land`, `water`…), joined by `/`.
    pub layer: String,
    /// `[y, x0, x1]`: tiles x0 to x1 of row y are closed (terrain its movers may not cross,
    /// buildings, shut gates), rows in order, runs left to right.
    pub runs: Vec<[i32; 3]>,
}

/// The final state of one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceReport {
    pub id: EntityId,
    /// Its kind's name.
    pub kind: String,
    pub tile: crate::position::Tile,
    /// What is left of it.
    pub amount: u32,
}

/// What a run came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub scenario: String,
    /// blake3 of the ruleset it ran under.
    pub ruleset: StateHash,
    pub width: i32,
    pub height: i32,
    /// Ticks run.
    pub ticks: u64,
    pub turn_ticks: u32,
    /// In id order.
    pub units: Vec<UnitReport>,
    /// In id order.
    pub buildings: Vec<BuildingReport>,
    /// In id order (a resource used up is gone).
    pub resources: Vec<ResourceReport>,
    /// Every player's stock at the end (food, wood, gold, stone), in id order.
    /// Every passability layer's closed ground at the end.
    pub closed: Vec<ClosedGround>,
    pub stock: Vec<(PlayerId, [u32; 4])>,
    pub counters: Counters,
    /// The state's hash after every whole turn.
    pub turn_hashes: Vec<StateHash>,
    /// The state's hash at the end.
    pub final_hash: StateHash,
    /// Stalls, overlaps, bodies over closed ground, what was gathered (the runner's watch).
    pub watch: WatchReport,
}

/// Every layer's closed tiles, as runs along rows.
fn closed_ground(world: &World) -> Vec<ClosedGround> {
    let rules = world.rules();
    let grid = world.grid();
    (0..grid.layers())
        .map(|layer| {
            let names: Vec<&str> = rules
                .restrictions
                .iter()
                .filter(|r| usize::from(r.layer) == layer)
                .map(|r| r.name.as_str())
                .collect();
            let id =
                crate::ruleset::LayerId::try_from(layer).unwrap_or(crate::ruleset::LayerId::MAX);
            let mut runs = Vec::new();
            for y in 0..grid.height() {
                let mut start = None;
                for x in 0..=grid.width() {
                    let closed = x < grid.width()
                        && grid
                            .index(Tile::new(x, y))
                            .is_some_and(|i| !grid.open_at(id, i));
                    match (closed, start) {
                        (true, None) => start = Some(x),
                        (false, Some(x0)) => {
                            runs.push([y, x0, x - 1]);
                            start = None;
                        }
                        _ => {}
                    }
                }
            }
            ClosedGround {
                layer: names.join("/"),
                runs,
            }
        })
        .collect()
}

impl Report {
    pub fn of(name: &str, world: &World, turn_ticks: u32, turn_hashes: &[StateHash]) -> Report {
        let rules = world.rules();
        Report {
            scenario: name.to_string(),
            ruleset: StateHash(rules.hash()),
            width: world.grid().width(),
            height: world.grid().height(),
            ticks: world.tick(),
            turn_ticks,
            units: world
                .state
                .units
                .iter()
                .map(|u| UnitReport {
                    id: u.id,
                    kind: rules.unit(u.kind).name.clone(),
                    owner: u.owner,
                    position: u.position,
                    hit_points: u.hit_points,
                    order: u.order.clone(),
                    state: u.state,
                    route: u
                        .route
                        .as_ref()
                        .map(|r| r.waypoints.clone())
                        .unwrap_or_default(),
                    carrying: u.carrying,
                })
                .collect(),
            buildings: world
                .state
                .buildings
                .iter()
                .map(|b| BuildingReport {
                    id: b.id,
                    kind: rules.buildings[b.kind as usize].name.clone(),
                    owner: b.owner,
                    hit_points: b.hit_points,
                    complete: b.complete,
                    origin: b.footprint.origin,
                    first: Tile::new(
                        b.footprint.origin.x + b.footprint.min.x,
                        b.footprint.origin.y + b.footprint.min.y,
                    ),
                    last: Tile::new(
                        b.footprint.origin.x + b.footprint.max.x,
                        b.footprint.origin.y + b.footprint.max.y,
                    ),
                    turned: b.turned,
                    closes_ground: world.state.ground_closed(b.id),
                })
                .collect(),
            resources: world
                .state
                .resources
                .iter()
                .map(|r| ResourceReport {
                    id: r.id,
                    kind: rules.resources[r.kind as usize].name.clone(),
                    tile: r.tile,
                    amount: r.amount,
                })
                .collect(),
            closed: closed_ground(world),
            stock: world
                .state
                .players
                .iter()
                .map(|p| (p.id, p.stock))
                .collect(),
            counters: world.counters.clone(),
            turn_hashes: turn_hashes.to_vec(),
            final_hash: world.hash(),
            watch: WatchReport::default(),
        }
    }
}
