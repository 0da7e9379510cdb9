//! Orders for someone else's units change nothing on any peer.

use cohort_client::brain::Script;
use cohort_client::text::command_text;
use cohort_protocol::message::{Role, TurnBundle};
use cohort_protocol::setup::run_bundle;
use cohort_protocol::MatchConfig;
use cohort_sim::{fx, Command, Ruleset, Vec2};
use cohort_tests::*;
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_for_another_players_units_change_nothing() {
    let server = TestServer::start("ownership", &["--turn-ticks", "2", "--max-turns", "60"])
        .await
        .unwrap();
    let rules = Arc::new(Ruleset::default_rules());
    let mut config = MatchConfig::standard("default", &rules, 2);
    config.turn_ticks = 2;
    let start = config.world(rules.clone()).unwrap();
    let theirs: Vec<_> = start
        .state()
        .units
        .iter()
        .filter(|u| u.owner == 1)
        .map(|u| u.id)
        .collect();
    assert!(!theirs.is_empty());
    // Player 0 orders player 1's units about, every few turns.
    let mut script = String::new();
    for turn in (0..50).step_by(5) {
        let c = Command::Move {
            units: theirs.clone(),
            to: Vec2::new(fx(10 + turn), fx(20)),
        };
        script.push_str(&format!("{turn} {}\n", command_text(&c)));
        let c = Command::Delete {
            units: vec![theirs[0]],
        };
        script.push_str(&format!("{turn} {}\n", command_text(&c)));
    }
    let thief = spawn_bot(
        &server,
        plan(
            server.token("default", Role::Player(0)),
            "thief",
            Box::new(Script::parse(&script).unwrap()),
        ),
    );
    let victim = spawn_bot(
        &server,
        plan(server.token("default", Role::Player(1)), "victim", idle()),
    );
    let thief = outcome(thief).await;
    let victim = outcome(victim).await;
    let summary = server.finish().await.unwrap();
    let replay = the_replay(&summary);
    assert!(thief.tally.commands_sent >= 20);

    // Every peer agrees with the server...
    assert_eq!(agrees_with_replay(&thief, &replay), replay.records.len());
    assert_eq!(agrees_with_replay(&victim, &replay), replay.records.len());
    // ...and the state is the one the same turns give with no orders at all.
    let mut quiet = start.clone();
    for r in &replay.records {
        let bundle = TurnBundle {
            commands: vec![],
            ..r.bundle.clone()
        };
        run_bundle(&mut quiet, &bundle, config.turn_ticks);
        assert_eq!(quiet.hash(), r.hash, "turn {}", r.bundle.turn);
    }
    let victims_units_now: Vec<_> = quiet
        .state()
        .units
        .iter()
        .filter(|u| u.owner == 1)
        .map(|u| (u.id, u.position))
        .collect();
    let victims_units_then: Vec<_> = start
        .state()
        .units
        .iter()
        .filter(|u| u.owner == 1)
        .map(|u| (u.id, u.position))
        .collect();
    assert_eq!(victims_units_now, victims_units_then);
}
