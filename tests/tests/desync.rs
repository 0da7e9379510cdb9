//! A client with a deliberately perturbed sim (the test switch `perturb_at_tick`, in the middle
//! of a turn) is caught on that very turn, everyone is told, and the desync report holds both
//! sides' tick hashes of the turn, the client's states at its start and at the tick it went
//! wrong, and both states after the turn; `cohort replay` names the client, the turn, the tick,
//! the entity and the field.

use cohort_client::brain::RandomBrain;
use cohort_client::verify::{narration, narrow_report, Compared, Stage};
use cohort_protocol::message::Role;
use cohort_protocol::report::read_report;
use cohort_sim::hash::Entry;
use cohort_sim::Ruleset;
use cohort_tests::*;
use std::sync::Arc;

/// The turn the perturbed client goes wrong in.
const PERTURB_AT: u64 = 40;
/// Ticks a turn.
const TURN_TICKS: u64 = 4;
/// The tick after which it goes wrong: the second of that turn.
const PERTURB_TICK: u64 = PERTURB_AT * TURN_TICKS + 2;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_perturbed_client_is_caught_on_that_turn_and_the_report_names_it() {
    let server = TestServer::start(
        "desync",
        &[
            "--turn-ticks",
            "4",
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
    bad.options.perturb_at_tick = Some(PERTURB_TICK);
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
    assert_eq!(
        n.ticks,
        (PERTURB_AT * TURN_TICKS + 1, (PERTURB_AT + 1) * TURN_TICKS)
    );
    assert_eq!(n.server_ticks_reproduced, Some(true));

    // Both states after the failing turn, however many turns the client had run on by the
    // time it was asked: the server's, and the client's own (its hash is the one it sent for
    // that turn, not a re-simulation).
    assert_eq!(report.server.turn, PERTURB_AT);
    assert_eq!(
        report.server.snapshot.state.tick,
        (PERTURB_AT + 1) * TURN_TICKS
    );
    let client = report.client.as_ref().expect("the client sent its state");
    assert_eq!((client.player, client.name.as_str()), (1, "perturbed"));
    assert_eq!(client.view.turn, PERTURB_AT);
    let sent = report.peer_hashes.iter().find(|p| p.player == 1).unwrap();
    assert_eq!(sent.hash, Some(client.view.hash));
    assert_ne!(client.view.hash, report.server.hash);

    // Both sides' tick hashes: equal for the turn's first tick, apart from its second on.
    assert!(client.notes.is_empty(), "{:?}", client.notes);
    let (theirs, ours) = (&client.tick_hashes, &report.server_tick_hashes);
    assert_eq!((theirs.len(), ours.len()), (4, 4));
    assert_eq!(theirs[0], ours[0]);
    assert_ne!(theirs[1], ours[1]);
    let start = client
        .start
        .as_ref()
        .expect("its state at the turn's start");
    assert_eq!(start.state.tick, PERTURB_AT * TURN_TICKS);
    let at = client.at_tick.as_ref().expect("its state at the tick");
    assert_eq!(at.state.tick, PERTURB_TICK);

    // `cohort replay REPORT` pins the tick, the entity and every field, with both values.
    assert_eq!(n.first_tick, Some(PERTURB_TICK));
    assert_eq!(
        n.compared,
        Some(Compared {
            tick: PERTURB_TICK,
            stage: Stage::FirstTick
        })
    );
    assert_eq!(n.parts, vec!["units".to_string()]);
    let first_unit = report.server.snapshot.state.units[0].id;
    assert_eq!(n.entities, vec![Entry::Unit(first_unit)]);
    let path = format!("units[id {}].position.x", first_unit.0);
    let paths: Vec<&str> = n.fields.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![path.as_str()],
        "only the nudged field, at that tick"
    );
    assert_ne!(n.fields[0].server, n.fields[0].client);
    let told = narration(&n).join("\n");
    println!("{told}");
    for line in [
        format!("first tick that differs: {PERTURB_TICK}"),
        format!("states compared: after tick {PERTURB_TICK}"),
        format!("entities that differ: unit {}", first_unit.0),
        format!("  {path}: server "),
    ] {
        assert!(told.contains(&line), "{told}");
    }
}
