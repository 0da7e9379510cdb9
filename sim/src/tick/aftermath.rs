//! Step 7: aftermath — the dead are removed and fallen buildings free their ground, in id
//! order; formations drop members that died or changed sides. Touches the state alone.

use crate::state::State;

pub fn run(state: &mut State) {
    state.units.retain(|u| u.hit_points > 0);
    let fallen: Vec<_> = state
        .buildings
        .iter()
        .filter(|b| b.hit_points == 0)
        .map(|b| b.id)
        .collect();
    for id in fallen {
        state.remove_building(id);
    }
    if !state.formations.is_empty() {
        crate::formation::tidy(state);
    }
}
