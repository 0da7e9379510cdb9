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

/// A replay as read: its header, its longest valid prefix of turn records, and what follows
/// that prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    pub header: ReplayHeader,
    /// Turns 0, 1, 2… in order.
    pub records: Vec<TurnRecord>,
    /// Bytes after the valid prefix (a record cut short by a crash, or damage); 0 when whole.
    pub ignored_bytes: usize,
    /// Whether those bytes are a cut (a killed writer) or damage.
    pub tail: Tail,
}

/// The most bytes [`read_replay`] hashes while looking for whole records after a damaged one
/// (each place a record could start is tried: its checksum is computed when its length fits).
/// Past it the search stops and what follows is taken as holding no whole record.
pub const MAX_RESYNC_HASHED_BYTES: usize = 256 << 20;

/// What follows a replay's valid prefix of records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tail {
    /// Nothing: the file ends after its last whole record.
    Whole,
    /// The last record was cut short — a writer killed while writing it: `bytes` bytes at byte
    /// `offset` that are less than the record their length field announces (or less than a
    /// length field, or only zero bytes, as a file system leaves after a power cut), and
    /// nothing after them. The valid prefix is the whole match up to the cut.
    CutShort { offset: usize, bytes: usize },
    /// The record of turn `turn`, at byte `offset`, is damaged: `why`. Its bytes are all there
    /// (or whole records follow it: `whole_after` of them), so it is not a cut; the file was
    /// damaged after it was written.
    Damaged {
        turn: u64,
        offset: usize,
        why: String,
        whole_after: usize,
    },
}

impl std::fmt::Display for Tail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tail::Whole => write!(f, "the file ends after its last whole record"),
            Tail::CutShort { offset, bytes } => write!(
                f,
                "the last record was cut short: {bytes} bytes at byte {offset} (a writer killed \
                 while writing it) are ignored"
            ),
            Tail::Damaged {
                turn,
                offset,
                why,
                whole_after,
            } => {
                write!(
                    f,
                    "the record of turn {turn} at byte {offset} is damaged: {why}"
                )?;
                match whole_after {
                    0 => write!(f, " (its bytes are all there: not a cut)"),
                    1 => write!(f, "; 1 whole record follows it"),
                    n => write!(f, "; {n} whole records follow it"),
                }
            }
        }
    }
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
    let len = declared_len(bytes)?;
    if len > MAX_RECORD_BYTES {
        return None;
    }
    let payload = bytes.get(4..4 + len)?;
    let sum = bytes.get(4 + len..4 + len + CHECKSUM_BYTES)?;
    (sum == checksum(payload)).then_some((payload, 4 + len + CHECKSUM_BYTES))
}

/// The payload length a record at the start of `bytes` announces; none when its length field
/// is cut short.
fn declared_len(bytes: &[u8]) -> Option<usize> {
    let field: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    usize::try_from(u32::from_be_bytes(field)).ok()
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
    let Some(Ok(v)) = bytes.get(8..FILE_HEADER_BYTES).map(<[u8; 4]>::try_from) else {
        return Err(ReplayError::Header(
            "cut short inside its format version".into(),
        ));
    };
    let v = u32::from_be_bytes(v);
    if v != version {
        return Err(ReplayError::Version(v));
    }
    Ok(())
}

/// A file's first bytes: `magic`, `version` (big-endian), then `first` as a framed record.
pub(crate) fn file_with_record<T: Serialize>(
    magic: [u8; 8],
    version: u32,
    first: &T,
) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    out.extend_from_slice(&magic);
    out.extend_from_slice(&version.to_be_bytes());
    out.extend_from_slice(&frame_record(&encode_record(first)?));
    Ok(out)
}

/// The bytes a replay starts with: the magic, the version, the header record.
pub fn encode_replay_start(header: &ReplayHeader) -> Result<Vec<u8>, CodecError> {
    file_with_record(REPLAY_MAGIC, REPLAY_VERSION, header)
}

/// One turn record's bytes, framed.
pub fn encode_turn_record(record: &TurnRecord) -> Result<Vec<u8>, CodecError> {
    Ok(frame_record(&encode_record(record)?))
}

/// Reads a replay: the header must be whole; turn records are taken while they are whole,
/// checksummed, decodable and numbered 0, 1, 2…; the rest is counted in `ignored_bytes` and
/// told apart ([`Tail`]): a cut leaves less than one record and nothing after it; anything
/// else — a record whose bytes are all there but wrong, whole records after a bad one — is
/// damage.
pub fn read_replay(bytes: &[u8]) -> Result<Replay, ReplayError> {
    check_file_header(bytes, REPLAY_MAGIC, REPLAY_VERSION)?;
    let mut at = FILE_HEADER_BYTES;
    let (payload, used) = next_record(&bytes[at..])
        .ok_or_else(|| ReplayError::Header("cut short or its checksum is wrong".into()))?;
    let header: ReplayHeader =
        decode_record(payload).map_err(|e| ReplayError::Header(e.to_string()))?;
    at += used;
    let mut records = Vec::new();
    let mut why = None;
    while at < bytes.len() {
        let Some((payload, used)) = next_record(&bytes[at..]) else {
            break;
        };
        let due = records.len() as u64;
        match decode_record::<TurnRecord>(payload) {
            Ok(record) if record.bundle.turn == due => {
                records.push(record);
                at += used;
            }
            Ok(record) => {
                why = Some(format!(
                    "it holds turn {} where turn {due} was due",
                    record.bundle.turn
                ));
                break;
            }
            Err(e) => {
                why = Some(format!("its checksum is right but it does not decode: {e}"));
                break;
            }
        }
    }
    let tail = tail_after(bytes, at, records.len() as u64, why);
    Ok(Replay {
        header,
        records,
        ignored_bytes: bytes.len() - at,
        tail,
    })
}

/// Tells what the bytes from `at` on are: nothing, a cut, or damage to the record of `turn`
/// (`why`, when already known: a whole record that does not decode or is out of turn).
fn tail_after(bytes: &[u8], at: usize, turn: u64, why: Option<String>) -> Tail {
    let rest = &bytes[at..];
    if rest.is_empty() {
        return Tail::Whole;
    }
    let whole_after = whole_records_after(bytes, at);
    if why.is_none() && whole_after == 0 && is_cut(rest) {
        return Tail::CutShort {
            offset: at,
            bytes: rest.len(),
        };
    }
    Tail::Damaged {
        turn,
        offset: at,
        why: why.unwrap_or_else(|| describe_bad_record(rest)),
        whole_after,
    }
}

/// Whether `rest`, holding no whole record, is what a cut leaves: less than a length field,
/// less than the record its length announces, or zero bytes only.
fn is_cut(rest: &[u8]) -> bool {
    rest.iter().all(|b| *b == 0)
        || declared_len(rest)
            .is_none_or(|len| len <= MAX_RECORD_BYTES && rest.len() < 4 + len + CHECKSUM_BYTES)
}

/// Why the record at the start of `rest` is not whole and right.
fn describe_bad_record(rest: &[u8]) -> String {
    match declared_len(rest) {
        None => format!("only {} bytes, less than a length field", rest.len()),
        Some(len) if len > MAX_RECORD_BYTES => {
            format!("its length {len} is over MAX_RECORD_BYTES ({MAX_RECORD_BYTES})")
        }
        Some(len) if rest.len() < 4 + len + CHECKSUM_BYTES => format!(
            "its length {len} runs past the end of the file ({} bytes left)",
            rest.len()
        ),
        Some(_) => "its checksum is wrong".to_string(),
    }
}

/// How many whole, checksummed turn records follow the bad record at `at`: the first is
/// searched for at every later byte (within [`MAX_RESYNC_HASHED_BYTES`] of hashing), the rest
/// follow it record by record.
fn whole_records_after(bytes: &[u8], at: usize) -> usize {
    let mut budget = MAX_RESYNC_HASHED_BYTES;
    let mut from = None;
    for p in at + 1..bytes.len() {
        let rest = &bytes[p..];
        let Some(len) = declared_len(rest) else {
            break;
        };
        if len > MAX_RECORD_BYTES || rest.len() < 4 + len + CHECKSUM_BYTES {
            continue;
        }
        if len > budget {
            break;
        }
        budget -= len;
        if let Some((payload, _)) = next_record(rest) {
            if decode_record::<TurnRecord>(payload).is_ok() {
                from = Some(p);
                break;
            }
        }
    }
    let Some(mut p) = from else {
        return 0;
    };
    let mut whole = 0;
    while let Some((_, used)) = next_record(&bytes[p..]) {
        whole += 1;
        p += used;
    }
    whole
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

    /// Goes on writing a replay whose whole records hold turns 0 to `next_turn − 1`: `out` is
    /// positioned right after the last of them (a cut tail already removed), and the next
    /// record appended must be turn `next_turn`. A match taken up again after its server died
    /// so continues its one file.
    pub fn resume(out: W, next_turn: u64) -> Self {
        ReplayWriter { out, next_turn }
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

    /// What it writes to.
    pub fn get_ref(&self) -> &W {
        &self.out
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
    fn a_replay_cut_then_resumed_is_one_whole_file() {
        let full = written(6);
        let start = encode_replay_start(&header()).unwrap().len();
        let one = encode_turn_record(&record(0)).unwrap().len();
        // Killed while writing turn 3: its record is cut short.
        let mut cut = full[..start + 3 * one + 5].to_vec();
        let r = read_replay(&cut).unwrap();
        assert_eq!(r.records.len(), 3);
        cut.truncate(cut.len() - r.ignored_bytes);
        let mut w = ReplayWriter::resume(cut, 3);
        for t in 3..6 {
            w.append(&record(t)).unwrap();
        }
        assert!(w.append(&record(7)).is_err(), "turns stay in order");
        assert_eq!(w.into_inner(), full);
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
            let tail = match r.ignored_bytes {
                0 => Tail::Whole,
                bytes => Tail::CutShort {
                    offset: cut - bytes,
                    bytes,
                },
            };
            assert_eq!(r.tail, tail, "cut at {cut}");
        }
    }

    #[test]
    fn a_damaged_record_ends_the_valid_prefix_and_is_told_from_a_cut() {
        let mut full = written(4);
        let start = encode_replay_start(&header()).unwrap().len();
        let one = encode_turn_record(&record(0)).unwrap().len();
        full[start + 2 * one + 6] ^= 0x40;
        let r = read_replay(&full).unwrap();
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.ignored_bytes, 2 * one);
        assert_eq!(
            r.tail,
            Tail::Damaged {
                turn: 2,
                offset: start + 2 * one,
                why: "its checksum is wrong".into(),
                whole_after: 1,
            }
        );
        assert_eq!(
            r.tail.to_string(),
            format!(
                "the record of turn 2 at byte {} is damaged: its checksum is wrong; 1 whole \
                 record follows it",
                start + 2 * one
            )
        );
    }

    /// Cohort's promise for damage (docs/FILES.md, "Cut or damaged"): one flipped bit anywhere
    /// makes the file refused (in its file header or header record) or names the damaged
    /// record and its offset — except the few flips a cut cannot be told from: those raising
    /// the last record's length (still within `MAX_RECORD_BYTES`) past the end of the file.
    #[test]
    fn every_flipped_bit_is_damage_named_at_its_record_or_refused() {
        let turns = 5;
        let full = written(turns);
        let start = encode_replay_start(&header()).unwrap().len();
        let one = encode_turn_record(&record(0)).unwrap().len();
        let last = start + (turns as usize - 1) * one;
        let mut seen_as_cut = 0;
        for bit in 0..full.len() * 8 {
            let mut bytes = full.clone();
            bytes[bit / 8] ^= 1 << (bit % 8);
            let at = bit / 8;
            let read = read_replay(&bytes);
            if at < start {
                assert!(read.is_err(), "bit {bit} in the header: {read:?}");
                continue;
            }
            let r = read.unwrap();
            let k = (at - start) / one;
            let offset = start + k * one;
            assert_eq!(r.records.len(), k, "bit {bit}");
            assert_eq!(r.ignored_bytes, full.len() - offset, "bit {bit}");
            let raises_last_length = at >= last && at < last + 4 && bytes[at] > full[at];
            match &r.tail {
                Tail::CutShort { .. } if raises_last_length => seen_as_cut += 1,
                Tail::Damaged {
                    turn,
                    offset: o,
                    whole_after,
                    ..
                } => {
                    assert_eq!((*turn, *o), (k as u64, offset), "bit {bit}");
                    assert_eq!(*whole_after, turns as usize - 1 - k, "bit {bit}");
                }
                other => panic!("bit {bit}: {other:?}"),
            }
        }
        // Exactly the length's clear bits whose setting keeps it within MAX_RECORD_BYTES.
        let len = one - 4 - CHECKSUM_BYTES;
        let clear_low_bits = (0..32)
            .filter(|b| len & (1 << b) == 0 && (len | (1 << b)) <= MAX_RECORD_BYTES)
            .count();
        assert_eq!(seen_as_cut, clear_low_bits);
    }

    #[test]
    fn a_zero_filled_tail_is_a_cut() {
        let mut full = written(3);
        let end = full.len();
        full.extend_from_slice(&[0; 4096]);
        let r = read_replay(&full).unwrap();
        assert_eq!(r.records.len(), 3);
        assert_eq!(
            r.tail,
            Tail::CutShort {
                offset: end,
                bytes: 4096
            }
        );
    }

    #[test]
    fn a_record_out_of_turn_is_damage() {
        let mut w = ReplayWriter::start(Vec::new(), &header()).unwrap();
        w.append(&record(0)).unwrap();
        let mut bytes = w.into_inner();
        let offset = bytes.len();
        bytes.extend_from_slice(&encode_turn_record(&record(5)).unwrap());
        let r = read_replay(&bytes).unwrap();
        assert_eq!(r.records.len(), 1);
        assert!(
            matches!(&r.tail, Tail::Damaged { turn: 1, offset: o, why, .. }
                if *o == offset && why.contains("turn 5 where turn 1 was due")),
            "{:?}",
            r.tail
        );
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
