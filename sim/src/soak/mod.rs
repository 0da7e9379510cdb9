//! The crowd soak (issue 10): seeded scenes nobody wrote by hand, judged by the run's watch
//! (docs/SCENARIOS.md, "Stalls, waits, overlaps"). `cohort soak` runs many of them and
//! `sim/tests/crowd_soak.rs` a few of each kind.
//!
//! A seed gives one [`Scene`], a scenario file as text (so a scene that fails can be written out
//! and run again with `cohort sim` or looked at with `cohort render`), of one of two kinds:
//!
//! - [`MapKind::Fields`] (odd seeds): a small ASCII map — an open field, clumps of trees, a tree
//!   line with gaps, a pond — with two to four groups of any land kind sent with `move` or
//!   `formation_move` through each other (`fields.rs`);
//! - [`MapKind::Generated`] (even seeds): the default map's generator, 48 to 64 tiles a side,
//!   2 to 4 players, each with armies round its start given every kind of order the sim has —
//!   moves, formation moves, attack moves, attacks on units and buildings, follows, holds,
//!   stops — and its villagers gathering, laying foundations and building (`generated.rs`).
//!
//! [`run`] loads the scene, runs it twice and says what went wrong ([`Outcome::failures`]): a
//! stall of 10 s or more during the run (waits for a place at a full target apart; a unit that
//! dies is gone, not stalled), bodies not kept apart (a pair under half the keep-apart allowance,
//! one under 0.9 of it for more than a second on end, standing pairs under it at the end, a pile:
//! [`BodiesReport::faults`]),
//! a body over closed ground at any tick, a walk (a move, or an attack move with nothing to
//! fight, given up to as long again to end: [`K_RUN_ON_STEP_TICKS`]) not ended by the end, or the
//! two runs' hashes differing. Everything is integers and
//! the scene's own seeded generator: same seed, same text, same figures on every machine.

mod fields;
mod generated;
mod summary;
mod text;

pub use summary::{Failed, Summary};

use crate::hash::StateHash;
use crate::id::EntityId;
use crate::position::Fx;
use crate::scenario::watch::{BodiesReport, InClosed, LongStall, Stall, Wait};
use crate::scenario::{NoFiles, Runner, Scenario, ScenarioError};
use crate::state::{Order, TICK_MS};

/// The contiguous range that must pass: seeds 1 to `PASSING_SEEDS`, every one (grows as issue
/// 33 lands). `sim/tests/crowd_soak.rs` runs them in `cargo test`, `cohort soak` runs them by
/// default, and `.ci/run` fails when one of them fails.
pub const PASSING_SEEDS: u64 = 8;

/// The kind of map a scene is laid on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapKind {
    /// A small ASCII map of fields, trees and a pond.
    Fields,
    /// The default map's generator.
    Generated,
}

impl MapKind {
    /// The kind of `seed`'s scene: odd seeds fields (the soak's first scenes, as they were),
    /// even seeds generated maps.
    pub fn of_seed(seed: u64) -> MapKind {
        if seed % 2 == 1 {
            MapKind::Fields
        } else {
            MapKind::Generated
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MapKind::Fields => "fields",
            MapKind::Generated => "generated",
        }
    }
}

/// One scene: its seed, its kind of map and its scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scene {
    pub seed: u64,
    pub kind: MapKind,
    /// The scenario file (docs/SCENARIOS.md).
    pub toml: String,
}

impl Scene {
    /// The scene of `seed`.
    pub fn of_seed(seed: u64) -> Scene {
        let kind = MapKind::of_seed(seed);
        let toml = match kind {
            MapKind::Fields => fields::scene(seed),
            MapKind::Generated => generated::scene(seed),
        };
        Scene { seed, kind, toml }
    }

    /// Its name: `soak_SEED`, also the scenario's `name`.
    pub fn name(&self) -> String {
        format!("soak_{}", self.seed)
    }

    /// The file a failing scene is written to: `seed_SEED.toml`.
    pub fn file_name(&self) -> String {
        format!("seed_{}.toml", self.seed)
    }
}

/// A walk that had not ended when the scene did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotEnded {
    pub unit: EntityId,
    pub order: Order,
}

/// What one scene came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub seed: u64,
    pub kind: MapKind,
    /// Units when the scene began.
    pub units: usize,
    /// Units alive at the end (fights kill some).
    pub alive: usize,
    /// Ticks run.
    pub ticks: u64,
    /// Game seconds times units with an order to carry out, summed over the run (the watch's).
    pub busy_unit_seconds: Fx,
    /// Every stall (waits apart) of [`K_STALL_TICKS`](crate::scenario::watch::K_STALL_TICKS) or more during the run, in the order each
    /// reached it.
    pub stalls: Vec<LongStall>,
    /// The longest wait for a place at a full target during the run.
    pub longest_wait: Option<Stall>,
    /// Waits during which a place the unit could take stood free for
    /// [`K_WAIT_WHILE_FREE_TICKS`](crate::scenario::watch::waits::K_WAIT_WHILE_FREE_TICKS) or
    /// more ([`crate::scenario::watch::waits`]), in the order each began.
    pub waits_while_free: Vec<Wait>,
    /// How near bodies came during the run and stand at the end (the watch's, [`BodiesReport`]).
    pub bodies: BodiesReport,
    /// The deepest any body reached into closed ground during the run.
    pub deepest_in_closed_ground: Option<InClosed>,
    /// Bodies over closed ground at the end.
    pub in_closed_ground: Vec<InClosed>,
    /// Walks not ended at the end: moves, and attack moves with nothing to fight.
    pub not_ended: Vec<NotEnded>,
    pub final_hash: StateHash,
    /// Whether a second run gave the same hash after every turn and at the end.
    pub identical_twice: bool,
}

impl Outcome {
    /// Unit-minutes of orders carried out: [`Outcome::busy_unit_seconds`] over 60.
    pub fn unit_minutes(&self) -> Fx {
        self.busy_unit_seconds / Fx::from_num(60)
    }

    /// The longest stall, in ticks (0 when none reached the limit).
    pub fn longest_stall_ticks(&self) -> u64 {
        self.stalls.iter().map(|s| s.stall.ticks).max().unwrap_or(0)
    }

    /// What went wrong, one line each; empty when the scene passed.
    pub fn failures(&self) -> Vec<String> {
        let mut wrong = Vec::new();
        if !self.stalls.is_empty() {
            let mut by_order: Vec<String> = Vec::new();
            for (order, n) in self.stalls_by_order() {
                let ids: Vec<String> = self
                    .stalls
                    .iter()
                    .filter(|s| order_name(&s.order) == order)
                    .map(|s| format!("#{}", s.stall.unit.0))
                    .collect();
                by_order.push(format!("{n} {order}: {}", ids.join(" ")));
            }
            wrong.push(format!(
                "{} stalled 10 s or more (longest {:.1} s; {})",
                self.stalls.len(),
                seconds(self.longest_stall_ticks()),
                by_order.join("; ")
            ));
        }
        if let Some(most) = self.waits_while_free.iter().max_by_key(|w| w.free_ticks) {
            wrong.push(format!(
                "{} waited with a place free for a minute or more (most {:.1} s free: #{} for a {})",
                self.waits_while_free.len(),
                seconds(most.free_ticks),
                most.unit.0,
                most.waits_for.name().replace('_', " ")
            ));
        }
        wrong.extend(self.bodies.faults());
        if let Some(c) = self.deepest_in_closed_ground {
            wrong.push(format!(
                "#{} over closed ground at tick {} ({} tiles deep; {} at the end)",
                c.unit.0,
                c.tick,
                c.depth,
                self.in_closed_ground.len()
            ));
        }
        if !self.not_ended.is_empty() {
            let first = &self.not_ended[0];
            wrong.push(format!(
                "{} walks not ended (#{} {:?})",
                self.not_ended.len(),
                first.unit.0,
                first.order
            ));
        }
        if !self.identical_twice {
            wrong.push("two runs gave different hashes".to_string());
        }
        wrong
    }

    /// The stalls counted by the order the unit had (`move`, `attack_move`, `follow` …), in
    /// name order.
    pub fn stalls_by_order(&self) -> Vec<(&'static str, usize)> {
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for s in &self.stalls {
            let name = order_name(&s.order);
            match counts.iter_mut().find(|c| c.0 == name) {
                Some(c) => c.1 += 1,
                None => counts.push((name, 1)),
            }
        }
        counts.sort_unstable();
        counts
    }

    pub fn passed(&self) -> bool {
        self.failures().is_empty()
    }
}

/// An order's name as a command says it (`move` for a formation move too).
pub fn order_name(order: &Order) -> &'static str {
    match order {
        Order::Idle => "idle",
        Order::Move { .. } => "move",
        Order::AttackMove { .. } => "attack_move",
        Order::Attack { .. } => "attack",
        Order::Follow { .. } => "follow",
        Order::Gather { .. } => "gather",
        Order::Build { .. } => "build",
        Order::Hold => "hold",
    }
}

/// `ticks` of game time in seconds, as a decimal with one digit.
pub fn seconds(ticks: u64) -> Fx {
    let tenths = u64::from(TICK_MS) * ticks / 100;
    Fx::from_num(tenths) / Fx::from_num(10)
}

/// Loads `scene` and runs it for its ticks; what the first run came to, with whether a second
/// run gave the same hashes.
pub fn run(scene: &Scene) -> Result<Outcome, ScenarioError> {
    let (first, hashes) = run_once(scene)?;
    let (_, again) = run_once(scene)?;
    Ok(Outcome {
        identical_twice: hashes == again,
        ..first
    })
}

/// One run: its outcome (taken as identical twice) and its turn hashes and final hash.
fn run_once(scene: &Scene) -> Result<(Outcome, Vec<StateHash>), ScenarioError> {
    let scenario = Scenario::from_bytes(scene.toml.as_bytes(), &scene.name(), &NoFiles, None)?;
    let ticks = scenario.ticks;
    let units = scenario.world.state.units.len();
    let mut runner = Runner::new(scenario);
    runner.run(ticks, |_| {});
    let not_ended = |world: &crate::world::World, moving: bool| -> Vec<NotEnded> {
        let walking = |u: &&crate::state::Unit| match u.order {
            Order::Move { .. } => moving,
            Order::AttackMove { .. } => !moving && u.fight.is_none(),
            _ => false,
        };
        let units = world.state.units.iter().filter(walking);
        units
            .map(|u| NotEnded {
                unit: u.id,
                order: u.order.clone(),
            })
            .collect()
    };
    let mut not_ended_moves = not_ended(&runner.world, true);
    let mut more = 0;
    while more < ticks && !not_ended(&runner.world, false).is_empty() {
        runner.run(K_RUN_ON_STEP_TICKS, |_| {});
        more += K_RUN_ON_STEP_TICKS;
    }
    not_ended_moves.extend(not_ended(&runner.world, false));
    not_ended_moves.sort_by_key(|n| n.unit);
    let not_ended = not_ended_moves;
    let report = runner.report();
    let watch = report.watch;
    let world = &runner.world;
    let mut hashes = runner.turn_hashes.clone();
    hashes.push(report.final_hash);
    let outcome = Outcome {
        seed: scene.seed,
        kind: scene.kind,
        units,
        alive: world.state.units.len(),
        ticks: report.ticks,
        busy_unit_seconds: watch.busy_unit_seconds,
        stalls: watch.long_stalls,
        longest_wait: watch.longest_wait,
        waits_while_free: watch.waits.iter().filter(|w| w.fails()).copied().collect(),
        bodies: watch.bodies,
        deepest_in_closed_ground: watch.deepest_in_closed_ground,
        in_closed_ground: watch.in_closed_ground,
        not_ended,
        final_hash: report.final_hash,
        identical_twice: true,
    };
    Ok((outcome, hashes))
}

/// An attack move fights whatever it meets on its way for as long as that takes, which a scene's
/// length does not allow for: a scene that ends with attack moves walking on, nothing left to
/// fight, runs on in steps of this many ticks, up to as long again, until each has ended or is
/// fighting (the soak's choice; moves are judged at the scene's end, and the watch goes on).
const K_RUN_ON_STEP_TICKS: u64 = 60;

/// The scenes' own generator: the sim's SplitMix64 ([`crate::state::Rng`]) seeded with the
/// scene's seed, drawn from by modulo (as the soak's first scenes were), never the world's.
#[derive(Clone, Debug)]
struct Rng(crate::state::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(crate::state::Rng::new(seed))
    }

    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number from `lo` to `hi`, both included (`lo` when `hi < lo`).
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = u64::try_from(hi - lo + 1).unwrap_or(1).max(1);
        lo + i64::try_from(self.next() % span).unwrap_or(0)
    }

    /// True one time in `one_in`.
    fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }

    /// One of `items` (the first when empty is impossible: callers pass none empty).
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let last = i64::try_from(items.len()).unwrap_or(1) - 1;
        &items[usize::try_from(self.range(0, last)).unwrap_or(0)]
    }
}

/// The land kinds a group may be of, in the order a seed picks from: a villager, then the
/// soldiers.
const LAND_KINDS: [&str; 8] = [
    "villager",
    "militia",
    "spearman",
    "archer",
    "skirmisher",
    "scout_cavalry",
    "knight",
    "mangonel",
];

/// A kind's body and pace as a scene lays them out: radius in tenths of a tile, speed in
/// thousandths of a tile a second (the ruleset's, rounded; a kind it lacks counts as a mangonel
/// that walks a tile a second).
fn figures(rules: &crate::ruleset::Ruleset, kind: &str) -> (i64, i64) {
    let Some(k) = rules.unit_kind(kind) else {
        return (5, 1000);
    };
    let k = rules.unit(k);
    let round = |v: Fx, by: i64| (v * Fx::from_num(by)).round().to_num::<i64>();
    (round(k.radius, 10), round(k.speed, 1000))
}

/// Where a block of units stands: its first unit's tile, `count` units in rows of `columns`,
/// `spacing_tenths` tenths of a tile apart.
#[derive(Clone, Copy, Debug)]
struct Layout {
    at: (i64, i64),
    count: i64,
    columns: i64,
    spacing_tenths: i64,
}

impl Layout {
    /// The block's tiles, with a tile of margin: (x0, y0, x1, y1).
    fn area(&self) -> (i64, i64, i64, i64) {
        let rows = (self.count + self.columns - 1) / self.columns;
        let w = ((self.columns - 1) * self.spacing_tenths + 9) / 10;
        let h = ((rows - 1) * self.spacing_tenths + 9) / 10;
        (
            self.at.0 - 1,
            self.at.1 - 1,
            self.at.0 + w + 1,
            self.at.1 + h + 1,
        )
    }

    /// The middle of its area.
    fn middle(&self) -> (i64, i64) {
        let (x0, y0, x1, y1) = self.area();
        ((x0 + x1) / 2, (y0 + y1) / 2)
    }
}

/// The smallest `c` with `c × c ≥ n`: a square block's columns.
fn square_columns(n: i64) -> i64 {
    let mut c = 0;
    while c * c < n {
        c += 1;
    }
    c
}

/// Ticks every scene runs past its walks' time (as the soak's first scenes did).
const SETTLE_TICKS: i64 = 120;
/// Half-ticks in a second of game time (125: a tick is 16 ms), so a scene's length is exact in
/// integers.
const HALF_TICKS_PER_SECOND: i64 = 2000 / TICK_MS as i64;
/// A scene lasts its longest walk this many times over.
const WALKS_OVER: i64 = 3;

/// A scene's length in ticks: the longest way a group is sent (`longest_d2`, its square in
/// tiles) walked [`WALKS_OVER`] times at `slowest_milli` thousandths of a tile a second, then
/// `more_seconds`, then [`SETTLE_TICKS`], rounded down (the soak's first scenes' length, which
/// was worked out in floating point, to the tick).
fn scene_ticks(longest_d2: i64, slowest_milli: i64, more_seconds: i64) -> i64 {
    let per_tile = u128::try_from(WALKS_OVER * 1000 * HALF_TICKS_PER_SECOND).unwrap_or(0);
    let d2 = u128::try_from(longest_d2.max(0)).unwrap_or(0);
    // ⌊√(d2 · per_tile²) / slowest⌋ is ⌊√d2 · per_tile / slowest⌋: √ then ÷ may both floor.
    let walk = crate::position::isqrt_u128(d2 * per_tile * per_tile)
        / u128::try_from(slowest_milli.max(1)).unwrap_or(1);
    let half_ticks =
        i64::try_from(walk).unwrap_or(i64::MAX / 4) + more_seconds * HALF_TICKS_PER_SECOND;
    half_ticks / 2 + SETTLE_TICKS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_alternate_and_scenes_repeat() {
        assert_eq!(MapKind::of_seed(1), MapKind::Fields);
        assert_eq!(MapKind::of_seed(2), MapKind::Generated);
        assert_eq!(Scene::of_seed(4), Scene::of_seed(4));
        assert_ne!(Scene::of_seed(4).toml, Scene::of_seed(6).toml);
    }

    #[test]
    fn every_kind_of_fault_is_a_failure_and_none_is_a_pass() {
        let mut o = run(&Scene::of_seed(1)).unwrap();
        assert!(o.identical_twice);
        o.stalls.clear();
        o.bodies = BodiesReport::default();
        o.deepest_in_closed_ground = None;
        o.not_ended.clear();
        o.waits_while_free.clear();
        assert!(o.passed(), "{:?}", o.failures());
        let unit = EntityId(7);
        o.waits_while_free.push(Wait {
            unit,
            waits_for: crate::scenario::watch::WaitFor::Place,
            since: 5,
            ticks: 4000,
            free_ticks: 3760,
            free_at: None,
        });
        o.stalls.push(LongStall {
            stall: Stall {
                unit,
                since: 10,
                ticks: 700,
                waiting: false,
            },
            order: Order::Follow { target: unit },
        });
        o.bodies
            .standing_at_end
            .push(crate::scenario::watch::Overlap {
                a: unit,
                b: EntityId(8),
                per_mille: 500,
                tick: 800,
                at: crate::position::Vec2::ZERO,
            });
        o.deepest_in_closed_ground = Some(InClosed {
            unit,
            depth: Fx::from_num(1) / 8,
            tick: 30,
        });
        o.not_ended.push(NotEnded {
            unit,
            order: Order::Hold,
        });
        o.identical_twice = false;
        let why = o.failures();
        assert_eq!(why.len(), 6, "{why:?}");
        assert_eq!(
            why[0],
            "1 stalled 10 s or more (longest 11.2 s; 1 follow: #7)"
        );
        assert_eq!(
            why[1],
            "1 waited with a place free for a minute or more (most 60.1 s free: #7 for a place)"
        );
        assert_eq!(
            why[2],
            "1 standing pairs nearer than the allowance at the end (nearest #7 #8 at 500‰)"
        );
        assert!(why[3].starts_with("#7 over closed ground at tick 30"));
        assert_eq!(why[5], "two runs gave different hashes");
        assert_eq!(o.stalls_by_order(), vec![("follow", 1)]);
    }

    #[test]
    fn a_scene_lasts_its_walk_three_times_over() {
        // 10 tiles at 1 tile a second, three times over, and 40 s more: 70 s of 62.5 ticks.
        assert_eq!(scene_ticks(100, 1000, 40), 4375 + SETTLE_TICKS);
        // 5 tiles at 0.6, three times over, and 3 s: 28 s, 1,750 ticks.
        assert_eq!(scene_ticks(25, 600, 3), 1750 + SETTLE_TICKS);
        assert_eq!(square_columns(10), 4);
        assert_eq!(square_columns(9), 3);
    }
}
