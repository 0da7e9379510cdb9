//! Taking a match up again after its server died or suspended it (docs/OPERATIONS.md,
//! "Restart and go on"): the state rebuilt from the replay — from a snapshot of the match when
//! one fits, re-simulating only the turns after it, every recorded hash checked on the way —
//! and the `Match` opened at its next turn, waiting for its players: no turn closes until every
//! player who was playing is back, or [`RESUME_GRACE_MS`] have passed; then the match goes on
//! without the missing ones, each dropped as a lost connection is (and free to rejoin).
//!
//! No files here: the driver reads them and hands over their contents.

use super::{InputDelay, Match, Phase, Settings};
use cohort_protocol::limits::TICK_HASH_TURNS;
use cohort_protocol::message::{Membership, MembershipEvent};
use cohort_protocol::replay::TurnRecord;
use cohort_protocol::resume::ResumeSettings;
use cohort_protocol::setup::{run_bundle_hashed, ConfigError};
use cohort_sim::hash::TickHash;
use cohort_sim::world::{PlayerStatus, Snapshot};
use cohort_sim::{Ruleset, World};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Milliseconds a match taken up again waits for its players before it goes on without those
/// still missing (each dropped, as a player whose connection was lost; they may rejoin later).
/// A client reconnects for longer than this (`cohort`'s `RECONNECT_WINDOW`).
pub const RESUME_GRACE_MS: u64 = 60_000;

/// Turns between two snapshots of a match written beside its replay (with a state folder): a
/// match taken up again re-simulates fewer turns than this (4 s of game at 128 ms a turn;
/// BENCHMARKS.md, "Resuming a match", for what that costs with full armies). Each snapshot is
/// a copy of the state taken after the turn's record and written off the turn's path.
pub const SNAPSHOT_TURNS: u64 = 32;

/// Why a match cannot be taken up again: it is reported lost, never half-resumed.
#[derive(Debug, thiserror::Error)]
pub enum RebuildError {
    #[error("its configuration cannot be played here: {0}")]
    Config(#[from] ConfigError),
    #[error(
        "turn {turn} re-simulates to {rebuilt}, but the replay recorded {recorded} (another \
         version of the server or a damaged record)"
    )]
    Hash {
        turn: u64,
        recorded: cohort_sim::StateHash,
        rebuilt: cohort_sim::StateHash,
    },
}

/// A match's state rebuilt from its replay.
pub struct Rebuilt {
    /// The state after the last record.
    pub world: World,
    /// Every record, turn 0 on.
    pub records: Vec<TurnRecord>,
    /// The turns re-simulated (those after the snapshot used, or all of them).
    pub resimulated: u64,
    /// Why the snapshot was not used, when one was given and not used.
    pub snapshot_refused: Option<String>,
    /// The tick hashes of the last turns re-simulated.
    tick_hashes: VecDeque<(u64, Vec<TickHash>)>,
}

/// Rebuilds the state after every record of a replay: from `snapshot` (the state after
/// `turns_run` turns) when it is one of the replay's states — its hash is the one recorded
/// after its turn — else from the configuration's world; then every later record is run and
/// its recorded hash checked. Same records, same state, on every machine.
pub fn rebuild(
    config: &cohort_protocol::MatchConfig,
    records: Vec<TurnRecord>,
    snapshot: Option<(u64, Snapshot)>,
    rules: Arc<Ruleset>,
) -> Result<Rebuilt, RebuildError> {
    let start = config.world(rules.clone())?;
    let mut snapshot_refused = None;
    let (mut world, from) = match snapshot {
        Some((0, _)) | None => (start, 0),
        Some((turns, snap)) => match snapshot_fits(turns, snap, &records, &rules) {
            Ok(world) => (world, turns),
            Err(why) => {
                snapshot_refused = Some(why);
                (start, 0)
            }
        },
    };
    let from_index = usize::try_from(from).unwrap_or(usize::MAX);
    let mut tick_hashes = VecDeque::new();
    for r in records.iter().skip(from_index) {
        let ticks = run_bundle_hashed(&mut world, &r.bundle, config.turn_ticks);
        let rebuilt = world.hash();
        if rebuilt != r.hash {
            return Err(RebuildError::Hash {
                turn: r.bundle.turn,
                recorded: r.hash,
                rebuilt,
            });
        }
        tick_hashes.push_back((r.bundle.turn, ticks));
        if tick_hashes.len() as u64 > TICK_HASH_TURNS {
            tick_hashes.pop_front();
        }
    }
    Ok(Rebuilt {
        world,
        resimulated: (records.len() as u64).saturating_sub(from),
        records,
        snapshot_refused,
        tick_hashes,
    })
}

/// The snapshot's world, if it is the state the replay recorded after its turn.
fn snapshot_fits(
    turns: u64,
    snap: Snapshot,
    records: &[TurnRecord],
    rules: &Arc<Ruleset>,
) -> Result<World, String> {
    let Some(record) = usize::try_from(turns - 1).ok().and_then(|i| records.get(i)) else {
        return Err(format!(
            "it was taken after turn {} and the replay holds {} turns",
            turns - 1,
            records.len()
        ));
    };
    let world = World::from_snapshot(rules.clone(), snap).map_err(|e| e.to_string())?;
    if world.hash() != record.hash {
        return Err(format!(
            "its state is not the one the replay recorded after turn {}",
            turns - 1
        ));
    }
    Ok(world)
}

impl Match {
    /// A match taken up again at its next turn from its rebuilt state, waiting for its players
    /// ([`RESUME_GRACE_MS`]). Its input delay is the last one its bundles set; its players'
    /// standing (playing, left, dropped…) is the state's; pauses start anew.
    pub fn from_replay(
        settings: Settings,
        rules: Arc<Ruleset>,
        rebuilt: Rebuilt,
        now: Instant,
    ) -> Result<Match, ConfigError> {
        let mut m = Match::new(settings, rules, now)?;
        let Rebuilt {
            world,
            records,
            tick_hashes,
            ..
        } = rebuilt;
        let delay = records
            .iter()
            .rev()
            .find_map(|r| r.bundle.input_delay)
            .unwrap_or(m.settings.config.input_delay);
        m.delay = InputDelay::new(delay, m.settings.adaptive_delay);
        for r in &records {
            m.hashes.push(r.hash);
            if let Err(e) = m.records.push(r) {
                tracing::error!(match_id = %m.id(), turn = r.bundle.turn, error = %e, "turn record not kept");
            }
        }
        let turns = records.len() as u64;
        m.turns_run = turns;
        m.next_turn = turns;
        m.tick_hashes = tick_hashes;
        for (slot, player) in m.slots.iter_mut().zip(&world.state().players) {
            slot.status = player.status;
            slot.joined_once = true;
        }
        if turns > 0 {
            // Re-simulating to a turn (a desync report) starts here rather than from turn 0.
            m.checkpoints.push_back((turns, world.snapshot()));
        }
        if m.settings.snapshot_every.is_some() {
            // Saved at once: the next start need not re-simulate what this one did.
            m.actions.push_back(super::Action::SaveState {
                turns_run: turns,
                world: Some(Box::new(world.snapshot())),
            });
        }
        m.world = Some(world);
        m.phase = Phase::Running;
        m.resume_wait = Some(now);
        m.epoch = now;
        m.epoch_turn = turns;
        tracing::info!(match_id = %m.id(), turn = turns, "match taken up again; waiting for its players");
        Ok(m)
    }

    /// Suspends the match: its open turn closed, every connection closed (no `MatchEnded`: the
    /// seats are still the players', who reconnect); once the sim has run and recorded every
    /// closed turn, its state is saved and the driver told ([`Match::suspend_when_run`]). A
    /// match still in its lobby (or stopping after a desync) has nothing to keep: it ends with
    /// `otherwise` (an operator's end, or the server's shutdown).
    pub(super) fn suspend(&mut self, otherwise: cohort_protocol::message::EndReason) {
        if self.phase != Phase::Running {
            self.finish(otherwise);
            return;
        }
        if self.resume_wait.is_none() {
            self.close_turn();
        }
        if self.phase == Phase::Ended {
            // The turn closed was its last (the turn limit): it ended, nothing to keep.
            return;
        }
        tracing::info!(match_id = %self.id(), turn = self.next_turn, "match suspended");
        let everyone: Vec<super::PeerId> = self.peers.keys().copied().collect();
        for peer in everyone {
            self.actions
                .push_back(super::Action::CloseSuspended { peer });
        }
        self.peers.clear();
        self.close_watchers("the match is suspended on this server");
        if let Some(d) = &mut self.delayed {
            d.draining = false;
        }
        for event in std::mem::take(&mut self.waiting) {
            match event {
                super::Event::Join { peer, .. } => {
                    self.actions
                        .push_back(super::Action::CloseSuspended { peer });
                }
                super::Event::Watch { peer } => {
                    self.actions.push_back(super::Action::Close { peer });
                }
                _ => {}
            }
        }
        self.phase = Phase::Ended;
        self.suspended = true;
        self.suspending = true;
        self.suspend_when_run();
    }

    /// A suspended match whose closed turns have all been run and recorded: its state saved
    /// ([`super::Action::SaveState`]), then [`super::Action::Suspended`].
    pub(super) fn suspend_when_run(&mut self) {
        if !self.suspending || self.sim_out || !self.unrun.is_empty() || self.reports_pending() {
            return;
        }
        let Some(world) = self.world.as_ref() else {
            return;
        };
        self.suspending = false;
        let snapshot = world.snapshot();
        self.actions.push_back(super::Action::SaveState {
            turns_run: self.turns_run,
            world: Some(Box::new(snapshot)),
        });
        self.actions.push_back(super::Action::Suspended);
    }

    /// Whether the match, taken up again, still waits for its players.
    pub fn waiting_for_players(&self) -> bool {
        self.resume_wait.is_some()
    }

    /// When a match waiting for its players goes on without the missing ones.
    pub(super) fn resume_deadline(&self) -> Option<Instant> {
        self.resume_wait
            .map(|since| since + Duration::from_millis(RESUME_GRACE_MS))
    }

    /// Goes on once every player who was playing is back; or, `grace_over`, without those
    /// still missing (dropped). The open turn gets a whole turn from now.
    pub(super) fn go_on_if_back(&mut self, now: Instant, grace_over: bool) {
        if self.resume_wait.is_none() || self.phase != Phase::Running {
            return;
        }
        let missing: Vec<u8> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.status == PlayerStatus::Playing && s.peer.is_none())
            .filter_map(|(i, _)| u8::try_from(i).ok())
            .collect();
        if !missing.is_empty() && !grace_over {
            return;
        }
        for &player in &missing {
            tracing::info!(match_id = %self.id(), player, turn = self.next_turn, "not back in time: dropped");
            self.slots[usize::from(player)].status = PlayerStatus::Dropped;
            self.events.push(MembershipEvent {
                player,
                change: Membership::Dropped,
            });
            self.stats.dropped += 1;
        }
        self.resume_wait = None;
        self.epoch = now;
        self.epoch_turn = self.next_turn;
        if self.slots.iter().all(|s| s.peer.is_none()) {
            self.empty_since = Some(now);
        }
        tracing::info!(match_id = %self.id(), turn = self.next_turn, dropped = missing.len(), "match goes on");
    }

    /// What a match snapshot file says of how this match is run.
    pub fn resume_settings(&self, created_at: u64) -> ResumeSettings {
        let s = &self.settings;
        ResumeSettings {
            config: s.config.clone(),
            adaptive_delay: s.adaptive_delay,
            max_turns: s.max_turns,
            stop_on_desync: s.on_desync == super::OnDesync::Stop,
            require_hashes: s.require_hashes,
            created_at,
        }
    }
}

impl Settings {
    /// The settings a match snapshot file saved.
    pub fn from_resume(r: &ResumeSettings) -> Settings {
        let mut s = Settings::new(r.config.clone());
        s.adaptive_delay = r.adaptive_delay;
        s.max_turns = r.max_turns;
        s.on_desync = if r.stop_on_desync {
            super::OnDesync::Stop
        } else {
            super::OnDesync::Continue
        };
        s.require_hashes = r.require_hashes;
        s
    }
}
