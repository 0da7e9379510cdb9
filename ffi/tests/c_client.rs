//! Proof from C: docs/examples/cohort_client.c, compiled with the system `cc` against
//! ffi/include/cohort.h and libcohort_ffi, joins a real server beside a `cohort bot`, plays 300
//! turns giving orders for its own units, and every hash it sends is the server's. Then the
//! same again under valgrind (`--leak-check=full`, errors fail the run): no leak, no invalid
//! access (every leak kind counts as an error; ffi/tests/valgrind.supp names the two reports
//! that are not Cohort's and why). Where valgrind is missing the test fails: a check that was
//! not run has not passed (CI installs valgrind, `.ci/run`).

mod common;

use common::*;
use std::process::Command;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_c_program_plays_300_turns_with_the_servers_hashes_and_leaks_nothing() {
    let dir = scratch("c");
    let exe = build_c_example("cohort_client", &dir);
    let run = play_beside_a_bot("c-client", 2, |server, fingerprint, token| {
        let mut c = Command::new(&exe);
        c.args([server, fingerprint, token]);
        c
    })
    .await;
    assert!(
        run.stdout.contains("joined default as player 0"),
        "{}",
        run.stdout
    );

    assert!(
        valgrind_present(),
        "valgrind is not installed (apt-get install valgrind): the leak check cannot run"
    );
    // Slower turns: the client runs many times slower under valgrind, and must keep up.
    let run = play_beside_a_bot("c-client-valgrind", 8, |server, fingerprint, token| {
        let mut c = under_valgrind(&exe);
        c.args([server, fingerprint, token]);
        c
    })
    .await;
    assert!(
        run.stderr.contains("ERROR SUMMARY: 0 errors"),
        "valgrind found errors:\n{}",
        run.stderr
    );
}

/// The example told a certificate that is not the pinned one ends at once with status 2,
/// saying so (SERVER_NOT_TRUSTED), rather than waiting on a connection that will never be.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_c_program_told_another_certificate_stops_at_once() {
    let dir = scratch("c-untrusted");
    let exe = build_c_example("cohort_client", &dir);
    let server = cohort_tests::TestServer::start("c-untrusted", &["--players", "2"])
        .await
        .expect("the server starts");
    let token = server.token("default", cohort_protocol::message::Role::Player(0));
    let mut c = Command::new(&exe);
    c.args([server.addr.as_str(), &"ab".repeat(32), &token]);
    let run = run_bounded(c, &dir, "c-untrusted").await;
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("server not trusted"), "{}", run.stderr);
    let _ = server.stop().await;
}
