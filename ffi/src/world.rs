//! The sim alone, for an engine that speaks the protocol over its own transport: a match's
//! world from the bytes the server sends, each turn's bundle run in order, the state hash to
//! answer with. Built and stepped through `cohort_protocol::setup` exactly as the server and
//! `cohort` do, so the hashes agree.
//!
//! The bytes are frame payloads as docs/PROTOCOL.md describes them (a frame less its 4-byte
//! length): a `JoinAccepted` or `TurnBundle` server message, its variant index first.

use crate::error::{fail, CohortStatus, Failure};
use crate::handles::{insert, remove, with_world, CohortHandle, Object};
use crate::strings::{bytes_in, out_bytes, rules_from, str_in, write_out};
use crate::view::{TurnStart, View};
use crate::Outcome;
use cohort_protocol::codec::{decode_message, decode_snapshot};
use cohort_protocol::limits::TICK_HASH_TURNS;
use cohort_protocol::setup::run_bundle_hashed;
use cohort_protocol::{MatchConfig, ServerMessage};
use cohort_sim::hash::TickHash;
use cohort_sim::scenario::{Runner, Scenario};
use cohort_sim::world::Snapshot;
use cohort_sim::{Ruleset, World};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The most ticks one `cohort_world_step` runs: 3,750, a minute of game time at 16 ms a tick.
pub const COHORT_MAX_STEP_TICKS: u32 = 3_750;

/// A world handle's object: the world inside a scenario runner (which gives a scenario's
/// commands at their ticks when stepped tick by tick; a match's world has none), its turn
/// length, and the tick hashes of its recent turns.
pub struct WorldBox {
    runner: Runner,
    turn_start: TurnStart,
    turn_ticks: u32,
    match_id: String,
    /// The tick hash after each of the last ticks run (at most `TICK_HASH_TURNS` turns' worth),
    /// with the tick it was taken after, oldest first.
    tick_hashes: VecDeque<(u64, TickHash)>,
}

impl WorldBox {
    fn new(config: MatchConfig, rules: Arc<Ruleset>) -> Result<WorldBox, Failure> {
        let world = config
            .world(rules)
            .map_err(|e| Failure::new(CohortStatus::Refused, e.to_string()))?;
        Ok(WorldBox::of(Scenario {
            name: config.match_id.clone(),
            description: String::new(),
            world,
            commands: Vec::new(),
            statuses: Vec::new(),
            turn_ticks: config.turn_ticks,
            ticks: 0,
            names: Vec::new(),
        }))
    }

    fn of(scenario: Scenario) -> WorldBox {
        let runner = Runner::new(scenario);
        WorldBox {
            turn_ticks: runner.turn_ticks,
            match_id: runner.name.clone(),
            runner,
            turn_start: TurnStart::default(),
            tick_hashes: VecDeque::new(),
        }
    }

    pub fn world(&self) -> &World {
        &self.runner.world
    }

    /// The turn of the next bundle to run: the state after turn T is at tick
    /// `(T + 1) × turn_ticks`.
    fn next_turn(&self) -> u64 {
        self.world().tick() / u64::from(self.turn_ticks)
    }

    /// Ticks run into a turn not yet finished (by `cohort_world_step`).
    fn ticks_into_turn(&self) -> u64 {
        self.world().tick() % u64::from(self.turn_ticks)
    }

    fn keep_tick_hash(&mut self, world_tick: u64, hash: TickHash) {
        let most =
            usize::try_from(TICK_HASH_TURNS * u64::from(self.turn_ticks)).unwrap_or(usize::MAX);
        while self.tick_hashes.len() >= most {
            self.tick_hashes.pop_front();
        }
        self.tick_hashes.push_back((world_tick, hash));
    }

    /// The tick hashes after each tick of `turn`, when every one is still held.
    pub fn turn_tick_hashes(&self, turn: u64) -> Option<Vec<TickHash>> {
        let ticks = u64::from(self.turn_ticks);
        let first = turn.checked_mul(ticks)?.checked_add(1)?;
        let hashes: Vec<TickHash> = (first..first + ticks)
            .map(|t| {
                self.tick_hashes
                    .iter()
                    .find(|(tick, _)| *tick == t)
                    .map(|(_, h)| *h)
            })
            .collect::<Option<_>>()?;
        Some(hashes)
    }

    pub fn view(&self) -> View<'_> {
        View {
            world: self.world(),
            turn_start: &self.turn_start,
            next_turn: self.next_turn(),
            turn_ticks: self.turn_ticks,
            match_id: &self.match_id,
        }
    }

    /// Refuses a snapshot made under another configuration than this world's, or whose tick
    /// contradicts `turn`.
    fn check_snapshot(&self, snap: &Snapshot, turn: u64) -> Outcome {
        let (now, then) = (self.world().state(), &snap.state);
        let refused = |what: String| {
            fail(
                CohortStatus::Refused,
                format!("a snapshot of another configuration: {what}"),
            )
        };
        if (now.grid.width(), now.grid.height()) != (then.grid.width(), then.grid.height()) {
            return refused(format!(
                "its map is {} × {} tiles, this world's {} × {}",
                then.grid.width(),
                then.grid.height(),
                now.grid.width(),
                now.grid.height()
            ));
        }
        let players = |s: &cohort_sim::world::State| -> Vec<(String, u8)> {
            s.players.iter().map(|p| (p.name.clone(), p.team)).collect()
        };
        if players(now) != players(then) {
            return refused(format!(
                "its players (names, teams) are {:?}, this world's {:?}",
                players(then),
                players(now)
            ));
        }
        let area = usize::try_from(now.grid.width())
            .unwrap_or(0)
            .saturating_mul(usize::try_from(now.grid.height()).unwrap_or(0));
        // Terrain is laid when the map is made and never changes: another map seed shows here.
        if let Some(i) = (0..area).find(|&i| now.grid.terrain_at(i) != then.grid.terrain_at(i)) {
            return refused(format!(
                "its map's terrain differs from this world's (first at tile index {i}): another map"
            ));
        }
        let ticks = u64::from(self.turn_ticks);
        if !then.tick.is_multiple_of(ticks) {
            return refused(format!(
                "its tick {} is not a whole number of this world's turns of {ticks} ticks \
                 (another turn length)",
                then.tick
            ));
        }
        let expected = turn.checked_add(1).and_then(|t| t.checked_mul(ticks));
        if expected != Some(then.tick) {
            return fail(
                CohortStatus::InvalidArgument,
                format!(
                    "turn {turn} contradicts the snapshot's tick {}: with turns of {ticks} \
                     ticks it is the state after turn {}",
                    then.tick,
                    (then.tick / ticks).saturating_sub(1)
                ),
            );
        }
        Ok(())
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
/// sent, concatenated in index order, and the pieces' `turn` (the state is the one after it, at
/// tick `(turn + 1) × turn_ticks`; the next bundle to run is `turn + 1`). The snapshot must be
/// of this world's configuration: the same ruleset, map (size and terrain), players (names and
/// teams) and turn length (its tick a whole number of this world's turns).
///
/// Errors: `INVALID_HANDLE` (not a world), `NULL_POINTER`, `DECODE` (not a snapshot),
/// `REFUSED` (a snapshot of another ruleset or configuration: another map size or terrain, other players,
/// a tick that is no whole number of this world's turns), `INVALID_ARGUMENT` (`turn`
/// contradicts the snapshot's tick). Nothing changes on an error. Thread-safe. The caller owns
/// the bytes.
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
            w.check_snapshot(&snap, turn)?;
            let loaded = World::from_snapshot(w.world().rules_arc(), snap)
                .map_err(|e| Failure::new(CohortStatus::Refused, e.to_string()))?;
            w.runner.resume_from(loaded);
            w.turn_start = TurnStart::default();
            w.tick_hashes.clear();
            Ok(())
        })
    })
}

/// Runs one turn: a whole `TurnBundle` message (a frame's payload: `01`, then the fields; the
/// server's, or one of your own from `cohort_encode_bundle`) — its membership events, commands
/// at the turn's first tick, then the rest of the turn's ticks — and writes the state hash
/// after it (32 bytes) to `hash_out`, what the `TurnHash` for that turn carries. Bundles must
/// come in turn order, each once, on a world at a turn's start (not mid-turn after
/// `cohort_world_step`). Its tick hashes are kept (`cohort_world_tick_hashes`).
///
/// Errors: `INVALID_HANDLE` (not a world), `NULL_POINTER`, `DECODE` (not a TurnBundle),
/// `INVALID_ARGUMENT` (a bundle out of turn: the message says which is due; a world mid-turn).
/// Nothing is run on an error. Thread-safe. The caller owns the bytes and `hash_out`.
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
            if w.ticks_into_turn() != 0 {
                return fail(
                    CohortStatus::InvalidArgument,
                    format!(
                        "the world is {} ticks into turn {} (cohort_world_step): a bundle runs \
                         from a turn's start",
                        w.ticks_into_turn(),
                        w.next_turn()
                    ),
                );
            }
            if bundle.turn != w.next_turn() {
                return fail(
                    CohortStatus::InvalidArgument,
                    format!(
                        "bundle {} arrived where {} is due (bundles run in turn order, once)",
                        bundle.turn,
                        w.next_turn()
                    ),
                );
            }
            w.turn_start.record(&w.runner.world);
            let first = w.world().tick();
            let hashes = run_bundle_hashed(&mut w.runner.world, &bundle, w.turn_ticks);
            for (tick, h) in (first + 1..).zip(hashes) {
                w.keep_tick_hash(tick, h);
            }
            Ok(w.world().hash())
        })?;
        unsafe { out_bytes(hash_out, &hash.0) }
    })
}

/// Makes a world from a scenario file (docs/SCENARIOS.md): `path` (UTF-8) names a scenario
/// TOML on disk, whose map, ruleset and `state` files (a snapshot, as `cohort replay --at T
/// --scenario OUT.toml` writes beside it for a bug report) are read relative to it.
/// `ruleset_toml`: a ruleset file's text replacing the scenario's, or null and 0. The world
/// runs the scenario's commands at their ticks when stepped with `cohort_world_step`; its turn
/// length is the scenario's `turn_ticks`.
///
/// Errors: `NULL_POINTER`, `INVALID_ARGUMENT` (a path not UTF-8, a bad ruleset), `REFUSED`
/// (the file cannot be read or is not a valid scenario: the message names the file, line and
/// field, as `cohort sim` prints it). Thread-safe. The caller owns the bytes and frees the
/// handle with `cohort_world_free`.
///
/// # Safety
/// `path` must point to `path_len` readable bytes; `ruleset_toml` to `ruleset_len` bytes or be
/// null; `out` to a writable handle.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_from_scenario(
    path: *const u8,
    path_len: usize,
    ruleset_toml: *const u8,
    ruleset_len: usize,
    out: *mut CohortHandle,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let path = unsafe { str_in(path, path_len, "path") }?;
        if path.is_empty() {
            return fail(CohortStatus::InvalidArgument, "the path is empty");
        }
        let rules = if ruleset_toml.is_null() {
            None
        } else {
            Some(unsafe { rules_from(ruleset_toml, ruleset_len) }?)
        };
        let scenario = cohort_client::scenario_file::load_file(Path::new(path), rules)
            .map_err(|e| Failure::new(CohortStatus::Refused, format!("{e:#}")))?;
        unsafe { made(WorldBox::of(scenario), out) }
    })
}

/// Runs `ticks` single ticks (1 to `COHORT_MAX_STEP_TICKS`), each with the commands a scenario
/// world's file gives at it (a match's world has none: its commands come in bundles), and
/// writes the state hash after the last (32 bytes) to `hash_out` (or null: not wanted). A
/// world may stop inside a turn (a scenario's turn is often longer than a tick, to replay a
/// bug tick by tick); bundles then wait until the turn is stepped to its end. Each tick's hash
/// is kept (`cohort_world_tick_hashes`).
///
/// Errors: `INVALID_HANDLE` (not a world), `INVALID_ARGUMENT` (`ticks` 0 or over
/// `COHORT_MAX_STEP_TICKS`). Thread-safe. The caller owns `hash_out`.
///
/// # Safety
/// `hash_out` must be null or point to 32 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn cohort_world_step(
    world: CohortHandle,
    ticks: u32,
    hash_out: *mut u8,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        if !(1..=COHORT_MAX_STEP_TICKS).contains(&ticks) {
            return fail(
                CohortStatus::InvalidArgument,
                format!("a step is 1 to {COHORT_MAX_STEP_TICKS} ticks, not {ticks}"),
            );
        }
        let hash = with_world(world, |w| {
            w.turn_start.record(&w.runner.world);
            for _ in 0..ticks {
                w.runner.step();
                let (tick, h) = (w.world().tick(), w.world().tick_hash());
                w.keep_tick_hash(tick, h);
            }
            Ok(w.world().hash())
        })?;
        if hash_out.is_null() {
            return Ok(());
        }
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
