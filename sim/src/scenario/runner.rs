//! The headless runner: gives each command at its tick, runs the ticks, and takes the state's
//! hash after every network turn.

use super::load::{Scenario, Scheduled, ScheduledStatus};
use super::report::Report;
use super::watch::Watch;
use crate::command::PlayerCommand;
use crate::hash::StateHash;
use crate::world::World;

/// A scenario being run.
#[derive(Clone, Debug)]
pub struct Runner {
    pub name: String,
    pub world: World,
    /// Sorted by tick.
    pub commands: Vec<Scheduled>,
    /// The first command not yet given.
    next: usize,
    /// Players' status changes, sorted by tick.
    pub statuses: Vec<ScheduledStatus>,
    /// The first status change not yet made.
    next_status: usize,
    pub turn_ticks: u32,
    /// The world's tick when the run began (0, or a `state` snapshot's).
    start_tick: u64,
    /// The hash after every whole turn so far (ticks `turn_ticks`, `2 × turn_ticks`, …).
    pub turn_hashes: Vec<StateHash>,
    /// Stalls, overlaps and the rest, watched after every tick.
    pub watch: Watch,
}

impl Runner {
    pub fn new(s: Scenario) -> Runner {
        let start_tick = s.world.tick();
        Runner {
            name: s.name,
            world: s.world,
            commands: s.commands,
            next: 0,
            statuses: s.statuses,
            next_status: 0,
            turn_ticks: s.turn_ticks.max(1),
            start_tick,
            turn_hashes: Vec::new(),
            watch: Watch::default(),
        }
    }

    /// Swaps in another world (a snapshot loaded mid-run, say): commands for ticks before its
    /// tick count as given.
    pub fn resume_from(&mut self, world: World) {
        self.world = world;
        let tick = self.world.tick();
        self.next = self.commands.partition_point(|c| c.tick < tick);
        self.next_status = self.statuses.partition_point(|s| s.tick < tick);
    }

    /// Runs one tick with the status changes, then the commands, scheduled for it (a turn's
    /// membership events, then its commands). Same scenario, same result everywhere.
    pub fn step(&mut self) {
        self.step_with(|world, now| world.step(now));
    }

    /// [`Runner::step`], with the tick itself run by `run_tick` (given the world and the tick's
    /// commands, it must call `world.step(commands)` once): for a benchmark that times the tick
    /// alone, without the watch and the hashes round it.
    pub fn step_with(&mut self, run_tick: impl FnOnce(&mut World, &[PlayerCommand])) {
        self.watch.observe_start(&self.world);
        let tick = self.world.tick();
        while let Some(s) = self
            .statuses
            .get(self.next_status)
            .filter(|s| s.tick <= tick)
        {
            if s.tick == tick {
                self.world.set_player_status(s.player, s.status);
            }
            self.next_status += 1;
        }
        while self.next < self.commands.len() && self.commands[self.next].tick < tick {
            self.next += 1;
        }
        let start = self.next;
        while self.next < self.commands.len() && self.commands[self.next].tick == tick {
            self.next += 1;
        }
        let now: Vec<PlayerCommand> = self.commands[start..self.next]
            .iter()
            .map(|c| c.command.clone())
            .collect();
        self.watch
            .commanded(now.iter().flat_map(|c| c.command.units().iter().copied()));
        run_tick(&mut self.world, &now);
        self.watch.observe(&self.world);
        if self.world.tick().is_multiple_of(u64::from(self.turn_ticks)) {
            self.turn_hashes.push(self.world.hash());
        }
    }

    /// Runs `ticks` ticks, calling `each_tick` with the world after each.
    pub fn run(&mut self, ticks: u64, mut each_tick: impl FnMut(&World)) {
        for _ in 0..ticks {
            self.step();
            each_tick(&self.world);
        }
    }

    /// What the run came to: every unit's state, the counters and the hashes.
    pub fn report(&self) -> Report {
        let mut report = Report::of(&self.name, &self.world, self.turn_ticks, &self.turn_hashes);
        report.watch = self.watch.report(&self.world);
        report.ticks = self.world.tick().saturating_sub(self.start_tick);
        report
    }
}
