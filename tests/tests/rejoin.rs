//! A client killed mid-match rejoins with its token: it loads the server's snapshot, checks it
//! against the server's hash, catches up, and agrees on every later hash; a spectator agrees too.
//!
//! Nothing here waits for a time: the client is killed once it has run turn 20, the match is
//! stopped once the rejoined client and the spectator have each run [`BACK_FOR`] turns.

use cohort_client::brain::RandomBrain;
use cohort_protocol::message::{EndReason, Role};
use cohort_tests::*;

/// Turns the rejoined client and the spectator each run before they leave.
const BACK_FOR: u64 = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_client_rejoins_and_agrees_and_so_does_a_spectator() {
    // No turn limit: the match runs until the test has seen what it needs, then is stopped.
    let server = TestServer::start("rejoin", &["--turn-ticks", "2"])
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
    let (brain, mut doomed_turn) = told(Box::new(RandomBrain::new(2)));
    let doomed = spawn_bot(&server, plan(token.clone(), "doomed", brain));
    // Let the match run, then kill the client: its task and connection vanish mid-match.
    until(&mut doomed_turn, |&t| t >= 20).await;
    doomed.abort();
    let _ = doomed.await;

    let mut back = plan(token, "back again", Box::new(RandomBrain::new(3)));
    back.turns = Some(BACK_FOR);
    let back = spawn_bot(&server, back);
    let mut watcher = plan(server.token("default", Role::Spectator), "watcher", idle());
    watcher.turns = Some(BACK_FOR);
    let spectator = spawn_bot(&server, watcher);
    let back = outcome(back).await;
    let spectator = outcome(spectator).await;
    let summary = server.stop().await.unwrap();
    let steady = outcome(steady).await;
    let replay = the_replay(&summary);

    assert_eq!(
        back.snapshot_agreed,
        Some(true),
        "the snapshot matched the server's hash"
    );
    assert_eq!(
        back.tally.turns_run, BACK_FOR,
        "it played on after rejoining"
    );
    assert_eq!(back.tally.hashes_disagreed, 0);
    assert_eq!(agrees_with_replay(&back, &replay) as u64, BACK_FOR);
    assert_eq!(spectator.tally.hashes_disagreed, 0);
    assert_eq!(agrees_with_replay(&spectator, &replay) as u64, BACK_FOR);
    assert_eq!(
        steady.ended.map(|e| e.reason),
        Some(EndReason::ServerShutdown)
    );
    assert_eq!(steady.tally.hashes_disagreed, 0);
    // The steady player ran every turn from the first, each agreeing with the server.
    let ran: Vec<u64> = steady.hashes.keys().copied().collect();
    assert_eq!(ran, (0..ran.len() as u64).collect::<Vec<_>>());
    assert!(agrees_with_replay(&steady, &replay) > 20 + BACK_FOR as usize);
    assert_eq!(summary.matches[0].stats.desyncs, 0);
}
