//! Step 5: villagers' work — approach, gather, carry, drop, build.
//!
//! A villager told to gather joins that resource's crew. It asks the standing-spot planner for a
//! place at the resource (its crew mates' spots taken) and keeps that spot while it walks; when
//! the open ground is all spoken for it waits a body's width further out until a spot comes
//! free. At the resource it gathers at the resource's rate until it carries its load, then
//! carries it to the nearest drop site of its owner that takes the good (a spot at its edge too),
//! and goes back. A resource runs out: a tree is felled and frees its tile, and the crew moves to
//! the nearest resource of the same kind within [`K_NEXT_RESOURCE_REACH`]. A villager told to
//! build works at a foundation from its own spot until the building is complete, once the
//! foundation's ground has closed (`foundation.rs`: those standing on it step off first).

mod approach;
mod build;
mod gather;

use crate::grid::Keyed;
use crate::id::EntityId;
use crate::nav::{Tick, View};
use crate::position::{fx, Bounds, Fx, Vec2};
use crate::state::{Order, TICK_MS};
use approach::*;
use build::*;
use gather::*;
use std::collections::BTreeMap;

/// A crew whose resource ran out looks this many tiles round it for another of the same kind.
/// Cohort's choice, not the spec's: neither the spec nor the devlog says what a crew does when
/// its resource runs out.
pub const K_NEXT_RESOURCE_REACH: i32 = 8;

/// A villager's walk to its spot ends at the spot, never earlier: its target's range is this far
/// below touching (no body reaches that deep into what it works at).
const K_AT_THE_SPOT: Fx = fx(-1);

/// A worker held on its way to a spot on which a body now stands still asks for a spot again after
/// this long (a second, as long as a walker waits before its detour), and once a second after
/// (Cohort's choice, [`spot_taken_on_the_way`]).
pub const K_SPOT_TAKEN_AFTER_TICKS: u64 = 1000 / TICK_MS as u64;

/// A worker standing at the place it waits at, a body's width out round work whose every spot
/// is taken, asks again for a spot there (and at the resources near by) on one tick in this many,
/// its id's, not on every tick (Cohort's choice, for speed alone: 200 villagers a player at their
/// resources asked about 465 times a tick, most of them waiting, and the asking was half the
/// tick). 8 ticks is 128 ms: a spot that comes free is taken that much later at most.
pub const K_WAIT_ASK_TICKS: u64 = 8;

pub fn run(tick: &mut Tick<'_>) {
    super::foundation::run(tick);
    let mut crews = Crews::of(tick.view());
    for i in 0..tick.state.units.len() {
        let u = &tick.state.units[i];
        if u.hit_points == 0 {
            continue;
        }
        match u.order {
            Order::Gather { target } => gather(tick, &mut crews, i, target),
            Order::Build { target } => build(tick, &mut crews, i, target),
            _ => {}
        }
    }
}

/// Who is told to work where during this step: (target, the worker's index in the state's
/// list) for every unit told to gather or build, sorted; a unit sent to another target during
/// the step is added ([`Crews::join`]). An entry whose unit has since left is read past: each
/// is checked against the unit's order when read, so [`Crews::spots`] finds what a pass over
/// every unit would, in the same order, from a few entries.
struct Crews {
    at: Vec<(EntityId, usize)>,
    /// [`ground_of`] and [`neighbours`] as already answered during the step: both read only the
    /// resources and the ground, which change in the step only when a resource runs out
    /// ([`ran_out`] forgets them then).
    grounds: BTreeMap<EntityId, Option<(Bounds, Vec<EntityId>)>>,
    near: BTreeMap<(EntityId, Keyed), Vec<EntityId>>,
}

impl Crews {
    /// Every unit of the world told to gather or build.
    fn of(view: View<'_>) -> Crews {
        let mut at: Vec<(EntityId, usize)> = view
            .state
            .units
            .iter()
            .enumerate()
            .filter_map(|(k, u)| match u.order {
                Order::Gather { target } | Order::Build { target } => Some((target, k)),
                _ => None,
            })
            .collect();
        at.sort_unstable();
        Crews {
            at,
            grounds: BTreeMap::new(),
            near: BTreeMap::new(),
        }
    }

    /// [`ground_of`] `id`, answered once a step.
    fn ground_of(&mut self, view: View<'_>, id: EntityId) -> Option<(Bounds, Vec<EntityId>)> {
        self.grounds
            .entry(id)
            .or_insert_with(|| ground_of(view, id))
            .clone()
    }

    /// [`neighbours`] of `r` on `key`, answered once a step.
    fn neighbours(
        &mut self,
        view: View<'_>,
        r: &crate::state::Resource,
        key: Keyed,
    ) -> &[EntityId] {
        self.near
            .entry((r.id, key))
            .or_insert_with(|| neighbours(view, r, key))
    }

    /// The resources or the ground changed: what was answered may not hold.
    fn forget(&mut self) {
        self.grounds.clear();
        self.near.clear();
    }

    /// Unit `k` was told to work at `target` during the step.
    fn join(&mut self, target: EntityId, k: usize) {
        if let Err(at) = self.at.binary_search(&(target, k)) {
            self.at.insert(at, (target, k));
        }
    }

    /// Where the crew mates of unit `i` at any of `parts` stand, are headed or wait, in id order,
    /// added to `out`.
    fn spots(&self, view: View<'_>, i: usize, parts: &[EntityId], out: &mut Vec<Vec2>) {
        let crews = parts.iter().map(|&t| {
            let from = self.at.partition_point(|&(x, _)| x < t);
            let to = from + self.at[from..].partition_point(|&(x, _)| x == t);
            &self.at[from..to]
        });
        let mut mates: Vec<usize> = Vec::with_capacity(crews.clone().map(<[_]>::len).sum());
        mates.extend(crews.flatten().map(|&(_, k)| k));
        mates.sort_unstable();
        mates.dedup();
        let me = view.state.units[i].id;
        out.extend(
            mates
                .into_iter()
                .map(|k| &view.state.units[k])
                .filter(|u| {
                    u.id != me
                        && u.hit_points > 0
                        && matches!(u.order, Order::Gather { target: t } | Order::Build { target: t } if parts.contains(&t))
                })
                .filter_map(|u| u.work_spot),
        );
    }
}
