//! `cohort sim`: run a scenario (or the embedded default map) headless and report what it came to.

use anyhow::{bail, Context, Result};
use cohort_protocol::codec::decode_snapshot;
use cohort_protocol::file::{read_at_most, read_limited};
use cohort_protocol::limits::{SCENARIO_FILE, SNAPSHOT_FILE};
use cohort_sim::map::{MapOptions, DEFAULT_MAP_SEED, DEFAULT_MAP_SIZE};
use cohort_sim::scenario::watch::{InClosed, Overlap, Stall};
use cohort_sim::scenario::{self, Report, Runner, Scenario};
use cohort_sim::{Fx, Ruleset, Vec2, World};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Run a scenario headless: every unit's final state, the counters and the hash after every turn.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    source: Source,
    /// Ticks to run (a tick is 16 ms of game time); default: the scenario's `ticks`, or 600.
    #[arg(long)]
    ticks: Option<u64>,
    /// Print one JSON object instead of a summary.
    #[arg(long)]
    json: bool,
    /// Write every unit's position after every tick to FILE (CSV: tick,unit,owner,x,y).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// With --json: also print the counters' rise at every tick (`counters_per_tick`).
    #[arg(long, requires = "json")]
    counters_per_tick: bool,
}

/// What to load — a scenario file or the default map, and a ruleset replacing its own — as
/// `cohort sim` and `cohort render` take it on the command line.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["scenario", "default_map"])))]
pub struct Source {
    /// The scenario file (TOML, see docs/SCENARIOS.md).
    scenario: Option<PathBuf>,
    /// Use the embedded default map instead of a scenario file.
    #[arg(long)]
    default_map: bool,
    /// Players on the default map (2 to 8).
    #[arg(long, default_value_t = 2, conflicts_with = "scenario")]
    players: u8,
    /// The default map's side in tiles (48 to 512).
    #[arg(long, default_value_t = DEFAULT_MAP_SIZE, conflicts_with = "scenario")]
    size: i32,
    /// The default map's seed.
    #[arg(long, default_value_t = DEFAULT_MAP_SEED, conflicts_with = "scenario")]
    seed: u64,
    /// A ruleset file replacing the scenario's (TOML, see docs/RULESET.md).
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
}

/// Loads a scenario (or the default map) with the files it names read from disk.
pub fn load(source: &Source) -> Result<Scenario> {
    let rules = source
        .rules
        .as_deref()
        .map(super::ruleset::read_ruleset)
        .transpose()?;
    if source.default_map {
        let opts = MapOptions {
            seed: source.seed,
            size: source.size,
            players: source.players,
        };
        let rules = rules.unwrap_or_else(|| Arc::new(Ruleset::default_rules()));
        check_map_options(&opts)?;
        return Ok(scenario::default_map(rules, opts));
    }
    let Some(path) = source.scenario.as_deref() else {
        bail!("name a scenario file or pass --default-map");
    };
    load_file(path, rules)
}

/// Loads a scenario file with the files it names read from disk beside it; `rules` replaces
/// the ruleset it names.
pub fn load_file(path: &Path, rules: Option<Arc<Ruleset>>) -> Result<Scenario> {
    let bytes = read_at_most(path, SCENARIO_FILE.bytes + 1)?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let files = Disk { dir: dir.clone() };
    let origin = path.display().to_string();
    Scenario::from_bytes(&bytes, &origin, &files, rules).map_err(|mut e| {
        // A fault in a file the scenario names: show that file's path, not its name as written.
        if e.file != origin {
            e.file = dir.join(&e.file).display().to_string();
        }
        anyhow::anyhow!("{e}")
    })
}

/// The files a scenario names, read from disk relative to it; a `state` is a snapshot file
/// (cohort-protocol's snapshot encoding, as `cohort replay --scenario` writes it).
struct Disk {
    dir: PathBuf,
}

impl scenario::Files for Disk {
    fn read(&self, name: &str, most: usize) -> Result<Vec<u8>, String> {
        read_at_most(&self.dir.join(name), most).map_err(|e| e.to_string())
    }

    fn snapshot(&self, name: &str) -> Result<cohort_sim::world::Snapshot, String> {
        let path = self.dir.join(name);
        let bytes = read_limited(&path, SNAPSHOT_FILE).map_err(|e| e.to_string())?;
        decode_snapshot(&bytes).map_err(|e| format!("{} is not a snapshot: {e}", path.display()))
    }
}

fn check_map_options(o: &MapOptions) -> Result<()> {
    use cohort_sim::map::{MAX_PLAYERS, MAX_SIZE, MIN_PLAYERS, MIN_SIZE};
    if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&o.players) {
        bail!("--players must be {MIN_PLAYERS} to {MAX_PLAYERS}");
    }
    if !(MIN_SIZE..=MAX_SIZE).contains(&o.size) {
        bail!("--size must be {MIN_SIZE} to {MAX_SIZE}");
    }
    Ok(())
}

pub fn run(args: Args) -> Result<ExitCode> {
    let scenario = load(&args.source)?;
    let ticks = args.ticks.unwrap_or(scenario.ticks);
    let mut runner = Runner::new(scenario);
    if args.counters_per_tick {
        runner.watch.keep_per_tick();
    }
    match &args.trace {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot write the trace {}", path.display()))?;
            let mut out = std::io::BufWriter::new(file);
            let mut result = write_trace_header(&mut out, &runner.world);
            runner.run(ticks, |w| {
                if result.is_ok() {
                    result = write_trace_tick(&mut out, w);
                }
            });
            result
                .and_then(|_| out.flush())
                .with_context(|| format!("cannot write the trace {}", path.display()))?;
        }
        None => runner.run(ticks, |_| {}),
    }
    let report = runner.report();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &ReportJson::of(&report))?;
        writeln!(out)?;
    } else {
        write_summary(&mut out, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The trace's header and every unit's position at the start (tick 0 of the run).
fn write_trace_header(out: &mut impl Write, world: &World) -> std::io::Result<()> {
    writeln!(out, "tick,unit,owner,x,y")?;
    write_trace_tick(out, world)
}

/// One line per living unit: the tick just run, its id, owner and position (exact decimals).
pub fn write_trace_tick(out: &mut impl Write, world: &World) -> std::io::Result<()> {
    for u in &world.state.units {
        writeln!(
            out,
            "{},{},{},{},{}",
            world.tick(),
            u.id.0,
            u.owner,
            u.position.x,
            u.position.y
        )?;
    }
    Ok(())
}

/// A fixed-point number as a JSON number: exact (an I48F16 fits an f64's mantissa).
fn num(v: Fx) -> f64 {
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

#[derive(Serialize)]
struct ReportJson {
    scenario: String,
    ruleset: String,
    map: MapJson,
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

#[derive(Serialize)]
struct OverlapJson {
    a: u64,
    b: u64,
    per_mille_of_allowance: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    tick: Option<u64>,
}

#[derive(Serialize)]
struct OverlapsDuringRunJson {
    onsets: u64,
    deepest: Option<OverlapJson>,
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
    fn of(r: &Report) -> ReportJson {
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
            overlaps: w
                .overlaps
                .iter()
                .map(|o| OverlapJson::of(o, false))
                .collect(),
            overlaps_during_run: OverlapsDuringRunJson {
                onsets: w.overlap_onsets,
                deepest: w.deepest_overlap.as_ref().map(|o| OverlapJson::of(o, true)),
            },
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
    fn of(o: &Overlap, with_tick: bool) -> OverlapJson {
        OverlapJson {
            a: o.a.0,
            b: o.b.0,
            per_mille_of_allowance: i64::try_from(o.per_mille).unwrap_or(i64::MAX),
            tick: with_tick.then_some(o.tick),
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

/// Ticks as seconds of game time.
fn seconds(ticks: u64) -> f64 {
    ticks as f64 * f64::from(cohort_sim::world::TICK_MS) / 1000.0
}

/// The human summary: what ran, where every unit ended up (the first few), the counters, the hash.
fn write_summary(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    /// Units listed one by one in the summary; the rest are counted.
    const LISTED_UNITS: usize = 24;
    writeln!(out, "scenario  {}", r.scenario)?;
    writeln!(
        out,
        "ran       {} ticks ({} turns of {} ticks) on a {}x{} map",
        r.ticks,
        r.turn_hashes.len(),
        r.turn_ticks,
        r.width,
        r.height
    )?;
    let moving = r.units.iter().filter(|u| !u.route.is_empty()).count();
    writeln!(
        out,
        "units     {} ({} still walking)",
        r.units.len(),
        moving
    )?;
    for u in r.units.iter().take(LISTED_UNITS) {
        writeln!(
            out,
            "  #{:<5} {:<14} player {}  at ({:>8.3}, {:>8.3})  {:?}",
            u.id.0,
            u.kind,
            u.owner,
            num(u.position.x),
            num(u.position.y),
            u.state
        )?;
    }
    if r.units.len() > LISTED_UNITS {
        writeln!(out, "  … and {} more", r.units.len() - LISTED_UNITS)?;
    }
    let counters = serde_json::to_value(&r.counters).unwrap_or_default();
    if let Some(map) = counters.as_object() {
        writeln!(out, "counters")?;
        for (k, v) in map {
            writeln!(out, "  {k:<18} {v}")?;
        }
    }
    let w = &r.watch;
    let stalled = w.stalled.iter().filter(|s| !s.waiting).count();
    let longest = w.longest_stall.map_or(0.0, |s| seconds(s.ticks));
    writeln!(
        out,
        "stalled   {stalled} now, {} waiting for a place; longest stall {longest:.2} s",
        w.stalled.len() - stalled
    )?;
    writeln!(
        out,
        "overlaps  {} now, {} during the run",
        w.overlaps.len(),
        w.overlap_onsets
    )?;
    writeln!(
        out,
        "closed    {} bodies over closed ground now",
        w.in_closed_ground.len()
    )?;
    writeln!(out, "final hash {}", r.final_hash)
}
