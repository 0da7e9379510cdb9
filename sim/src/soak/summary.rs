//! Many scenes' outcomes added up: what `cohort soak` prints.

use super::{MapKind, Outcome};
use crate::position::Fx;

/// A scene that failed: its seed, kind, units and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    pub seed: u64,
    pub kind: MapKind,
    pub units: usize,
    pub why: Vec<String>,
}

/// The outcomes of a run of scenes, added up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Scenes run, of each kind.
    pub fields: usize,
    pub generated: usize,
    /// Units at the start, over every scene.
    pub units: usize,
    /// Busy unit-seconds over every scene.
    pub busy_unit_seconds: Fx,
    /// Stalls of 10 s or more, and the scenes they were in.
    pub stalls: usize,
    pub stall_scenes: usize,
    /// The stalls by the order the unit had, in name order.
    pub stalls_by_order: Vec<(&'static str, usize)>,
    /// The longest stall, in ticks, and its scene's seed.
    pub longest_stall: Option<(u64, u64)>,
    /// The longest wait for a place at a full target, in ticks, and its scene's seed.
    pub longest_wait: Option<(u64, u64)>,
    /// Pairs nearer than the allowance at the end of their scenes, and the nearest (‰).
    pub overlaps_at_end: usize,
    pub nearest_at_end: Option<i128>,
    /// Times a pair came nearer than the allowance during the runs, and the nearest (‰).
    pub overlap_onsets: u64,
    pub nearest_during_runs: Option<i128>,
    /// Ticks times pairs closer than 0.9 of the allowance, over every scene.
    pub close_pair_ticks: u64,
    /// The longest any pair stayed that close on end, in ticks, and its scene's seed.
    pub longest_close: Option<(u64, u64)>,
    /// Ticks times pairs nearer than the allowance while both stood, over every scene.
    pub standing_pair_ticks: u64,
    /// Scenes with a body over closed ground at some tick, bodies over it at the end, and the
    /// deepest any went (tiles).
    pub closed_ground_scenes: usize,
    pub closed_ground_at_end: usize,
    pub deepest_in_closed_ground: Option<Fx>,
    /// Walks not ended at the end of their scenes.
    pub walks_not_ended: usize,
    /// Whether every scene gave the same hashes twice.
    pub identical_twice: bool,
    /// The scenes that failed, in the order run.
    pub failed: Vec<Failed>,
}

impl Summary {
    pub fn new() -> Summary {
        Summary {
            identical_twice: true,
            ..Summary::default()
        }
    }

    /// Adds one scene's outcome.
    pub fn add(&mut self, o: &Outcome) {
        match o.kind {
            MapKind::Fields => self.fields += 1,
            MapKind::Generated => self.generated += 1,
        }
        self.units += o.units;
        self.busy_unit_seconds += o.busy_unit_seconds;
        self.stalls += o.stalls.len();
        self.stall_scenes += usize::from(!o.stalls.is_empty());
        for (order, n) in o.stalls_by_order() {
            match self.stalls_by_order.iter_mut().find(|c| c.0 == order) {
                Some(c) => c.1 += n,
                None => self.stalls_by_order.push((order, n)),
            }
        }
        self.stalls_by_order.sort_unstable();
        let longer = |best: Option<(u64, u64)>, ticks: u64| best.is_none_or(|(t, _)| ticks > t);
        let stall = o.longest_stall_ticks();
        if stall > 0 && longer(self.longest_stall, stall) {
            self.longest_stall = Some((stall, o.seed));
        }
        if let Some(w) = o.longest_wait {
            if longer(self.longest_wait, w.ticks) {
                self.longest_wait = Some((w.ticks, o.seed));
            }
        }
        let nearer = |best: Option<i128>, p: i128| Some(best.map_or(p, |b| b.min(p)));
        self.overlaps_at_end += o.bodies.overlaps.len();
        for ov in &o.bodies.overlaps {
            self.nearest_at_end = nearer(self.nearest_at_end, ov.per_mille);
        }
        self.overlap_onsets += o.bodies.onsets;
        if let Some(d) = o.bodies.deepest {
            self.nearest_during_runs = nearer(self.nearest_during_runs, d.per_mille);
        }
        self.close_pair_ticks += o.bodies.close_pair_ticks;
        if let Some(r) = o.bodies.longest_close {
            if longer(self.longest_close, r.ticks) {
                self.longest_close = Some((r.ticks, o.seed));
            }
        }
        self.standing_pair_ticks += o.bodies.standing_pair_ticks;
        if let Some(c) = o.deepest_in_closed_ground {
            self.closed_ground_scenes += 1;
            self.deepest_in_closed_ground = Some(
                self.deepest_in_closed_ground
                    .map_or(c.depth, |d| d.max(c.depth)),
            );
        }
        self.closed_ground_at_end += o.in_closed_ground.len();
        self.walks_not_ended += o.not_ended.len();
        self.identical_twice &= o.identical_twice;
        let why = o.failures();
        if !why.is_empty() {
            self.failed.push(Failed {
                seed: o.seed,
                kind: o.kind,
                units: o.units,
                why,
            });
        }
    }

    /// Scenes run.
    pub fn scenes(&self) -> usize {
        self.fields + self.generated
    }

    /// Busy unit-minutes over every scene.
    pub fn unit_minutes(&self) -> Fx {
        self.busy_unit_seconds / Fx::from_num(60)
    }
}
