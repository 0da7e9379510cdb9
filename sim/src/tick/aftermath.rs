//! Step 7: aftermath — the dead are removed and fallen buildings free their ground, in id
//! order; formations drop members that died or changed sides.

use crate::world::World;

pub fn run(world: &mut World) {
    world.state.units.retain(|u| u.hit_points > 0);
    let fallen: Vec<_> = world
        .state
        .buildings
        .iter()
        .filter(|b| b.hit_points == 0)
        .map(|b| b.id)
        .collect();
    for id in fallen {
        world.remove_building(id);
    }
    if !world.state.formations.is_empty() {
        crate::formation::tidy(world);
    }
}
