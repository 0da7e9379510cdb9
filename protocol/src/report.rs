//! Desync reports (docs/FILES.md): what the server knew when a client's hash differed from its
//! own — the replay so far, every peer's hash at the failing turn, the server's tick hashes of
//! that turn, its per-part and per-entry hashes and snapshot after it, and the diverging
//! client's evidence: its tick hashes of the turn and its states at the turn's start, after its
//! first tick that differs and after the turn. `cohort replay` re-simulates and narrows it to
//! the tick and the field.

use crate::codec::{decode_record, CodecError};
use crate::replay::{check_file_header, next_record, ReplayError, TurnRecord};
use crate::replay::{ReplayHeader, FILE_HEADER_BYTES};
use cohort_sim::hash::{Entry, TickHash};
use cohort_sim::world::Snapshot;
use cohort_sim::{PlayerId, StateHash, World};
use serde::{Deserialize, Serialize};

/// The first 8 bytes of a desync report file.
pub const REPORT_MAGIC: [u8; 8] = *b"COHORTDR";

/// The report format version, after the magic as a big-endian u32. Version 2: the client's
/// state is the one after the failing turn, compared with the report's `server`. Version 3:
/// entries (players, units, buildings, resources, formations) in place of entity ids, and the
/// parts `next_id` and `formations`. Version 4: the server's and the client's tick hashes of
/// the failing turn, and the client's states at its start and after its first differing tick.
pub const REPORT_VERSION: u32 = 4;

/// One peer's hash after the failing turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerHash {
    pub player: PlayerId,
    pub name: String,
    /// None when the peer had not sent its hash for that turn yet.
    pub hash: Option<StateHash>,
}

/// A state, seen whole and in pieces.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StateView {
    /// The state is the one after this turn.
    pub turn: u64,
    pub hash: StateHash,
    /// Per part of the state (`cohort_sim::hash::PARTS`).
    pub parts: Vec<(String, StateHash)>,
    /// Per player, unit, building, resource and formation, in [`Entry`] order.
    pub entities: Vec<(Entry, StateHash)>,
    pub snapshot: Snapshot,
}

impl StateView {
    /// A view of `world`, whose state is the one after `turn`.
    pub fn of(world: &World, turn: u64) -> StateView {
        StateView {
            turn,
            hash: world.hash(),
            parts: world
                .part_hashes()
                .into_iter()
                .map(|(n, h)| (n.to_string(), h))
                .collect(),
            entities: world.entity_hashes(),
            snapshot: world.snapshot(),
        }
    }

    /// The parts whose hashes differ from `other`'s, and the entries that differ or that only
    /// one side has, in [`Entry`] order.
    pub fn differences(&self, other: &StateView) -> (Vec<String>, Vec<Entry>) {
        let parts = self
            .parts
            .iter()
            .filter(|(n, h)| other.parts.iter().any(|(m, g)| m == n && g != h))
            .map(|(n, _)| n.clone())
            .collect();
        let mut ids: Vec<Entry> = Vec::new();
        let (a, b) = (&self.entities, &other.entities);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x.0 == y.0 => {
                    if x.1 != y.1 {
                        ids.push(x.0);
                    }
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.0 < y.0 => {
                    ids.push(x.0);
                    i += 1;
                }
                (Some(_), Some(y)) => {
                    ids.push(y.0);
                    j += 1;
                }
                (Some(x), None) => {
                    ids.push(x.0);
                    i += 1;
                }
                (None, Some(y)) => {
                    ids.push(y.0);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        (parts, ids)
    }
}

/// The diverging client's side.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClientSide {
    pub player: PlayerId,
    pub name: String,
    /// The client's state after the failing turn, as the client held it (`view.turn` is the
    /// report's `turn`); compare it with the report's `server`.
    pub view: StateView,
    /// Its tick hash after each tick of the failing turn, as it ran them (empty if it had none).
    pub tick_hashes: Vec<TickHash>,
    /// Its state at the start of the failing turn (after the turn before), run again by the
    /// client from its checkpoint ([`Evidence::start`]).
    pub start: Option<Snapshot>,
    /// Its state after the first tick whose tick hash differs from the server's, run again by
    /// the client ([`Evidence::at_tick`]); the tick is `state.tick`.
    pub at_tick: Option<Snapshot>,
    /// Why any of the above is missing, as the client (or the server) said.
    pub notes: Vec<String>,
}

/// What a diverging client sends about the failing turn, answering the server's
/// `SnapshotRequest` (in `Snapshot` pieces, [`crate::codec::encode_evidence`]).
///
/// `end` is the client's own state after the turn, as it held it. `start` and `at_tick` are
/// run again: the client keeps a checkpoint of its state every few turns and the bundles since,
/// and runs them again through its own sim (its test switches too), checking every turn hash
/// and tick hash of the re-run against the ones it had when it ran them live. A re-run that does
/// not give them back is not sent; `notes` says why.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Evidence {
    /// Its tick hash after each tick of the turn, as it ran them live (empty if it no longer
    /// holds them: [`crate::limits::TICK_HASH_TURNS`]).
    pub tick_hashes: Vec<TickHash>,
    /// Its state at the start of the turn (after the turn before).
    pub start: Option<Snapshot>,
    /// Its state after the first tick whose tick hash differs from the server's.
    pub at_tick: Option<Snapshot>,
    /// Its state after the turn.
    pub end: Snapshot,
    /// Why `tick_hashes`, `start` or `at_tick` is missing, one line each.
    pub notes: Vec<String>,
}

/// A desync report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DesyncReport {
    /// The match's configuration, as in its replay.
    pub header: ReplayHeader,
    /// The turn after which a hash first differed.
    pub turn: u64,
    /// The players whose hash differed.
    pub diverged: Vec<PlayerId>,
    /// Every player's hash after `turn`.
    pub peer_hashes: Vec<PeerHash>,
    /// The replay's turns so far, from turn 0 (at least through `turn`).
    pub records: Vec<TurnRecord>,
    /// The server's state after `turn`.
    pub server: StateView,
    /// The server's tick hash after each tick of `turn` (empty if it no longer held them).
    pub server_tick_hashes: Vec<TickHash>,
    /// The diverging client's side, when it sent its evidence.
    pub client: Option<ClientSide>,
}

/// Why a report could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("not a desync report (its first bytes are not `COHORTDR`)")]
    NotAReport,
    #[error("report format version {0}; this program reads version {REPORT_VERSION}")]
    Version(u32),
    #[error("the report is cut short or damaged (its checksum is wrong)")]
    Damaged,
    #[error("{0} bytes follow the report's record at byte {1}: the file is damaged")]
    Trailing(usize, usize),
    #[error(transparent)]
    Codec(#[from] CodecError),
}

/// A report's bytes: the magic, the version, one checksummed record.
pub fn encode_report(report: &DesyncReport) -> Result<Vec<u8>, CodecError> {
    crate::replay::file_with_record(REPORT_MAGIC, REPORT_VERSION, report)
}

/// Reads a report written by [`encode_report`].
pub fn read_report(bytes: &[u8]) -> Result<DesyncReport, ReportError> {
    check_file_header(bytes, REPORT_MAGIC, REPORT_VERSION).map_err(|e| match e {
        ReplayError::Version(v) => ReportError::Version(v),
        ReplayError::Header(_) => ReportError::Damaged,
        _ => ReportError::NotAReport,
    })?;
    let (payload, used) = next_record(&bytes[FILE_HEADER_BYTES..]).ok_or(ReportError::Damaged)?;
    let end = FILE_HEADER_BYTES + used;
    if end < bytes.len() {
        return Err(ReportError::Trailing(bytes.len() - end, end));
    }
    Ok(decode_record(payload)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::MatchConfig;
    use cohort_sim::Ruleset;
    use std::sync::Arc;

    #[test]
    fn a_report_round_trips_and_names_what_differs() {
        let rules = Arc::new(Ruleset::default_rules());
        let config = MatchConfig::standard("d", &rules, 2);
        let world = config.world(rules.clone()).unwrap();
        let mut other = world.clone();
        other.state_mut().units[0].hit_points -= 1;
        let server = StateView::of(&world, 0);
        let client = StateView::of(&other, 0);
        let (parts, ids) = server.differences(&client);
        assert_eq!(parts, vec!["units".to_string()]);
        assert_eq!(ids, vec![Entry::Unit(other.state().units[0].id)]);
        let report = DesyncReport {
            header: ReplayHeader {
                config,
                writer: "test".into(),
            },
            turn: 0,
            diverged: vec![1],
            peer_hashes: vec![PeerHash {
                player: 1,
                name: "b".into(),
                hash: Some(client.hash),
            }],
            records: vec![],
            server: server.clone(),
            server_tick_hashes: vec![world.tick_hash()],
            client: Some(ClientSide {
                player: 1,
                name: "b".into(),
                view: client,
                tick_hashes: vec![other.tick_hash()],
                start: Some(world.snapshot()),
                at_tick: Some(other.snapshot()),
                notes: vec![],
            }),
        };
        let bytes = encode_report(&report).unwrap();
        let back = read_report(&bytes).unwrap();
        assert_eq!(back.server.hash, world.hash());
        assert_eq!(back.server_tick_hashes, vec![world.tick_hash()]);
        let side = back.client.as_ref().unwrap();
        assert_eq!(side.tick_hashes, vec![other.tick_hash()]);
        assert!(side.start.is_some() && side.at_tick.is_some());
        let snap = back.client.unwrap().view.snapshot;
        let again = World::from_snapshot(rules, snap).unwrap();
        assert_eq!(again.hash(), other.hash());
        assert!(matches!(
            read_report(&bytes[..bytes.len() - 1]),
            Err(ReportError::Damaged)
        ));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            read_report(&longer),
            Err(ReportError::Trailing(1, end)) if end == bytes.len()
        ));
        assert!(matches!(
            read_report(b"COHORTRP"),
            Err(ReportError::NotAReport)
        ));
    }
}
