//! A client whose link is cut mid-match (a relay on loopback drops every packet) notices the
//! server's silence, reconnects with backoff once the link is back, takes its seat back with a
//! snapshot and agrees on every later hash; the other player plays on throughout.
//!
//! Nothing here waits for a time: the link is cut once the client has run turn 20 and mended
//! once the server has dropped the silent seat (the other player's world shows it dropped), and
//! the match is stopped once the client, back, has run [`BACK_FOR`] turns. How long the server
//! waits before dropping a silent seat (`LAG_DROP_TURNS`) and the client before giving up on a
//! silent server (`SERVER_SILENCE_MS`) are the cores' rules, tested on their simulated clocks
//! (`server/src/lockstep/tests/lag.rs`, `client-cli/src/core/tests/connection.rs`).

use cohort_client::brain::RandomBrain;
use cohort_client::session::{run_bot_paced, BotOutcome, BotPlan, Connect, Pace, Reconnect};
use cohort_protocol::message::{EndReason, Membership, MembershipEvent, Role};
use cohort_sim::state::PlayerStatus;
use cohort_sim::Ruleset;
use cohort_tests::*;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// Turns the client runs once back before the match is stopped.
const BACK_FOR: u64 = 40;

/// Runs a bot through `through` that tries `attempts` times to reconnect, waiting 100 ms and
/// then up to `most` between tries.
fn spawn_paced(
    through: Connect,
    plan: BotPlan,
    attempts: u32,
    most: Duration,
) -> JoinHandle<BotOutcome> {
    let pace = Pace::new(
        1,
        Reconnect {
            attempts,
            window: cohort_client::session::RECONNECT_WINDOW,
            first_wait: Duration::from_millis(100),
            max_wait: most,
        },
    );
    tokio::spawn(async move {
        run_bot_paced(&through, plan, Arc::new(Ruleset::default_rules()), &pace).await
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_whose_link_is_cut_reconnects_and_plays_on() {
    // No turn limit: the match runs until the test has seen what it needs, then is stopped.
    let server = TestServer::start("reconnect", &["--turn-ticks", "2"])
        .await
        .unwrap();
    let relay = Relay::start(&server.addr).await.unwrap();
    // The steady player's world tells when seat 1 is dropped and when it is back (the turn and
    // the seat's status then).
    let (brain, mut seat_1) = watched(Box::new(RandomBrain::new(1)), (0, None), |turn, world| {
        (turn, world.state().players.get(1).map(|p| p.status))
    });
    let steady = spawn_bot(
        &server,
        plan(server.token("default", Role::Player(0)), "steady", brain),
    );
    let through = Connect {
        server: relay.addr.clone(),
        ..server.connect()
    };
    let (brain, mut cut_off_turn) = told(Box::new(RandomBrain::new(2)));
    let cut_off = plan(server.token("default", Role::Player(1)), "cut off", brain);
    // Tries again and again, however long the server takes to drop the seat.
    let cut_off = spawn_paced(through, cut_off, 10_000, Duration::from_millis(500));
    until(&mut cut_off_turn, |&t| t >= 20).await;
    relay.cut(true);
    until(&mut seat_1, |s| s.1 == Some(PlayerStatus::Dropped)).await;
    let cut_at = *cut_off_turn.borrow();
    relay.cut(false);
    until(&mut seat_1, |s| s.1 == Some(PlayerStatus::Playing)).await;
    let back_at = seat_1.borrow().0;
    until(&mut cut_off_turn, |&t| t >= back_at + BACK_FOR).await;
    let summary = server.stop().await.unwrap();
    let steady = outcome(steady).await;
    let back = outcome(cut_off).await;
    let replay = the_replay(&summary);

    assert_eq!(back.reconnects, 1, "{back:?}");
    assert_eq!(back.snapshot_agreed, Some(true));
    assert_eq!(
        back.ended.map(|e| e.reason),
        Some(EndReason::ServerShutdown)
    );
    assert_eq!(back.tally.hashes_disagreed, 0);
    assert!(agrees_with_replay(&back, &replay) as u64 > cut_at + BACK_FOR);
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
    let stats = &summary.matches[0].stats;
    assert_eq!((stats.dropped, stats.rejoins, stats.desyncs), (1, 1, 0));
    // The other player ran every turn from the first, each agreeing with the server.
    assert_eq!(steady.tally.hashes_disagreed, 0);
    let ran: Vec<u64> = steady.hashes.keys().copied().collect();
    assert_eq!(ran, (0..ran.len() as u64).collect::<Vec<_>>());
    assert!(agrees_with_replay(&steady, &replay) as u64 > back_at + BACK_FOR);
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
    let (brain, mut stranded_turn) = told(idle());
    let stranded = plan(server.token("default", Role::Player(1)), "stranded", brain);
    let stranded = spawn_paced(through, stranded, 1, Duration::from_millis(100));
    until(&mut stranded_turn, |&t| t >= 11).await;
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
