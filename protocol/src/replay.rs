//! Replay files (docs/FILES.md): a magic, a format version, then checksummed records — the
//! match configuration first, then one record per turn (its bundle and the server's hash after
//! it), appended and flushed every turn. A server killed at any moment leaves a file whose
//! longest valid prefix [`read_replay`] accepts and re-simulates.

use crate::codec::{decode_record, encode_record, CodecError};
use crate::limits::MAX_RECORD_BYTES;
use crate::message::TurnBundle;
use crate::setup::MatchConfig;
use cohort_sim::StateHash;
use serde::{Deserialize, Serialize};
use std::io::Write;

/// The first 8 bytes of a replay file.
pub const REPLAY_MAGIC: [u8; 8] = *b"COHORTRP";

/// The replay format version, after the magic as a big-endian u32.
pub const REPLAY_VERSION: u32 = 1;

/// The bytes of a record's checksum: the first bytes of blake3 of its payload.
pub const CHECKSUM_BYTES: usize = 8;

/// The bytes before the first record: the magic and the version.
pub const FILE_HEADER_BYTES: usize = 12;

/// The first record of a replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayHeader {
    pub config: MatchConfig,
    /// The server that wrote it (`cohort-server <version>`).
    pub writer: String,
}

/// One turn: the bundle every peer ran, and the server's hash of the state after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub bundle: TurnBundle,
    pub hash: StateHash,
}

/// Why a replay could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("not a replay file (its first bytes are not `COHORTRP`)")]
    NotAReplay,
    #[error("replay format version {0}; this program reads version {REPLAY_VERSION}")]
    Version(u32),
    #[error("the replay's header record is damaged: {0}")]
    Header(String),
    #[error(transparent)]
    Codec(#[from] CodecError),
    #[error("could not write the replay: {0}")]
    Io(#[from] std::io::Error),
}

/// A replay as read: its header and its longest valid prefix of turn records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    pub header: ReplayHeader,
    /// Turns 0, 1, 2… in order.
    pub records: Vec<TurnRecord>,
    /// Bytes after the valid prefix (a record cut short by a crash, or damage); 0 when whole.
    pub ignored_bytes: usize,
}

/// A record's framing: its payload's length (u32, big-endian), the payload, its checksum.
pub fn frame_record(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + payload.len() + CHECKSUM_BYTES);
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&checksum(payload));
    out
}

fn checksum(payload: &[u8]) -> [u8; CHECKSUM_BYTES] {
    let mut c = [0u8; CHECKSUM_BYTES];
    c.copy_from_slice(&blake3::hash(payload).as_bytes()[..CHECKSUM_BYTES]);
    c
}

/// The next whole, checksummed record's payload at the start of `bytes`, and the bytes it
/// takes; none when cut short or damaged.
pub fn next_record(bytes: &[u8]) -> Option<(&[u8], usize)> {
    let len = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    if len > MAX_RECORD_BYTES {
        return None;
    }
    let payload = bytes.get(4..4 + len)?;
    let sum = bytes.get(4 + len..4 + len + CHECKSUM_BYTES)?;
    (sum == checksum(payload)).then_some((payload, 4 + len + CHECKSUM_BYTES))
}

/// Checks a file's magic and version against `magic` and `version`.
pub(crate) fn check_file_header(
    bytes: &[u8],
    magic: [u8; 8],
    version: u32,
) -> Result<(), ReplayError> {
    if bytes.get(..8) != Some(&magic[..]) {
        return Err(ReplayError::NotAReplay);
    }
    let v = u32::from_be_bytes(
        bytes
            .get(8..FILE_HEADER_BYTES)
            .ok_or(ReplayError::NotAReplay)?
            .try_into()
            .map_err(|_| ReplayError::NotAReplay)?,
    );
    if v != version {
        return Err(ReplayError::Version(v));
    }
    Ok(())
}

/// The bytes a replay starts with: the magic, the version, the header record.
pub fn encode_replay_start(header: &ReplayHeader) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    out.extend_from_slice(&REPLAY_MAGIC);
    out.extend_from_slice(&REPLAY_VERSION.to_be_bytes());
    out.extend_from_slice(&frame_record(&encode_record(header)?));
    Ok(out)
}

/// One turn record's bytes, framed.
pub fn encode_turn_record(record: &TurnRecord) -> Result<Vec<u8>, CodecError> {
    Ok(frame_record(&encode_record(record)?))
}

/// Reads a replay: the header must be whole; turn records are taken while they are whole,
/// checksummed, decodable and numbered 0, 1, 2…; the rest is counted in `ignored_bytes`.
pub fn read_replay(bytes: &[u8]) -> Result<Replay, ReplayError> {
    check_file_header(bytes, REPLAY_MAGIC, REPLAY_VERSION)?;
    let mut at = FILE_HEADER_BYTES;
    let (payload, used) = next_record(&bytes[at..])
        .ok_or_else(|| ReplayError::Header("cut short or its checksum is wrong".into()))?;
    let header: ReplayHeader =
        decode_record(payload).map_err(|e| ReplayError::Header(e.to_string()))?;
    at += used;
    let mut records = Vec::new();
    while let Some((payload, used)) = next_record(&bytes[at..]) {
        let Ok(record) = decode_record::<TurnRecord>(payload) else {
            break;
        };
        if record.bundle.turn != records.len() as u64 {
            break;
        }
        records.push(record);
        at += used;
    }
    Ok(Replay {
        header,
        records,
        ignored_bytes: bytes.len() - at,
    })
}

/// Writes a replay as it happens: each record in one write, then a flush, so a killed
/// process leaves whole records behind (a cut-short last record is ignored by the reader).
pub struct ReplayWriter<W: Write> {
    out: W,
    next_turn: u64,
}

impl<W: Write> ReplayWriter<W> {
    /// Starts a replay: writes the magic, the version and the header.
    pub fn start(mut out: W, header: &ReplayHeader) -> Result<Self, ReplayError> {
        out.write_all(&encode_replay_start(header)?)?;
        out.flush()?;
        Ok(ReplayWriter { out, next_turn: 0 })
    }

    /// Appends one turn and flushes. Records must come in turn order from 0.
    pub fn append(&mut self, record: &TurnRecord) -> Result<(), ReplayError> {
        if record.bundle.turn != self.next_turn {
            return Err(ReplayError::Header(format!(
                "turn {} appended where turn {} was due",
                record.bundle.turn, self.next_turn
            )));
        }
        self.out.write_all(&encode_turn_record(record)?)?;
        self.out.flush()?;
        self.next_turn += 1;
        Ok(())
    }

    /// The turns written so far.
    pub fn turns(&self) -> u64 {
        self.next_turn
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::MatchConfig;
    use cohort_sim::Ruleset;

    fn header() -> ReplayHeader {
        ReplayHeader {
            config: MatchConfig::standard("r", &Ruleset::default_rules(), 2),
            writer: "test".into(),
        }
    }

    fn record(turn: u64) -> TurnRecord {
        TurnRecord {
            bundle: TurnBundle {
                turn,
                input_delay: None,
                events: vec![],
                commands: vec![],
                previous_hash: None,
            },
            hash: StateHash([turn as u8; 32]),
        }
    }

    fn written(turns: u64) -> Vec<u8> {
        let mut w = ReplayWriter::start(Vec::new(), &header()).unwrap();
        for t in 0..turns {
            w.append(&record(t)).unwrap();
        }
        w.into_inner()
    }

    #[test]
    fn a_whole_replay_reads_back() {
        let r = read_replay(&written(5)).unwrap();
        assert_eq!(r.header, header());
        assert_eq!(r.records, (0..5).map(record).collect::<Vec<_>>());
        assert_eq!(r.ignored_bytes, 0);
    }

    #[test]
    fn every_cut_leaves_the_longest_valid_prefix() {
        let full = written(4);
        let start = encode_replay_start(&header()).unwrap().len();
        let one = encode_turn_record(&record(0)).unwrap().len();
        for cut in start..=full.len() {
            let r = read_replay(&full[..cut]).unwrap();
            assert_eq!(r.records.len(), (cut - start) / one);
            assert_eq!(r.ignored_bytes, (cut - start) % one);
        }
    }

    #[test]
    fn a_damaged_record_ends_the_valid_prefix() {
        let mut full = written(4);
        let start = encode_replay_start(&header()).unwrap().len();
        let one = encode_turn_record(&record(0)).unwrap().len();
        full[start + 2 * one + 6] ^= 0x40;
        let r = read_replay(&full).unwrap();
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.ignored_bytes, 2 * one);
    }

    #[test]
    fn other_files_are_refused_clearly() {
        assert!(matches!(
            read_replay(b"hello"),
            Err(ReplayError::NotAReplay)
        ));
        let mut v = written(0);
        v[11] = 9;
        assert!(matches!(read_replay(&v), Err(ReplayError::Version(9))));
        let start = encode_replay_start(&header()).unwrap();
        assert!(matches!(
            read_replay(&start[..start.len() - 1]),
            Err(ReplayError::Header(_))
        ));
    }
}
