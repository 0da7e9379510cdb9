//! A client whose link is cut mid-match (a relay on loopback drops every packet) notices the
//! server's silence, reconnects with backoff once the link is back, takes its seat back with a
//! snapshot and agrees on every later hash; the other player plays on throughout.

use cohort_client::brain::RandomBrain;
use cohort_client::session::{run_bot, run_bot_paced, Connect, Pace, Reconnect};
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_whose_server_is_gone_for_good_gives_up_and_keeps_its_tally() {
    let server = TestServer::start("gone", &["--turn-ticks", "2", "--max-turns", "400"])
        .await
        .unwrap();
    let relay = Relay::start(&server.addr).await.unwrap();
    let steady = spawn_bot(
        &server,
        plan(server.token("default", Role::Player(0)), "steady", idle()),
    );
    let through = Connect {
        server: relay.addr.clone(),
        ..server.connect()
    };
    let stranded = plan(server.token("default", Role::Player(1)), "stranded", idle());
    let once = Pace::new(
        1,
        Reconnect {
            attempts: 1,
            first_wait: Duration::from_millis(100),
            max_wait: Duration::from_millis(100),
        },
    );
    let stranded = tokio::spawn(async move {
        run_bot_paced(
            &through,
            stranded,
            Arc::new(Ruleset::default_rules()),
            &once,
        )
        .await
    });
    tokio::time::sleep(Duration::from_secs(2)).await;
    relay.cut(true);
    let o = tokio::time::timeout(TEST_LIMIT, stranded)
        .await
        .unwrap()
        .unwrap();
    let error = o.error.clone().expect("it failed");
    assert!(
        error.contains("gave up after 1 reconnection tries"),
        "{error}"
    );
    assert!(o.failed());
    assert!(o.tally.turns_run > 10, "the turns it ran are kept: {o:?}");
    assert_eq!(o.tally.hashes_disagreed, 0);
    assert_eq!(o.reconnects, 0);
    outcome(steady).await;
    server.finish().await.unwrap();
}
