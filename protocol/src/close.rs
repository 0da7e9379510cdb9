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
/// The server: the match is suspended here and goes on at another server, whose address (and
/// certificate fingerprint, when given) the reason carries: `moved <HOST:PORT>` or
/// `moved <HOST:PORT> <64 hex digits>` ([`MovedTo`]). No `Error` comes before it: the client
/// tries again there, with the same token.
pub const MOVED: CloseCode = CloseCode::new(3, "moved");
/// `cohort`'s client, leaving in good order.
pub const BYE: CloseCode = CloseCode::new(0, "bye");
/// `cohort`'s client, dropping the connection at once (what a crash looks like).
pub const GONE: CloseCode = CloseCode::new(1, "gone");

/// Every close the server makes, in the order docs/PROTOCOL.md tables them.
pub const SERVER_CLOSES: [CloseCode; 7] = [
    REFUSED,
    CLOSED,
    NO_STREAM,
    NO_HELLO,
    SHUTTING_DOWN,
    SUSPENDED,
    MOVED,
];

/// The longest address a `moved` close names, in bytes (a DNS name is at most 253, then
/// `:PORT`).
pub const MAX_MOVED_ADDRESS_BYTES: usize = 259;

/// Where a match suspended on one server goes on (the close [`MOVED`]): the address players
/// connect to there, and the SHA-256 fingerprint of its certificate when clients are to pin
/// another one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovedTo {
    /// HOST:PORT: printable ASCII without spaces, at most [`MAX_MOVED_ADDRESS_BYTES`], ending
    /// in `:` and a port number.
    pub address: String,
    pub fingerprint: Option<[u8; 32]>,
}

impl MovedTo {
    /// Checks the address (and reads the fingerprint: 64 hex digits, `:` separators allowed).
    pub fn new(address: &str, fingerprint: Option<&str>) -> Result<MovedTo, MovedError> {
        if address.is_empty() || address.len() > MAX_MOVED_ADDRESS_BYTES {
            return Err(MovedError::Address(format!(
                "an address is 1 to {MAX_MOVED_ADDRESS_BYTES} bytes, not {}",
                address.len()
            )));
        }
        if !address.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(MovedError::Address(
                "an address is printable ASCII without spaces".into(),
            ));
        }
        let port_ok = address
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
        if !port_ok {
            return Err(MovedError::Address(format!("`{address}` is not HOST:PORT")));
        }
        let fingerprint = match fingerprint {
            None => None,
            Some(f) => Some(crate::fingerprint::parse_fingerprint(f).ok_or_else(|| {
                MovedError::Fingerprint("a fingerprint is 64 hex digits (`:` allowed)".into())
            })?),
        };
        Ok(MovedTo {
            address: address.to_string(),
            fingerprint,
        })
    }

    /// The close's reason: `moved ADDRESS` or `moved ADDRESS FINGERPRINT` (lowercase hex).
    pub fn reason(&self) -> Vec<u8> {
        let mut r = format!("{} {}", MOVED.reason, self.address);
        if let Some(f) = &self.fingerprint {
            r.push(' ');
            r.push_str(&hex::encode(f));
        }
        r.into_bytes()
    }

    /// Reads a `moved` close's reason; none if it is not one.
    pub fn parse(reason: &[u8]) -> Option<MovedTo> {
        let text = std::str::from_utf8(reason).ok()?;
        let mut words = text.split(' ');
        if words.next()? != MOVED.reason {
            return None;
        }
        let address = words.next()?;
        let fingerprint = words.next();
        if words.next().is_some() {
            return None;
        }
        MovedTo::new(address, fingerprint).ok()
    }
}

/// Why a [`MovedTo`] was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MovedError {
    #[error("{0}")]
    Address(String),
    #[error("{0}")]
    Fingerprint(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_reason_reads_back_and_bad_ones_are_refused() {
        let fp = "ab".repeat(32);
        let to = MovedTo::new("game-7.example.net:7676", Some(&fp)).unwrap();
        assert_eq!(
            to.reason(),
            format!("moved game-7.example.net:7676 {fp}").into_bytes()
        );
        assert_eq!(MovedTo::parse(&to.reason()), Some(to));
        let bare = MovedTo::new("[::1]:7000", None).unwrap();
        assert_eq!(bare.reason(), b"moved [::1]:7000".to_vec());
        assert_eq!(MovedTo::parse(&bare.reason()), Some(bare));
        for bad in [
            &b"suspended"[..],
            b"moved",
            b"moved host",
            b"moved host:99999",
            b"moved :7676",
            b"moved h:1 nothex",
            b"moved h:1 ",
            b"moved h:1 aa bb",
        ] {
            assert_eq!(
                MovedTo::parse(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(MovedTo::new(&"a".repeat(MAX_MOVED_ADDRESS_BYTES - 2), None).is_err());
        assert!(MovedTo::new(
            &format!("{}:1", "a".repeat(MAX_MOVED_ADDRESS_BYTES - 2)),
            None
        )
        .is_ok());
        assert!(MovedTo::new(
            &format!("{}:1", "a".repeat(MAX_MOVED_ADDRESS_BYTES - 1)),
            None
        )
        .is_err());
        assert!(MovedTo::new("a b:1", None).is_err());
    }
}
