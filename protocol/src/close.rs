//! The QUIC application close codes and reasons Cohort's peers use (docs/PROTOCOL.md,
//! "Transport"). The reason is for logs; programs act on the code and on the `Error` message
//! sent before the close.

/// One way a connection is closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CloseCode {
    /// The QUIC application error code.
    pub code: u32,
    /// The reason phrase, ASCII.
    pub reason: &'static str,
}

impl CloseCode {
    pub const fn new(code: u32, reason: &'static str) -> CloseCode {
        CloseCode { code, reason }
    }

    /// The reason as bytes (what a QUIC close carries).
    pub fn reason_bytes(self) -> &'static [u8] {
        self.reason.as_bytes()
    }
}

/// The server, after the `Error` that refuses a first frame.
pub const REFUSED: CloseCode = CloseCode::new(0, "refused");
/// The server, after its last frame to a joined connection (a closing `Error`, `MatchEnded`,
/// the answer to `Leave`).
pub const CLOSED: CloseCode = CloseCode::new(0, "closed");
/// The server: no bidirectional stream opened within `HELLO_TIMEOUT`.
pub const NO_STREAM: CloseCode = CloseCode::new(1, "no stream");
/// The server: no whole first frame within `HELLO_TIMEOUT`, or the stream ended before one.
pub const NO_HELLO: CloseCode = CloseCode::new(1, "no hello");
/// The server's endpoint, shutting down after its matches ended.
pub const SHUTTING_DOWN: CloseCode = CloseCode::new(0, "server shutting down");
/// The server: the Hello's match is suspended here (an operator's call); it goes on after a
/// restart or on another server. No `Error` comes before it: the client may try again.
pub const SUSPENDED: CloseCode = CloseCode::new(2, "suspended");
/// `cohort`'s client, leaving in good order.
pub const BYE: CloseCode = CloseCode::new(0, "bye");
/// `cohort`'s client, dropping the connection at once (what a crash looks like).
pub const GONE: CloseCode = CloseCode::new(1, "gone");

/// Every close the server makes, in the order docs/PROTOCOL.md tables them.
pub const SERVER_CLOSES: [CloseCode; 6] = [
    REFUSED,
    CLOSED,
    NO_STREAM,
    NO_HELLO,
    SHUTTING_DOWN,
    SUSPENDED,
];
