//! A client with a deliberately perturbed sim (the test switch `perturb_at_turn`) is caught on
//! that very turn, everyone is told, and the desync report names the client, the turn, the
//! entity and the field.

use cohort_client::brain::RandomBrain;
use cohort_client::verify::narrow_report;
use cohort_protocol::message::Role;
use cohort_protocol::report::read_report;
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
    assert!(n.client_turn.is_some(), "the client sent its state");
    assert!(n.parts.contains(&"units".to_string()), "{:?}", n.parts);
    let first_unit = report.server.snapshot.state.units[0].id;
    assert_eq!(n.entities.first(), Some(&first_unit));
    let field = n.field.expect("a field");
    assert_eq!(field.path, format!("units[id {}].position.x", first_unit.0));
}
