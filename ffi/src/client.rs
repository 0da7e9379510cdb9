//! The client: `cohort_client_connect` starts a connection on a network thread of its own
//! (with its own tokio runtime; `cohort_client::threaded`) and returns at once; then a game
//! loop calls, every frame, `cohort_client_poll` until it gives `COHORT_EVENT_KIND_NONE` — each call
//! hands what arrived to the client core, which runs turns (on the calling thread) and sends
//! their hashes — gives orders, and reads the world with the `cohort_world_*` view functions.
//! Nothing but `cohort_client_wait` (when asked) and `cohort_client_free` blocks.
//!
//! Longer than 600 lines on purpose: every `cohort_client_*` function, its options and its event
//! struct sit together here, in the order `include/cohort.h` lists them (cbindgen writes the
//! header in source order; tests/header.rs holds the committed header to it).

use crate::error::{fail, CohortStatus, Failure};
use crate::handles::{insert, remove, with_client, CohortHandle, Object};
use crate::orders::{commands_of, CohortOrder};
use crate::reconnect::{Again, COHORT_MAX_RECONNECT_SECS};
use crate::strings::{copy_cut, opt_str_in, out_ptr, rules_from, str_in, write_out};
use crate::view::{TurnStart, View};
use crate::Outcome;
use cohort_client::core::{ClientOptions, Event, Phase};
use cohort_client::net::ServerAuth;
use cohort_client::session::Connect;
use cohort_client::text::{parse_line, Line};
use cohort_client::threaded::ThreadedClient;
use cohort_protocol::message::{ErrorCode, Role};
use cohort_protocol::ServerMessage;
use cohort_sim::Command;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// The bytes of `CohortEvent::text`.
pub const COHORT_EVENT_TEXT_BYTES: usize = 1024;

/// The bytes of `CohortEvent::name`.
pub const COHORT_EVENT_NAME_BYTES: usize = 64;

/// The longest `cohort_client_wait`, in milliseconds.
pub const COHORT_MAX_WAIT_MS: u32 = 10_000;

/// A client handle's object.
pub struct ClientBox {
    client: ThreadedClient,
    turn_start: TurnStart,
    /// Taking a lost seat back (`cohort_client_reconnect_for`).
    again: Again,
}

impl ClientBox {
    /// The world this client last ran, once it has joined.
    pub fn view(&self) -> Option<View<'_>> {
        let core = self.client.core();
        let (world, config) = (core.world()?, core.config()?);
        Some(View {
            world,
            turn_start: &self.turn_start,
            next_turn: core.next_turn(),
            turn_ticks: config.turn_ticks,
            match_id: &config.match_id,
        })
    }

    /// With reconnecting on, a lost connection due for a try is replaced by a new one (its
    /// events follow in later polls). Whether it was.
    fn reconnect_if_due(&mut self) -> bool {
        if !self
            .again
            .try_now(self.client.core(), std::time::Instant::now())
        {
            return false;
        }
        if let Some(to) = self.client.moved_to() {
            self.again.follow(to);
        }
        match self.again.start() {
            Ok(client) => {
                self.client = client;
                self.turn_start = TurnStart::default();
                true
            }
            // No thread or runtime now: the next due try starts again.
            Err(_) => false,
        }
    }

    /// Hands what arrived to the core, noting where units stood before each turn runs.
    fn pump(&mut self) {
        let turn_start = &mut self.turn_start;
        self.client.pump(|core, message| {
            if let (ServerMessage::TurnBundle(_), Some(world)) = (message, core.world()) {
                turn_start.record(world);
            }
        });
    }
}

/// How to connect. Every string is a pointer and a length in bytes (UTF-8, no terminator
/// needed); an optional one left out is null with a length of 0 (null with another length is
/// `NULL_POINTER`, as everywhere in the ABI).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CohortConnectOptions {
    /// The server, `HOST:PORT` (required).
    pub server: *const u8,
    pub server_len: usize,
    /// The server certificate's SHA-256 fingerprint, 64 hex digits (`:` between bytes
    /// allowed), as `cohort-server` prints it; or null to verify with `ca_file`.
    pub fingerprint: *const u8,
    pub fingerprint_len: usize,
    /// A PEM file of certificate authorities to trust, or null (give one of the two).
    pub ca_file: *const u8,
    pub ca_file_len: usize,
    /// The name the certificate must carry when checked against `ca_file`; null: `localhost`.
    pub server_name: *const u8,
    pub server_name_len: usize,
    /// The join token (required): names the match and the slot, or spectating.
    pub token: *const u8,
    pub token_len: usize,
    /// The name shown to others (required, at most 32 bytes).
    pub name: *const u8,
    pub name_len: usize,
    /// The ruleset file's text the match plays by, or null for the embedded default.
    pub ruleset_toml: *const u8,
    pub ruleset_len: usize,
}

/// Starts connecting and joining, and writes the client's handle to `out` at once; the
/// handshake goes on on the client's network thread, and its outcome comes as events
/// (`JOINED`, or `ERROR` / `CONNECTION_LOST`). The client runs the sim and sends its real
/// state hash after every turn.
///
/// Errors: `NULL_POINTER` (`options` or `out`; a field null with a length), `INVALID_ARGUMENT`
/// (a missing or bad field: a server that is not
/// `HOST:PORT`, neither or both of fingerprint and CA file, a malformed fingerprint, a CA file
/// that cannot be read or holds no certificate, a name over 32 bytes, a bad ruleset),
/// `SYSTEM` (no thread or runtime). Thread-safe. The caller owns `options` and its strings
/// (nothing is kept after the call) and frees the handle with `cohort_client_free`.
///
/// # Safety
/// `options` must be null or point to a `CohortConnectOptions` whose pointers each point to
/// their length in readable bytes (or are null); `out` to a writable handle.
#[no_mangle]
pub unsafe extern "C" fn cohort_client_connect(
    options: *const CohortConnectOptions,
    out: *mut CohortHandle,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        if options.is_null() {
            return fail(CohortStatus::NullPointer, "options is null");
        }
        out_ptr(out, "out")?;
        // SAFETY: not null, and the caller promises a readable struct.
        let o = unsafe { &*options };
        let required = |ptr, len, what: &str| -> Result<String, Failure> {
            match unsafe { opt_str_in(ptr, len, what) }? {
                Some(s) if !s.is_empty() => Ok(s.to_string()),
                _ => fail(CohortStatus::InvalidArgument, format!("{what} is required")),
            }
        };
        let server = required(o.server, o.server_len, "server")?;
        check_host_port(&server)?;
        let token = required(o.token, o.token_len, "token")?;
        let name = required(o.name, o.name_len, "name")?;
        if name.len() > cohort_protocol::limits::MAX_NAME_BYTES {
            return fail(
                CohortStatus::InvalidArgument,
                format!(
                    "the name is at most {} bytes",
                    cohort_protocol::limits::MAX_NAME_BYTES
                ),
            );
        }
        let fingerprint = unsafe { opt_str_in(o.fingerprint, o.fingerprint_len, "fingerprint") }?;
        let ca = unsafe { opt_str_in(o.ca_file, o.ca_file_len, "ca_file") }?;
        let auth = match (fingerprint, ca) {
            (Some(f), None) => ServerAuth::fingerprint(f)
                .map_err(|e| Failure::new(CohortStatus::InvalidArgument, e.to_string()))?,
            (None, Some(path)) => {
                let auth = ServerAuth::CaFile(PathBuf::from(path));
                // Read now: a missing or empty CA file is the caller's mistake, not a passing
                // failure of the network thread.
                cohort_client::net::client_config(&auth).map_err(|e| {
                    Failure::new(CohortStatus::InvalidArgument, format!("ca_file: {e:#}"))
                })?;
                auth
            }
            _ => {
                return fail(
                    CohortStatus::InvalidArgument,
                    "give exactly one of fingerprint and ca_file",
                )
            }
        };
        let server_name = unsafe { opt_str_in(o.server_name, o.server_name_len, "server_name") }?
            .unwrap_or("localhost")
            .to_string();
        let rules = unsafe { rules_from(o.ruleset_toml, o.ruleset_len) }?;
        let options = ClientOptions {
            token,
            name,
            simulate: true,
            perturb_at_turn: None,
            perturb_at_tick: None,
        };
        let connect = Connect {
            server,
            auth,
            server_name,
        };
        let again = Again::new(connect, options, rules);
        let client = again
            .start()
            .map_err(|e| Failure::new(CohortStatus::System, e))?;
        let handle = insert(Object::Client(Box::new(Mutex::new(ClientBox {
            client,
            turn_start: TurnStart::default(),
            again,
        }))));
        unsafe { write_out(out, handle, "out") }
    })
}

/// Checks `server` is `HOST:PORT` (`[v6 address]:PORT` for IPv6): a host, a colon and a port
/// of 1 to 65535. Whether the host resolves is found on the network thread.
fn check_host_port(server: &str) -> Outcome {
    let bad = |why: &str| {
        fail(
            CohortStatus::InvalidArgument,
            format!("server `{server}` is not HOST:PORT: {why}"),
        )
    };
    let Some((host, port)) = server.rsplit_once(':') else {
        return bad("no port");
    };
    if host.is_empty() {
        return bad("no host");
    }
    let bracketed = host.starts_with('[') && host.ends_with(']') && host.len() > 2;
    if host.contains(':') && !bracketed {
        return bad("an IPv6 address goes in brackets, [::1]:7676");
    }
    match port.parse::<u16>() {
        Ok(p) if p > 0 => Ok(()),
        _ => bad("the port is not 1 to 65535"),
    }
}

/// What happened (`CohortEvent::kind`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortEventKind {
    /// Nothing more for now.
    None = 0,
    /// Joined the match: `name` is the match id, `player` this client's slot (-1: a
    /// spectator), `turn` the first bundle's turn, `input_delay` the delay in force.
    Joined = 1,
    /// Joined a running match: the server's state after `turn` was loaded.
    SnapshotLoaded = 2,
    /// The loaded state after `turn` was checked against the server's hash: `agrees` 1 or 0.
    SnapshotChecked = 3,
    /// Turn `turn` was run: `hash` is this client's state hash after it (sent to the server);
    /// `agrees` says whether the server's hash of the turn before equals this client's (1, 0,
    /// or -1 not known); `input_delay` and `rtt_us` (-1: not measured) as they stand.
    TurnRun = 4,
    /// The input delay is now `input_delay` turns.
    InputDelay = 5,
    /// The server's hash after `turn` (`other_hash`) differs from this client's (`hash`).
    HashDisagrees = 6,
    /// The server saw a desync after `turn`: `players` has bit p set for each diverging
    /// player (none: this spectator's own view), `hash` is the server's hash, `continuing` 1
    /// when the match goes on.
    Desync = 7,
    /// `count` commands asked for turn `asked_turn` run at `turn` instead (theirs had closed).
    Rescheduled = 8,
    /// A chat line: `text` from `name` (`player`: the sender's slot, -1 a spectator).
    Chat = 9,
    /// The match is paused by `player`, who has `count` pauses left; it resumes by itself
    /// after `resumes_in_ms`.
    Paused = 10,
    /// The match runs again (`player`: who resumed it, -1 the pause ran out).
    Resumed = 11,
    /// The server warns this client lags behind (`text`); it is dropped if it falls further.
    LagWarning = 12,
    /// The server sent an error: `code` is its `ErrorCode` index (docs/PROTOCOL.md), `text`
    /// the reason, `closes` 1 when the connection ends with it.
    Error = 13,
    /// An order or line could not be used (`text` is why); nothing was sent.
    Refused = 14,
    /// The connection is lost or could not be made for a passing reason (`text` is why: no
    /// answer, a name that does not resolve, the network). The seat is still this client's: a
    /// new client with the same token takes it back (`may_rejoin` 1). A certificate refused is
    /// `SERVER_NOT_TRUSTED` instead, a bad address or CA file `INVALID_ARGUMENT` at connect.
    ConnectionLost = 15,
    /// The match is over after turn `turn`: `code` is the `EndReason` index (0 turn limit, 1
    /// no players, 2 desync, 3 server shutdown).
    MatchEnded = 16,
    /// The server's certificate was refused in the handshake (`text` is why): not the pinned
    /// fingerprint, not signed by the CA file, or issued to another name than `server_name`.
    /// Permanent: no connection was made, `may_rejoin` is 0, and another try with the same
    /// options meets the same refusal.
    ServerNotTrusted = 17,
}

/// One event, copied out. Which fields mean something depends on `kind` (see
/// `CohortEventKind`); the others are 0 (`player`, `agrees`, `rtt_us`: -1).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CohortEvent {
    /// A `CohortEventKind`.
    pub kind: i32,
    pub turn: u64,
    pub asked_turn: u64,
    pub count: u32,
    pub input_delay: u32,
    pub player: i32,
    pub agrees: i32,
    pub continuing: u8,
    pub closes: u8,
    pub code: i32,
    pub players: u32,
    pub rtt_us: i64,
    pub resumes_in_ms: u64,
    pub hash: [u8; 32],
    pub other_hash: [u8; 32],
    /// `name_len` bytes of UTF-8 (a chat sender, the match id), cut to fit.
    pub name_len: u32,
    pub name: [u8; COHORT_EVENT_NAME_BYTES],
    /// `text_len` bytes of UTF-8 (chat, an error's reason), cut to fit.
    pub text_len: u32,
    pub text: [u8; COHORT_EVENT_TEXT_BYTES],
}

impl CohortEvent {
    fn of(kind: CohortEventKind) -> CohortEvent {
        CohortEvent {
            kind: kind as i32,
            turn: 0,
            asked_turn: 0,
            count: 0,
            input_delay: 0,
            player: -1,
            agrees: -1,
            continuing: 0,
            closes: 0,
            code: 0,
            players: 0,
            rtt_us: -1,
            resumes_in_ms: 0,
            hash: [0; 32],
            other_hash: [0; 32],
            name_len: 0,
            name: [0; COHORT_EVENT_NAME_BYTES],
            text_len: 0,
            text: [0; COHORT_EVENT_TEXT_BYTES],
        }
    }

    fn text(mut self, text: &str) -> CohortEvent {
        self.text_len = copy_cut(text, &mut self.text);
        self
    }

    fn name(mut self, name: &str) -> CohortEvent {
        self.name_len = copy_cut(name, &mut self.name);
        self
    }
}

fn role_player(role: Role) -> i32 {
    match role {
        Role::Player(p) => i32::from(p),
        Role::Spectator => -1,
    }
}

fn code_index(code: ErrorCode) -> i32 {
    cohort_protocol::codec::encode_message(&code)
        .ok()
        .and_then(|b| b.first().copied())
        .map_or(-1, i32::from)
}

/// The C event for a core event; none for what a C program has no use for.
fn event_of(e: Event) -> Option<CohortEvent> {
    use CohortEventKind as K;
    Some(match e {
        Event::Joined {
            match_id,
            role,
            next_turn,
            input_delay,
        } => {
            let mut c = CohortEvent::of(K::Joined).name(&match_id);
            c.player = role_player(role);
            c.turn = next_turn;
            c.input_delay = input_delay;
            c
        }
        Event::SnapshotLoaded { turn } => CohortEvent {
            turn,
            ..CohortEvent::of(K::SnapshotLoaded)
        },
        Event::SnapshotChecked { turn, agrees } => CohortEvent {
            turn,
            agrees: i32::from(agrees),
            ..CohortEvent::of(K::SnapshotChecked)
        },
        Event::Turn(t) => CohortEvent {
            turn: t.turn,
            hash: t.hash.map_or([0; 32], |h| h.0),
            agrees: t.previous_agrees.map_or(-1, i32::from),
            input_delay: t.input_delay,
            rtt_us: t
                .rtt
                .map_or(-1, |r| i64::try_from(r.as_micros()).unwrap_or(i64::MAX)),
            ..CohortEvent::of(K::TurnRun)
        },
        Event::InputDelay(d) => CohortEvent {
            input_delay: d,
            ..CohortEvent::of(K::InputDelay)
        },
        Event::HashDisagrees { turn, mine, server } => CohortEvent {
            turn,
            hash: mine.0,
            other_hash: server.0,
            ..CohortEvent::of(K::HashDisagrees)
        },
        Event::Desync(d) => CohortEvent {
            turn: d.turn,
            players: d
                .players
                .iter()
                .filter(|p| **p < 32)
                .fold(0, |m, p| m | (1u32 << p)),
            hash: d.server_hash.0,
            continuing: u8::from(d.continuing),
            ..CohortEvent::of(K::Desync)
        },
        Event::Rescheduled(r) => CohortEvent {
            turn: r.turn,
            asked_turn: r.asked,
            count: r.count,
            ..CohortEvent::of(K::Rescheduled)
        },
        Event::Chat(c) => {
            let mut e = CohortEvent::of(K::Chat).name(&c.name).text(&c.text);
            e.player = role_player(c.from);
            e
        }
        Event::Paused(p) => CohortEvent {
            player: i32::from(p.by),
            count: u32::from(p.pauses_left),
            resumes_in_ms: p.resumes_in_ms,
            ..CohortEvent::of(K::Paused)
        },
        Event::Resumed(r) => CohortEvent {
            player: r.by.map_or(-1, i32::from),
            ..CohortEvent::of(K::Resumed)
        },
        Event::ServerError { error, closes } => {
            let kind = if error.code == ErrorCode::Lagging {
                K::LagWarning
            } else {
                K::Error
            };
            let mut e = CohortEvent::of(kind).text(&error.text);
            e.code = code_index(error.code);
            e.closes = u8::from(closes);
            e
        }
        Event::ServerSilent => CohortEvent::of(K::ConnectionLost).text(&format!(
            "the server fell silent for {} ms",
            cohort_client::core::SERVER_SILENCE_MS
        )),
        Event::ConnectionLost(why) => CohortEvent::of(K::ConnectionLost).text(&why),
        Event::ServerNotTrusted(why) => CohortEvent::of(K::ServerNotTrusted).text(&why),
        Event::Refused(why) => CohortEvent::of(K::Refused).text(&why),
        Event::Ended(m) => CohortEvent {
            turn: m.last_turn,
            code: code_index_of_end(m.reason),
            ..CohortEvent::of(K::MatchEnded)
        },
        Event::Help(_) | Event::Reconnecting { .. } => return None,
    })
}

fn code_index_of_end(reason: cohort_protocol::message::EndReason) -> i32 {
    cohort_protocol::codec::encode_message(&reason)
        .ok()
        .and_then(|b| b.first().copied())
        .map_or(-1, i32::from)
}

/// Takes the next event: first hands everything that arrived from the server to the client
/// core — running the turns whose bundles came, on this thread, and queueing their hashes —
/// fires its timers and sends what it queued; then writes the oldest event not yet taken to
/// `out` (`kind` `COHORT_EVENT_KIND_NONE` when there is none). Call it every frame until it gives
/// `NONE`. Never blocks.
///
/// Errors: `INVALID_HANDLE`, `NULL_POINTER`. Thread-safe (calls on one client take turns; each
/// event goes to one caller). The caller owns `out`.
///
/// # Safety
/// `out` must be null or point to a writable `CohortEvent`.
#[no_mangle]
pub unsafe extern "C" fn cohort_client_poll(
    client: CohortHandle,
    out: *mut CohortEvent,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        out_ptr(out, "out")?;
        let event = with_client(client, |c| {
            c.pump();
            while let Some(e) = c.client.core_mut().poll_event() {
                if let Some(e) = event_of(e) {
                    return Ok(e);
                }
            }
            // Every event of a lost connection told: a new one, when due.
            if c.reconnect_if_due() {
                c.pump();
            }
            Ok(CohortEvent::of(CohortEventKind::None))
        })?;
        unsafe { write_out(out, event, "out") }
    })
}

/// Blocks until something arrives from the server, the client has a timer due, or
/// `timeout_ms` pass (at most `COHORT_MAX_WAIT_MS`), whichever comes first, and returns `OK`
/// in every one of these cases. It takes no event and runs no turn itself: after it, call
/// `cohort_client_poll` until it gives `COHORT_EVENT_KIND_NONE` (what arrived is handled
/// there). For programs without a frame loop of their own (bots, tools, tests); a game loop
/// never needs it.
///
/// Errors: `INVALID_HANDLE`. Thread-safe, but it holds the client while it waits: other calls
/// on the same client wait too.
#[no_mangle]
pub extern "C" fn cohort_client_wait(client: CohortHandle, timeout_ms: u32) -> CohortStatus {
    crate::guard(|| -> Outcome {
        with_client(client, |c| {
            let ms = timeout_ms.min(COHORT_MAX_WAIT_MS);
            let timeout = Duration::from_millis(u64::from(ms));
            match c.again.due() {
                // A lost connection waiting for its next try: nothing arrives before it.
                Some(at) => std::thread::sleep(
                    timeout.min(at.saturating_duration_since(std::time::Instant::now())),
                ),
                None => c.client.wait(timeout),
            }
            Ok(())
        })
    })
}

/// From now on, a connection this client loses for a passing reason (`CONNECTION_LOST`,
/// `may_rejoin` 1: a link that failed, a server gone silent — killed or restarted) is taken
/// back by the client itself, inside `cohort_client_poll`: a new connection with the same
/// options, the first after 200 ms, each later one after twice the wait before, at most 5 s
/// apart, none later than `seconds` after the loss (what `cohort play` does:
/// docs/PROTOCOL.md, "Reconnecting"). The new connection's events follow the lost one's:
/// `JOINED` (its turn the match's), `SNAPSHOT_LOADED`, `SNAPSHOT_CHECKED`, then turns; a try
/// that fails is a `CONNECTION_LOST` again. A turn run starts the count and the time anew.
/// A connection the server closed with `moved` (the match moved to another server,
/// docs/PROTOCOL.md) is replaced by one to the address it named, pinning the fingerprint it
/// named if any. Nothing is retried after `MATCH_ENDED`, a leave, a refusal (`UnknownMatch`
/// at the new address too) or `SERVER_NOT_TRUSTED`.
/// `seconds` 0 (the default of a new client) never reconnects: the caller connects again
/// itself, as before this function.
///
/// Errors: `INVALID_HANDLE`, `INVALID_ARGUMENT` (`seconds` over `COHORT_MAX_RECONNECT_SECS`,
/// 3600). Thread-safe.
#[no_mangle]
pub extern "C" fn cohort_client_reconnect_for(client: CohortHandle, seconds: u32) -> CohortStatus {
    crate::guard(|| -> Outcome {
        if seconds > COHORT_MAX_RECONNECT_SECS {
            return fail(
                CohortStatus::InvalidArgument,
                format!("seconds is at most {COHORT_MAX_RECONNECT_SECS}"),
            );
        }
        with_client(client, |c| {
            c.again.set_window(Duration::from_secs(u64::from(seconds)));
            Ok(())
        })
    })
}

/// Where a client is in its life.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CohortPhase {
    /// Connecting and saying Hello.
    Joining = 1,
    /// Joined a running match; the server's state is arriving.
    Loading = 2,
    /// Running turns.
    Playing = 3,
    /// The match ended, the client left, the server refused it, or the connection is lost.
    Over = 4,
}

/// A client's state, copied out.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CohortClientStatus {
    /// A `CohortPhase`.
    pub phase: i32,
    /// This client's player slot; -1 for a spectator or before it has joined.
    pub player: i32,
    /// 1 for a spectator.
    pub spectator: u8,
    /// 1 while the match is paused.
    pub paused: u8,
    /// 1 when a new client with the same token may take the seat back (the connection was
    /// lost, not ended).
    pub may_rejoin: u8,
    /// The turn of the next bundle to run; the turn an order given now is meant for.
    pub next_turn: u64,
    pub order_turn: u64,
    pub input_delay: u32,
    /// The round trip to the server in microseconds (-1: not measured yet).
    pub rtt_us: i64,
    pub turns_run: u64,
    /// Turns whose hash the server's (in a later bundle) confirmed, or contradicted.
    pub hashes_agreed: u64,
    pub hashes_disagreed: u64,
    pub desync_notices: u64,
    pub commands_sent: u64,
    pub rescheduled: u64,
}

/// Fills `out` with the client's state.
///
/// Errors: `INVALID_HANDLE`, `NULL_POINTER`. Thread-safe. The caller owns `out`.
///
/// # Safety
/// `out` must be null or point to a writable `CohortClientStatus`.
#[no_mangle]
pub unsafe extern "C" fn cohort_client_status(
    client: CohortHandle,
    out: *mut CohortClientStatus,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let status = with_client(client, |c| {
            let core = c.client.core();
            let tally = core.tally();
            Ok(CohortClientStatus {
                phase: match core.phase() {
                    Phase::Idle | Phase::Joining => CohortPhase::Joining,
                    Phase::Loading => CohortPhase::Loading,
                    Phase::Playing => CohortPhase::Playing,
                    Phase::Over => CohortPhase::Over,
                } as i32,
                player: core.player().map_or(-1, i32::from),
                spectator: u8::from(core.role() == Some(Role::Spectator)),
                paused: u8::from(core.paused()),
                may_rejoin: u8::from(core.phase() == Phase::Over && core.may_rejoin()),
                next_turn: core.next_turn(),
                order_turn: core.order_turn(),
                input_delay: core.input_delay(),
                rtt_us: core
                    .rtt()
                    .map_or(-1, |r| i64::try_from(r.as_micros()).unwrap_or(i64::MAX)),
                turns_run: tally.turns_run,
                hashes_agreed: tally.hashes_agreed,
                hashes_disagreed: tally.hashes_disagreed,
                desync_notices: tally.desync_notices,
                commands_sent: tally.commands_sent,
                rescheduled: tally.rescheduled,
            })
        })?;
        unsafe { write_out(out, status, "out") }
    })
}

/// Whether the client may give orders now, and every unit they name is its own.
fn check_orders(c: &ClientBox, commands: &[Command]) -> Outcome {
    let core = c.client.core();
    match core.phase() {
        Phase::Loading | Phase::Playing => {}
        Phase::Over => return fail(CohortStatus::Closed, "the client's match is over"),
        Phase::Idle | Phase::Joining => {
            return fail(CohortStatus::NotReady, "the client has not joined yet")
        }
    }
    let Some(me) = core.player() else {
        return fail(CohortStatus::Refused, "a spectator cannot give orders");
    };
    if let Some(world) = core.world() {
        for c in commands {
            if let Some(id) = c
                .units()
                .iter()
                .find(|id| world.unit(**id).is_none_or(|u| u.owner != me))
            {
                return fail(
                    CohortStatus::Refused,
                    format!("unit {} is not player {me}'s", id.0),
                );
            }
        }
    }
    Ok(())
}

/// Sends `count` orders (each a `CohortOrder`), meant for the turn the client's status calls
/// `order_turn`; the server may run them later (a `RESCHEDULED` event says so). They go out at
/// the next `cohort_client_poll`. Either every order is sent or none is.
///
/// Errors: `INVALID_HANDLE`, `NULL_POINTER`, `INVALID_ARGUMENT` (`count` 0 or over 32,
/// `MAX_COMMANDS_PER_MESSAGE`; a bad order, one naming no units: the message names it),
/// `NOT_READY` (not joined yet), `REFUSED` (a spectator; a unit that is not this player's),
/// `CLOSED`. Thread-safe. The caller owns `orders` and what they point to; nothing is kept.
///
/// # Safety
/// `orders` must point to `count` `CohortOrder`s whose pointers point to their lengths.
#[no_mangle]
pub unsafe extern "C" fn cohort_client_order(
    client: CohortHandle,
    orders: *const CohortOrder,
    count: usize,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        crate::orders::order_count(count, 1, "a call of cohort_client_order")?;
        let commands = unsafe { commands_of(orders, count) }?;
        with_client(client, |c| {
            check_orders(c, &commands)?;
            c.client.core_mut().order(commands);
            Ok(())
        })
    })
}

/// One line in the order syntax of docs/CLIENT.md (`move 406 407 to 30 30`, `chat gg`,
/// `pause`, `leave`…), as `cohort play` reads it from its keyboard.
///
/// Errors: `INVALID_HANDLE`, `NULL_POINTER`, `INVALID_ARGUMENT` (a line that does not parse:
/// the message is the reason, as `cohort play` prints it), and for orders those of
/// `cohort_client_order`. Thread-safe. The caller owns `line`.
///
/// # Safety
/// `line` must point to `line_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn cohort_client_line(
    client: CohortHandle,
    line: *const u8,
    line_len: usize,
) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let text = unsafe { str_in(line, line_len, "line") }?;
        let parsed = parse_line(text)
            .map_err(|e| Failure::new(CohortStatus::InvalidArgument, e.to_string()))?;
        with_client(client, |c| {
            if let Line::Command(command) = &parsed {
                check_orders(c, std::slice::from_ref(command))?;
            }
            if matches!(parsed, Line::Pause | Line::Resume) && c.client.core().player().is_none() {
                return fail(
                    CohortStatus::Refused,
                    "a spectator cannot pause or resume the match",
                );
            }
            c.client.core_mut().handle_line(parsed);
            Ok(())
        })
    })
}

/// Sends a chat line to everyone in the match (at most 256 bytes of UTF-8).
///
/// Errors: `INVALID_HANDLE`, `NULL_POINTER`, `INVALID_ARGUMENT` (too long, not UTF-8),
/// `NOT_READY`, `CLOSED`. Thread-safe. The caller owns `text`.
///
/// # Safety
/// `text` must point to `text_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn cohort_client_chat(
    client: CohortHandle,
    text: *const u8,
    text_len: usize,
) -> CohortStatus {
    let mut line = None;
    let checked = crate::guard(|| -> Outcome {
        let text = unsafe { str_in(text, text_len, "text") }?;
        if text.len() > cohort_protocol::limits::MAX_CHAT_BYTES {
            return fail(
                CohortStatus::InvalidArgument,
                format!(
                    "a chat line is at most {} bytes",
                    cohort_protocol::limits::MAX_CHAT_BYTES
                ),
            );
        }
        line = Some(Line::Chat(text.to_string()));
        Ok(())
    });
    match line {
        Some(line) => joined_line(client, line),
        None => checked,
    }
}

fn joined(c: &ClientBox) -> Outcome {
    match c.client.core().phase() {
        Phase::Loading | Phase::Playing => Ok(()),
        Phase::Over => fail(CohortStatus::Closed, "the client's match is over"),
        Phase::Idle | Phase::Joining => fail(CohortStatus::NotReady, "not joined yet"),
    }
}

/// Sends a line that needs the client joined as a player (pause, resume): a spectator's is
/// refused here, before anything is sent.
fn joined_line(client: CohortHandle, line: Line) -> CohortStatus {
    crate::guard(|| -> Outcome {
        with_client(client, |c| {
            joined(c)?;
            if c.client.core().player().is_none() {
                return fail(
                    CohortStatus::Refused,
                    "a spectator cannot pause or resume the match",
                );
            }
            c.client.core_mut().handle_line(line);
            Ok(())
        })
    })
}

/// Asks the server to pause the match (`PAUSED` follows, or an `ERROR` with `PauseRefused`).
///
/// Errors: `INVALID_HANDLE`, `NOT_READY`, `CLOSED`, `REFUSED` (a spectator: nothing is sent).
/// Thread-safe.
#[no_mangle]
pub extern "C" fn cohort_client_pause(client: CohortHandle) -> CohortStatus {
    joined_line(client, Line::Pause)
}

/// Asks the server to resume a paused match.
///
/// Errors: `INVALID_HANDLE`, `NOT_READY`, `CLOSED`, `REFUSED` (a spectator: nothing is sent).
/// Thread-safe.
#[no_mangle]
pub extern "C" fn cohort_client_resume(client: CohortHandle) -> CohortStatus {
    joined_line(client, Line::Resume)
}

/// Leaves the match (`resign` non-zero: gives it up, for the record); the seat cannot be taken
/// back. The connection closes after the next `cohort_client_poll` (or at `cohort_client_free`).
///
/// Errors: `INVALID_HANDLE`. Thread-safe.
#[no_mangle]
pub extern "C" fn cohort_client_leave(client: CohortHandle, resign: u8) -> CohortStatus {
    crate::guard(|| -> Outcome {
        with_client(client, |c| {
            c.client.core_mut().leave_with(resign != 0);
            c.pump();
            Ok(())
        })
    })
}

/// Frees a client: leaves the match if it is still in one, closes the connection and waits
/// for the network thread to end (up to about 4 s when the server does not answer). The
/// handle is invalid afterwards (a second free returns `INVALID_HANDLE`).
///
/// Errors: `INVALID_HANDLE` (0, freed, or a world: use `cohort_world_free`). Thread-safe; it
/// blocks the calling thread while the connection closes.
#[no_mangle]
pub extern "C" fn cohort_client_free(client: CohortHandle) -> CohortStatus {
    crate::guard(|| -> Outcome {
        let object = remove(client, false)?;
        drop(object);
        Ok(())
    })
}
