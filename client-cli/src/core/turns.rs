//! Running turns: a bundle run in turn order through `run_bundle_ticks`, its tick hashes kept
//! in the recall, the hash sent back, and the server's hash of the turn before compared with
//! this client's (the hash agreement); the test switches' nudge.

use super::{ClientCore, ClientOptions, Disagreed, Event, Phase, TurnStatus, KEPT_HASHES};
use cohort_protocol::message::{TurnBundle, TurnHash};
use cohort_protocol::setup::run_bundle_ticks;
use cohort_protocol::ClientMessage;
use cohort_sim::{Fx, World};

impl ClientOptions {
    /// The tick after which the test switches nudge, if any: `perturb_at_tick`, else the last
    /// tick of `perturb_at_turn`.
    pub(super) fn perturbed_tick(&self, turn_ticks: u32) -> Option<u64> {
        self.perturb_at_tick.or_else(|| {
            self.perturb_at_turn
                .map(|t| (t + 1).saturating_mul(u64::from(turn_ticks)))
        })
    }
}

/// What the test switches do after a tick: the nudge, after the tick they name.
pub(super) fn nudge_after(tick: Option<u64>) -> impl Fn(&mut World) {
    move |world: &mut World| {
        if tick.is_some() && Some(world.tick()) == tick {
            if let Some(u) = world.state_mut().units.first_mut() {
                u.position.x += Fx::from_bits(1);
            }
        }
    }
}

impl ClientCore {
    pub(super) fn on_bundle(&mut self, b: TurnBundle) {
        if self.phase != Phase::Playing {
            return;
        }
        if b.turn < self.next_turn {
            return; // Already run (from a snapshot that covered it).
        }
        if b.turn > self.next_turn {
            return self.fail(format!(
                "bundle {} arrived where {} was due",
                b.turn, self.next_turn
            ));
        }
        // The server's hash of the turn before: the hash agreement.
        let mut previous_agrees = None;
        if let (Some(server), Some(prev)) = (b.previous_hash, b.turn.checked_sub(1)) {
            if let Some(mine) = self.my_hashes.get(&prev).copied() {
                let agrees = mine == server;
                previous_agrees = Some(agrees);
                if agrees {
                    self.tally.hashes_agreed += 1;
                } else {
                    self.tally.hashes_disagreed += 1;
                    // The world is still the one after `prev`: keep it, and the recall of the
                    // turns up to it, for the server's report.
                    if self.disagreed.is_none() {
                        if let Some(world) = &self.world {
                            self.disagreed = Some(Disagreed {
                                turn: prev,
                                end: world.snapshot(),
                                recall: self.recall.clone(),
                            });
                        }
                    }
                    self.events.push_back(Event::HashDisagrees {
                        turn: prev,
                        mine,
                        server,
                    });
                }
                if let Some((t, _)) = self.unchecked_snapshot.take() {
                    self.events
                        .push_back(Event::SnapshotChecked { turn: t, agrees });
                }
            }
        }
        if let Some(d) = b.input_delay {
            self.input_delay = d;
            self.events.push_back(Event::InputDelay(d));
        }
        let turn_ticks = self.config.as_ref().map_or(1, |c| c.turn_ticks);
        let mut hash = None;
        if let Some(world) = self.world.as_mut() {
            self.recall.before_turn(b.turn, world);
            let nudge = nudge_after(self.options.perturbed_tick(turn_ticks));
            let mut ticks = Vec::with_capacity(turn_ticks as usize);
            run_bundle_ticks(world, &b, turn_ticks, |w| {
                nudge(w);
                ticks.push(w.tick_hash());
            });
            self.recall.ran(&b, ticks);
            let h = world.hash();
            hash = Some(h);
            self.my_hashes.insert(b.turn, h);
            while self.my_hashes.len() > KEPT_HASHES {
                self.my_hashes.pop_first();
            }
            self.send(ClientMessage::TurnHash(TurnHash {
                turn: b.turn,
                hash: h,
            }));
        } else {
            self.send(ClientMessage::Ack { turn: b.turn });
        }
        self.next_turn = b.turn + 1;
        self.tally.turns_run += 1;
        self.events.push_back(Event::Turn(TurnStatus {
            turn: b.turn,
            hash,
            previous_agrees,
            input_delay: self.input_delay,
            rtt: self.rtt,
        }));
    }
}
