//! The replay so far, held in memory: every turn the server's sim has run, kept in its replay
//! encoding (bincode, as in the replay file) rather than as decoded records. A match keeps every
//! turn for its desync reports and for re-simulating to a turn, so this is the part of a match's
//! memory that grows with its length; encoded it is about a tenth of the decoded records
//! (BENCHMARKS.md, "Lockstep").

use cohort_protocol::codec::{decode_record, encode_record};
use cohort_protocol::replay::TurnRecord;
use std::ops::Range;

/// Every turn run, in order, encoded.
#[derive(Debug, Default)]
pub struct RecordLog {
    /// The records' payloads, one after another.
    bytes: Vec<u8>,
    /// Where each record's payload ends in `bytes` (record n spans `ends[n-1]..ends[n]`).
    ends: Vec<usize>,
    /// Set once a record is refused: the log then takes no more, so record n stays turn n.
    closed: bool,
}

impl RecordLog {
    /// Appends the record of the next turn. A record the codec refuses (larger than
    /// `MAX_RECORD_BYTES`, which a turn's bounded commands cannot reach) is an error, and the
    /// log keeps the turns before it and takes no more.
    pub fn push(&mut self, record: &TurnRecord) -> Result<(), cohort_protocol::CodecError> {
        if self.closed {
            return Err(cohort_protocol::CodecError::Encode {
                what: "a record",
                reason: "an earlier turn's record was refused".into(),
            });
        }
        let payload = encode_record(record).inspect_err(|_| self.closed = true)?;
        self.bytes.extend_from_slice(&payload);
        self.ends.push(self.bytes.len());
        Ok(())
    }

    /// The number of turns recorded.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no turn has been recorded.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The records of the turns in `range`, decoded; `None` when the range runs past the log
    /// or a record does not decode (which would be a bug: the log only holds what it encoded).
    pub fn records(&self, range: Range<usize>) -> Option<Vec<TurnRecord>> {
        if range.end > self.ends.len() || range.start > range.end {
            return None;
        }
        range
            .map(|n| {
                let start = if n == 0 { 0 } else { self.ends[n - 1] };
                decode_record(&self.bytes[start..self.ends[n]]).ok()
            })
            .collect()
    }

    /// Every record, decoded.
    pub fn all(&self) -> Option<Vec<TurnRecord>> {
        self.records(0..self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_protocol::message::TurnBundle;
    use cohort_sim::StateHash;

    fn record(turn: u64) -> TurnRecord {
        TurnRecord {
            bundle: TurnBundle {
                turn,
                input_delay: turn.is_multiple_of(3).then_some(turn as u32),
                events: Vec::new(),
                commands: Vec::new(),
                previous_hash: None,
            },
            hash: StateHash([turn as u8; 32]),
        }
    }

    #[test]
    fn records_come_back_as_they_went_in() {
        let mut log = RecordLog::default();
        for t in 0..50 {
            log.push(&record(t)).unwrap();
        }
        assert_eq!(log.len(), 50);
        let all = log.all().unwrap();
        assert_eq!(all, (0..50).map(record).collect::<Vec<_>>());
        let some = log.records(10..13).unwrap();
        assert_eq!(some, (10..13).map(record).collect::<Vec<_>>());
        assert_eq!(log.records(0..0), Some(Vec::new()));
    }

    #[test]
    fn a_range_past_the_log_is_none() {
        let mut log = RecordLog::default();
        log.push(&record(0)).unwrap();
        assert_eq!(log.records(0..2), None);
        assert_eq!(log.records(2..3), None);
    }
}
