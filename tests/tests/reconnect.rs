//! A client whose link is cut mid-match (a relay on loopback drops every packet) notices the
//! server's silence, reconnects with backoff once the link is back, takes its seat back with a
//! snapshot and agrees on every later hash; the other player plays on throughout.

use cohort_client::brain::RandomBrain;
use cohort_client::session::{run_bot, Connect};
use cohort_protocol::message::{EndReason, Membership, MembershipEvent, Role};
use cohort_sim::Ruleset;
use cohort_tests::*;
use std::sync::Arc;
use std::time::Duration;

/// Turns in the match (32 ms each): about 16 s.
const TURNS: u64 = 500;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_whose_link_is_cut_reconnects_and_plays_on() {
    let turns = TURNS.to_string();
    let server = TestServer::start("reconnect", &["--turn-ticks", "2", "--max-turns", &turns])
        .await
        .unwrap();
    let relay = Relay::start(&server.addr).await.unwrap();
    let steady = spawn_bot(
        &server,
        plan(
            server.token("default", Role::Player(0)),
            "steady",
            Box::new(RandomBrain::new(1)),
        ),
    );
    let through = Connect {
        server: relay.addr.clone(),
        ..server.connect()
    };
    let cut_off = plan(
        server.token("default", Role::Player(1)),
        "cut off",
        Box::new(RandomBrain::new(2)),
    );
    let cut_off = tokio::spawn(async move {
        run_bot(&through, cut_off, Arc::new(Ruleset::default_rules())).await
    });
    tokio::time::sleep(Duration::from_secs(3)).await;
    // Longer than the client's silence limit: it gives the connection up and tries again.
    relay.cut(true);
    tokio::time::sleep(Duration::from_millis(
        cohort_client::core::SERVER_SILENCE_MS + 1_000,
    ))
    .await;
    relay.cut(false);
    let steady = outcome(steady).await;
    let back = outcome(cut_off).await;
    let summary = server.finish().await.unwrap();
    let replay = the_replay(&summary);

    assert_eq!(back.reconnects, 1, "{back:?}");
    assert_eq!(back.snapshot_agreed, Some(true));
    assert_eq!(back.ended.map(|e| e.reason), Some(EndReason::TurnLimit));
    assert_eq!(back.tally.hashes_disagreed, 0);
    assert!(agrees_with_replay(&back, &replay) > 100);
    assert!(
        back.hashes.keys().any(|t| *t > TURNS - 10),
        "it played to the end"
    );
    // The server dropped the silent seat for lag, then gave it back.
    let events: Vec<MembershipEvent> = replay.records[1..]
        .iter()
        .flat_map(|r| r.bundle.events.clone())
        .collect();
    let seat = |change| MembershipEvent { player: 1, change };
    assert_eq!(
        events,
        vec![seat(Membership::Dropped), seat(Membership::Joined)]
    );
    assert_eq!(steady.tally.turns_run, TURNS);
    assert_eq!(agrees_with_replay(&steady, &replay) as u64, TURNS);
    assert_eq!(summary.matches[0].stats.desyncs, 0);
}
