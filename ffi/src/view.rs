//! Reading a world for drawing it: every function here takes either a world handle or a
//! client handle (the world that client last ran; `COHORT_STATUS_NOT_READY` before it has
//! joined). Everything is copied into the caller's structs and buffers.
//!
//! Positions are the sim's fixed point, exactly (`*_fx`, [`crate::COHORT_FX_ONE`] per tile), and
//! the same as `double`s for drawing. `previous_*` is where a unit stood before the last turn
//! was run: draw it at `previous + (position − previous) × t`, `t` going from 0 to 1 over the
//! turn's length after the turn ran (docs/EMBEDDING.md, "The frame loop").
//!
//! **Facing:** the sim has none — a unit has a position, not a heading, and turns at once. Draw
//! it facing its motion, `position − previous` (keep the last heading while it stands).
//!
//! Longer than 600 lines on purpose: every `cohort_world_*` function and the struct it fills sit
//! together here, in the order `include/cohort.h` lists them (cbindgen writes the header in
//! source order, and tests/header.rs holds the committed header to it), so the C API reads as
//! one table; splitting the file would reorder the header every embedder reads.

use crate::error::{fail, CohortStatus, Failure};
use crate::handles::{get, lock, CohortHandle, Object};
use crate::strings::{out_list, write_out};
use crate::Outcome;
use cohort_sim::world::{Order, PlayerStatus, UnitState};
use cohort_sim::{EntityId, Fx, Vec2, World};

/// Where every unit stood before the last turn run (by id), for drawing between turns.
#[derive(Clone, Debug, Default)]
pub struct TurnStart {
    /// In id order (the world's units are).
    positions: Vec<(EntityId, Vec2)>,
}

impl TurnStart {
    /// Notes where the world's units stand now, before a turn runs.
    pub fn record(&mut self, world: &World) {
        self.positions.clear();
        self.positions
            .extend(world.state().units.iter().map(|u| (u.id, u.position)));
    }

    /// Where `id` stood before the last turn; a unit that did not exist stood where it is.
    pub fn before(&self, id: EntityId, now: Vec2) -> Vec2 {
        match self.positions.binary_search_by_key(&id, |(i, _)| *i) {
            Ok(i) => self.positions[i].1,
            Err(_) => now,
        }
    }
}

/// A world as the view functions see it.
pub struct View<'a> {
    pub world: &'a World,
    pub turn_start: &'a TurnStart,
    /// The turn of the next bundle to run.
    pub next_turn: u64,
    pub turn_ticks: u32,
    pub match_id: &'a str,
}

/// Runs `f` on the world `handle` names (a world, or a client's).
pub fn with_view<R>(
    handle: CohortHandle,
    f: impl FnOnce(View<'_>) -> Result<R, Failure>,
) -> Result<R, Failure> {
    let object = get(handle)?;
    match &*object {
        Object::World(w) => {
            let w = lock(w)?;
            f(w.view())
        }
        Object::Client(c) => {
            let c = lock(c)?;
            match c.view() {
                Some(v) => f(v),
                None => fail(
                    CohortStatus::NotReady,
                    "the client has no world yet: it has not joined",
                ),
            }
        }
    }
}

fn fx_bits(v: Fx) -> i64 {
    v.to_bits()
}

fn fx_f64(v: Fx) -> f64 {
    v.to_bits() as f64 / crate::COHORT_FX_ONE as f64
}

/// Sizes and counts of a world.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CohortWorldInfo {
    /// The map's width and height in tiles (tile (x, y) is at index `y * width + x`).
    pub width: i32,
    pub height: i32,
    /// Ticks run so far (16 ms each).
    pub tick: u64,
    /// The turn of the next bundle to run (the turns run so far, from the start).
    pub next_turn: u64,
    /// Ticks per turn, and one tick's length in milliseconds: a turn lasts their product.
    pub turn_ticks: u32,
    pub tick_ms: u32,
    pub players: u32,
    pub units: u32,
    pub buildings: u32,
    pub resources: u32,
    /// How many kinds of each the ruleset has (indices for `cohort_world_name`).
    pub terrain_kinds: u32,
    pub unit_kinds: u32,
    pub building_kinds: u32,
    pub resource_kinds: u32,
}

/// What a unit is doing now (the devlog's unit states).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortUnitState {
    Idle = 0,
    Moving = 1,
    Attacking = 2,
    AttackMoving = 3,
    Following = 4,
    Hold = 5,
    Gathering = 6,
    Building = 7,
    Dead = 8,
}

/// What a unit has been told to do.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortUnitOrder {
    /// Nothing: it stands, and fights back when struck.
    Idle = 0,
    /// Walk to `order_x/y`.
    Move = 1,
    /// Walk to `order_x/y`, fighting what it meets.
    AttackMove = 2,
    /// Fight `order_target`.
    Attack = 3,
    /// Keep near `order_target`.
    Follow = 4,
    /// Gather from `order_target`.
    Gather = 5,
    /// Build or repair `order_target`.
    Build = 6,
    /// Never move; fight whatever comes in range.
    Hold = 7,
}

/// A good: what resources give and stockpiles hold.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortGood {
    Food = 0,
    Wood = 1,
    Gold = 2,
    Stone = 3,
    /// Nothing (a villager carrying nothing).
    None = 255,
}

/// One unit, copied out.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CohortUnit {
    /// Its entity id (never reused; units are listed in id order).
    pub id: u64,
    /// Its player's slot, 0 to 7.
    pub owner: u32,
    /// Its kind: an index into the ruleset's unit kinds (`cohort_world_name`).
    pub kind: u32,
    /// A `CohortUnitState`.
    pub state: i32,
    /// A `CohortUnitOrder`.
    pub order: i32,
    pub hit_points: u32,
    /// The formation it belongs to (0: none).
    pub formation: u32,
    /// Where it stands now, fixed point (tiles × 65536) and in tiles.
    pub x_fx: i64,
    pub y_fx: i64,
    pub x: f64,
    pub y: f64,
    /// Where it stood before the last turn run: interpolate from here to (x, y) over the
    /// turn's length.
    pub previous_x_fx: i64,
    pub previous_y_fx: i64,
    pub previous_x: f64,
    pub previous_y: f64,
    /// The order's point (`MOVE`, `ATTACK_MOVE`), fixed point; 0 otherwise.
    pub order_x_fx: i64,
    pub order_y_fx: i64,
    /// The order's target entity (`ATTACK`, `FOLLOW`, `GATHER`, `BUILD`); 0 otherwise.
    pub order_target: u64,
    /// What it fights right now (0: nothing).
    pub fighting: u64,
    /// What a villager carries: a `CohortGood` (`NONE`: nothing) and how much.
    pub carrying_good: i32,
    pub carrying_amount: u32,
    /// 1 while it has a walk ahead of it, else 0.
    pub walking: u8,
}

/// One building or foundation, copied out.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CohortBuilding {
    pub id: u64,
    pub owner: u32,
    /// An index into the ruleset's building kinds.
    pub kind: u32,
    pub hit_points: u32,
    /// Milliseconds of building done, and of the kind's whole build: complete when equal.
    pub built_ms: u32,
    pub build_ms: u32,
    /// The tiles it covers: x from `min_x` to `max_x`, y from `min_y` to `max_y`, inclusive.
    pub min_x: i32,
    pub min_y: i32,
    pub max_x: i32,
    pub max_y: i32,
    /// 1 when built, 0 for a foundation.
    pub complete: u8,
    /// 1 when laid a quarter turn round.
    pub turned: u8,
    /// 1 for a locked gate.
    pub locked: u8,
}

/// One resource (a tree, a mine's tile, a bush), copied out.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CohortResource {
    pub id: u64,
    /// An index into the ruleset's resource kinds.
    pub kind: u32,
    /// The `CohortGood` it gives.
    pub good: i32,
    pub tile_x: i32,
    pub tile_y: i32,
    pub amount: u32,
}

/// Whether a player still plays.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortPlayerStatus {
    Playing = 0,
    Left = 1,
    Resigned = 2,
    Dropped = 3,
}

/// One player, copied out (its name: `cohort_world_name` with `COHORT_NAME_PLAYER`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CohortPlayer {
    /// Its slot, 0 to 7.
    pub id: u32,
    /// Players with the same team are allies.
    pub team: u32,
    /// A `CohortPlayerStatus`.
    pub status: i32,
    /// Food, wood, gold, stone (indexed by `CohortGood`).
    pub stock: [u32; 4],
}

/// What `cohort_world_name` names.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortName {
    /// A terrain (the values `cohort_world_tiles` gives).
    Terrain = 0,
    /// A unit kind (`CohortUnit::kind`).
    UnitKind = 1,
    /// A building kind (`CohortBuilding::kind`).
    BuildingKind = 2,
    /// A resource kind (`CohortResource::kind`).
    ResourceKind = 3,
    /// A player, by slot.
    Player = 4,
    /// The match id (index ignored; a world made from bare bytes has its id too).
    Match = 5,
}

fn unit_of(u: &cohort_sim::world::Unit, turn_start: &TurnStart) -> CohortUnit {
    let prev = turn_start.before(u.id, u.position);
    let (order, point, target) = match &u.order {
        Order::Idle => (CohortUnitOrder::Idle, None, None),
        Order::Move { to } => (CohortUnitOrder::Move, Some(*to), None),
        Order::AttackMove { to } => (CohortUnitOrder::AttackMove, Some(*to), None),
        Order::Attack { target } => (CohortUnitOrder::Attack, None, Some(*target)),
        Order::Follow { target } => (CohortUnitOrder::Follow, None, Some(*target)),
        Order::Gather { target } => (CohortUnitOrder::Gather, None, Some(*target)),
        Order::Build { target } => (CohortUnitOrder::Build, None, Some(*target)),
        Order::Hold => (CohortUnitOrder::Hold, None, None),
    };
    let state = match u.state {
        UnitState::Idle => CohortUnitState::Idle,
        UnitState::Moving => CohortUnitState::Moving,
        UnitState::Attacking => CohortUnitState::Attacking,
        UnitState::AttackMoving => CohortUnitState::AttackMoving,
        UnitState::Following => CohortUnitState::Following,
        UnitState::Hold => CohortUnitState::Hold,
        UnitState::Gathering => CohortUnitState::Gathering,
        UnitState::Building => CohortUnitState::Building,
        UnitState::Dead => CohortUnitState::Dead,
    };
    let (good, amount) = u
        .carrying
        .map_or((CohortGood::None as i32, 0), |(g, n)| (g.index() as i32, n));
    CohortUnit {
        id: u.id.0,
        owner: u32::from(u.owner),
        kind: u32::from(u.kind),
        state: state as i32,
        order: order as i32,
        hit_points: u.hit_points,
        formation: u.formation.unwrap_or(0),
        x_fx: fx_bits(u.position.x),
        y_fx: fx_bits(u.position.y),
        x: fx_f64(u.position.x),
        y: fx_f64(u.position.y),
        previous_x_fx: fx_bits(prev.x),
        previous_y_fx: fx_bits(prev.y),
        previous_x: fx_f64(prev.x),
        previous_y: fx_f64(prev.y),
        order_x_fx: point.map_or(0, |p| fx_bits(p.x)),
        order_y_fx: point.map_or(0, |p| fx_bits(p.y)),
        order_target: target.map_or(0, |t| t.0),
        fighting: u.fight.map_or(0, |t| t.0),
        carrying_good: good,
        carrying_amount: amount,
        walking: u8::from(u.route.is_some()),
    }
}

/// The copy-out of a list read from the world `handle` names (see `strings::out_list`).
///
/// # Safety
/// As `out_list`.
unsafe fn copy_list<T: Copy>(
    handle: CohortHandle,
    buf: *mut T,
    cap: usize,
    count: *mut usize,
    read: impl FnOnce(View<'_>) -> Result<Vec<T>, Failure>,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let items = with_view(handle, read)?;
        unsafe { out_list(&items, buf, cap, count) }
    })
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Fills `out` with the world's sizes and counts.
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER`, `NOT_READY` (a
/// client not yet joined). Thread-safe. The caller owns `out`.
///
/// # Safety
/// `out` must be null or point to a writable `CohortWorldInfo`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_info(
    handle: CohortHandle,
    out: *mut CohortWorldInfo,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let info = with_view(handle, |v| {
            let s = &v.world.state();
            let rules = v.world.rules();
            Ok(CohortWorldInfo {
                width: s.grid.width(),
                height: s.grid.height(),
                tick: s.tick,
                next_turn: v.next_turn,
                turn_ticks: v.turn_ticks,
                tick_ms: cohort_sim::world::TICK_MS,
                players: count(s.players.len()),
                units: count(s.units.len()),
                buildings: count(s.buildings.len()),
                resources: count(s.resources.len()),
                terrain_kinds: count(rules.terrains.len()),
                unit_kinds: count(rules.units.len()),
                building_kinds: count(rules.buildings.len()),
                resource_kinds: count(rules.resources.len()),
            })
        })?;
        unsafe { write_out(out, info, "out") }
    })
}

/// Writes the state hash of the world (blake3, 32 bytes) into `out`: what a `TurnHash`
/// carries after the turn last run.
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER`, `NOT_READY`.
/// Thread-safe. The caller owns `out`.
///
/// # Safety
/// `out` must be null or point to 32 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_hash(handle: CohortHandle, out: *mut u8) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let hash = with_view(handle, |v| Ok(v.world.hash()))?;
        unsafe { crate::strings::out_bytes(out, &hash.0) }
    })
}

/// Copies the terrain of every tile, row by row (`y * width + x`), into `terrain` (one byte
/// each: an index for `cohort_world_name` with `COHORT_NAME_TERRAIN`). `*count` is set to
/// `width × height`; with `cap` smaller nothing is written (`BUFFER_TOO_SMALL`).
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER` (count, or
/// terrain with room), `NOT_READY`, `BUFFER_TOO_SMALL`. Thread-safe. The caller owns the
/// buffers.
///
/// # Safety
/// `terrain` must point to `cap` writable bytes (or be null with `cap` 0); `count` to a
/// writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_tiles(
    handle: CohortHandle,
    terrain: *mut u8,
    cap: usize,
    count: *mut usize,
) -> CohortStatus {
    unsafe {
        copy_list(handle, terrain, cap, count, |v| {
            let g = v.world.grid();
            Ok((0..g.len()).map(|i| g.terrain_at(i)).collect::<Vec<u8>>())
        })
    }
}

/// Copies every living unit, in id order, into `units` (a unit killed in a tick is gone from
/// the list after that tick: dead units are never listed). `*count` is set to the number of
/// units; with
/// `cap` smaller nothing is written (`BUFFER_TOO_SMALL`): call with `units` null and `cap` 0
/// to ask.
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER`, `NOT_READY`,
/// `BUFFER_TOO_SMALL`. Thread-safe. The caller owns the buffers.
///
/// # Safety
/// `units` must point to `cap` writable `CohortUnit`s (or be null with `cap` 0); `count` to a
/// writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_units(
    handle: CohortHandle,
    units: *mut CohortUnit,
    cap: usize,
    count: *mut usize,
) -> CohortStatus {
    unsafe {
        copy_list(handle, units, cap, count, |v| {
            Ok(v.world
                .state()
                .units
                .iter()
                .map(|u| unit_of(u, v.turn_start))
                .collect::<Vec<_>>())
        })
    }
}

/// Copies the unit with entity id `id` into `out`.
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER`, `NOT_READY`,
/// `NOT_FOUND` (no such unit). Thread-safe. The caller owns `out`.
///
/// # Safety
/// `out` must be null or point to a writable `CohortUnit`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_unit(
    handle: CohortHandle,
    id: u64,
    out: *mut CohortUnit,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let unit = with_view(handle, |v| match v.world.unit(EntityId(id)) {
            Some(u) => Ok(unit_of(u, v.turn_start)),
            None => fail(CohortStatus::NotFound, format!("no unit {id}")),
        })?;
        unsafe { write_out(out, unit, "out") }
    })
}

/// Copies the ids of the living units `player` owns (dead units are never listed), in id
/// order, into `ids`:
/// the units its orders may name. `*count` and `BUFFER_TOO_SMALL` as for `cohort_world_units`.
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER`, `NOT_READY`,
/// `NOT_FOUND` (no such player), `BUFFER_TOO_SMALL`. Thread-safe. The caller owns the buffers.
///
/// # Safety
/// `ids` must point to `cap` writable `uint64_t`s (or be null with `cap` 0); `count` to a
/// writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_player_units(
    handle: CohortHandle,
    player: u32,
    ids: *mut u64,
    cap: usize,
    count: *mut usize,
) -> CohortStatus {
    unsafe {
        copy_list(handle, ids, cap, count, |v| {
            if !v
                .world
                .state()
                .players
                .iter()
                .any(|p| u32::from(p.id) == player)
            {
                return fail(CohortStatus::NotFound, format!("no player {player}"));
            }
            Ok(v.world
                .state()
                .units
                .iter()
                .filter(|u| u32::from(u.owner) == player && u.state != UnitState::Dead)
                .map(|u| u.id.0)
                .collect::<Vec<u64>>())
        })
    }
}

/// Copies every building and foundation, in id order, into `buildings` (`*count` and
/// `BUFFER_TOO_SMALL` as for `cohort_world_units`).
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER`, `NOT_READY`,
/// `BUFFER_TOO_SMALL`. Thread-safe. The caller owns the buffers.
///
/// # Safety
/// `buildings` must point to `cap` writable `CohortBuilding`s (or be null with `cap` 0);
/// `count` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_buildings(
    handle: CohortHandle,
    buildings: *mut CohortBuilding,
    cap: usize,
    count: *mut usize,
) -> CohortStatus {
    unsafe {
        copy_list(handle, buildings, cap, count, |v| {
            let rules = v.world.rules();
            Ok(v.world
                .state()
                .buildings
                .iter()
                .map(|b| {
                    let f = &b.footprint;
                    CohortBuilding {
                        id: b.id.0,
                        owner: u32::from(b.owner),
                        kind: u32::from(b.kind),
                        hit_points: b.hit_points,
                        built_ms: b.built_ms,
                        build_ms: rules.buildings[usize::from(b.kind)].build_ms,
                        min_x: f.origin.x + f.min.x,
                        min_y: f.origin.y + f.min.y,
                        max_x: f.origin.x + f.max.x,
                        max_y: f.origin.y + f.max.y,
                        complete: u8::from(b.complete),
                        turned: u8::from(b.turned),
                        locked: u8::from(b.locked),
                    }
                })
                .collect::<Vec<_>>())
        })
    }
}

/// Copies every resource (trees, mine tiles, bushes), in id order, into `resources` (`*count`
/// and `BUFFER_TOO_SMALL` as for `cohort_world_units`).
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER`, `NOT_READY`,
/// `BUFFER_TOO_SMALL`. Thread-safe. The caller owns the buffers.
///
/// # Safety
/// `resources` must point to `cap` writable `CohortResource`s (or be null with `cap` 0);
/// `count` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_resources(
    handle: CohortHandle,
    resources: *mut CohortResource,
    cap: usize,
    count: *mut usize,
) -> CohortStatus {
    unsafe {
        copy_list(handle, resources, cap, count, |v| {
            let rules = v.world.rules();
            Ok(v.world
                .state()
                .resources
                .iter()
                .map(|r| CohortResource {
                    id: r.id.0,
                    kind: u32::from(r.kind),
                    good: rules.resources[usize::from(r.kind)].gives.index() as i32,
                    tile_x: r.tile.x,
                    tile_y: r.tile.y,
                    amount: r.amount,
                })
                .collect::<Vec<_>>())
        })
    }
}

/// Copies every player, in slot order, into `players` (`*count` and `BUFFER_TOO_SMALL` as for
/// `cohort_world_units`).
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER`, `NOT_READY`,
/// `BUFFER_TOO_SMALL`. Thread-safe. The caller owns the buffers.
///
/// # Safety
/// `players` must point to `cap` writable `CohortPlayer`s (or be null with `cap` 0); `count`
/// to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_players(
    handle: CohortHandle,
    players: *mut CohortPlayer,
    cap: usize,
    count: *mut usize,
) -> CohortStatus {
    unsafe {
        copy_list(handle, players, cap, count, |v| {
            Ok(v.world
                .state()
                .players
                .iter()
                .map(|p| CohortPlayer {
                    id: u32::from(p.id),
                    team: u32::from(p.team),
                    status: match p.status {
                        PlayerStatus::Playing => CohortPlayerStatus::Playing,
                        PlayerStatus::Left => CohortPlayerStatus::Left,
                        PlayerStatus::Resigned => CohortPlayerStatus::Resigned,
                        PlayerStatus::Dropped => CohortPlayerStatus::Dropped,
                    } as i32,
                    stock: p.stock,
                })
                .collect::<Vec<_>>())
        })
    }
}

/// Copies a name into `buf` (UTF-8, no terminator): the terrain, unit kind, building kind or
/// resource kind with index `index`, a player's name by slot, or the match id (`what`, a
/// `CohortName`). `*len` is set to the name's length in bytes; with `cap` smaller nothing is
/// written (`BUFFER_TOO_SMALL`). Names are at most 64 bytes.
///
/// Takes a world or a client handle. Errors: `INVALID_HANDLE`, `NULL_POINTER`, `NOT_READY`,
/// `INVALID_ARGUMENT` (an unknown `what`), `NOT_FOUND` (no such index), `BUFFER_TOO_SMALL`.
/// Thread-safe. The caller owns the buffers.
///
/// # Safety
/// `buf` must point to `cap` writable bytes (or be null with `cap` 0); `len` to a writable
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_name(
    handle: CohortHandle,
    what: i32,
    index: u32,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let name = with_view(handle, |v| {
            let rules = v.world.rules();
            let i = usize::try_from(index).unwrap_or(usize::MAX);
            let name = match what {
                0 => rules.terrains.get(i).map(|t| t.name.clone()),
                1 => rules.units.get(i).map(|k| k.name.clone()),
                2 => rules.buildings.get(i).map(|k| k.name.clone()),
                3 => rules.resources.get(i).map(|k| k.name.clone()),
                4 => v.world.state().players.get(i).map(|p| p.name.clone()),
                5 => Some(v.match_id.to_string()),
                _ => {
                    return fail(
                        CohortStatus::InvalidArgument,
                        format!("{what} is not a CohortName (0 to 5)"),
                    )
                }
            };
            name.ok_or_else(|| {
                Failure::new(
                    CohortStatus::NotFound,
                    format!("no name {index} of kind {what}"),
                )
            })
        })?;
        unsafe { out_list(name.as_bytes(), buf, cap, len) }
    })
}
