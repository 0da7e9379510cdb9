//! The spectator delay (`Settings::spectator_delay_secs`): spectators receive the match's stream
//! — every frame broadcast to the players: bundles, chat, pauses, desync notices, the end — byte
//! for byte, but each only once the turn it belongs to is [`Delayed::delay_turns`] turns old.
//! A frame broadcast while turn K is open (a bundle of K, a chat line said before K closed)
//! belongs to K and is released when turn K + `delay_turns` closes, so a spectator never holds
//! anything about the newest `delay_turns` turns. A spectator joining mid-match starts from the
//! server's *delayed world*, the state after the last turn released, which the server runs
//! itself as turns are released: one [`World`] per delayed match, on top of the match's own.
//!
//! Spectators' chat reaches the other spectators at once and never the players (Cohort's
//! choice: what a spectator says comes from a later view of the match than the players', so
//! it is no business of theirs; with no delay it reaches everyone, as before).
//!
//! When the match ends, the players are told at once and its summary goes out; spectators
//! watch on, released a turn per turn length on the match's clock, until the stream's end
//! (its `MatchEnded`) reaches them. A server shutting down cuts that short.

use super::{Action, Match, PeerId, Phase};
use cohort_protocol::message::{EndReason, MatchEnded, Role, ServerMessage, TurnBundle};
use cohort_sim::World;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

/// A delayed match's spectator side. Its memory: the held frames of the last `delay_turns`
/// turns (a bundle is tens of bytes without commands, at most `MAX_PLAYERS` ×
/// `MAX_COMMAND_BYTES_PER_TURN` with them) and the delayed world (docs/OPERATIONS.md,
/// "Spectator delay", measures both).
pub(super) struct Delayed {
    /// Turns a spectator is kept behind: the delay in seconds over the turn length, rounded
    /// up (at least 1).
    pub delay_turns: u64,
    /// Frames broadcast to the players and not yet released to spectators, oldest first, each
    /// with the turn it belongs to. At most `delay_turns` turns' bundles (bounded by
    /// [`cohort_protocol::limits::MAX_SPECTATOR_DELAY_SECS`]) and the chat lines, pauses and
    /// notices between them.
    held: VecDeque<(u64, Arc<ServerMessage>)>,
    /// Turns closed, as far as releasing goes: the match's own count while it runs, then a turn
    /// more per turn length after its end while spectators watch on.
    closed: u64,
    /// Bundles released so far: spectators have had turns `0..released`.
    pub released: u64,
    /// The input delay in force for the last bundle released (what a joining spectator is told).
    pub input_delay: u32,
    /// Released bundles the delayed world has not run yet.
    pub unrun: VecDeque<TurnBundle>,
    /// The state after turn `run_to() - 1`; none while a sim job has it (`sim_job`).
    pub world: Option<World>,
    /// The match has ended for its players; spectators are being released the rest.
    pub draining: bool,
}

impl Delayed {
    /// The spectator side of a match whose turns last `turn_ms`, kept `delay_secs` behind,
    /// starting from `world` (the match's starting world).
    pub fn new(delay_secs: u32, turn_ms: u64, input_delay: u32, world: World) -> Delayed {
        let delay_turns = (u64::from(delay_secs) * 1000)
            .div_ceil(turn_ms.max(1))
            .max(1);
        Delayed {
            delay_turns,
            held: VecDeque::new(),
            closed: 0,
            released: 0,
            input_delay,
            unrun: VecDeque::new(),
            world: Some(world),
            draining: false,
        }
    }

    /// Whether every frame has been released.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    pub fn has_unrun(&self) -> bool {
        !self.unrun.is_empty()
    }

    /// Turns the delayed world has run (when home): those released but for the unrun.
    pub fn run_to(&self) -> u64 {
        self.released - self.unrun.len() as u64
    }

    /// The frames due once `closed` turns have closed, in order; each bundle among them is
    /// counted released and queued for the delayed world.
    fn due(&mut self, closed: u64) -> Vec<Arc<ServerMessage>> {
        self.closed = self.closed.max(closed);
        let mut out = Vec::new();
        while let Some((turn, _)) = self.held.front() {
            if turn + self.delay_turns >= self.closed {
                break;
            }
            let (_, message) = self.held.pop_front().expect("front seen");
            if let ServerMessage::TurnBundle(b) = &*message {
                self.released = b.turn + 1;
                if let Some(d) = b.input_delay {
                    self.input_delay = d;
                }
                self.unrun.push_back(b.clone());
            }
            out.push(message);
        }
        out
    }
}

impl Match {
    /// Who receives the match's broadcasts now: with a delay only the players (spectators get
    /// them through [`Match::release_spectators`]); without, every peer.
    pub(super) fn live_audience(&self) -> Vec<PeerId> {
        match self.delayed {
            None => self.peer_ids(),
            Some(_) => self
                .peers
                .iter()
                .filter(|(_, p)| p.player().is_some())
                .map(|(&id, _)| id)
                .collect(),
        }
    }

    pub(super) fn spectator_ids(&self) -> Vec<PeerId> {
        self.peers
            .iter()
            .filter(|(_, p)| p.role == Role::Spectator)
            .map(|(&id, _)| id)
            .collect()
    }

    /// Holds a frame just broadcast to the players for the spectators, as belonging to the
    /// open turn.
    pub(super) fn hold_for_spectators(&mut self, message: &Arc<ServerMessage>) {
        let turn = self.next_turn;
        if let Some(d) = &mut self.delayed {
            d.held.push_back((turn, message.clone()));
        }
    }

    /// Sends the spectators every held frame whose turn is old enough, now that `closed` turns
    /// have closed.
    pub(super) fn release_spectators(&mut self, closed: u64) {
        let Some(d) = &mut self.delayed else {
            return;
        };
        let due = d.due(closed);
        if due.is_empty() {
            return;
        }
        let to = self.spectator_ids();
        if to.is_empty() {
            return;
        }
        for message in due {
            self.actions.push_back(Action::Broadcast {
                to: to.clone(),
                message,
                due: None,
            });
        }
    }

    /// The match ended for its players (`end`): spectators of a delayed match watch on to the
    /// end of their stream, unless the server is shutting down or nobody watches. Returns the
    /// spectators and watchers to close now.
    pub(super) fn spectators_after_end(&mut self, reason: EndReason) -> Vec<PeerId> {
        let watching = !self.spectator_ids().is_empty() || !self.watchers.is_empty();
        match &mut self.delayed {
            Some(d) if reason != EndReason::ServerShutdown && watching && !d.is_empty() => {
                d.draining = true;
                Vec::new()
            }
            Some(d) => {
                let last_turn = d.released.saturating_sub(1);
                d.held.clear();
                d.draining = false;
                let spectators = self.spectator_ids();
                if !spectators.is_empty() {
                    self.actions.push_back(Action::Broadcast {
                        to: spectators.clone(),
                        message: Arc::new(ServerMessage::MatchEnded(MatchEnded {
                            last_turn,
                            reason,
                        })),
                        due: None,
                    });
                }
                self.close_watchers(&format!("the match ended ({reason:?})"));
                spectators
            }
            None => {
                self.close_watchers(&format!("the match ended ({reason:?})"));
                self.spectator_ids()
            }
        }
    }

    /// Frames held back for the spectators (none without a delay): bounded by the delay's
    /// turns, a bundle each and what was said or paused between them.
    pub fn spectators_held(&self) -> usize {
        self.delayed.as_ref().map_or(0, |d| d.held.len())
    }

    /// Whether the match has ended for its players and spectators are still being released
    /// their stream: the driver keeps running it ([`Match::poll_timeout`] says when).
    pub fn draining(&self) -> bool {
        self.delayed.as_ref().is_some_and(|d| d.draining)
    }

    /// When the next turn is released to spectators after the end.
    pub(super) fn drain_deadline(&self) -> Option<Instant> {
        let d = self.delayed.as_ref().filter(|d| d.draining)?;
        Some(self.deadline(d.closed))
    }

    /// After the end: releases a turn per turn length; once the stream's end is out, closes
    /// the spectators. A shutdown, or the last spectator gone, cuts it short.
    pub(super) fn drain(&mut self, now: Instant) {
        while let Some(at) = self.drain_deadline() {
            if now < at {
                break;
            }
            let closed = self.delayed.as_ref().map_or(0, |d| d.closed + 1);
            self.release_spectators(closed);
            let done = self.delayed.as_ref().is_none_or(|d| d.is_empty());
            if done {
                self.stop_draining();
            }
        }
    }

    /// Closes every spectator and watcher left after the end.
    pub(super) fn stop_draining(&mut self) {
        if let Some(d) = &mut self.delayed {
            d.draining = false;
        }
        for peer in self.spectator_ids() {
            self.actions.push_back(Action::Close { peer });
            self.peers.remove(&peer);
        }
        self.close_watchers("the match ended");
    }

    /// A message or a goodbye from a spectator while it watches on after the end.
    pub(super) fn after_end(&mut self, peer: PeerId, gone: bool) {
        if gone {
            self.peers.remove(&peer);
            self.watchers.remove(&peer);
        }
        if self.draining() && self.spectator_ids().is_empty() && self.watchers.is_empty() {
            self.stop_draining();
        }
        debug_assert!(self.phase == Phase::Ended);
    }
}
