//! One tick, in the spec's order (DESIGN.md, "One tick, in order"):
//! prepare, survey, orders, combat, work (foundations closing their ground first), movement,
//! aftermath.
//!
//! Each step is a function of its own file taking the parts of the world a tick changes (a
//! [`Tick`], `crate::nav::parts`; the aftermath only the [`State`](crate::state::State)); every pass goes through
//! entities in id order. What each writes (every step reads the rules and the state):
//!
//! | step | writes |
//! |---|---|
//! | 1 prepare | `regions`, `search.landmarks` (layers whose walk revision changed) |
//! | 2 survey | `nav.survey` (filed afresh), `nav.shared_walks` (forgotten) |
//! | 3 orders | units' orders, states and routes; formations; foundations laid (their ground left open); `nav.marching`, `nav.shared_walks`, `search.scratch`, `counters` |
//! | 4 combat | units' fights, reloads, routes and hit points; buildings' hit points; `nav.set_on`, `nav.shared_chases`, `search.scratch`, `counters` |
//! | 5 work | foundations' ground closed; units' loads, progress and routes; resources (an emptied one removed, its tile freed); players' stock; buildings' build time; `search.scratch`, `counters` |
//! | 6 movement | units' positions, states, routes and pushes; `nav.survey` (bodies moved); `search.scratch`, `counters` |
//! | 7 aftermath | the dead units and fallen buildings removed, their ground freed; formations |

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
use crate::nav::Tick;

/// Runs one tick. Same state and commands in, same state out, on every machine.
pub fn step(tick: &mut Tick<'_>, commands: &[PlayerCommand]) {
    for u in &mut tick.state.units {
        u.previous_position = u.position;
    }
    prepare(tick);
    survey(tick);
    orders::carry_out(tick, commands);
    combat::run(tick);
    work::run(tick);
    movement::run(tick);
    aftermath::run(tick.state);
    tick.state.tick += 1;
}

/// Step 1: refresh regions (and landmarks) of layers whose walk revision changed.
pub(crate) fn prepare(tick: &mut Tick<'_>) {
    tick.regions.prepare(&tick.state.grid);
    tick.search.landmarks.prepare(&tick.state.grid);
}

/// Step 2: file every unit's body by tile, the index everything after reads, and forget the
/// walks shared in the last tick (spec "Units sent together": the list is forgotten at the next
/// survey). Nothing a tick plans outlives it, so a world loaded from a snapshot (which holds no
/// caches) plans exactly as the one it was taken from.
fn survey(tick: &mut Tick<'_>) {
    tick.nav.shared_walks.clear();
    file_survey(tick);
}

/// Files every unit's body by tile in the survey (step 2's filing, also asked for by the façade).
pub(crate) fn file_survey(tick: &mut Tick<'_>) {
    let mut survey = std::mem::take(&mut tick.nav.survey);
    survey.file(tick.view());
    tick.nav.survey = survey;
}
