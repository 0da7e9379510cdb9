//! `cohort sim` without `--json`: the human summary of a run.

use super::json::num;
use super::seconds;
use cohort_sim::scenario::Report;
use std::io::Write;

/// The human summary: what ran, where every unit ended up (the first few), the counters, the hash.
pub fn write_summary(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    /// Units listed one by one in the summary; the rest are counted.
    const LISTED_UNITS: usize = 24;
    writeln!(out, "scenario  {}", r.scenario)?;
    writeln!(
        out,
        "ran       {} ticks ({} turns of {} ticks) on a {}x{} map",
        r.ticks,
        r.turn_hashes.len(),
        r.turn_ticks,
        r.width,
        r.height
    )?;
    let moving = r.units.iter().filter(|u| !u.route.is_empty()).count();
    writeln!(
        out,
        "units     {} ({} still walking)",
        r.units.len(),
        moving
    )?;
    for u in r.units.iter().take(LISTED_UNITS) {
        writeln!(
            out,
            "  #{:<5} {:<14} player {}  at ({:>8.3}, {:>8.3})  {:?}",
            u.id.0,
            u.kind,
            u.owner,
            num(u.position.x),
            num(u.position.y),
            u.state
        )?;
    }
    if r.units.len() > LISTED_UNITS {
        writeln!(out, "  … and {} more", r.units.len() - LISTED_UNITS)?;
    }
    let counters = serde_json::to_value(&r.counters).unwrap_or_default();
    if let Some(map) = counters.as_object() {
        writeln!(out, "counters")?;
        for (k, v) in map {
            writeln!(out, "  {k:<18} {v}")?;
        }
    }
    let w = &r.watch;
    let stalled = w.stalled.iter().filter(|s| !s.waiting).count();
    let longest = w.longest_stall.map_or(0.0, |s| seconds(s.ticks));
    writeln!(
        out,
        "stalled   {stalled} now, {} waiting for a place; longest stall {longest:.2} s",
        w.stalled.len() - stalled
    )?;
    let most_free = w.waits.iter().max_by_key(|x| x.free_ticks);
    writeln!(
        out,
        "waits     {} of a second or more; most free {:.2} s; {} with a minute of a place free",
        w.waits.len(),
        most_free.map_or(0.0, |x| seconds(x.free_ticks)),
        w.waits.iter().filter(|x| x.fails()).count()
    )?;
    let b = &w.bodies;
    writeln!(
        out,
        "overlaps  {} now, {} during the run",
        b.overlaps.len(),
        b.onsets
    )?;
    writeln!(
        out,
        "apart     nearest {}‰ of the allowance, {:.2} s longest under 900‰, {} faults",
        b.deepest.map_or(1000, |d| d.per_mille),
        b.longest_close.map_or(0.0, |r| seconds(r.ticks)),
        b.faults().len()
    )?;
    writeln!(
        out,
        "closed    {} bodies over closed ground now",
        w.in_closed_ground.len()
    )?;
    writeln!(out, "final hash {}", r.final_hash)
}
