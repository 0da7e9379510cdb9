//! Graceful shutdown (what SIGTERM and ctrl-c trigger): the server finishes the turn, flushes
//! the replay and tells the clients; the replay re-simulates to the clients' hashes. The server
//! is stopped once both bots have run turn 11, not after a time.

use cohort_client::brain::RandomBrain;
use cohort_client::verify::{verify_replay, Verdict};
use cohort_protocol::message::{EndReason, Role};
use cohort_sim::Ruleset;
use cohort_tests::*;
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_tells_the_clients_and_leaves_a_replay_that_verifies() {
    let server = TestServer::start("shutdown", &["--turn-ticks", "2"])
        .await
        .unwrap();
    let mut turns = Vec::new();
    let bots: Vec<_> = (0..2u8)
        .map(|p| {
            let (brain, turn) = told(Box::new(RandomBrain::new(u64::from(p) + 40)));
            turns.push(turn);
            spawn_bot(
                &server,
                plan(server.token("default", Role::Player(p)), "bot", brain),
            )
        })
        .collect();
    for turn in &mut turns {
        until(turn, |&t| t >= 11).await;
    }
    let summary = server.stop().await.unwrap();
    let replay = the_replay(&summary);
    assert!(replay.records.len() > 10);
    assert_eq!(replay.ignored_bytes, 0, "flushed whole");
    for b in bots {
        let o = outcome(b).await;
        assert_eq!(o.ended.map(|e| e.reason), Some(EndReason::ServerShutdown));
        assert_eq!(o.tally.hashes_disagreed, 0);
        assert!(agrees_with_replay(&o, &replay) > 10);
    }
    let verdict = verify_replay(&replay, Arc::new(Ruleset::default_rules()), |_| {}).unwrap();
    assert!(matches!(verdict, Verdict::Verified { .. }), "{verdict:?}");
}
