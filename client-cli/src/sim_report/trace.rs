//! `cohort sim --trace FILE`: every unit's position after every tick, as CSV
//! (`tick,unit,owner,x,y`).

use cohort_sim::World;
use std::io::Write;

/// The trace's header and every unit's position at the start (tick 0 of the run).
pub fn write_trace_header(out: &mut impl Write, world: &World) -> std::io::Result<()> {
    writeln!(out, "tick,unit,owner,x,y")?;
    write_trace_tick(out, world)
}

/// One line per living unit: the tick just run, its id, owner and position (exact decimals).
pub fn write_trace_tick(out: &mut impl Write, world: &World) -> std::io::Result<()> {
    for u in &world.state().units {
        writeln!(
            out,
            "{},{},{},{},{}",
            world.tick(),
            u.id.0,
            u.owner,
            u.position.x,
            u.position.y
        )?;
    }
    Ok(())
}
