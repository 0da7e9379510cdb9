//! Desyncs: a client's hash differs from the server's. Everyone is told; the diverging client
//! is sent the server's tick hashes of the failing turn and asked for its evidence of it (its
//! tick hashes, its states at the turn's start, after its first tick that differs and after
//! the turn); a report is written (docs/FILES.md) with the replay so far, every peer's hash at
//! the failing turn, both sides' tick hashes and states, made in a job apart from the match
//! (`report_job`); the match goes on or stops as configured.

use super::{Match, OnDesync, PeerId, Phase};
use cohort_protocol::limits::{MAX_CHAT_BYTES, MAX_SNAPSHOT_BYTES, SNAPSHOT_CHUNK_BYTES};
use cohort_protocol::message::{
    DesyncNotice, EndReason, ErrorCode, Role, ServerMessage, SnapshotChunk,
};
use cohort_sim::{PlayerId, StateHash};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// How long the server waits for a diverging client's snapshot before writing the report
/// without it, in milliseconds.
pub const SNAPSHOT_WAIT_MS: u64 = 10_000;

/// The most desync reports one match writes.
pub const MAX_REPORTS_PER_MATCH: u32 = 4;

/// A report waiting for the diverging client's snapshot.
#[derive(Debug)]
pub(super) struct PendingReport {
    turn: u64,
    diverged: Vec<PlayerId>,
    from: PeerId,
    deadline: Instant,
    chunks: Vec<Option<Vec<u8>>>,
}

#[derive(Debug, Default)]
pub(super) struct DesyncState {
    /// Players known to have diverged (told once).
    diverged: BTreeSet<PlayerId>,
    pending: Option<PendingReport>,
    pub reports: u32,
}

impl DesyncState {
    pub fn deadline(&self) -> Option<Instant> {
        self.pending.as_ref().map(|p| p.deadline)
    }

    /// A diverging client went away at `now`: its snapshot will not come.
    pub fn peer_gone(&mut self, peer: PeerId, now: Instant) {
        if let Some(p) = &mut self.pending {
            if p.from == peer {
                p.deadline = now.min(p.deadline);
            }
        }
    }
}

impl Match {
    pub(super) fn desync_found(
        &mut self,
        peer: PeerId,
        turn: u64,
        theirs: StateHash,
        ours: StateHash,
    ) {
        self.stats.desyncs += 1;
        let role = self.peers[&peer].role;
        tracing::error!(match_id = %self.id(), peer, ?role, turn, server = %ours, client = %theirs, "desync");
        let Role::Player(player) = role else {
            // A spectator's view is its own business: tell it, play on.
            self.send(
                peer,
                ServerMessage::DesyncNotice(DesyncNotice {
                    turn,
                    players: vec![],
                    server_hash: ours,
                    continuing: true,
                }),
            );
            return;
        };
        if !self.desync.diverged.insert(player) {
            return;
        }
        let stop = self.settings.on_desync == OnDesync::Stop;
        self.broadcast(ServerMessage::DesyncNotice(DesyncNotice {
            turn,
            players: vec![player],
            server_hash: ours,
            continuing: !stop,
        }));
        match &mut self.desync.pending {
            Some(p) if p.turn == turn => p.diverged.push(player),
            Some(_) => {}
            None if self.desync.reports < MAX_REPORTS_PER_MATCH => {
                let now = self.now;
                self.desync.pending = Some(PendingReport {
                    turn,
                    diverged: vec![player],
                    from: peer,
                    deadline: now + Duration::from_millis(SNAPSHOT_WAIT_MS),
                    chunks: Vec::new(),
                });
                let tick_hashes = self.tick_hashes_of(turn).unwrap_or_default().to_vec();
                self.send(peer, ServerMessage::SnapshotRequest { turn, tick_hashes });
            }
            None => {}
        }
        if stop && self.phase == Phase::Running {
            self.phase = Phase::Stopping;
            if self.desync.pending.is_none() {
                self.end(EndReason::Desync);
            }
        }
    }

    /// A piece of a diverging client's snapshot.
    pub(super) fn snapshot_chunk(&mut self, peer: PeerId, chunk: SnapshotChunk) {
        let Some(p) = self.desync.pending.as_mut().filter(|p| p.from == peer) else {
            self.refuse(
                peer,
                ErrorCode::BadSnapshot,
                "no snapshot was asked of this client",
            );
            return;
        };
        if chunk.turn != p.turn {
            let text = format!(
                "the snapshot asked for is the one after turn {}, not {}",
                p.turn, chunk.turn
            );
            self.refuse(peer, ErrorCode::BadSnapshot, &text);
            return self.give_up_on_snapshot();
        }
        let most = MAX_SNAPSHOT_BYTES.div_ceil(SNAPSHOT_CHUNK_BYTES) as u32;
        if chunk.count == 0
            || chunk.count > most
            || chunk.index >= chunk.count
            || chunk.bytes.len() > SNAPSHOT_CHUNK_BYTES
            || (!p.chunks.is_empty() && p.chunks.len() != chunk.count as usize)
        {
            self.refuse(
                peer,
                ErrorCode::BadSnapshot,
                "snapshot pieces do not fit together",
            );
            return;
        }
        if p.chunks.is_empty() {
            p.chunks = vec![None; chunk.count as usize];
        }
        p.chunks[chunk.index as usize] = Some(chunk.bytes);
        if p.chunks.iter().all(Option::is_some) {
            let p = self.desync.pending.take().expect("pending");
            let bytes: Vec<u8> = p.chunks.iter().flatten().flatten().copied().collect();
            self.write_report(p.turn, p.diverged, Some((peer, bytes)));
        }
    }

    /// The diverging client says it cannot send its state after `turn`: the report goes
    /// without it, and the reason is logged.
    pub(super) fn snapshot_unavailable(&mut self, peer: PeerId, turn: u64, mut reason: String) {
        if !self
            .desync
            .pending
            .as_ref()
            .is_some_and(|p| p.from == peer && p.turn == turn)
        {
            let text = format!("no snapshot of turn {turn} was asked of this client");
            return self.refuse(peer, ErrorCode::BadSnapshot, &text);
        }
        let mut end = reason.len().min(MAX_CHAT_BYTES);
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        reason.truncate(end);
        tracing::warn!(match_id = %self.id(), peer, turn, %reason, "the diverging client cannot send its state");
        self.give_up_on_snapshot();
    }

    /// The snapshot did not come in time: the report goes without it.
    pub(super) fn give_up_on_snapshot(&mut self) {
        if let Some(p) = self.desync.pending.take() {
            tracing::warn!(match_id = %self.id(), turn = p.turn, "no snapshot from the diverging client; report without it");
            self.write_report(p.turn, p.diverged, None);
        }
    }
}
