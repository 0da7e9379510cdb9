//! Frames and encodings: the only module that touches bincode.
//!
//! Every payload is bincode 2's "standard" configuration through serde: little-endian,
//! variable-length integers, with an explicit limit on what a decoder may allocate. A frame on
//! the wire is the payload's length as a u32, big-endian, then the payload, at most
//! [`MAX_FRAME_BYTES`]. docs/PROTOCOL.md spells the encoding out byte by byte.

use crate::limits::{MAX_FRAME_BYTES, MAX_RECORD_BYTES, MAX_SNAPSHOT_BYTES};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The bytes of a frame's length prefix.
pub const LENGTH_PREFIX_BYTES: usize = 4;

/// bincode's standard configuration, its decoder limited to `LIMIT` bytes.
const fn config<const LIMIT: usize>() -> bincode::config::Configuration<
    bincode::config::LittleEndian,
    bincode::config::Varint,
    bincode::config::Limit<LIMIT>,
> {
    bincode::config::standard().with_limit::<LIMIT>()
}

/// Why bytes could not be encoded or decoded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CodecError {
    #[error("a frame of {0} bytes is over the limit of {MAX_FRAME_BYTES}")]
    FrameTooLarge(usize),
    #[error("{what} of {size} bytes is over the limit of {limit}")]
    TooLarge {
        what: &'static str,
        size: usize,
        limit: usize,
    },
    #[error("could not decode {what}: {reason}")]
    Decode { what: &'static str, reason: String },
    #[error("{what} has {0} bytes left over after its end", what = .1)]
    Trailing(usize, &'static str),
    #[error("could not encode {what}: {reason}")]
    Encode { what: &'static str, reason: String },
    #[error("the stream ended {0} bytes into a frame")]
    Truncated(usize),
}

fn encode<T: Serialize, const LIMIT: usize>(
    value: &T,
    what: &'static str,
) -> Result<Vec<u8>, CodecError> {
    let bytes = bincode::serde::encode_to_vec(value, config::<LIMIT>()).map_err(|e| {
        CodecError::Encode {
            what,
            reason: e.to_string(),
        }
    })?;
    if bytes.len() > LIMIT {
        return Err(CodecError::TooLarge {
            what,
            size: bytes.len(),
            limit: LIMIT,
        });
    }
    Ok(bytes)
}

fn decode<T: DeserializeOwned, const LIMIT: usize>(
    bytes: &[u8],
    what: &'static str,
) -> Result<T, CodecError> {
    if bytes.len() > LIMIT {
        return Err(CodecError::TooLarge {
            what,
            size: bytes.len(),
            limit: LIMIT,
        });
    }
    let (value, used) = bincode::serde::decode_from_slice::<T, _>(bytes, config::<LIMIT>())
        .map_err(|e| CodecError::Decode {
            what,
            reason: e.to_string(),
        })?;
    if used != bytes.len() {
        return Err(CodecError::Trailing(bytes.len() - used, what));
    }
    Ok(value)
}

/// A message's payload (no length prefix).
pub fn encode_message<T: Serialize>(message: &T) -> Result<Vec<u8>, CodecError> {
    encode::<T, MAX_FRAME_BYTES>(message, "a message")
}

/// A message from a frame's payload; every byte must belong to it.
pub fn decode_message<T: DeserializeOwned>(payload: &[u8]) -> Result<T, CodecError> {
    if payload.len() > MAX_FRAME_BYTES {
        return Err(CodecError::FrameTooLarge(payload.len()));
    }
    decode::<T, MAX_FRAME_BYTES>(payload, "a message")
}

/// A whole frame: the payload's length as a big-endian u32, then the payload.
pub fn encode_frame<T: Serialize>(message: &T) -> Result<Vec<u8>, CodecError> {
    let payload = encode_message(message)?;
    let mut frame = Vec::with_capacity(LENGTH_PREFIX_BYTES + payload.len());
    frame.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    frame.extend_from_slice(&payload);
    Ok(frame)
}

/// The payload length a frame's prefix announces, refused over [`MAX_FRAME_BYTES`].
pub fn frame_length(prefix: [u8; LENGTH_PREFIX_BYTES]) -> Result<usize, CodecError> {
    let len = u32::from_be_bytes(prefix) as usize;
    if len > MAX_FRAME_BYTES {
        return Err(CodecError::FrameTooLarge(len));
    }
    Ok(len)
}

/// Cuts a byte stream into frame payloads. Sans-IO: push what arrived, take whole frames.
#[derive(Debug, Default)]
pub struct FrameReader {
    buf: Vec<u8>,
}

impl FrameReader {
    pub fn new() -> FrameReader {
        FrameReader::default()
    }

    /// Adds bytes that arrived.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole frame's payload, if one has arrived. An oversize prefix is an error at
    /// once, before its payload arrives; the stream cannot be read further after one.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, CodecError> {
        if self.buf.len() < LENGTH_PREFIX_BYTES {
            return Ok(None);
        }
        let mut prefix = [0u8; LENGTH_PREFIX_BYTES];
        prefix.copy_from_slice(&self.buf[..LENGTH_PREFIX_BYTES]);
        let len = frame_length(prefix)?;
        if self.buf.len() < LENGTH_PREFIX_BYTES + len {
            return Ok(None);
        }
        let payload = self.buf[LENGTH_PREFIX_BYTES..LENGTH_PREFIX_BYTES + len].to_vec();
        self.buf.drain(..LENGTH_PREFIX_BYTES + len);
        Ok(Some(payload))
    }

    /// Bytes received but not yet part of a whole frame.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// The stream ended: an error when it ended inside a frame (the partial frame is thrown
    /// away, never decoded).
    pub fn finish(&mut self) -> Result<(), CodecError> {
        let pending = std::mem::take(&mut self.buf).len();
        if pending == 0 {
            Ok(())
        } else {
            Err(CodecError::Truncated(pending))
        }
    }
}

/// The protocol version at the start of a Hello payload, read even when the rest of the
/// payload is not this version's Hello: tag 0 (a varint), then the version (a varint).
pub fn peek_hello_version(payload: &[u8]) -> Option<u32> {
    let (pair, _) =
        bincode::serde::decode_from_slice::<(u32, u32), _>(payload, config::<MAX_FRAME_BYTES>())
            .ok()?;
    (pair.0 == 0).then_some(pair.1)
}

/// A sim snapshot's bytes (carried in `SnapshotChunk`s and written into reports).
pub fn encode_snapshot(snapshot: &cohort_sim::world::Snapshot) -> Result<Vec<u8>, CodecError> {
    encode::<_, MAX_SNAPSHOT_BYTES>(snapshot, "a snapshot")
}

/// A sim snapshot from its bytes.
pub fn decode_snapshot(bytes: &[u8]) -> Result<cohort_sim::world::Snapshot, CodecError> {
    decode::<_, MAX_SNAPSHOT_BYTES>(bytes, "a snapshot")
}

/// A diverging client's evidence's bytes (carried in its `SnapshotChunk`s), within
/// [`MAX_SNAPSHOT_BYTES`] like a snapshot.
pub fn encode_evidence(evidence: &crate::report::Evidence) -> Result<Vec<u8>, CodecError> {
    encode::<_, MAX_SNAPSHOT_BYTES>(evidence, "the evidence")
}

/// A diverging client's evidence from its bytes.
pub fn decode_evidence(bytes: &[u8]) -> Result<crate::report::Evidence, CodecError> {
    decode::<_, MAX_SNAPSHOT_BYTES>(bytes, "the evidence")
}

/// A replay or report record's payload.
pub fn encode_record<T: Serialize>(record: &T) -> Result<Vec<u8>, CodecError> {
    encode::<T, MAX_RECORD_BYTES>(record, "a record")
}

/// A replay or report record from its payload.
pub fn decode_record<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    decode::<T, MAX_RECORD_BYTES>(bytes, "a record")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ClientMessage, Hello, Ping, ServerMessage};

    #[test]
    fn a_frame_round_trips_through_the_reader_byte_by_byte() {
        let msg = ClientMessage::Ping(Ping { nonce: 300 });
        let frame = encode_frame(&msg).unwrap();
        let mut r = FrameReader::new();
        let mut got = None;
        for b in &frame {
            assert!(got.is_none());
            r.push(&[*b]);
            got = r.next_frame().unwrap();
        }
        let back: ClientMessage = decode_message(&got.unwrap()).unwrap();
        assert_eq!(back, msg);
        assert_eq!(r.pending(), 0);
    }

    #[test]
    fn a_stream_that_ends_mid_frame_is_an_error_and_the_piece_is_dropped() {
        let frame = encode_frame(&ClientMessage::Ping(Ping { nonce: 9 })).unwrap();
        let mut r = FrameReader::new();
        r.push(&frame);
        r.push(&frame[..3]);
        assert!(r.next_frame().unwrap().is_some());
        assert_eq!(r.next_frame(), Ok(None));
        assert_eq!(r.finish(), Err(CodecError::Truncated(3)));
        assert_eq!(r.pending(), 0);
        assert_eq!(r.finish(), Ok(()), "a stream ending between frames is fine");
    }

    #[test]
    fn an_oversize_prefix_is_refused_before_its_payload() {
        let mut r = FrameReader::new();
        r.push(&((MAX_FRAME_BYTES as u32) + 1).to_be_bytes());
        assert_eq!(
            r.next_frame(),
            Err(CodecError::FrameTooLarge(MAX_FRAME_BYTES + 1))
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for junk in [
            &b""[..],
            &[0xff; 9][..],
            &[0x00, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f][..],
            &[0x40, 0x00][..],
        ] {
            assert!(decode_message::<ClientMessage>(junk).is_err());
            assert!(decode_message::<ServerMessage>(junk).is_err());
        }
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut payload = encode_message(&ClientMessage::Pause).unwrap();
        payload.push(0);
        assert!(matches!(
            decode_message::<ClientMessage>(&payload),
            Err(CodecError::Trailing(1, _))
        ));
    }

    #[test]
    fn the_hello_version_is_read_even_from_another_versions_hello() {
        let hello = ClientMessage::Hello(Hello {
            protocol_version: 9,
            ruleset_hash: [1; 32],
            token: "t".into(),
            client_name: "c".into(),
        });
        let payload = encode_message(&hello).unwrap();
        assert_eq!(peek_hello_version(&payload), Some(9));
        assert_eq!(peek_hello_version(&[0, 7, 0xee]), Some(7));
        assert_eq!(peek_hello_version(&[1, 1]), None);
    }
}
