//! Step 5: villagers' work — approach, gather, carry, drop, build. Filled by issue 4.

use crate::world::World;

pub fn run(_world: &mut World) {}
