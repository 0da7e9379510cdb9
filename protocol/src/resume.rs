//! Match snapshot files (docs/FILES.md, "Match snapshot"): what a server needs, beside a
//! match's replay, to take the match up again after it died or was suspended — the match's
//! settings and its whole state after some turn. The replay stays the record of the match;
//! the snapshot only spares re-simulating it from turn 0, and its turn's recorded hash is
//! checked before it is trusted. A match that has a snapshot file beside its replay has not
//! ended: the server removes the file when the match ends.
//!
//! A file is the magic `COHORTMS`, a format version, and one checksummed record (the replay's
//! framing: [`crate::replay::frame_record`]) holding a [`MatchSnapshot`]. It is written whole to
//! a temporary file, flushed to disk, then renamed over the last one, so a reader finds the old
//! file or the new one, never half of one.

use crate::codec::{decode_record, CodecError};
use crate::replay::{
    check_file_header, file_with_record, next_record, ReplayError, FILE_HEADER_BYTES,
};
use crate::setup::MatchConfig;
use cohort_sim::world::Snapshot;
use serde::{Deserialize, Serialize};

/// The first 8 bytes of a match snapshot file.
pub const MATCH_SNAPSHOT_MAGIC: [u8; 8] = *b"COHORTMS";

/// The match snapshot format version, after the magic as a big-endian u32.
pub const MATCH_SNAPSHOT_VERSION: u32 = 1;

/// The file name's ending: `<match>-<unix seconds>.cohort-snapshot`, the replay's stem.
pub const MATCH_SNAPSHOT_EXTENSION: &str = "cohort-snapshot";

/// How the match is run beyond its configuration, as the server was told when it set it up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumeSettings {
    pub config: MatchConfig,
    /// Whether the input delay follows round trips.
    pub adaptive_delay: bool,
    /// The turn limit, if any.
    pub max_turns: Option<u64>,
    /// Whether a desync stops the match.
    pub stop_on_desync: bool,
    /// Whether players must send state hashes.
    pub require_hashes: bool,
    /// When the match was set up, Unix seconds.
    pub created_at: u64,
}

/// One match snapshot file's content.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchSnapshot {
    pub settings: ResumeSettings,
    /// The replay file's name (in the same folder).
    pub replay: String,
    /// Turns run when it was taken: the state is the one after turn `turns_run − 1`.
    pub turns_run: u64,
    /// The state then; none before turn 0 ran (the configuration's world).
    pub world: Option<Snapshot>,
}

/// The bytes of a match snapshot file.
pub fn encode_match_snapshot(snapshot: &MatchSnapshot) -> Result<Vec<u8>, CodecError> {
    file_with_record(MATCH_SNAPSHOT_MAGIC, MATCH_SNAPSHOT_VERSION, snapshot)
}

/// Reads a match snapshot file: the magic, the version, one whole record whose checksum is
/// right and which decodes, and nothing after it.
pub fn decode_match_snapshot(bytes: &[u8]) -> Result<MatchSnapshot, ReplayError> {
    check_file_header(bytes, MATCH_SNAPSHOT_MAGIC, MATCH_SNAPSHOT_VERSION).map_err(
        |e| match e {
            ReplayError::NotAReplay => ReplayError::Header(
                "not a match snapshot (its first bytes are not `COHORTMS`)".into(),
            ),
            e => e,
        },
    )?;
    let rest = &bytes[FILE_HEADER_BYTES..];
    let (payload, used) = next_record(rest)
        .ok_or_else(|| ReplayError::Header("its record is cut short or damaged".into()))?;
    if used != rest.len() {
        return Err(ReplayError::Header(format!(
            "{} bytes follow its record",
            rest.len() - used
        )));
    }
    decode_record(payload).map_err(|e| ReplayError::Header(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_sim::Ruleset;
    use std::sync::Arc;

    fn sample() -> MatchSnapshot {
        let rules = Arc::new(Ruleset::default_rules());
        let config = MatchConfig::standard("m", &rules, 2);
        let world = config.world(rules).unwrap();
        MatchSnapshot {
            settings: ResumeSettings {
                config,
                adaptive_delay: true,
                max_turns: Some(100),
                stop_on_desync: false,
                require_hashes: true,
                created_at: 1_700_000_000,
            },
            replay: "m-1700000000.cohort-replay".into(),
            turns_run: 0,
            world: Some(world.snapshot()),
        }
    }

    #[test]
    fn a_snapshot_file_comes_back_as_it_went_in() {
        let s = sample();
        let bytes = encode_match_snapshot(&s).unwrap();
        let back = decode_match_snapshot(&bytes).unwrap();
        assert_eq!(back.settings, s.settings);
        assert_eq!((&back.replay, back.turns_run), (&s.replay, s.turns_run));
        assert_eq!(encode_match_snapshot(&back).unwrap(), bytes);
    }

    #[test]
    fn a_cut_a_flipped_byte_or_bytes_after_are_refused() {
        let bytes = encode_match_snapshot(&sample()).unwrap();
        for cut in [0, 5, 12, 20, bytes.len() - 1] {
            assert!(
                decode_match_snapshot(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        for at in (0..bytes.len()).step_by(97) {
            let mut b = bytes.clone();
            b[at] ^= 0x10;
            assert!(decode_match_snapshot(&b).is_err(), "flip at {at}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_match_snapshot(&longer).is_err());
    }
}
