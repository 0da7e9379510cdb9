//! `/metrics`, `/healthz` and `/readyz` over real HTTP while real QUIC bots play on
//! 127.0.0.1: the scrape is read with a Prometheus text parser (prometheus-parse) and its
//! counters and histograms move with the match — turns, joins, a refused connection, a client
//! killed (a drop) and back (a rejoin), a perturbed client (a desync and its report), the
//! client hashes compared.

use cohort_client::brain::RandomBrain;
use cohort_protocol::message::{EndReason, Role};
use cohort_tests::*;
use prometheus_parse::{Scrape, Value};
use std::time::Duration;

async fn scrape(http: &reqwest::Client, base: &str) -> Scrape {
    let text = http
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("/metrics answers")
        .text()
        .await
        .unwrap();
    Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).expect("Prometheus text")
}

/// The value of the sample `name` whose labels include `labels`; 0 when there is none.
fn value(s: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    s.samples
        .iter()
        .filter(|x| x.metric == name)
        .filter(|x| labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .map(|x| match &x.value {
            Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => *v,
            Value::Histogram(_) | Value::Summary(_) => f64::NAN,
        })
        .next()
        .unwrap_or(0.0)
}

/// How many observations the histogram `name` holds (its `+Inf` bucket).
fn observations(s: &Scrape, name: &str) -> f64 {
    s.samples
        .iter()
        .filter(|x| x.metric == name)
        .find_map(|x| match &x.value {
            Value::Histogram(buckets) => buckets
                .iter()
                .find(|b| b.less_than == f64::INFINITY)
                .map(|b| b.count),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{name} is a histogram with a +Inf bucket"))
}

/// Scrapes until `ok` holds (bounded by [`TEST_LIMIT`]); that scrape.
async fn wait_for(
    http: &reqwest::Client,
    base: &str,
    what: &str,
    ok: impl Fn(&Scrape) -> bool,
) -> Scrape {
    let deadline = tokio::time::Instant::now() + TEST_LIMIT;
    loop {
        let s = scrape(http, base).await;
        if ok(&s) {
            return s;
        }
        assert!(tokio::time::Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_counters_move_during_a_bot_match() {
    // Two matches: m1 is played; m2 waits, which keeps the server up after m1 ends.
    let server = TestServer::start(
        "metrics",
        &[
            "--matches",
            "2",
            "--turn-ticks",
            "2",
            "--max-turns",
            "150",
            "--metrics",
            "127.0.0.1:0",
        ],
    )
    .await
    .unwrap();
    let base = format!("http://{}", server.metrics.expect("the metrics address"));
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let health = http.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status().as_u16(), 200);
    let ready = http.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status().as_u16(), 200);
    let before = scrape(&http, &base).await;
    assert_eq!(value(&before, "cohort_turns_total", &[]), 0.0);
    assert_eq!(value(&before, "cohort_matches_running", &[]), 2.0);
    // A token for a match this server does not host is refused at the door, by reason.
    let stranger = spawn_bot(
        &server,
        plan(server.token("nowhere", Role::Player(0)), "stranger", idle()),
    );
    let refused = tokio::time::timeout(TEST_LIMIT, stranger)
        .await
        .unwrap()
        .unwrap();
    assert!(
        refused.error.is_some() || refused.closed_by_error,
        "{refused:?}"
    );
    // Player 0's sim goes wrong after turn 20: a desync, and its report.
    let mut perturbed = plan(
        server.token("m1", Role::Player(0)),
        "perturbed",
        Box::new(RandomBrain::new(1)),
    );
    perturbed.options.perturb_at_turn = Some(20);
    let perturbed = spawn_bot(&server, perturbed);
    let token = server.token("m1", Role::Player(1));
    let doomed = spawn_bot(
        &server,
        plan(token.clone(), "doomed", Box::new(RandomBrain::new(2))),
    );
    // During the match: turns run, the live match has its labelled figures.
    let during = wait_for(&http, &base, "the match got going", |s| {
        value(s, "cohort_turns_total", &[]) >= 40.0
            && value(s, "cohort_match_players_connected", &[("match_id", "m1")]) == 2.0
    })
    .await;
    assert!(value(&during, "cohort_match_turn", &[("match_id", "m1")]) >= 40.0);
    assert_eq!(value(&during, "cohort_joins_total", &[]), 2.0);
    // Kill player 1's client mid-match: the server drops it; it comes back with its token.
    doomed.abort();
    let _ = doomed.await;
    wait_for(&http, &base, "the killed client is dropped", |s| {
        value(s, "cohort_drops_total", &[]) >= 1.0
    })
    .await;
    let back = spawn_bot(
        &server,
        plan(token, "back again", Box::new(RandomBrain::new(3))),
    );
    wait_for(&http, &base, "the client rejoins", |s| {
        value(s, "cohort_rejoins_total", &[]) >= 1.0
    })
    .await;
    for o in [perturbed, back] {
        let o = outcome(o).await;
        assert_eq!(o.ended.map(|e| e.reason), Some(EndReason::TurnLimit));
    }
    let after = scrape(&http, &base).await;
    assert_eq!(value(&after, "cohort_turns_total", &[]), 150.0);
    assert_eq!(value(&after, "cohort_joins_total", &[]), 3.0);
    assert!(value(&after, "cohort_desyncs_total", &[]) >= 1.0);
    assert!(value(&after, "cohort_desync_reports_total", &[]) >= 1.0);
    assert_eq!(
        value(
            &after,
            "cohort_connections_refused_total",
            &[("reason", "unknown_match")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &after,
            "cohort_matches_ended_total",
            &[("reason", "turn_limit")]
        ),
        1.0
    );
    assert_eq!(value(&after, "cohort_matches_running", &[]), 1.0);
    assert!(value(&after, "cohort_received_bytes_total", &[]) > 0.0);
    // Every bundle to each connected player is in the send jitter histogram (two players
    // for most of the 150 turns); the sims and the pings are measured too.
    assert!(observations(&after, "cohort_turn_send_jitter_seconds") >= 150.0);
    assert!(observations(&after, "cohort_turn_sim_seconds") > 0.0);
    assert!(observations(&after, "cohort_round_trip_seconds") > 0.0);
    // The ended match's labelled series are gone (labels stay bounded by the live matches).
    assert_eq!(
        value(&after, "cohort_match_turn", &[("match_id", "m1")]),
        0.0
    );
    assert!(after
        .samples
        .iter()
        .all(|s| s.labels.get("match_id") != Some("m1")));
    // Every client hash the server compared is counted (m2 has no players: none of its own),
    // the same count as the stats file's.
    let summary = server.stop().await.unwrap();
    assert!(summary.hashes_compared > 0);
    assert_eq!(
        value(&after, "cohort_hashes_compared_total", &[]),
        summary.hashes_compared as f64
    );
}
