//! A client with a deliberately perturbed sim (the test switch `perturb_at_turn`) is caught on
//! that very turn, everyone is told, and the desync report holds the server's and the client's
//! states after that turn and names the client, the turn, the tick, the entity and the field.

use cohort_client::brain::RandomBrain;
use cohort_client::verify::{narration, narrow_report};
use cohort_protocol::message::Role;
use cohort_protocol::report::read_report;
use cohort_sim::hash::Entry;
use cohort_sim::Ruleset;
use cohort_tests::*;
use std::sync::Arc;

/// The turn the perturbed client goes wrong after.
const PERTURB_AT: u64 = 40;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_perturbed_client_is_caught_on_that_turn_and_the_report_names_it() {
    let server = TestServer::start(
        "desync",
        &[
            "--turn-ticks",
            "2",
            "--max-turns",
            "70",
            "--on-desync",
            "continue",
        ],
    )
    .await
    .unwrap();
    let honest = spawn_bot(
        &server,
        plan(
            server.token("default", Role::Player(0)),
            "honest",
            Box::new(RandomBrain::new(5)),
        ),
    );
    let mut bad = plan(
        server.token("default", Role::Player(1)),
        "perturbed",
        Box::new(RandomBrain::new(6)),
    );
    bad.options.perturb_at_turn = Some(PERTURB_AT);
    let bad = spawn_bot(&server, bad);
    let honest = outcome(honest).await;
    let bad = outcome(bad).await;
    let summary = server.finish().await.unwrap();

    // Everyone is told, on that very turn, and the perturbed client is the one named.
    for o in [&honest, &bad] {
        let first = o.desyncs.first().expect("a desync notice");
        assert_eq!(first.turn, PERTURB_AT);
        assert_eq!(first.players, vec![1]);
        assert!(first.continuing);
    }
    assert_eq!(
        honest.tally.hashes_disagreed, 0,
        "the honest client agrees throughout"
    );
    assert!(bad.tally.hashes_disagreed > 0);

    // The report: the turn, the client, and what differs.
    let m = &summary.matches[0];
    assert!(m.stats.desyncs >= 1);
    let path = m.reports.first().expect("a desync report was written");
    let report = read_report(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(report.turn, PERTURB_AT);
    assert_eq!(report.diverged, vec![1]);
    let n = narrow_report(&report, Arc::new(Ruleset::default_rules()), |_| {}).unwrap();
    assert_eq!(n.turn, PERTURB_AT);
    assert_eq!(
        n.records_verify, None,
        "the server's own record re-simulates"
    );
    assert_eq!(n.ticks, (PERTURB_AT * 2 + 1, PERTURB_AT * 2 + 2));

    // Both states are the ones after the failing turn, however many turns the client had run
    // on by the time it was asked: the server's, and the client's own (its hash is the one it
    // sent for that turn, not a re-simulation).
    assert_eq!(report.server.turn, PERTURB_AT);
    assert_eq!(report.server.snapshot.state.tick, (PERTURB_AT + 1) * 2);
    let client = report.client.as_ref().expect("the client sent its state");
    assert_eq!((client.player, client.name.as_str()), (1, "perturbed"));
    assert_eq!(client.view.turn, PERTURB_AT);
    assert_eq!(client.view.snapshot.state.tick, (PERTURB_AT + 1) * 2);
    let sent = report.peer_hashes.iter().find(|p| p.player == 1).unwrap();
    assert_eq!(sent.hash, Some(client.view.hash));
    assert_ne!(client.view.hash, report.server.hash);

    // `cohort replay REPORT` pins the tick, the entity and the field from the two states.
    assert_eq!(n.client_turn, Some(PERTURB_AT));
    assert_eq!(n.client_tick, Some(n.ticks.1));
    assert_eq!(n.parts, vec!["units".to_string()]);
    let first_unit = report.server.snapshot.state.units[0].id;
    assert_eq!(n.entities, vec![Entry::Unit(first_unit)]);
    let field = n.field.clone().expect("a field");
    let path = format!("units[id {}].position.x", first_unit.0);
    assert_eq!(field.path, path);
    let told = narration(&n).join("\n");
    for line in [
        format!(
            "client state after turn {PERTURB_AT}, at tick {}",
            n.ticks.1
        ),
        format!("entities that differ: unit {}", first_unit.0),
        format!("first field that differs: {path}"),
    ] {
        assert!(told.contains(&line), "{told}");
    }
}
