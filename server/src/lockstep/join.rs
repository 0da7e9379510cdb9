//! Who is in a match: joining (in the lobby, or mid-match with a snapshot), leaving, being
//! dropped. Every change of who plays is a membership event in the next bundle.

use super::{Action, Match, Peer, PeerId, Phase};
use cohort_protocol::codec::encode_snapshot;
use cohort_protocol::limits::{MAX_NAME_BYTES, MAX_SPECTATORS, SNAPSHOT_CHUNK_BYTES};
use cohort_protocol::message::{
    ErrorCode, Hello, JoinAccepted, Membership, MembershipEvent, Role, ServerMessage, SnapshotChunk,
};
use cohort_protocol::replay::ReplayHeader;
use cohort_sim::world::{PlayerStatus, Snapshot};
use cohort_sim::PlayerId;
use std::time::Instant;

impl Match {
    pub(super) fn join(&mut self, peer: PeerId, role: Role, hello: Hello, now: Instant) {
        if self.peers.contains_key(&peer) {
            self.refuse_and_close(peer, ErrorCode::Unexpected, "this connection has joined");
            return;
        }
        if hello.ruleset_hash != self.settings.config.ruleset_hash {
            self.refuse_and_close(
                peer,
                ErrorCode::RulesetMismatch,
                format!(
                    "this match plays by ruleset {}; the client has {}",
                    hex::encode(self.settings.config.ruleset_hash),
                    hex::encode(hello.ruleset_hash)
                ),
            );
            return;
        }
        if hello.client_name.len() > MAX_NAME_BYTES {
            self.refuse_and_close(
                peer,
                ErrorCode::OverLimit,
                format!("client names are at most {MAX_NAME_BYTES} bytes"),
            );
            return;
        }
        if self.phase == super::Phase::Stopping {
            self.refuse_and_close(peer, ErrorCode::MatchOver, "the match is stopping");
            return;
        }
        match role {
            Role::Player(p) => {
                let Some(slot) = self.slots.get(usize::from(p)) else {
                    self.refuse_and_close(
                        peer,
                        ErrorCode::SlotTaken,
                        format!("the match has no slot {p}"),
                    );
                    return;
                };
                if matches!(slot.status, PlayerStatus::Left | PlayerStatus::Resigned) {
                    self.refuse_and_close(
                        peer,
                        ErrorCode::SlotTaken,
                        format!("player {p} left the match and cannot come back"),
                    );
                    return;
                }
                if let Some(old) = slot.peer {
                    self.take_over(old, peer, p, now);
                }
            }
            Role::Spectator => {
                let watching = self
                    .peers
                    .values()
                    .filter(|p| p.role == Role::Spectator)
                    .count()
                    + self.watchers.len();
                if watching >= MAX_SPECTATORS {
                    self.refuse_and_close(
                        peer,
                        ErrorCode::MatchFull,
                        format!("the match has {MAX_SPECTATORS} spectators already"),
                    );
                    return;
                }
            }
        }
        // Mid-match, the joiner starts from the state the server's sim is at (a spectator of a
        // delayed match: the delayed world's), and is sent at once the closed (released) turns
        // that sim has not run yet: it never waits for the sim (`sim_job`).
        let running = self.phase != Phase::Lobby;
        let (next_turn, input_delay, unrun) = match (&self.delayed, role) {
            (Some(d), Role::Spectator) => {
                (d.run_to(), d.input_delay, d.unrun.iter().cloned().collect())
            }
            _ => (
                self.turns_run,
                self.delay_run,
                self.unrun.iter().cloned().collect::<Vec<_>>(),
            ),
        };
        // A snapshot is the state after a turn: before turn 0 has closed (been released) there
        // is none to send, and the joiner starts from the configuration's world like everyone
        // did.
        let snapshot_follows = running && next_turn > 0;
        let accepted = JoinAccepted {
            config: self.settings.config.clone(),
            role,
            next_turn,
            input_delay,
            snapshot_follows,
            spectator_delay_secs: self.settings.spectator_delay_secs,
        };
        self.send(peer, ServerMessage::JoinAccepted(accepted));
        if snapshot_follows {
            // Events wait for the worlds while a sim job has them: they are home here.
            let snapshot = match (&self.delayed, role) {
                (Some(d), Role::Spectator) => d.world.as_ref().map(|w| w.snapshot()),
                _ => self.world.as_ref().map(|w| w.snapshot()),
            };
            match snapshot {
                Some(s) => self.send_snapshot(peer, &s, next_turn - 1),
                None => {
                    tracing::error!(match_id = %self.id(), peer, "a join handled without its world");
                    self.refuse_and_close(peer, ErrorCode::Internal, "the server is busy");
                    return;
                }
            }
        }
        for bundle in unrun {
            self.send(peer, ServerMessage::TurnBundle(bundle));
        }
        self.peers.insert(
            peer,
            Peer::new(role, hello.client_name.clone(), next_turn, now),
        );
        self.stats.peak_peers = self.stats.peak_peers.max(self.peers.len());
        self.empty_since = None;
        tracing::info!(match_id = %self.id(), peer, ?role, name = %hello.client_name, turn = self.next_turn, "joined");
        if let Role::Player(p) = role {
            let slot = &mut self.slots[usize::from(p)];
            slot.peer = Some(peer);
            slot.joined_once = true;
            if running && slot.status != PlayerStatus::Playing {
                slot.status = PlayerStatus::Playing;
                self.stats.rejoins += 1;
                self.events.push(MembershipEvent {
                    player: p,
                    change: Membership::Joined,
                });
            }
            if self.phase == Phase::Lobby && self.slots.iter().all(|s| s.joined_once) {
                self.start(now);
            }
            self.go_on_if_back(now, false);
        }
    }

    /// Cohort's rule, the token is the seat: a join with a valid token for a slot whose
    /// connection is still open (a game restarted before the server saw it crash) replaces that
    /// connection at once. The old one is told [`ErrorCode::Replaced`] and closed; the slot
    /// stays as it is — no membership event, so the sim and the replay never see the change —
    /// and the new connection joins as any rejoin does, with a snapshot.
    fn take_over(&mut self, old: PeerId, new: PeerId, player: PlayerId, now: Instant) {
        tracing::info!(match_id = %self.id(), old, new, player, turn = self.next_turn, "seat taken over");
        self.send(
            old,
            ServerMessage::error(
                ErrorCode::Replaced,
                format!(
                    "a new connection joined with slot {player}'s token and took the seat over"
                ),
            ),
        );
        self.actions.push_back(Action::Close { peer: old });
        self.peers.remove(&old);
        self.slots[usize::from(player)].peer = None;
        self.desync.peer_gone(old, now);
        self.stats.taken_over += 1;
    }

    /// Every slot has joined: turn 0 opens, its bundle says every player joined.
    fn start(&mut self, now: Instant) {
        self.phase = Phase::Running;
        self.epoch = now;
        self.epoch_turn = 0;
        self.events = (0..self.slots.len() as u8)
            .map(|player| MembershipEvent {
                player,
                change: Membership::Joined,
            })
            .collect();
        tracing::info!(match_id = %self.id(), players = self.slots.len(), "match started");
        self.actions.push_back(Action::ReplayStart(ReplayHeader {
            config: self.settings.config.clone(),
            writer: self.settings.writer.clone(),
        }));
        if self.settings.snapshot_every.is_some() {
            self.actions.push_back(Action::SaveState {
                turns_run: 0,
                world: None,
            });
        }
    }

    /// Sends `snapshot`, the state after `turn`, in chunks.
    fn send_snapshot(&mut self, peer: PeerId, snapshot: &Snapshot, turn: u64) {
        let bytes = match encode_snapshot(snapshot) {
            Ok(b) => b,
            Err(e) => {
                tracing::error!(match_id = %self.id(), peer, error = %e, "could not encode a snapshot");
                self.refuse_and_close(peer, ErrorCode::Internal, "could not encode the state");
                return;
            }
        };
        let count = bytes.len().div_ceil(SNAPSHOT_CHUNK_BYTES).max(1) as u32;
        for (index, piece) in bytes.chunks(SNAPSHOT_CHUNK_BYTES).enumerate() {
            self.send(
                peer,
                ServerMessage::Snapshot(SnapshotChunk {
                    turn,
                    index: index as u32,
                    count,
                    bytes: piece.to_vec(),
                }),
            );
        }
    }

    pub(super) fn leave(&mut self, peer: PeerId, resign: bool, _now: Instant) {
        let change = if resign {
            Membership::Resigned
        } else {
            Membership::Left
        };
        self.actions.push_back(Action::Close { peer });
        self.remove_peer(peer, change);
        self.check_players_left();
    }

    pub(super) fn disconnected(&mut self, peer: PeerId, now: Instant) {
        if self.peers.contains_key(&peer) {
            self.remove_peer(peer, Membership::Dropped);
        }
        self.desync.peer_gone(peer, now);
        if self.phase == Phase::Running
            && self.empty_since.is_none()
            && self.resume_wait.is_none()
            && self.slots.iter().all(|s| s.peer.is_none())
        {
            self.empty_since = Some(now);
        }
        self.check_players_left();
    }

    /// Forgets a peer; a playing player's slot gets `change` in the next bundle.
    pub(super) fn remove_peer(&mut self, peer: PeerId, change: Membership) {
        let Some(p) = self.peers.remove(&peer) else {
            return;
        };
        let Role::Player(player) = p.role else {
            return;
        };
        tracing::info!(match_id = %self.id(), peer, player, ?change, turn = self.next_turn, "player gone");
        let slot = &mut self.slots[usize::from(player)];
        slot.peer = None;
        if self.phase == Phase::Lobby {
            // Nobody has played yet: the slot simply waits again.
            slot.joined_once = false;
            return;
        }
        if slot.status == PlayerStatus::Playing {
            slot.status = cohort_protocol::setup::status_after(change);
            self.events.push(MembershipEvent { player, change });
            if change == Membership::Dropped {
                self.stats.dropped += 1;
            }
        }
    }

    /// Ends a running match when every player has left or resigned.
    fn check_players_left(&mut self) {
        if self.phase == Phase::Running
            && self
                .slots
                .iter()
                .all(|s| matches!(s.status, PlayerStatus::Left | PlayerStatus::Resigned))
        {
            // Their leaving is played and recorded in one last turn.
            self.close_turn();
            self.end(cohort_protocol::message::EndReason::NoPlayers);
        }
    }
}
