//! A match played under another ruleset than the embedded default (`cohort-server --ruleset`,
//! `cohort play/bot --ruleset`): clients with the same file play it with every hash agreeing;
//! a client with the default is refused at the door with `RulesetMismatch`, both hashes named,
//! and the match is not disturbed.

use cohort_client::brain::RandomBrain;
use cohort_protocol::message::Role;
use cohort_sim::ruleset::DEFAULT_RULESET_TOML;
use cohort_sim::Ruleset;
use cohort_tests::*;
use std::sync::Arc;

/// Turns the match lasts.
const TURNS: u64 = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_under_another_ruleset_plays_and_the_default_is_refused() {
    // The default with faster villagers.
    let text = DEFAULT_RULESET_TOML.replacen("speed = 0.8", "speed = 0.9", 1);
    let rules = Arc::new(Ruleset::from_toml(&text, "faster.toml").unwrap());
    let default = Arc::new(Ruleset::default_rules());
    assert_ne!(rules.hash(), default.hash());
    let dir = std::env::temp_dir().join(format!("cohort-e2e-ruleset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("faster.toml");
    std::fs::write(&path, &text).unwrap();
    let turns = TURNS.to_string();
    let server = TestServer::start(
        "ruleset",
        &[
            "--ruleset",
            path.to_str().unwrap(),
            "--turn-ticks",
            "2",
            "--max-turns",
            &turns,
        ],
    )
    .await
    .unwrap();

    let refused = spawn_bot_with(
        &server,
        plan(
            server.token("default", Role::Player(1)),
            "default-rules",
            Box::new(RandomBrain::new(3)),
        ),
        default.clone(),
    );
    let refused = outcome(refused).await;
    let error = refused.errors.first().expect("refused at the door");
    assert!(error.contains("RulesetMismatch"), "{error}");
    assert!(error.contains(&hex::encode(rules.hash())), "{error}");
    assert!(error.contains(&hex::encode(default.hash())), "{error}");
    assert_eq!(refused.tally.turns_run, 0);

    let bots: Vec<_> = (0..2)
        .map(|p| {
            spawn_bot_with(
                &server,
                plan(
                    server.token("default", Role::Player(p)),
                    "faster",
                    Box::new(RandomBrain::new(u64::from(p))),
                ),
                rules.clone(),
            )
        })
        .collect();
    let outcomes = outcomes(bots).await;
    let summary = server.finish().await.unwrap();
    let replay = the_replay(&summary);
    assert_eq!(replay.header.config.ruleset_hash, rules.hash());
    for o in &outcomes {
        assert_eq!(o.tally.turns_run, TURNS);
        assert_eq!(o.tally.hashes_disagreed, 0);
        assert!(o.desyncs.is_empty());
        assert_eq!(agrees_with_replay(o, &replay), TURNS as usize);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
