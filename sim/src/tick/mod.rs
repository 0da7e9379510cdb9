//! One tick, in the spec's order (DESIGN.md, "One tick, in order"):
//! prepare, survey, orders, combat, work (foundations closing their ground first), movement,
//! aftermath.
//!
//! Each step is a function of its own file; every pass goes through entities in id order.

mod aftermath;
mod combat;
mod foundation;
mod movement;
mod orders;
mod patch;
mod work;

pub use combat::{K_FOLLOW_RANGE, K_LOOK_EVERY_TICKS};
pub use movement::speed_per_tick;

use crate::command::PlayerCommand;
use crate::world::World;

/// Runs one tick. Same state and commands in, same state out, on every machine.
pub fn step(world: &mut World, commands: &[PlayerCommand]) {
    for u in &mut world.state.units {
        u.previous_position = u.position;
    }
    prepare(world);
    survey(world);
    orders::carry_out(world, commands);
    combat::run(world);
    work::run(world);
    movement::run(world);
    aftermath::run(world);
    world.state.tick += 1;
}

/// Step 1: refresh regions (and landmarks) of layers whose walk revision changed.
fn prepare(world: &mut World) {
    world.prepare();
}

/// Step 2: file every unit's body by tile, the index everything after reads, and forget the
/// walks shared in the last tick (spec "Units sent together": the list is forgotten at the next
/// survey). Nothing a tick plans outlives it, so a world loaded from a snapshot (which holds no
/// caches) plans exactly as the one it was taken from.
fn survey(world: &mut World) {
    world.caches.nav.shared_walks.clear();
    world.file_survey();
}
