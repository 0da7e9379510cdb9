//! Step 7: aftermath — the dead are removed, in id order.

use crate::world::World;

pub fn run(world: &mut World) {
    world.state.units.retain(|u| u.hit_points > 0);
}
