//! A client killed mid-match rejoins with its token: it loads the server's snapshot, checks it
//! against the server's hash, catches up, and agrees on every later hash; a spectator agrees too.

use cohort_client::brain::RandomBrain;
use cohort_protocol::message::Role;
use cohort_tests::*;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_client_rejoins_and_agrees_and_so_does_a_spectator() {
    let server = TestServer::start("rejoin", &["--turn-ticks", "2", "--max-turns", "400"])
        .await
        .unwrap();
    let steady = spawn_bot(
        &server,
        plan(
            server.token("default", Role::Player(0)),
            "steady",
            Box::new(RandomBrain::new(1)),
        ),
    );
    let token = server.token("default", Role::Player(1));
    let doomed = spawn_bot(
        &server,
        plan(token.clone(), "doomed", Box::new(RandomBrain::new(2))),
    );
    // Let the match run, then kill the client: its task and connection vanish mid-turn.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!doomed.is_finished(), "the match is still running");
    doomed.abort();
    let _ = doomed.await;
    tokio::time::sleep(Duration::from_millis(500)).await;

    let back = spawn_bot(
        &server,
        plan(token, "back again", Box::new(RandomBrain::new(3))),
    );
    let spectator = spawn_bot(
        &server,
        plan(server.token("default", Role::Spectator), "watcher", idle()),
    );
    let steady = outcome(steady).await;
    let back = outcome(back).await;
    let spectator = outcome(spectator).await;
    let summary = server.finish().await.unwrap();
    let replay = the_replay(&summary);

    assert_eq!(
        back.snapshot_agreed,
        Some(true),
        "the snapshot matched the server's hash"
    );
    assert!(back.tally.turns_run > 10, "it played on after rejoining");
    assert_eq!(back.tally.hashes_disagreed, 0);
    assert!(agrees_with_replay(&back, &replay) > 10);
    assert_eq!(spectator.tally.hashes_disagreed, 0);
    assert!(agrees_with_replay(&spectator, &replay) > 10);
    assert_eq!(steady.tally.hashes_disagreed, 0);
    assert_eq!(agrees_with_replay(&steady, &replay), replay.records.len());
    assert_eq!(summary.matches[0].stats.desyncs, 0);
}
