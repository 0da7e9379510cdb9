//! Step 7: aftermath — the dead are removed and fallen buildings free their ground, in id
//! order; formations drop members that died or changed sides.

use crate::nav::Tick;

pub fn run(tick: &mut Tick<'_>) {
    tick.state.units.retain(|u| u.hit_points > 0);
    let fallen: Vec<_> = tick
        .state
        .buildings
        .iter()
        .filter(|b| b.hit_points == 0)
        .map(|b| b.id)
        .collect();
    for id in fallen {
        tick.state.remove_building(id);
    }
    if !tick.state.formations.is_empty() {
        crate::formation::tidy(tick);
    }
}
