//! What `cohort sim` prints of a run: the `--json` report ([`ReportJson`], the schema CI
//! depends on), the human summary ([`write_summary`]) and the `--trace` CSV
//! ([`write_trace_header`], [`write_trace_tick`]).

mod json;
mod summary;
mod trace;

pub use json::ReportJson;
pub use summary::write_summary;
pub use trace::{write_trace_header, write_trace_tick};

/// Ticks as seconds of game time.
fn seconds(ticks: u64) -> f64 {
    ticks as f64 * f64::from(cohort_sim::world::TICK_MS) / 1000.0
}

#[cfg(test)]
mod tests;
