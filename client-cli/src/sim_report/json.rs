//! `cohort sim --json`: the report's JSON schema — what CI and scripts read (docs/SCENARIOS.md) —
//! and building it from a run's [`Report`]. Field names and order are the schema: change none.

use super::seconds;
use cohort_sim::scenario::watch::{BodiesReport, InClosed, Overlap, Stall, Wait};
use cohort_sim::scenario::Report;
use cohort_sim::{Fx, Vec2};
use serde::Serialize;

/// A fixed-point number as a JSON number: exact (an I48F16 fits an f64's mantissa).
pub(super) fn num(v: Fx) -> f64 {
    v.to_num::<f64>()
}

fn point(p: Vec2) -> [f64; 2] {
    [num(p.x), num(p.y)]
}

/// Turns the sim's serde form of fixed-point numbers (`{"bits": n}`) into plain numbers.
fn plain_numbers(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            if map.len() == 1 {
                if let Some(bits) = map.get("bits").and_then(Value::as_i64) {
                    return serde_json::json!(num(Fx::from_bits(bits)));
                }
            }
            Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, plain_numbers(v)))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.into_iter().map(plain_numbers).collect()),
        other => other,
    }
}

/// A run's report as `cohort sim --json` prints it.
#[derive(Serialize)]
pub struct ReportJson {
    scenario: String,
    ruleset: String,
    map: MapJson,
    closed_ground: Vec<ClosedJson>,
    ticks: u64,
    turn_ticks: u32,
    units: Vec<UnitJson>,
    buildings: Vec<BuildingJson>,
    resources: Vec<ResourceJson>,
    players: Vec<PlayerJson>,
    counters: serde_json::Value,
    stalled: Vec<StallJson>,
    waiting: Vec<StallJson>,
    longest_stall: Option<StallJson>,
    longest_wait: Option<StallJson>,
    waits: Vec<WaitJson>,
    overlaps: Vec<OverlapJson>,
    overlaps_during_run: OverlapsDuringRunJson,
    in_closed_ground: Vec<InClosedJson>,
    deepest_in_closed_ground: Option<InClosedJson>,
    orders_ended: Vec<EndedJson>,
    rates: RatesJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    counters_per_tick: Option<CountersPerTickJson>,
    turn_hashes: Vec<String>,
    final_hash: String,
}

#[derive(Serialize)]
struct BuildingJson {
    id: u64,
    kind: String,
    owner: u8,
    hit_points: u32,
    complete: bool,
    origin: [i32; 2],
    footprint: [i32; 4],
    turned: bool,
    closes_ground: bool,
}

#[derive(Serialize)]
struct ClosedJson {
    layer: String,
    runs: Vec<[i32; 3]>,
}

#[derive(Serialize)]
struct ResourceJson {
    id: u64,
    kind: String,
    tile: [i32; 2],
    amount: u32,
}

#[derive(Serialize)]
struct GoodsJson {
    food: u32,
    wood: u32,
    gold: u32,
    stone: u32,
}

impl GoodsJson {
    fn of(g: [u32; 4]) -> GoodsJson {
        GoodsJson {
            food: g[0],
            wood: g[1],
            gold: g[2],
            stone: g[3],
        }
    }
}

#[derive(Serialize)]
struct PlayerJson {
    id: u8,
    stock: GoodsJson,
    gathered: GoodsJson,
}

#[derive(Serialize)]
struct StallJson {
    id: u64,
    since_tick: u64,
    ticks: u64,
    seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<serde_json::Value>,
}

/// A wait for a place (the watch's `waits`).
#[derive(Serialize)]
struct WaitJson {
    id: u64,
    #[serde(rename = "for")]
    waits_for: &'static str,
    since_tick: u64,
    ticks: u64,
    seconds: f64,
    free_seconds: f64,
    free_at: Option<[f64; 2]>,
    fails: bool,
}

impl WaitJson {
    fn of(w: &Wait) -> WaitJson {
        WaitJson {
            id: w.unit.0,
            waits_for: w.waits_for.name(),
            since_tick: w.since,
            ticks: w.ticks,
            seconds: seconds(w.ticks),
            free_seconds: seconds(w.free_ticks),
            free_at: w.free_at.map(point),
            fails: w.fails(),
        }
    }
}

#[derive(Serialize)]
struct OverlapJson {
    a: u64,
    b: u64,
    per_mille_of_allowance: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    tick: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<[f64; 2]>,
}

#[derive(Serialize)]
struct OverlapsDuringRunJson {
    onsets: u64,
    deepest: Option<OverlapJson>,
    close_pair_ticks: u64,
    close_pair_seconds: f64,
    longest_close: Option<CloseRunJson>,
    standing_pair_ticks: u64,
    standing_at_end: Vec<OverlapJson>,
    pile: Option<PileJson>,
    faults: Vec<String>,
}

#[derive(Serialize)]
struct CloseRunJson {
    a: u64,
    b: u64,
    since_tick: u64,
    ticks: u64,
    seconds: f64,
    position: [f64; 2],
}

#[derive(Serialize)]
struct PileJson {
    bodies: usize,
    tick: u64,
    position: [f64; 2],
}

#[derive(Serialize)]
struct InClosedJson {
    id: u64,
    depth: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    tick: Option<u64>,
}

#[derive(Serialize)]
struct EndedJson {
    id: u64,
    tick: u64,
    order: serde_json::Value,
    distance: Option<f64>,
}

#[derive(Serialize)]
struct RatesJson {
    busy_unit_seconds: f64,
    replans_per_unit_second: f64,
    searches_per_unit_second: f64,
    peak_replans_per_unit_second: f64,
    most_expansions_in_a_search: u64,
}

#[derive(Serialize)]
struct CountersPerTickJson {
    route_searches: Vec<u64>,
    node_expansions: Vec<u64>,
    shared_walks: Vec<u64>,
    replans: Vec<u64>,
}

#[derive(Serialize)]
struct MapJson {
    width: i32,
    height: i32,
}

#[derive(Serialize)]
struct UnitJson {
    id: u64,
    kind: String,
    owner: u8,
    position: [f64; 2],
    hit_points: u32,
    order: serde_json::Value,
    state: serde_json::Value,
    route: Vec<[f64; 2]>,
    carrying: serde_json::Value,
}

impl ReportJson {
    /// The JSON form of a run's report.
    pub fn of(r: &Report) -> ReportJson {
        let w = &r.watch;
        let value = |v: serde_json::Result<serde_json::Value>| {
            plain_numbers(v.unwrap_or(serde_json::Value::Null))
        };
        ReportJson {
            scenario: r.scenario.clone(),
            ruleset: r.ruleset.to_string(),
            map: MapJson {
                width: r.width,
                height: r.height,
            },
            closed_ground: r
                .closed
                .iter()
                .map(|c| ClosedJson {
                    layer: c.layer.clone(),
                    runs: c.runs.clone(),
                })
                .collect(),
            ticks: r.ticks,
            turn_ticks: r.turn_ticks,
            units: r
                .units
                .iter()
                .map(|u| UnitJson {
                    id: u.id.0,
                    kind: u.kind.clone(),
                    owner: u.owner,
                    position: point(u.position),
                    hit_points: u.hit_points,
                    order: value(serde_json::to_value(&u.order)),
                    state: value(serde_json::to_value(u.state)),
                    route: u.route.iter().map(|&p| point(p)).collect(),
                    carrying: value(serde_json::to_value(u.carrying)),
                })
                .collect(),
            buildings: r
                .buildings
                .iter()
                .map(|b| BuildingJson {
                    id: b.id.0,
                    kind: b.kind.clone(),
                    owner: b.owner,
                    hit_points: b.hit_points,
                    complete: b.complete,
                    origin: [b.origin.x, b.origin.y],
                    footprint: [b.first.x, b.first.y, b.last.x, b.last.y],
                    turned: b.turned,
                    closes_ground: b.closes_ground,
                })
                .collect(),
            resources: r
                .resources
                .iter()
                .map(|x| ResourceJson {
                    id: x.id.0,
                    kind: x.kind.clone(),
                    tile: [x.tile.x, x.tile.y],
                    amount: x.amount,
                })
                .collect(),
            players: r
                .stock
                .iter()
                .map(|&(id, stock)| PlayerJson {
                    id,
                    stock: GoodsJson::of(stock),
                    gathered: GoodsJson::of(
                        w.gathered
                            .iter()
                            .find(|g| g.0 == id)
                            .map_or([0; 4], |g| g.1),
                    ),
                })
                .collect(),
            counters: value(serde_json::to_value(&r.counters)),
            stalled: w
                .stalled
                .iter()
                .filter(|s| !s.waiting)
                .map(|s| StallJson::now(s, r))
                .collect(),
            waiting: w
                .stalled
                .iter()
                .filter(|s| s.waiting)
                .map(|s| StallJson::now(s, r))
                .collect(),
            longest_stall: w.longest_stall.as_ref().map(StallJson::of),
            longest_wait: w.longest_wait.as_ref().map(StallJson::of),
            waits: w.waits.iter().map(WaitJson::of).collect(),
            overlaps: w
                .bodies
                .overlaps
                .iter()
                .map(|o| OverlapJson::of(o, false))
                .collect(),
            overlaps_during_run: OverlapsDuringRunJson::of(&w.bodies),
            in_closed_ground: w
                .in_closed_ground
                .iter()
                .map(|c| InClosedJson::of(c, false))
                .collect(),
            deepest_in_closed_ground: w
                .deepest_in_closed_ground
                .as_ref()
                .map(|c| InClosedJson::of(c, true)),
            orders_ended: w
                .ended
                .iter()
                .map(|e| EndedJson {
                    id: e.unit.0,
                    tick: e.tick,
                    order: value(serde_json::to_value(&e.order)),
                    distance: e.distance.map(num),
                })
                .collect(),
            rates: RatesJson::of(r),
            counters_per_tick: w.per_tick.as_ref().map(|t| CountersPerTickJson {
                route_searches: t.iter().map(|c| c.route_searches).collect(),
                node_expansions: t.iter().map(|c| c.node_expansions).collect(),
                shared_walks: t.iter().map(|c| c.shared_walks).collect(),
                replans: t.iter().map(|c| c.replans).collect(),
            }),
            turn_hashes: r.turn_hashes.iter().map(|h| h.to_string()).collect(),
            final_hash: r.final_hash.to_string(),
        }
    }
}

impl StallJson {
    /// A stall seen during the run.
    fn of(s: &Stall) -> StallJson {
        StallJson {
            id: s.unit.0,
            since_tick: s.since,
            ticks: s.ticks,
            seconds: seconds(s.ticks),
            position: None,
            state: None,
        }
    }

    /// A stall at the end of the run, with where the unit stands and what it is doing.
    fn now(s: &Stall, r: &Report) -> StallJson {
        let unit = r.units.iter().find(|u| u.id == s.unit);
        StallJson {
            position: unit.map(|u| point(u.position)),
            state: unit.and_then(|u| serde_json::to_value(u.state).ok()),
            ..StallJson::of(s)
        }
    }
}

impl OverlapJson {
    /// A pair now (`during` false) or seen during the run, with its tick and place.
    fn of(o: &Overlap, during: bool) -> OverlapJson {
        OverlapJson {
            a: o.a.0,
            b: o.b.0,
            per_mille_of_allowance: i64::try_from(o.per_mille).unwrap_or(i64::MAX),
            tick: during.then_some(o.tick),
            position: during.then_some(point(o.at)),
        }
    }
}

impl OverlapsDuringRunJson {
    fn of(b: &BodiesReport) -> OverlapsDuringRunJson {
        OverlapsDuringRunJson {
            onsets: b.onsets,
            deepest: b.deepest.as_ref().map(|o| OverlapJson::of(o, true)),
            close_pair_ticks: b.close_pair_ticks,
            close_pair_seconds: seconds(b.close_pair_ticks),
            longest_close: b.longest_close.map(|r| CloseRunJson {
                a: r.a.0,
                b: r.b.0,
                since_tick: r.since,
                ticks: r.ticks,
                seconds: seconds(r.ticks),
                position: point(r.at),
            }),
            standing_pair_ticks: b.standing_pair_ticks,
            standing_at_end: b
                .standing_at_end
                .iter()
                .map(|o| OverlapJson::of(o, false))
                .collect(),
            pile: b.pile.map(|p| PileJson {
                bodies: p.bodies,
                tick: p.tick,
                position: point(p.at),
            }),
            faults: b.faults(),
        }
    }
}

impl InClosedJson {
    fn of(c: &InClosed, with_tick: bool) -> InClosedJson {
        InClosedJson {
            id: c.unit.0,
            depth: num(c.depth),
            tick: with_tick.then_some(c.tick),
        }
    }
}

impl RatesJson {
    fn of(r: &Report) -> RatesJson {
        let w = &r.watch;
        let unit_seconds = num(w.busy_unit_seconds);
        let per = |n: u64| {
            if unit_seconds > 0.0 {
                n as f64 / unit_seconds
            } else {
                0.0
            }
        };
        RatesJson {
            busy_unit_seconds: unit_seconds,
            replans_per_unit_second: per(r.counters.replans),
            searches_per_unit_second: per(r.counters.route_searches),
            peak_replans_per_unit_second: w
                .peak_replans_per_unit_second
                .map_or(0.0, |(n, units)| n as f64 / units.max(1) as f64),
            most_expansions_in_a_search: r.counters.most_expansions,
        }
    }
}
