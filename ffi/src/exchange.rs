//! What an engine on its own transport exchanges besides bundles and hashes: a world's
//! snapshot and its recent tick hashes (to answer a `SnapshotRequest` with evidence, or hand a
//! state to another peer), and encoders for a bundle of one's own (to step a world without a
//! server) and for the evidence frames themselves.

use crate::error::{fail, CohortStatus, Failure};
use crate::handles::{with_world, CohortHandle};
use crate::orders::commands_of;
use crate::orders::CohortOrder;
use crate::strings::{bytes_in, out_list};
use crate::view::with_view;
use crate::Outcome;
use cohort_protocol::codec::{decode_snapshot, encode_evidence, encode_frame, encode_message};
use cohort_protocol::limits::{MAX_PLAYERS, SNAPSHOT_CHUNK_BYTES};
use cohort_protocol::message::{SnapshotChunk, TurnBundle};
use cohort_protocol::report::Evidence;
use cohort_protocol::{ClientMessage, ServerMessage};
use cohort_sim::hash::TickHash;
use cohort_sim::PlayerCommand;

/// The bytes of a tick hash.
pub const COHORT_TICK_HASH_BYTES: usize = 16;

/// Writes the world's state as a snapshot's bytes (what the `Snapshot` pieces of
/// docs/PROTOCOL.md carry, concatenated; what `cohort_world_load_snapshot` loads) to `buf`.
/// `*len` is set to the size; with `cap` smaller nothing is written (`BUFFER_TOO_SMALL`: call
/// with `buf` null and `cap` 0 to ask). Takes a world or a joined client.
///
/// Errors: `INVALID_HANDLE`, `NULL_POINTER` (`len`; `buf` with `cap` > 0 needed), `NOT_READY`
/// (a client not joined), `BUFFER_TOO_SMALL`, `INVALID_ARGUMENT` (a state over the snapshot
/// limit, 64 MiB). Thread-safe. The caller owns `buf`.
///
/// # Safety
/// `buf` must point to `cap` writable bytes (or be null with `cap` 0); `len` to a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_snapshot(
    handle: CohortHandle,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let bytes = with_view(handle, |v| {
            cohort_protocol::codec::encode_snapshot(&v.world.snapshot())
                .map_err(|e| Failure::new(CohortStatus::InvalidArgument, e.to_string()))
        })?;
        unsafe { out_list(&bytes, buf, cap, len) }
    })
}

/// Writes the world's tick hash after each tick of `turn` (`turn_ticks` hashes of
/// `COHORT_TICK_HASH_BYTES` bytes, in order) to `hashes`: what a `SnapshotRequest`'s evidence
/// carries. A world holds its last 128 turns' (`TICK_HASH_TURNS`), run by
/// `cohort_world_run_bundle` or `cohort_world_step` since it was made or last loaded. `*count`
/// is set to the number of hashes; with `cap` (in hashes) smaller nothing is written.
///
/// Errors: `INVALID_HANDLE` (not a world), `NULL_POINTER`, `NOT_FOUND` (a turn not run, or no
/// longer held), `BUFFER_TOO_SMALL`. Thread-safe. The caller owns `hashes`.
///
/// # Safety
/// `hashes` must point to `cap × 16` writable bytes (or be null with `cap` 0); `count` to a
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_tick_hashes(
    world: CohortHandle,
    turn: u64,
    hashes: *mut u8,
    cap: usize,
    count: *mut usize,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let held = with_world(world, |w| {
            w.turn_tick_hashes(turn).ok_or_else(|| {
                Failure::new(
                    CohortStatus::NotFound,
                    format!("the tick hashes of turn {turn} are not held (not run, or too old)"),
                )
            })
        })?;
        let items: Vec<[u8; COHORT_TICK_HASH_BYTES]> = held.iter().map(|h| h.0).collect();
        // [u8; 16] has the alignment of a byte: `hashes` is `cap` of them.
        unsafe { out_list(&items, hashes.cast(), cap, count) }
    })
}

/// Encodes a `TurnBundle` of one's own (a message's payload, as `cohort_world_run_bundle`
/// takes it): turn `turn`, no membership change, and `count` orders (at most 32,
/// `MAX_COMMANDS_PER_MESSAGE`), order i given by player `players[i]` (0 to 7). For stepping a
/// world without a server: tools, tests, an engine's own lockstep. `*len` is set to the size;
/// with `cap` smaller nothing is written. `orders` and `players` may be null only with `count`
/// 0.
///
/// Errors: `NULL_POINTER`, `INVALID_ARGUMENT` (a bad order, a player over 7, more than 32
/// orders), `BUFFER_TOO_SMALL`. Thread-safe. The caller owns every buffer.
///
/// # Safety
/// `orders` and `players` must point to `count` items each; `buf` to `cap` writable bytes (or
/// be null with `cap` 0); `len` to a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn cohort_encode_bundle(
    turn: u64,
    orders: *const CohortOrder,
    players: *const u8,
    count: usize,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        crate::orders::order_count(count, 0, "a bundle of one's own")?;
        let who = unsafe { bytes_in(players, count, "players") }?;
        if let Some(p) = who.iter().find(|p| usize::from(**p) >= MAX_PLAYERS) {
            return fail(
                CohortStatus::InvalidArgument,
                format!("player {p} is not 0 to {}", MAX_PLAYERS - 1),
            );
        }
        let commands = unsafe { commands_of(orders, count) }?;
        let bundle = TurnBundle {
            turn,
            input_delay: None,
            events: Vec::new(),
            commands: who
                .iter()
                .zip(commands)
                .map(|(&player, command)| PlayerCommand { player, command })
                .collect(),
            previous_hash: None,
        };
        let payload = encode_message(&ServerMessage::TurnBundle(bundle))
            .map_err(|e| Failure::new(CohortStatus::InvalidArgument, e.to_string()))?;
        unsafe { out_list(&payload, buf, cap, len) }
    })
}

/// A snapshot's bytes, decoded, or none for null and 0.
unsafe fn snapshot_in(
    ptr: *const u8,
    len: usize,
    what: &str,
) -> Result<Option<cohort_sim::world::Snapshot>, Failure> {
    if ptr.is_null() && len == 0 {
        return Ok(None);
    }
    let bytes = unsafe { bytes_in(ptr, len, what) }?;
    decode_snapshot(bytes)
        .map(Some)
        .map_err(|e| Failure::new(CohortStatus::Decode, format!("{what}: {e}")))
}

/// Encodes the answer to a `SnapshotRequest` for `turn`: the evidence (docs/PROTOCOL.md) as
/// whole `Snapshot` frames (each a 4-byte length and its payload, pieces of at most 256 KiB:
/// what to write on the stream, in order). `tick_hashes`: `tick_hash_count` tick hashes of
/// `turn` (16 bytes each, `cohort_world_tick_hashes`), or null and 0 if not held; `start`:
/// the snapshot at the turn's start, or null and 0; `end`: the snapshot after the turn
/// (required; `cohort_world_snapshot` right after the turn ran). `*len` is set to the size;
/// with `cap` smaller nothing is written.
///
/// Errors: `NULL_POINTER`, `DECODE` (`start` or `end` not a snapshot), `INVALID_ARGUMENT`
/// (`end` empty, evidence over 64 MiB), `BUFFER_TOO_SMALL`. Thread-safe. The caller owns every
/// buffer.
///
/// # Safety
/// Each pointer must point to its length in readable bytes (`tick_hashes`: 16 per hash) or be
/// null with 0; `buf` to `cap` writable bytes (or null with `cap` 0); `len` to a `size_t`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cohort_encode_evidence(
    turn: u64,
    tick_hashes: *const u8,
    tick_hash_count: usize,
    start: *const u8,
    start_len: usize,
    end: *const u8,
    end_len: usize,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let bytes = tick_hash_count
            .checked_mul(COHORT_TICK_HASH_BYTES)
            .ok_or_else(|| Failure::new(CohortStatus::InvalidArgument, "too many tick hashes"))?;
        let hashes = unsafe { bytes_in(tick_hashes, bytes, "tick_hashes") }?;
        let tick_hashes: Vec<TickHash> = hashes
            .chunks_exact(COHORT_TICK_HASH_BYTES)
            .map(|c| {
                let mut h = [0u8; COHORT_TICK_HASH_BYTES];
                h.copy_from_slice(c);
                TickHash(h)
            })
            .collect();
        let start = unsafe { snapshot_in(start, start_len, "start") }?;
        let end = unsafe { snapshot_in(end, end_len, "end") }?;
        let Some(end) = end else {
            return fail(
                CohortStatus::InvalidArgument,
                "end (the state after the turn) is required",
            );
        };
        let mut notes = Vec::new();
        if tick_hashes.is_empty() {
            notes.push("the tick hashes are not held".to_string());
        }
        if start.is_none() {
            notes.push("the state at the turn's start is not held".to_string());
        }
        notes.push("no state after a first differing tick (an engine's own answer)".to_string());
        let evidence = Evidence {
            tick_hashes,
            start,
            at_tick: None,
            end,
            notes,
        };
        let encoded = encode_evidence(&evidence)
            .map_err(|e| Failure::new(CohortStatus::InvalidArgument, e.to_string()))?;
        let pieces: Vec<&[u8]> = encoded.chunks(SNAPSHOT_CHUNK_BYTES).collect();
        let count = u32::try_from(pieces.len())
            .map_err(|_| Failure::new(CohortStatus::InvalidArgument, "too many pieces"))?;
        let mut frames = Vec::with_capacity(encoded.len() + 64 * pieces.len());
        for (index, piece) in (0u32..).zip(&pieces) {
            let frame = encode_frame(&ClientMessage::Snapshot(SnapshotChunk {
                turn,
                index,
                count,
                bytes: piece.to_vec(),
            }))
            .map_err(|e| Failure::new(CohortStatus::InvalidArgument, e.to_string()))?;
            frames.extend_from_slice(&frame);
        }
        unsafe { out_list(&frames, buf, cap, len) }
    })
}
