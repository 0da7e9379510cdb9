//! The sim alone, for an engine that speaks the protocol over its own transport: a match's
//! world from the bytes the server sends, each turn's bundle run in order, the state hash to
//! answer with. Built and stepped through `cohort_protocol::setup` exactly as the server and
//! `cohort` do, so the hashes agree.
//!
//! The bytes are frame payloads as docs/PROTOCOL.md describes them (a frame less its 4-byte
//! length): a `JoinAccepted` or `TurnBundle` server message, its variant index first.

use crate::error::{fail, CohortStatus, Failure};
use crate::handles::{insert, remove, with_world, CohortHandle, Object};
use crate::strings::{bytes_in, out_bytes, rules_from, write_out};
use crate::view::{TurnStart, View};
use crate::Outcome;
use cohort_protocol::codec::{decode_message, decode_snapshot};
use cohort_protocol::setup::run_bundle;
use cohort_protocol::{MatchConfig, ServerMessage};
use cohort_sim::{Ruleset, World};
use std::sync::{Arc, Mutex};

/// A world handle's object.
pub struct WorldBox {
    world: World,
    turn_start: TurnStart,
    /// The turn of the next bundle to run.
    next_turn: u64,
    config: MatchConfig,
}

impl WorldBox {
    fn new(config: MatchConfig, rules: Arc<Ruleset>) -> Result<WorldBox, Failure> {
        let world = config
            .world(rules)
            .map_err(|e| Failure::new(CohortStatus::Refused, e.to_string()))?;
        Ok(WorldBox {
            world,
            turn_start: TurnStart::default(),
            next_turn: 0,
            config,
        })
    }

    pub fn view(&self) -> View<'_> {
        View {
            world: &self.world,
            turn_start: &self.turn_start,
            next_turn: self.next_turn,
            turn_ticks: self.config.turn_ticks,
            match_id: &self.config.match_id,
        }
    }
}

fn decode_failure(what: &str, e: impl std::fmt::Display) -> Failure {
    Failure::new(CohortStatus::Decode, format!("{what}: {e}"))
}

/// Registers a new world and writes its handle.
///
/// # Safety
/// `out` must be null or point to a writable handle.
unsafe fn made(world: WorldBox, out: *mut CohortHandle) -> Outcome {
    crate::strings::out_ptr(out, "out")?;
    let handle = insert(Object::World(Box::new(Mutex::new(world))));
    unsafe { write_out(out, handle, "out") }
}

/// Makes the world a match starts from, out of its `MatchConfig` encoded as docs/PROTOCOL.md
/// says (the `config` field of `JoinAccepted`, alone), and writes its handle to `out`.
/// `ruleset_toml`: the ruleset file the match plays by, or null and 0 for the embedded default;
/// its hash must be the configuration's.
///
/// Errors: `NULL_POINTER`, `DECODE` (not a MatchConfig, or bytes left over), `REFUSED` (a
/// configuration that cannot be played, another ruleset), `INVALID_ARGUMENT` (a bad ruleset
/// file). Thread-safe. The caller owns the bytes (nothing is kept) and frees the handle with
/// `cohort_world_free`.
///
/// # Safety
/// `config` must point to `config_len` readable bytes; `ruleset_toml` to `ruleset_len` bytes
/// or be null; `out` to a writable handle.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_new(
    config: *const u8,
    config_len: usize,
    ruleset_toml: *const u8,
    ruleset_len: usize,
    out: *mut CohortHandle,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let bytes = unsafe { bytes_in(config, config_len, "config") }?;
        let config: MatchConfig =
            decode_message(bytes).map_err(|e| decode_failure("the MatchConfig", e))?;
        let rules = unsafe { rules_from(ruleset_toml, ruleset_len) }?;
        unsafe { made(WorldBox::new(config, rules)?, out) }
    })
}

/// Makes the world a match starts from out of a whole `JoinAccepted` message (a frame's
/// payload: `00`, then the fields), and writes its handle to `out`. When the message's
/// `snapshot_follows` is true, load the snapshot that follows into it with
/// `cohort_world_load_snapshot` before running bundles.
///
/// Errors, ownership and threads as `cohort_world_new` (`DECODE` also for another message).
///
/// # Safety
/// As `cohort_world_new`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_from_join_accepted(
    payload: *const u8,
    payload_len: usize,
    ruleset_toml: *const u8,
    ruleset_len: usize,
    out: *mut CohortHandle,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let bytes = unsafe { bytes_in(payload, payload_len, "payload") }?;
        let accepted = match decode_message::<ServerMessage>(bytes) {
            Ok(ServerMessage::JoinAccepted(a)) => a,
            Ok(other) => {
                return fail(
                    CohortStatus::Decode,
                    format!("not a JoinAccepted but {}", message_name(&other)),
                )
            }
            Err(e) => return Err(decode_failure("the message", e)),
        };
        let rules = unsafe { rules_from(ruleset_toml, ruleset_len) }?;
        unsafe { made(WorldBox::new(accepted.config, rules)?, out) }
    })
}

/// Replaces a world's state with a snapshot: the `bytes` of every `Snapshot` piece the server
/// sent, concatenated in index order, and the pieces' `turn` (the state is the one after it;
/// the next bundle to run is `turn + 1`).
///
/// Errors: `INVALID_HANDLE` (not a world), `NULL_POINTER`, `DECODE` (not a snapshot),
/// `REFUSED` (a snapshot of another ruleset). Thread-safe. The caller owns the bytes.
///
/// # Safety
/// `snapshot` must point to `snapshot_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_load_snapshot(
    world: CohortHandle,
    snapshot: *const u8,
    snapshot_len: usize,
    turn: u64,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let bytes = unsafe { bytes_in(snapshot, snapshot_len, "snapshot") }?;
        with_world(world, |w| {
            let snap = decode_snapshot(bytes).map_err(|e| decode_failure("the snapshot", e))?;
            let loaded = World::from_snapshot(w.world.rules_arc(), snap)
                .map_err(|e| Failure::new(CohortStatus::Refused, e.to_string()))?;
            w.world = loaded;
            w.turn_start = TurnStart::default();
            w.next_turn = turn.checked_add(1).ok_or_else(|| {
                Failure::new(CohortStatus::InvalidArgument, "the turn is too large")
            })?;
            Ok(())
        })
    })
}

/// Runs one turn: a whole `TurnBundle` message (a frame's payload: `01`, then the fields) —
/// its input delay, membership events, commands at the turn's first tick, then the rest of the
/// turn's ticks — and writes the state hash after it (32 bytes) to `hash_out`, what the
/// `TurnHash` for that turn carries. Bundles must come in turn order, each once.
///
/// Errors: `INVALID_HANDLE` (not a world), `NULL_POINTER`, `DECODE` (not a TurnBundle),
/// `INVALID_ARGUMENT` (a bundle out of turn: the message says which is due). Nothing is run on
/// an error. Thread-safe. The caller owns the bytes and `hash_out`.
///
/// # Safety
/// `payload` must point to `payload_len` readable bytes; `hash_out` to 32 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_run_bundle(
    world: CohortHandle,
    payload: *const u8,
    payload_len: usize,
    hash_out: *mut u8,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let bytes = unsafe { bytes_in(payload, payload_len, "payload") }?;
        crate::strings::out_ptr(hash_out, "hash_out")?;
        let hash = with_world(world, |w| {
            let bundle = match decode_message::<ServerMessage>(bytes) {
                Ok(ServerMessage::TurnBundle(b)) => b,
                Ok(other) => {
                    return fail(
                        CohortStatus::Decode,
                        format!("not a TurnBundle but {}", message_name(&other)),
                    )
                }
                Err(e) => return Err(decode_failure("the message", e)),
            };
            if bundle.turn != w.next_turn {
                return fail(
                    CohortStatus::InvalidArgument,
                    format!(
                        "bundle {} arrived where {} is due (bundles run in turn order, once)",
                        bundle.turn, w.next_turn
                    ),
                );
            }
            w.turn_start.record(&w.world);
            run_bundle(&mut w.world, &bundle, w.config.turn_ticks);
            w.next_turn += 1;
            Ok(w.world.hash())
        })?;
        unsafe { out_bytes(hash_out, &hash.0) }
    })
}

/// Frees a world. The handle is invalid afterwards (a second free returns `INVALID_HANDLE`).
///
/// Errors: `INVALID_HANDLE` (0, freed, or a client: use `cohort_client_free`). Thread-safe; a
/// call running on the world on another thread finishes first.
#[no_mangle]
pub extern "C" fn cohort_world_free(world: CohortHandle) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let object = remove(world, true)?;
        drop(object);
        Ok(())
    })
}

/// A server message's name, for errors.
pub(crate) fn message_name(m: &ServerMessage) -> &'static str {
    match m {
        ServerMessage::JoinAccepted(_) => "JoinAccepted",
        ServerMessage::TurnBundle(_) => "TurnBundle",
        ServerMessage::Rescheduled(_) => "Rescheduled",
        ServerMessage::DesyncNotice(_) => "DesyncNotice",
        ServerMessage::SnapshotRequest { .. } => "SnapshotRequest",
        ServerMessage::Snapshot(_) => "Snapshot",
        ServerMessage::Ping(_) => "Ping",
        ServerMessage::Pong(_) => "Pong",
        ServerMessage::Chat(_) => "Chat",
        ServerMessage::Paused(_) => "Paused",
        ServerMessage::Resumed(_) => "Resumed",
        ServerMessage::MatchEnded(_) => "MatchEnded",
        ServerMessage::Error(_) => "Error",
    }
}
