//! Proof from C of the sim layer without a server: docs/examples/cohort_world.c, compiled with
//! the system `cc` against ffi/include/cohort.h and libcohort_ffi, loads a scenario by path,
//! steps it tick by tick (its turn is 4 ticks) to the hashes `cohort sim`'s runner gives,
//! moves a snapshot between worlds, runs a bundle of its own on both, and encodes the answer to
//! a SnapshotRequest; then the same under valgrind: no leak, no invalid access (valgrind missing
//! fails the test).

mod common;

use cohort_sim::scenario::Runner;
use common::*;
use std::process::Command;

#[test]
fn a_c_program_steps_a_scenario_and_exchanges_snapshots_without_a_server() {
    let dir = scratch("c-world");
    let exe = build_c_example("cohort_world", &dir);

    let scenario = root().join("scenarios/group_move.toml");
    let run = Command::new(&exe)
        .arg(&scenario)
        .arg("10")
        .output()
        .expect("the C program runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}\n{}",
        stdout,
        String::from_utf8_lossy(&run.stderr)
    );
    let mut runner = Runner::new(cohort_client::scenario_file::load_file(&scenario, None).unwrap());
    for tick in 1..=10 {
        runner.step();
        let line = format!("tick {tick} hash {}", hex::encode(runner.world.hash().0));
        assert!(stdout.contains(&line), "lacks `{line}`:\n{stdout}");
    }
    assert!(stdout.contains("turn 3 hash "), "{stdout}");
    assert!(
        stdout.contains("evidence for turn 3: 4 tick hashes"),
        "{stdout}"
    );

    // A check that was not run has not passed: CI installs valgrind (`.ci/run`).
    assert!(
        valgrind_present(),
        "valgrind is not installed (apt-get install valgrind): the leak check cannot run"
    );
    let run = under_valgrind(&exe)
        .arg(&scenario)
        .arg("10")
        .output()
        .expect("valgrind runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success() && stderr.contains("ERROR SUMMARY: 0 errors"),
        "valgrind found errors:\n{stderr}"
    );
}
