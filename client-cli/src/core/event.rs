//! What the client core tells its driver: the [`Event`]s to show, a turn's [`TurnStatus`], and
//! the [`Tally`] of its life.

use cohort_protocol::message::{
    ChatLine, DesyncNotice, Error, MatchEnded, Paused, Rescheduled, Resumed, Role,
};
use cohort_sim::StateHash;
use std::time::Duration;

/// Something to show the person or program running the client.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Joined {
        match_id: String,
        role: Role,
        next_turn: u64,
        input_delay: u32,
    },
    /// The snapshot a rejoining client started from: its turn, and whether its hash is the
    /// server's (known when the first bundle after it arrives).
    SnapshotLoaded {
        turn: u64,
    },
    SnapshotChecked {
        turn: u64,
        agrees: bool,
    },
    /// A turn was run.
    Turn(TurnStatus),
    InputDelay(u32),
    /// The server's hash after `turn` (from a later bundle) differs from this client's.
    HashDisagrees {
        turn: u64,
        mine: StateHash,
        server: StateHash,
    },
    Desync(DesyncNotice),
    Rescheduled(Rescheduled),
    Chat(ChatLine),
    Paused(Paused),
    Resumed(Resumed),
    /// The server sent an error; `closes` says whether the connection ends with it.
    ServerError {
        error: Error,
        closes: bool,
    },
    /// Nothing came from the server for [`SERVER_SILENCE_MS`](super::SERVER_SILENCE_MS): the connection is taken as lost.
    ServerSilent,
    /// The driver lost the connection (it could not connect, the stream ended, a frame did not
    /// decode): the text says why ([`ClientCore::connection_lost`]).
    ConnectionLost(String),
    /// The server's certificate was refused during the handshake (not the pinned
    /// fingerprint, not signed by the CA file, another name): no connection was made, and
    /// trying again will not help ([`ClientCore::server_not_trusted`]; the client may not
    /// rejoin).
    ServerNotTrusted(String),
    /// The driver lost the connection and tries again (not from the core: the session's
    /// reconnect loop tells it in the same stream). `attempt` of `attempts`, after `wait`.
    Reconnecting {
        why: String,
        attempt: u32,
        attempts: u32,
        wait: Duration,
    },
    /// A line the player typed could not be used (the text is the reason).
    Refused(String),
    Help(&'static str),
    Ended(MatchEnded),
}

/// What the client shows after a turn.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnStatus {
    pub turn: u64,
    /// This client's hash after the turn (none when it does not simulate).
    pub hash: Option<StateHash>,
    /// Whether the server's hash after the previous turn equalled this client's.
    pub previous_agrees: Option<bool>,
    pub input_delay: u32,
    pub rtt: Option<Duration>,
}

/// Counters over the client's life, for tests, bots and summaries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub turns_run: u64,
    /// Turns whose hash the server's (carried by a later bundle) confirmed.
    pub hashes_agreed: u64,
    pub hashes_disagreed: u64,
    pub desync_notices: u64,
    pub commands_sent: u64,
    pub rescheduled: u64,
}

impl Tally {
    /// Adds another connection's counts to these (a seat played over several connections).
    pub fn add(&mut self, other: &Tally) {
        self.turns_run += other.turns_run;
        self.hashes_agreed += other.hashes_agreed;
        self.hashes_disagreed += other.hashes_disagreed;
        self.desync_notices += other.desync_notices;
        self.commands_sent += other.commands_sent;
        self.rescheduled += other.rescheduled;
    }
}
