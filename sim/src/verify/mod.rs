//! The movement spec's self-checks (spec: "Checks"), runnable from `cohort verify [NAMES]` and
//! from the tests in `sim/tests/verify.rs`, which call the same functions.
//!
//! Every check's scene is a scenario file in `scenarios/verify/` (docs/SCENARIOS.md): the check
//! loads it, runs it, measures, and says whether the behaviour holds, with the figures it
//! measured. The files are embedded in the build ([`Embedded`]), so the checks run from an
//! installed binary anywhere; a caller may hand in other files of the same names through
//! [`Files`] (`cohort verify --dir DIR`). Same build, same files, same figures on every machine.

/// A file of `scenarios/verify/`, embedded: its name and text.
macro_rules! scene_file {
    ($file:literal) => {
        (
            $file,
            include_str!(concat!("../../../scenarios/verify/", $file)),
        )
    };
}

mod checks;
mod scene;

pub use scene::Scene;

use crate::id::EntityId;
use crate::scenario::Files;

/// Thousandths of the keep-apart allowance two bodies must keep (1000 less one for the last
/// bit of a fixed-point square root).
const APART_PER_MILLE: i64 = 999;

/// What one check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub name: &'static str,
    pub passed: bool,
    /// The figures it measured, by name.
    pub figures: Vec<(String, String)>,
    /// The names of the figures that did not hold (empty when it passed).
    pub failed: Vec<String>,
}

impl Outcome {
    fn new(name: &'static str) -> Outcome {
        Outcome {
            name,
            passed: true,
            figures: Vec::new(),
            failed: Vec::new(),
        }
    }

    /// Records a figure.
    fn figure(&mut self, name: impl Into<String>, value: impl std::fmt::Display) {
        self.figures.push((name.into(), value.to_string()));
    }

    /// Records a figure that must hold.
    fn require(&mut self, name: impl Into<String>, value: impl std::fmt::Display, holds: bool) {
        let name = name.into();
        if !holds {
            self.failed.push(name.clone());
        }
        self.figure(name, value);
        self.passed &= holds;
    }

    /// Requires that no two of `ids` stand nearer than the keep-apart allowance (kKeepApart:
    /// 3/4 of their two radii, at least [`APART_PER_MILLE`] thousandths of it) and that none
    /// stands on another's very point. Figures named `prefix…`.
    fn kept_apart(&mut self, prefix: &str, world: &crate::World, ids: &[crate::EntityId]) {
        let share = Scene::closest_share(world, ids);
        self.require(
            format!("{prefix}closest_pair_per_mille_of_allowance"),
            share,
            share >= APART_PER_MILLE,
        );
        let stacked = Scene::stacked(world, ids);
        self.require(format!("{prefix}stacked"), stacked, !stacked);
    }

    /// The entities scene `s` names `name`, at least `needs` of them: a figure `{prefix}{name}`,
    /// how many it names, that must hold. None when there are fewer (a group renamed or cut
    /// short in the file): the check then has nothing to measure, and has failed.
    fn group(
        &mut self,
        s: &Scene,
        prefix: &str,
        name: &str,
        needs: usize,
    ) -> Option<Vec<EntityId>> {
        let ids = s.ids(name);
        let enough = ids.len() >= needs.max(1);
        self.require(format!("{prefix}{name}"), ids.len(), enough);
        enough.then_some(ids)
    }

    /// The first entity scene `s` names `name`, which must be there ([`Outcome::group`] of one).
    fn one(&mut self, s: &Scene, prefix: &str, name: &str) -> Option<EntityId> {
        self.group(s, prefix, name, 1)
            .and_then(|ids| ids.first().copied())
    }

    /// Loads the scene of scenario file `file`; on a fault, records it as a failure.
    fn scene(&mut self, files: &dyn Files, file: &str) -> Option<Scene> {
        match Scene::load(files, file) {
            Ok(s) => Some(s),
            Err(e) => {
                self.require("scenario", e, false);
                None
            }
        }
    }
}

/// A check: its name, the scenario files (in `scenarios/verify/`) it runs, and the function
/// that runs and measures them.
pub struct Check {
    pub name: &'static str,
    pub files: &'static [&'static str],
    pub run: fn(&dyn Files) -> Outcome,
}

/// Every check, in the order `cohort verify` runs them.
pub const CHECKS: [Check; 11] = [
    Check {
        name: "planner",
        files: &["planner.toml"],
        run: checks::planner,
    },
    Check {
        name: "march",
        files: &[
            "march_width.toml",
            "march_no_stack.toml",
            "march_surround.toml",
            "march_wall.toml",
        ],
        run: checks::march,
    },
    Check {
        name: "sharedwalk",
        files: &["sharedwalk.toml"],
        run: checks::sharedwalk,
    },
    Check {
        name: "crowdgoal",
        files: &["crowdgoal_33.toml", "crowdgoal_32.toml"],
        run: checks::crowdgoal,
    },
    Check {
        name: "replanspread",
        files: &["replanspread.toml"],
        run: checks::replanspread,
    },
    Check {
        name: "arrive50",
        files: &["group50_arrival.toml"],
        run: checks::arrive50,
    },
    Check {
        name: "goldmine",
        files: &["gold_mine_8.toml"],
        run: checks::goldmine,
    },
    Check {
        name: "shore",
        files: &["sea_shore.toml"],
        run: checks::shore,
    },
    Check {
        name: "gap",
        files: &["gap_one_body.toml"],
        run: checks::gap,
    },
    Check {
        name: "formation",
        files: &["formation_mixed_speeds.toml"],
        run: checks::formation,
    },
    Check {
        name: "chasetable",
        files: &["chase_fleeing.toml"],
        run: checks::chasetable,
    },
];

/// The scenario files of `scenarios/verify/`, embedded in the build: (file name, text).
pub const SCENES: [(&str, &str); 15] = [
    scene_file!("planner.toml"),
    scene_file!("march_width.toml"),
    scene_file!("march_no_stack.toml"),
    scene_file!("march_surround.toml"),
    scene_file!("march_wall.toml"),
    scene_file!("sharedwalk.toml"),
    scene_file!("crowdgoal_33.toml"),
    scene_file!("crowdgoal_32.toml"),
    scene_file!("replanspread.toml"),
    scene_file!("group50_arrival.toml"),
    scene_file!("gold_mine_8.toml"),
    scene_file!("sea_shore.toml"),
    scene_file!("gap_one_body.toml"),
    scene_file!("formation_mixed_speeds.toml"),
    scene_file!("chase_fleeing.toml"),
];

/// The embedded `scenarios/verify/` files, as [`Files`] by file name.
pub struct Embedded;

impl Files for Embedded {
    fn read(&self, name: &str, _most: usize) -> Result<Vec<u8>, String> {
        SCENES
            .iter()
            .find(|s| s.0 == name)
            .map(|s| s.1.as_bytes().to_vec())
            .ok_or_else(|| format!("no scenario `{name}` is embedded for the checks"))
    }
}

/// A name that is no check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no check named `{0}` (the checks: {list})", list = CHECKS.map(|c| c.name).join(", "))]
pub struct UnknownCheck(pub String);

/// Runs the checks named (all of them when `names` is empty), in the order of [`CHECKS`], on
/// the scenario files `files` reads.
pub fn run(names: &[String], files: &dyn Files) -> Result<Vec<Outcome>, UnknownCheck> {
    if let Some(bad) = names
        .iter()
        .find(|n| !CHECKS.iter().any(|c| c.name == n.as_str()))
    {
        return Err(UnknownCheck(bad.clone()));
    }
    Ok(CHECKS
        .iter()
        .filter(|c| names.is_empty() || names.iter().any(|n| n == c.name))
        .map(|c| (c.run)(files))
        .collect())
}

/// Runs one check by name on the embedded files.
pub fn run_one(name: &str) -> Result<Outcome, UnknownCheck> {
    run(&[name.to_string()], &Embedded).map(|mut v| v.remove(0))
}
