//! Step 6: movement — walk every route, once a tick (`crate::walk`).

use crate::nav::Tick;

pub use crate::walk::speed_per_tick;

pub fn run(tick: &mut Tick<'_>) {
    crate::walk::walk_all(tick);
}
