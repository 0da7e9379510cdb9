//! What a simulating client remembers of its recent turns, to answer a desync with evidence
//! (docs/PROTOCOL.md, "Hashes"): the tick hashes of each of its last
//! [`TICK_HASH_TURNS`] turns, as it ran them; a checkpoint of its state at the start of a turn,
//! taken every [`CHECKPOINT_TURNS`] turns, and the bundles run since, from which it runs any
//! recent turn again through its own sim.
//!
//! It costs little while nothing is wrong: one tick hash a tick (BENCHMARKS.md, "Tick
//! hashes"), one copy of the state every [`CHECKPOINT_TURNS`] turns, and the bundles.

use cohort_protocol::limits::TICK_HASH_TURNS;
use cohort_protocol::message::TurnBundle;
use cohort_protocol::report::Evidence;
use cohort_protocol::setup::run_bundle_ticks;
use cohort_sim::hash::TickHash;
use cohort_sim::world::Snapshot;
use cohort_sim::{Ruleset, StateHash, World};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A client takes a checkpoint of its state at the start of every turn that is a multiple of
/// this (Cohort's choice: at most this many turns to run again to answer a desync).
pub const CHECKPOINT_TURNS: u64 = 32;

/// The turns a client remembers. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Recall {
    /// Each recent turn's tick hashes, as run live.
    tick_hashes: BTreeMap<u64, Vec<TickHash>>,
    /// The state at the start of a turn (that turn, its snapshot).
    checkpoint: Option<(u64, Snapshot)>,
    /// The bundles run since the checkpoint, in turn order.
    bundles: Vec<TurnBundle>,
}

/// How a client runs its turns again: under its ruleset and turn length, its test switches
/// acting after each tick as they did live, each turn checked against the hash it had.
pub struct RunAgain<'a> {
    pub rules: Arc<Ruleset>,
    pub turn_ticks: u32,
    pub after_tick: &'a dyn Fn(&mut World),
    /// The hash this client had after a turn, if it still knows it.
    pub my_hash: &'a dyn Fn(u64) -> Option<StateHash>,
}

impl Recall {
    /// Called before running the bundle of `turn` on `world`: takes a checkpoint when one is
    /// due (or none was ever taken).
    pub fn before_turn(&mut self, turn: u64, world: &World) {
        if self.checkpoint.is_none() || turn.is_multiple_of(CHECKPOINT_TURNS) {
            self.checkpoint_at(turn, world);
        }
    }

    /// A checkpoint of `world`, the state at the start of `turn` (a loaded snapshot's turn + 1).
    pub fn checkpoint_at(&mut self, turn: u64, world: &World) {
        self.checkpoint = Some((turn, world.snapshot()));
        self.bundles.clear();
    }

    /// The bundle just run, and its tick hashes.
    pub fn ran(&mut self, bundle: &TurnBundle, tick_hashes: Vec<TickHash>) {
        self.tick_hashes.insert(bundle.turn, tick_hashes);
        while self.tick_hashes.len() as u64 > TICK_HASH_TURNS {
            self.tick_hashes.pop_first();
        }
        self.bundles.push(bundle.clone());
    }

    /// The tick hashes of `turn`, if still held.
    pub fn tick_hashes(&self, turn: u64) -> Option<&[TickHash]> {
        self.tick_hashes.get(&turn).map(Vec::as_slice)
    }

    /// The evidence of `turn` (the last turn this recall has run): the live tick hashes and
    /// `end`, the state after the turn as held; and, run again from the checkpoint, the state at
    /// the turn's start and after its first tick whose hash differs from `server_ticks`. Every
    /// turn run again must give the hash the client had after it, and every tick of `turn` the
    /// live tick hash, or the re-run stops there with a note.
    pub fn evidence(
        &self,
        turn: u64,
        end: Snapshot,
        server_ticks: &[TickHash],
        again: &RunAgain<'_>,
    ) -> Evidence {
        let mut notes = Vec::new();
        let live = self.tick_hashes(turn).map(<[TickHash]>::to_vec);
        if live.is_none() {
            notes.push(format!("its tick hashes of turn {turn} are gone"));
        }
        let (start, at_tick) = match self.run_again(turn, again) {
            Err(note) => {
                notes.push(note);
                (None, None)
            }
            Ok((mut world, start)) => {
                let at = first_differing(live.as_deref(), server_ticks);
                let at_tick = match (at, self.bundle(turn)) {
                    (None, _) => {
                        notes.push(if server_ticks.is_empty() {
                            "the server sent no tick hashes: no tick to run to".into()
                        } else {
                            "every tick hash it had equals the server's".into()
                        });
                        None
                    }
                    (Some(i), Some(bundle)) => {
                        let live = live.as_deref().unwrap_or_default();
                        tick_again(&mut world, bundle, i, live, again)
                            .map_err(|note| notes.push(note))
                            .ok()
                    }
                    (Some(_), None) => None,
                };
                (Some(start), at_tick)
            }
        };
        Evidence {
            tick_hashes: live.unwrap_or_default(),
            start,
            at_tick,
            end,
            notes,
        }
    }

    fn bundle(&self, turn: u64) -> Option<&TurnBundle> {
        self.bundles.iter().find(|b| b.turn == turn)
    }

    /// The world at the start of `turn`, run again from the checkpoint, and its snapshot.
    fn run_again(&self, turn: u64, again: &RunAgain<'_>) -> Result<(World, Snapshot), String> {
        let Some((from, snapshot)) = &self.checkpoint else {
            return Err("it kept no checkpoint".into());
        };
        if *from > turn || self.bundle(turn).is_none() {
            return Err(format!(
                "its checkpoint is of turn {from}'s start, and turn {turn} is not among the turns since"
            ));
        }
        let mut world = World::from_snapshot(again.rules.clone(), snapshot.clone())
            .map_err(|e| format!("its checkpoint does not load: {e}"))?;
        for b in self.bundles.iter().take_while(|b| b.turn < turn) {
            run_bundle_ticks(&mut world, b, again.turn_ticks, again.after_tick);
            if let Some(h) = (again.my_hash)(b.turn) {
                if world.hash() != h {
                    return Err(format!(
                        "run again from turn {from}'s start, turn {} hashes to {}, not the {h} it had",
                        b.turn,
                        world.hash()
                    ));
                }
            }
        }
        let start = world.snapshot();
        Ok((world, start))
    }
}

/// Runs the ticks of `bundle` on `world` (at the turn's start) through tick `i` (0-based), each
/// checked against the live tick hash; the state after tick `i`.
fn tick_again(
    world: &mut World,
    bundle: &TurnBundle,
    i: usize,
    live: &[TickHash],
    again: &RunAgain<'_>,
) -> Result<Snapshot, String> {
    let mut ticks = Vec::new();
    // The turn's first ticks, run the one way: a turn of fewer ticks is its beginning.
    let through = u32::try_from(i + 1)
        .unwrap_or(again.turn_ticks)
        .min(again.turn_ticks);
    run_bundle_ticks(world, bundle, through, |w: &mut World| {
        (again.after_tick)(w);
        ticks.push(w.tick_hash());
    });
    for (k, (redo, had)) in ticks.iter().zip(live).enumerate() {
        if redo != had {
            return Err(format!(
                "run again, tick {} of the turn hashes to {redo}, not the {had} it had live: \
                 the difference does not come from the state it started from",
                k + 1
            ));
        }
    }
    Ok(world.snapshot())
}

/// The index of the first tick whose hashes differ, where both sides have one.
pub fn first_differing(mine: Option<&[TickHash]>, server: &[TickHash]) -> Option<usize> {
    mine?.iter().zip(server).position(|(a, b)| a != b)
}
