//! Orders: every command of docs/CLIENT.md as one C struct, [`CohortOrder`], turned into the
//! sim's `Command`. The client sends them (`cohort_client_order`); an engine with its own
//! transport can have them encoded as a whole `Commands` frame (`cohort_encode_commands`).

use crate::error::{fail, CohortStatus, Failure};
use crate::strings::{out_list, str_in};
use crate::Outcome;
use cohort_protocol::codec::encode_frame;
use cohort_protocol::limits::MAX_COMMANDS_PER_MESSAGE;
use cohort_protocol::message::Commands;
use cohort_protocol::ClientMessage;
use cohort_sim::command::MAX_UNITS_PER_COMMAND;
use cohort_sim::{Command, EntityId, FormationKind, Fx, Tile, Vec2};

/// The kinds of order; the values are the wire's `Command` indices (docs/PROTOCOL.md).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortCommand {
    /// `units` go together to (`x_fx`, `y_fx`).
    Move = 0,
    /// Each of `units` to its place in the group's formation round (`x_fx`, `y_fx`).
    FormationMove = 1,
    /// `units` attack `target`.
    Attack = 2,
    /// `units` walk to (`x_fx`, `y_fx`), fighting what they meet.
    AttackMove = 3,
    /// `units` keep near `target`.
    Follow = 4,
    /// Villagers among `units` gather from resource `target`.
    Gather = 5,
    /// Villagers among `units` build or repair building `target`.
    Build = 6,
    /// Lay a foundation of building kind `building` at tile (`tile_x`, `tile_y`), `turned` or
    /// not; `units` build it.
    PlaceBuilding = 7,
    Stop = 8,
    Hold = 9,
    /// Set the group's formation to `formation` (a `CohortFormation`).
    SetFormation = 10,
    /// Take `units` out of their formations.
    Disband = 11,
    Delete = 12,
}

/// The formations (`SET_FORMATION`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortFormation {
    Line = 0,
    Staggered = 1,
    Box = 2,
    Flank = 3,
    /// The devlog's group move: each unit keeps its offset from the group's middle.
    Shape = 4,
}

/// One order. Fill `kind`, `units` / `unit_count`, and the fields that kind names (the
/// others are ignored). Points are fixed point (tiles × 65536: `COHORT_FX_ONE`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CohortOrder {
    /// A `CohortCommand`.
    pub kind: i32,
    /// The units (entity ids) the order is for: 1 to 512 (`MAX_UNITS_PER_COMMAND`; none is
    /// refused, `INVALID_ARGUMENT`).
    pub units: *const u64,
    pub unit_count: usize,
    /// The point (`MOVE`, `FORMATION_MOVE`, `ATTACK_MOVE`).
    pub x_fx: i64,
    pub y_fx: i64,
    /// The target entity (`ATTACK`, `FOLLOW`, `GATHER`, `BUILD`).
    pub target: u64,
    /// The tile and turn (`PLACE_BUILDING`).
    pub tile_x: i32,
    pub tile_y: i32,
    pub turned: u8,
    /// A `CohortFormation` (`SET_FORMATION`).
    pub formation: i32,
    /// The building kind's name as the ruleset spells it, UTF-8 (`PLACE_BUILDING`).
    pub building: *const u8,
    pub building_len: usize,
}

/// The sim's command for an order.
///
/// # Safety
/// `order.units` must point to `unit_count` ids and `order.building` to `building_len` bytes
/// (null only with a length of 0).
pub unsafe fn command_of(order: &CohortOrder) -> Result<Command, Failure> {
    if order.unit_count > MAX_UNITS_PER_COMMAND {
        return fail(
            CohortStatus::InvalidArgument,
            format!(
                "an order names at most {MAX_UNITS_PER_COMMAND} units, not {}",
                order.unit_count
            ),
        );
    }
    if order.unit_count == 0 {
        return fail(
            CohortStatus::InvalidArgument,
            "an order names 1 to 512 units, not none",
        );
    }
    if order.units.is_null() {
        return fail(
            CohortStatus::NullPointer,
            format!("units is null with a unit_count of {}", order.unit_count),
        );
    }
    // SAFETY: the caller promises `unit_count` ids at `units`.
    let ids: &[u64] = unsafe { std::slice::from_raw_parts(order.units, order.unit_count) };
    let units: Vec<EntityId> = ids.iter().map(|&i| EntityId(i)).collect();
    let to = Vec2::new(Fx::from_bits(order.x_fx), Fx::from_bits(order.y_fx));
    let target = EntityId(order.target);
    Ok(match order.kind {
        0 => Command::Move { units, to },
        1 => Command::FormationMove { units, to },
        2 => Command::Attack { units, target },
        3 => Command::AttackMove { units, to },
        4 => Command::Follow { units, target },
        5 => Command::Gather { units, target },
        6 => Command::Build { units, target },
        7 => {
            let kind = unsafe { str_in(order.building, order.building_len, "building") }?;
            if kind.is_empty() {
                return fail(CohortStatus::InvalidArgument, "a building kind is needed");
            }
            Command::PlaceBuilding {
                kind: kind.to_string(),
                at: Tile::new(order.tile_x, order.tile_y),
                turned: order.turned != 0,
                builders: units,
            }
        }
        8 => Command::Stop { units },
        9 => Command::Hold { units },
        10 => Command::SetFormation {
            units,
            formation: match order.formation {
                0 => FormationKind::Line,
                1 => FormationKind::Staggered,
                2 => FormationKind::Box,
                3 => FormationKind::Flank,
                4 => FormationKind::Shape,
                f => {
                    return fail(
                        CohortStatus::InvalidArgument,
                        format!("{f} is not a CohortFormation (0 to 4)"),
                    )
                }
            },
        },
        11 => Command::Disband { units },
        12 => Command::Delete { units },
        k => {
            return fail(
                CohortStatus::InvalidArgument,
                format!("{k} is not a CohortCommand (0 to 12)"),
            )
        }
    })
}

/// Refuses a `count` of orders under `least` or over `MAX_COMMANDS_PER_MESSAGE` (32) for
/// `what` (`INVALID_ARGUMENT`).
pub(crate) fn order_count(count: usize, least: usize, what: &str) -> Outcome {
    if (least..=MAX_COMMANDS_PER_MESSAGE).contains(&count) {
        return Ok(());
    }
    fail(
        CohortStatus::InvalidArgument,
        format!("{what} holds {least} to {MAX_COMMANDS_PER_MESSAGE} orders, not {count}"),
    )
}

/// The commands for `count` orders at `orders`.
///
/// # Safety
/// `orders` must point to `count` orders, each as [`command_of`] needs.
pub unsafe fn commands_of(
    orders: *const CohortOrder,
    count: usize,
) -> Result<Vec<Command>, Failure> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if orders.is_null() {
        return fail(CohortStatus::NullPointer, "orders is null");
    }
    // SAFETY: the caller promises `count` orders at `orders`.
    let orders = unsafe { std::slice::from_raw_parts(orders, count) };
    orders
        .iter()
        .enumerate()
        .map(|(i, o)| {
            unsafe { command_of(o) }
                .map_err(|f| Failure::new(f.status, format!("order {i}: {}", f.message)))
        })
        .collect()
}

/// Encodes `count` orders as one whole `Commands` frame for `turn` (the 4-byte length, then
/// the payload: what to write on the stream), for an engine with its own transport. `*len` is
/// set to the frame's length; with `cap` smaller nothing is written (`BUFFER_TOO_SMALL`).
///
/// Errors: `NULL_POINTER`, `INVALID_ARGUMENT` (a bad order, more than 32 orders:
/// `MAX_COMMANDS_PER_MESSAGE`), `BUFFER_TOO_SMALL`. Thread-safe. The caller owns every buffer.
///
/// # Safety
/// `orders` must point to `count` orders; `buf` to `cap` writable bytes (or be null with `cap`
/// 0); `len` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_encode_commands(
    turn: u64,
    orders: *const CohortOrder,
    count: usize,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        order_count(count, 0, "a Commands message")?;
        let commands = unsafe { commands_of(orders, count) }?;
        let frame = encode_frame(&ClientMessage::Commands(Commands { turn, commands }))
            .map_err(|e| Failure::new(CohortStatus::InvalidArgument, e.to_string()))?;
        unsafe { out_list(&frame, buf, cap, len) }
    })
}
