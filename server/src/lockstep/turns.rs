//! Turns: scheduling commands, closing a turn on time, running it in the server's sim,
//! comparing hashes, and lag.

use super::{Action, Match, PeerId};
use cohort_protocol::codec::encode_message;
use cohort_protocol::limits::{
    LAG_DROP_TURNS, LAG_WARN_TURNS, MAX_COMMANDS_PER_MESSAGE, MAX_COMMANDS_PER_TURN,
    MAX_COMMAND_BYTES, MAX_COMMAND_BYTES_PER_TURN, MAX_TURNS_AHEAD,
};
use cohort_protocol::message::{
    Commands, EndReason, ErrorCode, Membership, Rescheduled, Role, ServerMessage, TurnBundle,
};
use cohort_sim::{Command, PlayerCommand, StateHash};
use std::time::Instant;

/// Turns between the server's checkpoints of its state.
pub const CHECKPOINT_TURNS: u64 = 16;

/// Checkpoints kept; with [`CHECKPOINT_TURNS`] they span more than `LAG_DROP_TURNS`.
pub const CHECKPOINTS_KEPT: usize = 8;

/// One player's commands waiting for one turn.
#[derive(Clone, Debug, Default)]
pub(super) struct Queued {
    pub commands: Vec<Command>,
    pub bytes: usize,
}

impl Match {
    pub(super) fn commands(&mut self, peer: PeerId, msg: Commands, now: Instant) {
        let Some(player) = self.peers[&peer].player() else {
            self.refuse(
                peer,
                ErrorCode::NotAPlayer,
                "spectators cannot give commands",
            );
            return;
        };
        if msg.commands.len() > MAX_COMMANDS_PER_MESSAGE {
            self.refuse(
                peer,
                ErrorCode::OverLimit,
                format!("at most {MAX_COMMANDS_PER_MESSAGE} commands per message"),
            );
            return;
        }
        if msg.turn > self.next_turn + MAX_TURNS_AHEAD {
            self.refuse(
                peer,
                ErrorCode::TooFarAhead,
                format!(
                    "turn {} is more than {MAX_TURNS_AHEAD} turns after the open turn {}",
                    msg.turn, self.next_turn
                ),
            );
            return;
        }
        let mut sizes = Vec::with_capacity(msg.commands.len());
        for c in &msg.commands {
            let size = encode_message(c).map(|b| b.len()).unwrap_or(usize::MAX);
            if size > MAX_COMMAND_BYTES {
                self.refuse(
                    peer,
                    ErrorCode::OverLimit,
                    format!("a command is at most {MAX_COMMAND_BYTES} bytes encoded"),
                );
                return;
            }
            sizes.push(size);
        }
        let count = msg.commands.len() as u32;
        if !self
            .peers
            .get_mut(&peer)
            .expect("checked")
            .commands
            .take(count, now)
        {
            self.over_rate(
                peer,
                "more commands than the rate limit allows; these were refused",
            );
            return;
        }
        let asked = msg.turn;
        let mut turn = asked.max(self.next_turn);
        let mut moved: Vec<(u64, u32)> = Vec::new();
        let players = self.slots.len();
        for (command, size) in msg.commands.into_iter().zip(sizes) {
            loop {
                let q = &mut self
                    .pending
                    .entry(turn)
                    .or_insert_with(|| vec![Queued::default(); players])[usize::from(player)];
                if q.commands.len() < MAX_COMMANDS_PER_TURN
                    && q.bytes + size <= MAX_COMMAND_BYTES_PER_TURN
                {
                    q.commands.push(command);
                    q.bytes += size;
                    break;
                }
                turn += 1;
            }
            self.stats.commands_scheduled += 1;
            if turn != asked {
                self.stats.commands_rescheduled += 1;
                match moved.last_mut() {
                    Some((t, n)) if *t == turn => *n += 1,
                    _ => moved.push((turn, 1)),
                }
            }
        }
        for (turn, count) in moved {
            tracing::debug!(match_id = %self.id(), player, asked, turn, count, "commands rescheduled");
            self.send(
                peer,
                ServerMessage::Rescheduled(Rescheduled { asked, turn, count }),
            );
        }
    }

    /// A peer's hash after `turn` (or a bare acknowledgement of the turn's bundle).
    pub(super) fn turn_hash(
        &mut self,
        peer: PeerId,
        turn: u64,
        hash: Option<cohort_sim::StateHash>,
    ) {
        if turn >= self.sent_to(peer) {
            self.refuse_and_close(
                peer,
                ErrorCode::Unexpected,
                format!("turn {turn} has not been sent yet"),
            );
            return;
        }
        let p = self.peers.get_mut(&peer).expect("joined");
        p.acked = p.acked.max(turn + 1);
        if p.acked + LAG_WARN_TURNS > self.next_turn {
            p.warned = false;
        }
        let Some(hash) = hash else {
            return;
        };
        p.hashed(turn, hash);
        match self.hashes.get(turn as usize) {
            Some(&server) => self.compare(peer, turn, hash, server),
            None => self
                .early_hashes
                .entry(turn)
                .or_default()
                .push((peer, hash)),
        }
    }

    /// Closes the open turn: its bundle goes to everyone; the server's sim runs it in a job
    /// (`sim_job`), whenever that comes.
    pub(super) fn close_turn(&mut self) {
        let turn = self.next_turn;
        let worst_rtt = self
            .peers
            .values()
            .filter(|p| p.player().is_some())
            .filter_map(|p| p.planning_rtt_ms())
            .max();
        let input_delay = self
            .delay
            .on_turn(worst_rtt, self.settings.config.turn_ms());
        let queued = self.pending.remove(&turn).unwrap_or_default();
        let commands: Vec<PlayerCommand> = queued
            .into_iter()
            .enumerate()
            .flat_map(|(player, q)| {
                q.commands.into_iter().map(move |command| PlayerCommand {
                    player: player as u8,
                    command,
                })
            })
            .collect();
        let bundle = TurnBundle {
            turn,
            input_delay,
            events: std::mem::take(&mut self.events),
            commands,
            previous_hash: turn.checked_sub(1).and_then(|t| self.hash_after(t)),
        };
        if let Some(d) = input_delay {
            tracing::info!(match_id = %self.id(), turn, input_delay = d, "input delay changed");
        }
        let due = self.deadline(turn);
        self.broadcast_due(ServerMessage::TurnBundle(bundle.clone()), Some(due));
        self.unrun.push_back(bundle);
        self.next_turn += 1;
        self.stats.turns_closed += 1;
        self.note_sim_behind();
        self.release_spectators(self.next_turn);
        self.check_lag();
        if self
            .settings
            .max_turns
            .is_some_and(|max| self.next_turn >= max)
        {
            self.end(EndReason::TurnLimit);
        }
    }

    /// Turns before this one have been sent to `peer`: the open turn, or for a spectator of a
    /// delayed match the turns released.
    fn sent_to(&self, peer: PeerId) -> u64 {
        match (&self.delayed, self.peers.get(&peer).map(|p| p.role)) {
            (Some(d), Some(Role::Spectator)) => d.released,
            _ => self.next_turn,
        }
    }

    pub(super) fn compare(&mut self, peer: PeerId, turn: u64, theirs: StateHash, ours: StateHash) {
        self.stats.hashes_compared += 1;
        if theirs != ours {
            self.desync_found(peer, turn, theirs, ours);
        }
    }

    /// Warns peers that lag `LAG_WARN_TURNS` behind and drops those `LAG_DROP_TURNS` behind.
    fn check_lag(&mut self) {
        let next = self.next_turn;
        let mut drop = Vec::new();
        let mut warn = Vec::new();
        let released = self.delayed.as_ref().map(|d| d.released);
        for (&id, p) in &mut self.peers {
            // A delayed spectator is behind by what it has not been sent yet, not by the delay.
            let sent = match (p.role, released) {
                (Role::Spectator, Some(r)) => r,
                _ => next,
            };
            let lag = sent.saturating_sub(p.acked);
            if lag >= LAG_DROP_TURNS {
                drop.push((id, lag));
            } else if lag >= LAG_WARN_TURNS && !p.warned {
                p.warned = true;
                warn.push((id, lag));
            }
        }
        for (peer, lag) in warn {
            tracing::warn!(match_id = %self.id(), peer, turn = next, lag, "client lagging");
            self.send(
                peer,
                ServerMessage::error(
                    ErrorCode::Lagging,
                    format!("{lag} turns behind; at {LAG_DROP_TURNS} you are dropped"),
                ),
            );
        }
        for (peer, lag) in drop {
            let role = self.peers[&peer].role;
            tracing::warn!(match_id = %self.id(), peer, ?role, turn = next, lag, "client dropped for lag");
            self.send(
                peer,
                ServerMessage::error(
                    ErrorCode::DroppedForLag,
                    format!("{lag} turns behind; dropped"),
                ),
            );
            self.actions.push_back(Action::Close { peer });
            if role == Role::Spectator {
                self.peers.remove(&peer);
            } else {
                self.remove_peer(peer, Membership::Dropped);
            }
        }
    }
}
