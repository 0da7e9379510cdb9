//! Every message of the protocol (docs/PROTOCOL.md describes their bytes).
//!
//! A client sends [`ClientMessage`]s and a server [`ServerMessage`]s, one per frame, on one
//! bidirectional QUIC stream the client opens. The first client message is always a
//! [`Hello`]; the server answers [`JoinAccepted`] or an [`Error`] and closes.

use crate::setup::MatchConfig;
use cohort_sim::hash::TickHash;
use cohort_sim::{Command, PlayerCommand, PlayerId, StateHash};
use serde::{Deserialize, Serialize};

/// What a client sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClientMessage {
    /// The first message: who the client is and what it plays by.
    Hello(Hello),
    /// Commands for a turn (players only).
    Commands(Commands),
    /// The hash of the client's state after a turn; also acknowledges that turn's bundle.
    TurnHash(TurnHash),
    /// Acknowledges a turn's bundle without a hash (a client that runs no sim).
    Ack {
        turn: u64,
    },
    /// One piece of the client's evidence of the failing turn ([`crate::report::Evidence`]),
    /// answering [`ServerMessage::SnapshotRequest`].
    Snapshot(SnapshotChunk),
    Ping(Ping),
    Pong(Pong),
    /// A chat text to relay to everyone in the match.
    Chat {
        text: String,
    },
    /// Asks to pause the match (players only, limited per player).
    Pause,
    /// Asks to resume a paused match (players only).
    Resume,
    /// Leaves the match; `resign` says whether the player gives up (for the record).
    Leave {
        resign: bool,
    },
    /// Answers [`ServerMessage::SnapshotRequest`] when the client no longer holds (or never
    /// ran) its state after `turn`; `reason` says why (the server logs its first
    /// [`crate::limits::MAX_CHAT_BYTES`]).
    SnapshotUnavailable {
        turn: u64,
        reason: String,
    },
}

/// What a server sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServerMessage {
    /// The answer to a good [`Hello`].
    JoinAccepted(JoinAccepted),
    /// Everything every peer applies at a turn's first tick.
    TurnBundle(TurnBundle),
    /// Commands that arrived too late for their turn went to a later one.
    Rescheduled(Rescheduled),
    /// A client's hash differed from the server's.
    DesyncNotice(DesyncNotice),
    /// Asks the diverging client for its evidence of `turn`, the turn its hash first differed
    /// (after a desync): its tick hashes, its state at the turn's start, after its first tick
    /// that differs from `tick_hashes` (the server's tick hash after each of the turn's ticks;
    /// empty if the server no longer holds them) and after the turn. Answered with
    /// [`ClientMessage::Snapshot`] pieces for that turn, or
    /// [`ClientMessage::SnapshotUnavailable`].
    SnapshotRequest {
        turn: u64,
        tick_hashes: Vec<TickHash>,
    },
    /// One piece of the state a joining client starts from.
    Snapshot(SnapshotChunk),
    Ping(Ping),
    Pong(Pong),
    /// A chat text, relayed.
    Chat(ChatLine),
    /// The match is paused: no turn closes until it resumes.
    Paused(Paused),
    /// The match runs again.
    Resumed(Resumed),
    /// The match is over; the server closes the connection after this.
    MatchEnded(MatchEnded),
    /// Something went wrong; see [`ErrorCode`] for which codes close the connection.
    Error(Error),
}

/// The first client message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// Must equal [`crate::limits::PROTOCOL_VERSION`].
    pub protocol_version: u32,
    /// blake3 of the ruleset the client plays by ([`cohort_sim::Ruleset::hash`]).
    pub ruleset_hash: [u8; 32],
    /// A join token ([`crate::token`]): names the match and the slot.
    pub token: String,
    /// Shown to others; at most [`crate::limits::MAX_NAME_BYTES`].
    pub client_name: String,
}

/// Who a connection is in a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// A player, in this slot.
    Player(PlayerId),
    /// Watches: receives bundles and hashes, sends nothing that reaches the sim.
    Spectator,
}

/// The answer to a good [`Hello`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinAccepted {
    /// Everything needed to build the match's starting world.
    pub config: MatchConfig,
    pub role: Role,
    /// The first turn whose bundle the client will receive.
    pub next_turn: u64,
    /// The input delay in force, in turns: a command is meant for `last bundle + input_delay`.
    pub input_delay: u32,
    /// Whether a snapshot of the state before `next_turn` follows (in `Snapshot` messages)
    /// before the first bundle. Without one the client starts from the configuration's world.
    pub snapshot_follows: bool,
    /// The match's spectator delay, in seconds (0 to
    /// [`crate::limits::MAX_SPECTATOR_DELAY_SECS`]): a spectator receives nothing about a turn
    /// until that long after it closed (its `next_turn` and snapshot are that far behind). The
    /// same figure for players, who are not delayed.
    pub spectator_delay_secs: u32,
}

/// Commands a player asks for, meant for `turn`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commands {
    /// The turn the client meant them for. A closed turn's commands go to the open turn.
    pub turn: u64,
    /// At most [`crate::limits::MAX_COMMANDS_PER_MESSAGE`].
    pub commands: Vec<Command>,
}

/// A change of who plays, applied at the start of a turn before its commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MembershipEvent {
    pub player: PlayerId,
    pub change: Membership,
}

/// The kinds of membership change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Membership {
    /// The player (re)joined: it plays.
    Joined,
    /// The player left.
    Left,
    /// The player gave up.
    Resigned,
    /// The server dropped the player (lag, bad input, lost connection).
    Dropped,
}

/// Everything every peer applies at turn `turn`'s first tick, in this order: the input delay,
/// the membership events, then the commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnBundle {
    pub turn: u64,
    /// A new input delay in force from this turn on, if it changed.
    pub input_delay: Option<u32>,
    /// Membership changes, in order.
    pub events: Vec<MembershipEvent>,
    /// Every player's commands, by player slot, then in the order the server received them.
    pub commands: Vec<PlayerCommand>,
    /// The server's hash of the state after turn `turn - 1` (none for turn 0).
    pub previous_hash: Option<StateHash>,
}

/// A peer's hash of its state after a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnHash {
    pub turn: u64,
    pub hash: StateHash,
}

/// Commands moved to a later turn because theirs had closed. Never dropped silently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rescheduled {
    /// The turn the client asked for.
    pub asked: u64,
    /// The turn they will run at.
    pub turn: u64,
    /// How many commands moved.
    pub count: u32,
}

/// A hash mismatch, told to everyone in the match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesyncNotice {
    /// The turn after which the hashes differed.
    pub turn: u64,
    /// The players whose hash differed from the server's.
    pub players: Vec<PlayerId>,
    /// The server's hash after `turn`.
    pub server_hash: StateHash,
    /// Whether the match goes on (true) or stops (false).
    pub continuing: bool,
}

/// One piece of a snapshot: from the server, the bytes of a [`cohort_sim::world::Snapshot`]
/// encoded by [`crate::codec::encode_snapshot`]; from a client, of its
/// [`crate::report::Evidence`] ([`crate::codec::encode_evidence`]); cut in pieces of at most
/// [`crate::limits::SNAPSHOT_CHUNK_BYTES`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotChunk {
    /// The state is the one after this turn.
    pub turn: u64,
    /// This piece's index, from 0.
    pub index: u32,
    /// How many pieces there are.
    pub count: u32,
    pub bytes: Vec<u8>,
}

/// A ping: the other side answers with a [`Pong`] carrying the same nonce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ping {
    pub nonce: u64,
}

/// The answer to a [`Ping`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pong {
    pub nonce: u64,
}

/// A relayed chat text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// The sender's role.
    pub from: Role,
    /// The sender's client name.
    pub name: String,
    pub text: String,
}

/// The match paused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paused {
    pub by: PlayerId,
    /// The pauses that player has left.
    pub pauses_left: u8,
    /// The match resumes by itself after this many milliseconds.
    pub resumes_in_ms: u64,
}

/// The match resumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resumed {
    /// Who resumed it; none when the pause ran out.
    pub by: Option<PlayerId>,
}

/// Why a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EndReason {
    /// The configured number of turns was played.
    TurnLimit,
    /// No player is left.
    NoPlayers,
    /// A desync stopped it (the match is configured to stop on desync).
    Desync,
    /// The server is shutting down.
    ServerShutdown,
    /// An operator ended it (the server's admin API, docs/OPERATIONS.md).
    Operator,
}

/// The match is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchEnded {
    /// The last turn whose bundle was sent.
    pub last_turn: u64,
    pub reason: EndReason,
}

/// An error: a code a program acts on, and a text a person reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Error {
    pub code: ErrorCode,
    pub text: String,
}

/// What went wrong. [`ErrorCode::closes`] says which codes end the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ErrorCode {
    /// The Hello's protocol version is not this server's. Closes.
    VersionMismatch,
    /// The Hello's ruleset hash is not the match's. Closes.
    RulesetMismatch,
    /// The token is malformed or its signature is wrong. Closes.
    BadToken,
    /// The token has expired. Closes.
    TokenExpired,
    /// The token names a match this server does not host. Closes.
    UnknownMatch,
    /// Someone is already connected in that slot, or the match has no such slot. Closes.
    SlotTaken,
    /// The match has as many spectators as it takes. Closes.
    MatchFull,
    /// The match is over. Closes.
    MatchOver,
    /// A frame was larger than `MAX_FRAME_BYTES`. Closes.
    FrameTooLarge,
    /// A frame did not decode as a message. Closes.
    Malformed,
    /// A message that is not allowed now (a second Hello, anything before Hello). Closes.
    Unexpected,
    /// A field over its limit (a name, a chat text, too many commands in a message); the
    /// message is refused, the connection stays.
    OverLimit,
    /// Over the command or message rate; the message is refused, the connection stays (until
    /// `RATE_STRIKES`, then it closes with this code).
    RateLimited,
    /// A spectator sent something only players may send; refused, the connection stays.
    NotAPlayer,
    /// Commands for a turn more than `MAX_TURNS_AHEAD` ahead; refused, the connection stays.
    TooFarAhead,
    /// No pauses left, or the match is not paused (resume); refused, the connection stays.
    PauseRefused,
    /// The client lags `LAG_WARN_TURNS` behind; a warning, the connection stays.
    Lagging,
    /// The client lagged `LAG_DROP_TURNS` behind and is dropped. Closes.
    DroppedForLag,
    /// A snapshot the client sent was bad; refused, the connection stays.
    BadSnapshot,
    /// The server is shutting down. Closes.
    ServerShutdown,
    /// Something failed inside the server. Closes.
    Internal,
    /// A new connection joined with this slot's token: it took the seat over (the player's
    /// restarted game), and this connection is closed. A client told this must not reconnect
    /// by itself (the seat is played elsewhere). Closes.
    Replaced,
}

impl ErrorCode {
    /// Whether the server closes the connection after sending this code.
    pub fn closes(self) -> bool {
        !matches!(
            self,
            ErrorCode::OverLimit
                | ErrorCode::RateLimited
                | ErrorCode::NotAPlayer
                | ErrorCode::TooFarAhead
                | ErrorCode::PauseRefused
                | ErrorCode::Lagging
                | ErrorCode::BadSnapshot
        )
    }
}

impl ServerMessage {
    /// An error message.
    pub fn error(code: ErrorCode, text: impl Into<String>) -> ServerMessage {
        ServerMessage::Error(Error {
            code,
            text: text.into(),
        })
    }
}

/// One client message of every kind (for tests, fuzz seeds and examples).
pub fn every_client_message() -> Vec<ClientMessage> {
    vec![
        ClientMessage::Hello(Hello {
            protocol_version: crate::limits::PROTOCOL_VERSION,
            ruleset_hash: [3; 32],
            token: "cohort1.m.0.9.ab".into(),
            client_name: "ana".into(),
        }),
        ClientMessage::Commands(Commands {
            turn: 7,
            commands: vec![Command::Stop {
                units: vec![cohort_sim::EntityId(4)],
            }],
        }),
        ClientMessage::TurnHash(TurnHash {
            turn: 3,
            hash: StateHash([9; 32]),
        }),
        ClientMessage::Ack { turn: 5 },
        ClientMessage::Snapshot(SnapshotChunk {
            turn: 2,
            index: 0,
            count: 1,
            bytes: vec![1, 2, 3],
        }),
        ClientMessage::Ping(Ping { nonce: 1 }),
        ClientMessage::Pong(Pong { nonce: 2 }),
        ClientMessage::Chat { text: "gg".into() },
        ClientMessage::Pause,
        ClientMessage::Resume,
        ClientMessage::Leave { resign: true },
        ClientMessage::SnapshotUnavailable {
            turn: 9,
            reason: "gone".into(),
        },
    ]
}

/// One server message of every kind (and a `JoinAccepted` of each kind of map), a match under
/// `rules` (for tests, fuzz seeds and examples).
pub fn every_server_message(rules: &cohort_sim::Ruleset) -> Vec<ServerMessage> {
    let mut armies = MatchConfig::standard("m", rules, 8);
    armies.map = crate::setup::MapSpec::Armies {
        seed: 7,
        size: 200,
        army: cohort_sim::map::MAX_ARMY,
    };
    vec![
        ServerMessage::JoinAccepted(JoinAccepted {
            config: MatchConfig::standard("m", rules, 2),
            role: Role::Player(1),
            next_turn: 0,
            input_delay: 2,
            snapshot_follows: false,
            spectator_delay_secs: 0,
        }),
        ServerMessage::JoinAccepted(JoinAccepted {
            config: armies,
            role: Role::Spectator,
            next_turn: 12,
            input_delay: 3,
            snapshot_follows: true,
            spectator_delay_secs: 0,
        }),
        ServerMessage::TurnBundle(TurnBundle {
            turn: 4,
            input_delay: Some(3),
            events: vec![MembershipEvent {
                player: 1,
                change: Membership::Dropped,
            }],
            commands: vec![PlayerCommand {
                player: 0,
                command: Command::Move {
                    units: vec![cohort_sim::EntityId(1), cohort_sim::EntityId(300)],
                    to: cohort_sim::Vec2::new(cohort_sim::fx(-2), cohort_sim::fx_ratio(1, 2)),
                },
            }],
            previous_hash: Some(StateHash([7; 32])),
        }),
        ServerMessage::Rescheduled(Rescheduled {
            asked: 1,
            turn: 3,
            count: 2,
        }),
        ServerMessage::DesyncNotice(DesyncNotice {
            turn: 9,
            players: vec![1],
            server_hash: StateHash([1; 32]),
            continuing: true,
        }),
        ServerMessage::SnapshotRequest {
            turn: 9,
            tick_hashes: vec![TickHash([3; 16])],
        },
        ServerMessage::Ping(Ping { nonce: 5 }),
        ServerMessage::Pong(Pong { nonce: 6 }),
        ServerMessage::Chat(ChatLine {
            from: Role::Spectator,
            name: "eve".into(),
            text: "hi".into(),
        }),
        ServerMessage::Paused(Paused {
            by: 0,
            pauses_left: 2,
            resumes_in_ms: 60_000,
        }),
        ServerMessage::Resumed(Resumed { by: None }),
        ServerMessage::MatchEnded(MatchEnded {
            last_turn: 10,
            reason: EndReason::ServerShutdown,
        }),
        ServerMessage::error(ErrorCode::BadToken, "forged"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode_message, encode_message};

    fn round_trips<T>(msg: T)
    where
        T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        let bytes = encode_message(&msg).unwrap();
        assert_eq!(decode_message::<T>(&bytes).unwrap(), msg);
    }

    #[test]
    fn every_client_message_round_trips() {
        for m in every_client_message() {
            round_trips(m);
        }
    }

    #[test]
    fn every_server_message_round_trips() {
        for m in every_server_message(&cohort_sim::Ruleset::default_rules()) {
            round_trips(m);
        }
    }
}
