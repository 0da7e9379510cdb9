//! 3 bots play 2,000 turns against the real server: zero desyncs, every hash equal to the
//! server's.

use cohort_client::brain::RandomBrain;
use cohort_client::verify::{verify_replay, Verdict};
use cohort_protocol::message::{EndReason, Role};
use cohort_sim::Ruleset;
use cohort_tests::*;
use std::sync::Arc;

/// Turns played.
const TURNS: u64 = 2000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_bots_play_two_thousand_turns_without_a_desync() {
    let turns = TURNS.to_string();
    let server = TestServer::start(
        "play",
        &["--players", "3", "--turn-ticks", "1", "--max-turns", &turns],
    )
    .await
    .unwrap();
    let bots: Vec<_> = (0..3u8)
        .map(|p| {
            let token = server.token("default", Role::Player(p));
            let brain = Box::new(RandomBrain::new(100 + u64::from(p)));
            spawn_bot(&server, plan(token, &format!("bot{p}"), brain))
        })
        .collect();
    let outcomes = outcomes(bots).await;
    let summary = server.finish().await.unwrap();
    let replay = the_replay(&summary);
    assert_eq!(replay.records.len() as u64, TURNS);
    assert_eq!(summary.matches[0].stats.desyncs, 0);
    assert!(summary.matches[0].reports.is_empty());
    for o in &outcomes {
        assert_eq!(o.ended.map(|e| e.reason), Some(EndReason::TurnLimit));
        assert_eq!(o.tally.turns_run, TURNS);
        assert_eq!(o.tally.hashes_disagreed, 0);
        assert!(o.desyncs.is_empty());
        assert!(o.tally.commands_sent > 0, "the bots gave orders");
        assert_eq!(agrees_with_replay(o, &replay) as u64, TURNS);
    }
    let verdict = verify_replay(&replay, Arc::new(Ruleset::default_rules()), |_| {}).unwrap();
    assert!(matches!(verdict, Verdict::Verified { turns: TURNS, .. }));
}
