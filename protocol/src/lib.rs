//! cohort-protocol: Cohort's wire messages, frames and files (DESIGN.md, "Lockstep" and "Files").
//!
//! - [`message`]: every message a client and a server exchange, as serde types;
//! - [`codec`]: frames (a u32 big-endian length, then a bincode payload) — the only module that
//!   touches bincode;
//! - [`limits`]: every limit of the protocol, named; [`close`]: the QUIC close codes;
//! - [`token`]: join tokens signed with keyed blake3 of the server's secret;
//! - [`setup`]: the match configuration's world, and how every peer runs a turn's bundle;
//! - [`replay`] and [`report`]: the replay and desync-report files; [`resume`]: the match
//!   snapshot files a server takes a match up again from; [`file`]: reading any file through
//!   its size limit.
//!
//! Knows nothing of tokio or sockets: drivers move the bytes. docs/PROTOCOL.md and
//! docs/FILES.md describe the bytes for readers who do not read Rust.

pub mod close;
pub mod codec;
pub mod file;
pub mod fingerprint;
pub mod limits;
pub mod message;
pub mod replay;
pub mod report;
pub mod resume;
pub mod setup;
pub mod token;

pub use codec::{CodecError, FrameReader};
pub use message::{ClientMessage, ErrorCode, ServerMessage};
pub use setup::{MapSpec, MatchConfig, PlayerSlot};
