//! Proof from Python: docs/examples/cohort_ctypes.py loads libcohort_ffi with ctypes (the
//! standard library only), joins a real server beside a `cohort bot`, plays 300 turns giving
//! orders for its own units, and every hash it sends is the server's.

mod common;

use common::*;
use std::process::Command;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_program_plays_300_turns_with_the_servers_hashes() {
    let lib = library();
    let script = root().join("docs/examples/cohort_ctypes.py");
    let run = play_beside_a_bot("py-client", 2, |server, fingerprint, token| {
        let mut c = Command::new("python3");
        c.arg(&script).arg("--lib").arg(&lib).args([
            "--server",
            server,
            "--fingerprint",
            fingerprint,
            "--token",
            token,
        ]);
        c
    })
    .await;
    assert!(
        run.stdout.contains("joined default as player 0"),
        "{}",
        run.stdout
    );
}
