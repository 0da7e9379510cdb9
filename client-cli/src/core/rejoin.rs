//! Snapshots both ways: the server's snapshot a rejoining client (or a late spectator) loads
//! before it plays on, and this client's evidence of a failing turn sent back after a desync
//! (its state as it stood, or as kept at its first disagreement, and the recall's runs again).

use super::turns::nudge_after;
use super::{ClientCore, Event, Phase, Recall, RunAgain};
use cohort_protocol::codec::{decode_snapshot, encode_evidence};
use cohort_protocol::limits::{MAX_SNAPSHOT_BYTES, SNAPSHOT_CHUNK_BYTES};
use cohort_protocol::message::SnapshotChunk;
use cohort_protocol::ClientMessage;
use cohort_sim::hash::TickHash;
use cohort_sim::world::Snapshot;
use cohort_sim::World;

/// What a client keeps at its first hash disagreement, for the server's request of that turn.
#[derive(Clone, Debug)]
pub(super) struct Disagreed {
    pub(super) turn: u64,
    /// Its state after `turn`, as it held it.
    pub(super) end: Snapshot,
    /// Its recall as it stood (the turn is its last).
    pub(super) recall: Recall,
}

impl ClientCore {
    pub(super) fn on_snapshot_chunk(&mut self, chunk: SnapshotChunk) {
        if self.phase != Phase::Loading {
            return;
        }
        if chunk.count == 0
            || chunk.index >= chunk.count
            || chunk.count as usize > MAX_SNAPSHOT_BYTES / SNAPSHOT_CHUNK_BYTES + 1
            || self.snapshot_turn.is_some_and(|t| t != chunk.turn)
        {
            return self.fail(format!(
                "a bad snapshot piece: {} of {} for turn {}",
                chunk.index, chunk.count, chunk.turn
            ));
        }
        self.snapshot_turn = Some(chunk.turn);
        self.snapshot_pieces.insert(chunk.index, chunk.bytes);
        if self.snapshot_pieces.len() < chunk.count as usize {
            return;
        }
        let bytes: Vec<u8> = std::mem::take(&mut self.snapshot_pieces)
            .into_values()
            .flatten()
            .collect();
        let turn = chunk.turn;
        if self.options.simulate {
            let world = decode_snapshot(&bytes)
                .map_err(|e| e.to_string())
                .and_then(|s| {
                    World::from_snapshot(self.rules.clone(), s).map_err(|e| e.to_string())
                });
            match world {
                Ok(w) => {
                    let h = w.hash();
                    self.my_hashes.insert(turn, h);
                    self.unchecked_snapshot = Some((turn, h));
                    self.recall.checkpoint_at(turn + 1, &w);
                    self.world = Some(w);
                }
                Err(e) => return self.fail(format!("the server's snapshot cannot be loaded: {e}")),
            }
        }
        self.events.push_back(Event::SnapshotLoaded { turn });
        self.next_turn = turn + 1;
        self.phase = Phase::Playing;
        for b in std::mem::take(&mut self.waiting_bundles) {
            self.on_bundle(b);
        }
    }

    /// Answers the server's request for this client's evidence of `turn` (after a desync),
    /// `server_ticks` the server's tick hashes of it: from the current state and recall if they
    /// are still that turn's, else from those kept at the first disagreement if it is that
    /// turn's, else `SnapshotUnavailable`.
    pub(super) fn send_evidence(&mut self, turn: u64, server_ticks: &[TickHash]) {
        let current = self.next_turn.checked_sub(1);
        let held = match (&self.world, &self.disagreed) {
            (None, _) => Err("this client runs no sim".to_string()),
            (Some(world), _) if current == Some(turn) => Ok((world.snapshot(), &self.recall)),
            (Some(_), Some(d)) if d.turn == turn => Ok((d.end.clone(), &d.recall)),
            (Some(_), kept) => Err(format!(
                "this client's state after turn {turn} is gone: it is after turn {}, and kept {}",
                current.map_or("none".into(), |t| t.to_string()),
                kept.as_ref()
                    .map_or("no other".into(), |d| format!("turn {}'s", d.turn)),
            )),
        };
        let turn_ticks = self.config.as_ref().map_or(1, |c| c.turn_ticks);
        let nudge = nudge_after(self.options.perturbed_tick(turn_ticks));
        let my_hashes = &self.my_hashes;
        let encoded = held.and_then(|(end, recall)| {
            let again = RunAgain {
                rules: self.rules.clone(),
                turn_ticks,
                after_tick: &nudge,
                my_hash: &|t| my_hashes.get(&t).copied(),
            };
            let evidence = recall.evidence(turn, end, server_ticks, &again);
            encode_evidence(&evidence).map_err(|e| e.to_string())
        });
        let bytes = match encoded {
            Ok(b) => b,
            // The reasons above are short: well inside `MAX_CHAT_BYTES`.
            Err(reason) => return self.send(ClientMessage::SnapshotUnavailable { turn, reason }),
        };
        let pieces: Vec<&[u8]> = bytes.chunks(SNAPSHOT_CHUNK_BYTES).collect();
        let count = pieces.len() as u32;
        let messages: Vec<ClientMessage> = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| {
                ClientMessage::Snapshot(SnapshotChunk {
                    turn,
                    index: i as u32,
                    count,
                    bytes: p.to_vec(),
                })
            })
            .collect();
        for m in messages {
            self.send(m);
        }
    }
}
