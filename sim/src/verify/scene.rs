//! A check's scene: a scenario file of `scenarios/verify/` loaded and run, its named entities
//! at hand, and the measures the checks share.

use crate::id::EntityId;
use crate::position::{Bounds, Fx};
use crate::scenario::{Files, Runner, Scenario};
use crate::walk::K_KEEP_APART;
use crate::world::World;

/// A scenario being checked.
pub struct Scene {
    pub runner: Runner,
    /// Ticks the file says to run.
    pub ticks: u64,
    names: Vec<(String, Vec<EntityId>)>,
}

impl Scene {
    /// Loads scenario file `file` through `files` (the default ruleset unless it names one).
    pub fn load(files: &dyn Files, file: &str) -> Result<Scene, String> {
        let s = Scenario::read(files, file, None).map_err(|e| e.to_string())?;
        Ok(Scene {
            ticks: s.ticks,
            names: s.names.clone(),
            runner: Runner::new(s),
        })
    }

    pub fn world(&self) -> &World {
        &self.runner.world
    }

    /// The entities the file names `name` (empty when none).
    pub fn ids(&self, name: &str) -> Vec<EntityId> {
        self.names
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, ids)| ids.clone())
            .unwrap_or_default()
    }

    /// The first entity named `name`.
    pub fn id(&self, name: &str) -> Option<EntityId> {
        self.ids(name).first().copied()
    }

    /// Runs one tick, with the commands the file gives at it.
    pub fn step(&mut self) {
        self.runner.step();
    }

    /// Runs ticks until `done` holds or `most` ticks have run. Returns the ticks run.
    pub fn run_until(&mut self, most: u64, mut done: impl FnMut(&World) -> bool) -> u64 {
        for t in 0..most {
            if done(self.world()) {
                return t;
            }
            self.step();
        }
        most
    }

    /// Whether every unit of `ids` has stopped walking.
    pub fn all_stopped(world: &World, ids: &[EntityId]) -> bool {
        ids.iter()
            .all(|&id| world.unit(id).is_none_or(|u| u.route.is_none()))
    }

    /// The body (box) of unit `id`.
    pub fn body(world: &World, id: EntityId) -> Option<Bounds> {
        let u = world.unit(id)?;
        Some(Bounds::around(u.position, world.rules().radius_of(u.kind)))
    }

    /// The smallest share of the keep-apart allowance (kKeepApart: 3/4 of their two radii)
    /// any two of `ids` stand apart, in thousandths: 1000 is exactly the allowance, below it
    /// two bodies overlap by more than the allowance.
    pub fn closest_share(world: &World, ids: &[EntityId]) -> i64 {
        let units: Vec<_> = ids.iter().filter_map(|&id| world.unit(id)).collect();
        let mut worst = i64::MAX;
        for (k, a) in units.iter().enumerate() {
            let ra = world.rules().radius_of(a.kind);
            for b in &units[k + 1..] {
                let rb = world.rules().radius_of(b.kind);
                let allow = (ra + rb) * K_KEEP_APART;
                let d = (a.position - b.position).length();
                worst = worst.min((d * 1000 / allow).to_num::<i64>());
            }
        }
        worst
    }

    /// The most any two bodies of `ids` overlap, as boxes, across the thinner of the two
    /// axes (zero when no two boxes overlap).
    pub fn most_overlap(world: &World, ids: &[EntityId]) -> Fx {
        let bodies: Vec<Bounds> = ids
            .iter()
            .filter_map(|&id| Scene::body(world, id))
            .collect();
        let mut most = Fx::ZERO;
        for (k, a) in bodies.iter().enumerate() {
            for b in &bodies[k + 1..] {
                let ox = a.max.x.min(b.max.x) - a.min.x.max(b.min.x);
                let oy = a.max.y.min(b.max.y) - a.min.y.max(b.min.y);
                most = most.max(ox.min(oy));
            }
        }
        most
    }

    /// Whether two of `ids` stand on the very same point (stacked).
    pub fn stacked(world: &World, ids: &[EntityId]) -> bool {
        let mut at: Vec<(i64, i64)> = ids
            .iter()
            .filter_map(|&id| world.unit(id))
            .map(|u| (u.position.x.to_bits(), u.position.y.to_bits()))
            .collect();
        at.sort_unstable();
        at.windows(2).any(|w| w[0] == w[1])
    }
}
