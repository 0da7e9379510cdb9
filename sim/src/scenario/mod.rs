//! Scenarios: a TOML file (a map, players, units, buildings, resources, commands at ticks) loaded
//! into a [`World`] and run headless (docs/SCENARIOS.md). How behaviour is tested, benchmarked,
//! looked at (`cohort render`) and reported in bugs.
//!
//! The sim does no I/O: files a scenario names (a map, a ruleset) are read by the caller's
//! [`Files`]; the `cohort` binary and the tests read them from disk.

mod error;
mod format;
mod load;
mod report;
mod runner;
pub mod watch;

pub use error::{line_of, locate_field, text_of, ScenarioError};
pub use format::{
    Action, BuildingSpec, CommandSpec, MapSource, MapSpec, PlayerSpec, ResourceSpec, ScenarioFile,
    Status, StatusSpec, TargetRef, UnitBlock, UnitRef,
};
pub use load::{
    default_map, ruleset_error, ruleset_from_bytes, Files, NoFiles, Scenario, Scheduled,
    ScheduledStatus, MAX_MAP_FILE_BYTES, MAX_PLAYERS, MAX_SCENARIO_BYTES, MAX_SCENARIO_TICKS,
    MAX_SCENARIO_UNITS,
};
pub use report::{BuildingReport, ClosedGround, Report, ResourceReport, UnitReport};
pub use runner::Runner;
pub use watch::{Watch, WatchReport};

/// Ticks in a network turn when a scenario does not say.
pub const DEFAULT_TURN_TICKS: u32 = 4;
/// Ticks a scenario runs when neither it nor the caller says.
pub const DEFAULT_TICKS: u64 = 600;
/// The most ticks a network turn may last.
pub const MAX_TURN_TICKS: u32 = 1000;
