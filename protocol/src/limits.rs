//! Every limit of the protocol, named. docs/PROTOCOL.md lists them with the same names.

/// The protocol version a [`crate::message::Hello`] must carry; another one is refused.
/// Version 2: `SnapshotRequest` names the failing turn; `SnapshotUnavailable` answers it.
/// Version 3: `SnapshotRequest` carries the server's tick hashes of that turn, and the client's
/// `Snapshot` pieces carry its evidence of the turn (`report::Evidence`). Version 4:
/// `JoinAccepted` carries the match's spectator delay (`spectator_delay_secs`).
pub const PROTOCOL_VERSION: u32 = 4;

/// The QUIC ALPN protocol id.
pub const ALPN: &[u8] = b"cohort/1";

/// The default UDP port of `cohort-server`.
pub const DEFAULT_PORT: u16 = 7676;

/// The largest frame payload, in bytes (the length prefix excluded). A larger frame closes the
/// connection with [`crate::message::ErrorCode::FrameTooLarge`].
pub const MAX_FRAME_BYTES: usize = 1 << 20;

/// The most players in a match (the sim's players are 0 to 7).
pub const MAX_PLAYERS: usize = 8;

/// The most spectators watching one match at once (QUIC spectators and browsers watching the
/// page together).
pub const MAX_SPECTATORS: usize = 16;

/// The longest spectator delay a match may have, in seconds (15 minutes: a tournament's
/// stream delay).
pub const MAX_SPECTATOR_DELAY_SECS: u32 = 900;

/// The most commands in one `Commands` message.
pub const MAX_COMMANDS_PER_MESSAGE: usize = 32;

/// The most commands one player may have in one turn; more move on to the next turn.
pub const MAX_COMMANDS_PER_TURN: usize = 64;

/// Commands a client may send per second, sustained (a token bucket refilled at this rate).
pub const COMMAND_RATE_PER_SECOND: u32 = 40;

/// Commands a client may send in a burst above the sustained rate (the bucket's size).
pub const COMMAND_BURST: u32 = 120;

/// Messages of any kind a client may send per second, sustained (pongs and hashes included).
pub const MESSAGE_RATE_PER_SECOND: u32 = 400;

/// Messages of any kind a client may send in a burst (the bucket's size).
pub const MESSAGE_BURST: u32 = 800;

/// Times a client may go over a rate limit before its connection is closed.
pub const RATE_STRIKES: u32 = 20;

/// How many turns ahead of the open turn a command may be scheduled.
pub const MAX_TURNS_AHEAD: u64 = 64;

/// The longest chat text, in bytes of UTF-8.
pub const MAX_CHAT_BYTES: usize = 256;

/// The longest client or player name, in bytes of UTF-8.
pub const MAX_NAME_BYTES: usize = 32;

/// The longest match id, in bytes (letters, digits, `-` and `_`).
pub const MAX_MATCH_ID_BYTES: usize = 64;

/// The longest join token, in bytes.
pub const MAX_TOKEN_BYTES: usize = 256;

/// How many times each player may pause a match.
pub const MAX_PAUSES_PER_PLAYER: u8 = 3;

/// The longest pause, in milliseconds; the match resumes by itself after it.
pub const MAX_PAUSE_MS: u64 = 60_000;

/// The bytes of snapshot carried by one `SnapshotChunk`.
pub const SNAPSHOT_CHUNK_BYTES: usize = 256 * 1024;

/// The largest snapshot, in bytes, in chunks and in files.
pub const MAX_SNAPSHOT_BYTES: usize = 64 << 20;

/// The largest replay or report record, in bytes.
pub const MAX_RECORD_BYTES: usize = 128 << 20;

/// The largest replay file `cohort replay` reads, in bytes (a match of hours, orders every
/// turn, stays far below it).
pub const MAX_REPLAY_FILE_BYTES: usize = 1 << 30;

/// The largest desync report file, in bytes: its file header and one record.
pub const MAX_REPORT_FILE_BYTES: usize = 12 + 4 + MAX_RECORD_BYTES + 8;

/// Replay files, as read through [`crate::file::read_limited`].
pub const REPLAY_FILE: crate::file::FileLimit = crate::file::FileLimit {
    bytes: MAX_REPLAY_FILE_BYTES,
    what: "replay",
    name: "MAX_REPLAY_FILE_BYTES",
};

/// Scenario files (cohort-sim's `MAX_SCENARIO_BYTES`).
pub const SCENARIO_FILE: crate::file::FileLimit = crate::file::FileLimit {
    bytes: cohort_sim::scenario::MAX_SCENARIO_BYTES,
    what: "scenario",
    name: "MAX_SCENARIO_BYTES",
};

/// Ruleset files (cohort-sim's `MAX_RULESET_BYTES`).
pub const RULESET_FILE: crate::file::FileLimit = crate::file::FileLimit {
    bytes: cohort_sim::ruleset::MAX_RULESET_BYTES,
    what: "ruleset",
    name: "MAX_RULESET_BYTES",
};

/// Snapshot files (a scenario's `state`, written by `cohort replay --scenario`): one
/// snapshot's encoding.
pub const SNAPSHOT_FILE: crate::file::FileLimit = crate::file::FileLimit {
    bytes: MAX_SNAPSHOT_BYTES,
    what: "snapshot",
    name: "MAX_SNAPSHOT_BYTES",
};

/// Desync report files, as read through [`crate::file::read_limited`].
pub const REPORT_FILE: crate::file::FileLimit = crate::file::FileLimit {
    bytes: MAX_REPORT_FILE_BYTES,
    what: "desync report",
    name: "MAX_REPORT_FILE_BYTES",
};

/// The fewest turns of input delay.
pub const MIN_INPUT_DELAY: u32 = 1;

/// The most turns of input delay.
pub const MAX_INPUT_DELAY: u32 = 16;

/// Turns a client may lag behind the server before it is warned (`ErrorCode::Lagging`).
pub const LAG_WARN_TURNS: u64 = 32;

/// Turns a client may lag behind the server before it is dropped (`ErrorCode::DroppedForLag`).
pub const LAG_DROP_TURNS: u64 = 96;

/// How many recent turns every peer keeps the tick hashes of (one per tick,
/// `cohort_sim::World::tick_hash`), to narrow a desync to its tick. More than
/// [`LAG_DROP_TURNS`]: a client's hash that the server can still compare is always of a turn
/// whose tick hashes the server still holds.
pub const TICK_HASH_TURNS: u64 = 128;

/// The server pings every client this often, in milliseconds.
pub const PING_INTERVAL_MS: u64 = 500;

/// The largest command, in bytes encoded; a larger one is refused (`OverLimit`).
pub const MAX_COMMAND_BYTES: usize = 8 * 1024;

/// The most bytes of commands one player may have in one turn; more move on to the next turn.
/// With [`MAX_PLAYERS`] players a bundle stays well inside [`MAX_FRAME_BYTES`].
pub const MAX_COMMAND_BYTES_PER_TURN: usize = 96 * 1024;
