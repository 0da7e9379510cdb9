//! Bodies apart: how near the watch saw any two bodies on one layer come, and for how long
//! (docs/SCENARIOS.md, "Bodies apart").
//!
//! After every tick the watch finds every pair of living bodies nearer than the keep-apart
//! allowance ([`K_KEEP_APART`] of their two radii together) and, of those, the pairs nearer than
//! [`K_CLOSE_PER_MILLE`] of it (close). It keeps: the pair-ticks spent close; the deepest
//! overlap (least distance over the allowance, the pair, the tick, the place); the longest run
//! of ticks one pair stayed close on end; and the pair-ticks of pairs nearer than the allowance
//! while both stood (no walk, not pushed). A run fails on bodies ([`BodiesReport::faults`]) when
//! any pair came nearer than [`K_MERGED_PER_MILLE`] of the allowance, any pair stayed close for
//! more than [`K_LONGEST_CLOSE_TICKS`] on end, or two standing bodies end nearer than the
//! allowance.
//!
//! The scan costs about as much as the bodies it looks at: bodies are filed by square cells as
//! wide as the widest allowance and each is compared with those in its own and the next cells
//! only. Of a cell only the first [`K_PILE`] bodies (in id order) are looked at: a cell holding
//! more cannot hold them apart, and the watch says so (a pile, a fault by itself) rather than
//! counting every pair of it, which at 20,000 bodies on one point would be 200 million pairs.

use crate::id::EntityId;
use crate::position::{Fx, Vec2};
use crate::state::TICK_MS;
use crate::walk::K_KEEP_APART;
use crate::world::World;

/// A pair is nearer than the allowance under this share of it, in thousandths: 999, so the last
/// bit of a fixed-point square root is not an overlap (as `cohort verify` counts).
pub const K_OVERLAP_PER_MILLE: i128 = 999;
/// A pair is close under this share of the allowance, in thousandths (0.9 of it).
pub const K_CLOSE_PER_MILLE: i128 = 900;
/// A pair nearer than this share of the allowance, in thousandths (half of it), has merged: a
/// run in which any pair does fails.
pub const K_MERGED_PER_MILLE: i128 = 500;
/// A pair may stay close at most this many ticks on end (a second of game time, 62.5 ticks,
/// rounded down): a run in which any pair stays close longer fails.
pub const K_LONGEST_CLOSE_TICKS: u64 = 1000 / TICK_MS as u64;
/// The most bodies of one cell each body is compared with: a cell as wide as the widest
/// allowance holds far fewer bodies kept apart, so more make a pile.
pub const K_PILE: usize = 64;

/// Two bodies nearer than keep-apart allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overlap {
    pub a: EntityId,
    pub b: EntityId,
    /// Their distance in thousandths of the allowance (`K_KEEP_APART` of their radii together).
    pub per_mille: i128,
    pub tick: u64,
    /// Halfway between the two.
    pub at: Vec2,
}

/// One pair's longest stay close on end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CloseRun {
    pub a: EntityId,
    pub b: EntityId,
    /// The first tick of the run.
    pub since: u64,
    /// Ticks it lasted (up to the last tick seen, when it goes on).
    pub ticks: u64,
    /// Halfway between the two when the run began.
    pub at: Vec2,
}

/// Bodies too many for their cell to hold apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pile {
    /// The most bodies seen in one cell.
    pub bodies: usize,
    pub tick: u64,
    pub at: Vec2,
}

/// What the watch saw of bodies apart, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BodiesReport {
    /// Pairs nearer than the allowance now, in id order.
    pub overlaps: Vec<Overlap>,
    /// Times a pair came nearer than the allowance during the run (pairs placed so, while they
    /// have not yet stood apart, left out).
    pub onsets: u64,
    /// The nearest any pair came during the run (the same pairs left out).
    pub deepest: Option<Overlap>,
    /// Ticks times pairs close ([`K_CLOSE_PER_MILLE`]), summed over the run.
    pub close_pair_ticks: u64,
    /// The longest any one pair stayed close on end.
    pub longest_close: Option<CloseRun>,
    /// Ticks times pairs nearer than the allowance while both stood (no walk, not pushed),
    /// summed over the run.
    pub standing_pair_ticks: u64,
    /// Pairs nearer than the allowance at the end with both standing, in id order.
    pub standing_at_end: Vec<Overlap>,
    /// The largest pile seen, if any cell ever held more than [`K_PILE`] bodies.
    pub pile: Option<Pile>,
}

impl BodiesReport {
    /// What went wrong with bodies apart, one line each; empty when nothing did.
    pub fn faults(&self) -> Vec<String> {
        let mut wrong = Vec::new();
        if let Some(d) = self.deepest.filter(|d| d.per_mille < K_MERGED_PER_MILLE) {
            wrong.push(format!(
                "#{} and #{} came to {}‰ of the allowance at tick {} ({}, {})",
                d.a.0, d.b.0, d.per_mille, d.tick, d.at.x, d.at.y
            ));
        }
        if let Some(r) = self
            .longest_close
            .filter(|r| r.ticks > K_LONGEST_CLOSE_TICKS)
        {
            wrong.push(format!(
                "#{} and #{} stayed under {}‰ of the allowance {} ticks on end from tick {} ({}, {})",
                r.a.0, r.b.0, K_CLOSE_PER_MILLE, r.ticks, r.since, r.at.x, r.at.y
            ));
        }
        if let Some(o) = self.standing_at_end.iter().min_by_key(|o| o.per_mille) {
            wrong.push(format!(
                "{} standing pairs nearer than the allowance at the end (nearest #{} #{} at {}‰)",
                self.standing_at_end.len(),
                o.a.0,
                o.b.0,
                o.per_mille
            ));
        }
        if let Some(p) = self.pile {
            wrong.push(format!(
                "a pile of {} bodies in one cell at tick {} ({}, {})",
                p.bodies, p.tick, p.at.x, p.at.y
            ));
        }
        wrong
    }
}

/// The watch's memory of bodies apart between ticks.
#[derive(Clone, Debug, Default)]
pub struct Bodies {
    /// Pairs (lower id first, sorted) nearer than the allowance at the tick before.
    overlapping: Vec<(EntityId, EntityId)>,
    /// Pairs close at the tick before, with their run's first tick and place, sorted.
    close: Vec<(EntityId, EntityId, u64, Vec2)>,
    /// Pairs that stood nearer than the allowance when the watch began and have not stood apart
    /// since: placed so, not walked so.
    placed: Vec<(EntityId, EntityId)>,
    started: bool,
    report: BodiesReport,
}

/// A body as the scan files it.
#[derive(Clone, Copy)]
struct Filed {
    cell: (i64, i64),
    id: EntityId,
    at: Vec2,
    radius: Fx,
    standing: bool,
}

impl Bodies {
    /// Looks at the bodies after a tick (and once before the first).
    pub fn observe(&mut self, world: &World) {
        let tick = world.tick();
        let (now, pile) = scan(world, tick);
        if let Some(p) = pile {
            if self.report.pile.is_none_or(|q| p.bodies > q.bodies) {
                self.report.pile = Some(p);
            }
        }
        let pairs: Vec<(EntityId, EntityId)> = now.iter().map(|(o, _)| (o.a, o.b)).collect();
        if !self.started {
            self.started = true;
            self.placed = pairs.clone();
        } else {
            // A placed pair counts from the tick it first stood apart.
            self.placed.retain(|p| pairs.binary_search(p).is_ok());
        }
        let mut close = Vec::new();
        for &(o, standing) in &now {
            let pair = (o.a, o.b);
            let placed = self.placed.binary_search(&pair).is_ok();
            if !placed {
                if self.overlapping.binary_search(&pair).is_err() {
                    self.report.onsets += 1;
                }
                if self
                    .report
                    .deepest
                    .is_none_or(|d| o.per_mille < d.per_mille)
                {
                    self.report.deepest = Some(o);
                }
            }
            if standing {
                self.report.standing_pair_ticks += 1;
            }
            if o.per_mille < K_CLOSE_PER_MILLE {
                let before = self
                    .close
                    .binary_search_by_key(&pair, |c| (c.0, c.1))
                    .ok()
                    .map(|k| self.close[k]);
                let (since, at) = before.map_or((tick, o.at), |c| (c.2, c.3));
                close.push((o.a, o.b, since, at));
                self.report.close_pair_ticks += 1;
                let ticks = tick - since + 1;
                if self.report.longest_close.is_none_or(|r| ticks > r.ticks) {
                    self.report.longest_close = Some(CloseRun {
                        a: o.a,
                        b: o.b,
                        since,
                        ticks,
                        at,
                    });
                }
            }
        }
        self.overlapping = pairs;
        self.close = close;
        self.report.overlaps = now.iter().map(|(o, _)| *o).collect();
        self.report.standing_at_end = now.iter().filter(|(_, s)| *s).map(|(o, _)| *o).collect();
    }

    /// What the watch saw of bodies apart.
    pub fn report(&self) -> BodiesReport {
        self.report.clone()
    }
}

/// Every pair of living bodies nearer than the allowance now, lower id first, sorted, each with
/// whether both stand; and the largest pile, if a cell held more than [`K_PILE`].
pub fn scan(world: &World, tick: u64) -> (Vec<(Overlap, bool)>, Option<Pile>) {
    let rules = world.rules();
    let units = &world.state().units;
    let widest = units
        .iter()
        .map(|u| rules.radius_of(u.kind))
        .max()
        .unwrap_or(Fx::ZERO);
    let cell = ((widest * 2) * K_KEEP_APART).to_bits().max(1);
    let mut filed: Vec<Filed> = units
        .iter()
        .filter(|u| u.hit_points > 0)
        .map(|u| Filed {
            cell: (
                u.position.y.to_bits().div_euclid(cell),
                u.position.x.to_bits().div_euclid(cell),
            ),
            id: u.id,
            at: u.position,
            radius: rules.radius_of(u.kind),
            standing: stands(u),
        })
        .collect();
    filed.sort_unstable_by_key(|f| (f.cell, f.id));
    // The bodies of one cell: a run of `filed`, at most K_PILE of it.
    let run_of = |c: (i64, i64)| {
        let start = filed.partition_point(|f| f.cell < c);
        let end = filed.partition_point(|f| f.cell <= c);
        (start, end)
    };
    let mut found = Vec::new();
    let mut pile: Option<Pile> = None;
    let mut k = 0;
    while k < filed.len() {
        let c = filed[k].cell;
        let (start, end) = run_of(c);
        if end - start > K_PILE && pile.is_none_or(|p| end - start > p.bodies) {
            pile = Some(Pile {
                bodies: end - start,
                tick,
                at: filed[start].at,
            });
        }
        let mine = &filed[start..end.min(start + K_PILE)];
        for (j, f) in mine.iter().enumerate() {
            // The rest of its own cell, then the cells after it in the filing order that touch
            // it: each pair is looked at once.
            compare(f, &mine[j + 1..], tick, &mut found);
            for (dy, dx) in [(0, 1), (1, -1), (1, 0), (1, 1)] {
                let (s, e) = run_of((c.0 + dy, c.1 + dx));
                compare(f, &filed[s..e.min(s + K_PILE)], tick, &mut found);
            }
        }
        k = end;
    }
    found.sort_unstable_by_key(|(o, _): &(Overlap, bool)| (o.a, o.b));
    (found, pile)
}

/// Whether a unit stands: it has no walk and is not pushed (one stepping aside is on its way
/// apart; held at it, its walk ends and it stands again: `crate::walk`).
fn stands(u: &crate::state::Unit) -> bool {
    u.route.is_none() && u.pushed.is_none()
}

/// Pairs of `f` with each of `others` nearer than the allowance, into `found`.
fn compare(f: &Filed, others: &[Filed], tick: u64, found: &mut Vec<(Overlap, bool)>) {
    for g in others {
        let allow = i128::from(((f.radius + g.radius) * K_KEEP_APART).to_bits());
        let d = g.at - f.at;
        let d2 = crate::position::squared(d);
        let limit = allow * K_OVERLAP_PER_MILLE;
        if d2 * 1_000_000 >= limit * limit {
            continue;
        }
        let per_mille =
            crate::position::isqrt_u128((d2 * 1_000_000) as u128) as i128 / allow.max(1);
        let (a, b) = if f.id < g.id {
            (f.id, g.id)
        } else {
            (g.id, f.id)
        };
        let at = f.at + Vec2::new(d.x / 2, d.y / 2);
        let overlap = Overlap {
            a,
            b,
            per_mille,
            tick,
            at,
        };
        found.push((overlap, f.standing && g.standing));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(deepest: i128, close_ticks: u64, standing: usize, pile: bool) -> BodiesReport {
        let o = Overlap {
            a: EntityId(1),
            b: EntityId(2),
            per_mille: deepest,
            tick: 5,
            at: Vec2::ZERO,
        };
        BodiesReport {
            deepest: Some(o),
            longest_close: Some(CloseRun {
                a: EntityId(1),
                b: EntityId(2),
                since: 3,
                ticks: close_ticks,
                at: Vec2::ZERO,
            }),
            standing_at_end: vec![o; standing],
            pile: pile.then_some(Pile {
                bodies: 65,
                tick: 1,
                at: Vec2::ZERO,
            }),
            ..BodiesReport::default()
        }
    }

    #[test]
    fn each_limit_is_a_fault_and_just_within_is_none() {
        assert!(report(500, K_LONGEST_CLOSE_TICKS, 0, false)
            .faults()
            .is_empty());
        assert_eq!(report(499, 1, 0, false).faults().len(), 1);
        assert_eq!(
            report(800, K_LONGEST_CLOSE_TICKS + 1, 0, false)
                .faults()
                .len(),
            1
        );
        assert_eq!(report(800, 1, 1, false).faults().len(), 1);
        assert_eq!(report(800, 1, 0, true).faults().len(), 1);
        assert_eq!(report(0, 100, 2, true).faults().len(), 4);
    }
}
