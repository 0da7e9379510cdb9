//! Step 4: combat — targets, chases, strikes. Filled by the movement-tick work (issue 4).

use crate::world::World;

pub fn run(_world: &mut World) {}
