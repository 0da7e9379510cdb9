//! The movement spec's self-checks (spec: "Checks"), runnable from `cohort verify [NAMES]` and
//! from the tests in `sim/tests/verify.rs`, which call the same functions.
//!
//! Each check builds its scene, runs the sim, measures, and says whether the behaviour holds,
//! with the figures it measured. Same build, same figures, on every machine.

mod checks;
mod scene;
mod walking;

pub use scene::Scene;

/// What one check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub name: &'static str,
    pub passed: bool,
    /// The figures it measured, by name.
    pub figures: Vec<(&'static str, String)>,
}

impl Outcome {
    fn new(name: &'static str) -> Outcome {
        Outcome {
            name,
            passed: true,
            figures: Vec::new(),
        }
    }

    /// Records a figure.
    fn figure(&mut self, name: &'static str, value: impl std::fmt::Display) {
        self.figures.push((name, value.to_string()));
    }

    /// Records a figure that must hold.
    fn require(&mut self, name: &'static str, value: impl std::fmt::Display, holds: bool) {
        self.figure(name, value);
        self.passed &= holds;
    }
}

/// A check: its name and the function that runs it.
pub type Check = (&'static str, fn() -> Outcome);

/// Every check, in the order `cohort verify` runs them.
pub const CHECKS: [Check; 11] = [
    ("planner", checks::planner),
    ("march", checks::march),
    ("sharedwalk", walking::sharedwalk),
    ("crowdgoal", walking::crowdgoal),
    ("replanspread", checks::replanspread),
    ("arrive50", walking::arrive50),
    ("goldmine", checks::goldmine),
    ("shore", walking::shore),
    ("gap", walking::gap),
    ("formation", walking::formation),
    ("chasetable", checks::chasetable),
];

/// A name that is no check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no check named `{0}` (the checks: {list})", list = CHECKS.map(|c| c.0).join(", "))]
pub struct UnknownCheck(pub String);

/// Runs the checks named (all of them when `names` is empty), in the order of [`CHECKS`].
pub fn run(names: &[String]) -> Result<Vec<Outcome>, UnknownCheck> {
    if let Some(bad) = names
        .iter()
        .find(|n| !CHECKS.iter().any(|c| c.0 == n.as_str()))
    {
        return Err(UnknownCheck(bad.clone()));
    }
    Ok(CHECKS
        .iter()
        .filter(|c| names.is_empty() || names.iter().any(|n| n == c.0))
        .map(|c| (c.1)())
        .collect())
}

/// Runs one check by name.
pub fn run_one(name: &str) -> Result<Outcome, UnknownCheck> {
    run(&[name.to_string()]).map(|mut v| v.remove(0))
}
