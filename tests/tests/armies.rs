//! Full armies against the real server (`cohort-server --army N`, `MapSpec::Armies`): bots
//! ordering crowds of their soldiers every turn, some simulating and hashing, agree with the
//! server on every turn and the replay verifies — the load benchmark's `sim` mode, small.
//!
//! On which turn each order lands depends on how fast the bots are (a late order goes to the
//! open turn: the lockstep core's rule, `a_late_command_goes_to_the_open_turn_and_its_sender_is_told`
//! on its simulated clock); what holds on any machine is that every player's orders were
//! played and the crowds among them.

use cohort_client::brain::RandomBrain;
use cohort_client::verify::{verify_replay, Verdict};
use cohort_protocol::message::{EndReason, Role};
use cohort_protocol::setup::MapSpec;
use cohort_sim::Ruleset;
use cohort_tests::*;
use std::sync::Arc;

/// Players, each with an army of [`ARMY`] (a debug build simulates it three times a tick here).
const PLAYERS: u8 = 4;
const ARMY: u32 = 200;
/// Turns played.
const TURNS: u64 = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_ordering_crowds_of_full_armies_every_turn_agree_with_the_server() {
    let (players, army, turns) = (PLAYERS.to_string(), ARMY.to_string(), TURNS.to_string());
    let server = TestServer::start(
        "armies",
        &[
            "--players",
            &players,
            "--army",
            &army,
            "--max-turns",
            &turns,
        ],
    )
    .await
    .unwrap();
    let bots: Vec<_> = (0..PLAYERS)
        .map(|p| {
            let token = server.token("default", Role::Player(p));
            // An order every turn, to up to 50 units.
            let brain = Box::new(RandomBrain::with(40 + u64::from(p), 1, 50));
            let mut plan = plan(token, &format!("army{p}"), brain);
            // Half the players simulate and hash (like `cohort bot --sim-every 2`).
            plan.options.simulate = p % 2 == 0;
            spawn_bot(&server, plan)
        })
        .collect();
    let outcomes = outcomes(bots).await;
    let summary = server.finish().await.unwrap();
    let replay = the_replay(&summary);
    assert!(matches!(
        replay.header.config.map,
        MapSpec::Armies { army: ARMY, .. }
    ));
    assert_eq!(replay.records.len() as u64, TURNS);
    assert_eq!(summary.matches[0].stats.desyncs, 0);
    for p in 0..PLAYERS {
        let played = replay
            .records
            .iter()
            .flat_map(|r| &r.bundle.commands)
            .filter(|c| c.player == p)
            .count();
        assert!(played > 0, "player {p}'s orders were played");
    }
    let crowd = replay
        .records
        .iter()
        .flat_map(|r| &r.bundle.commands)
        .filter_map(|c| match &c.command {
            cohort_sim::Command::Move { units, .. } => Some(units.len()),
            _ => None,
        })
        .max();
    assert!(crowd > Some(20), "crowds were ordered: {crowd:?}");
    for (p, o) in outcomes.iter().enumerate() {
        assert_eq!(o.ended.map(|e| e.reason), Some(EndReason::TurnLimit));
        assert_eq!(o.tally.turns_run, TURNS);
        assert_eq!(o.tally.hashes_disagreed, 0);
        assert!(o.desyncs.is_empty());
        let hashed = agrees_with_replay(o, &replay) as u64;
        assert_eq!(hashed, if p % 2 == 0 { TURNS } else { 0 }, "bot {p}");
    }
    let verdict = verify_replay(&replay, Arc::new(Ruleset::default_rules()), |_| {}).unwrap();
    assert!(matches!(verdict, Verdict::Verified { turns: TURNS, .. }));
}
