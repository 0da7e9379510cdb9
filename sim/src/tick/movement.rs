//! Step 6: movement — walk every route, once a tick (`crate::walk`).

use crate::world::World;

pub use crate::walk::speed_per_tick;

pub fn run(world: &mut World) {
    crate::walk::walk_all(world);
}
