//! Which of a flag and its environment variable wins (docs/OPERATIONS.md, "Configuration"):
//! the flag; the variable stands in for a flag not given; the file comes under both; and the
//! admin token's file (flag, variable or key) comes before the `COHORT_ADMIN_TOKEN` variable.
//! Its own test binary with one test: it sets the process's environment.

use clap::Parser;
use cohort_server::config::{Args, ServerConfig};
use cohort_sim::Ruleset;

fn parse(argv: &[&str]) -> Result<Args, clap::Error> {
    Args::try_parse_from(std::iter::once("cohort-server").chain(argv.iter().copied()))
}

#[test]
fn a_flag_wins_over_its_variable_and_both_over_the_file() {
    let dir = std::env::temp_dir().join(format!("cohort-flags-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = Ruleset::default_rules();

    std::env::set_var("COHORT_TURN_TICKS", "4");
    std::env::set_var("COHORT_MAX_MATCHES", "7");
    std::env::set_var("COHORT_FIXED_DELAY", "true");
    // The variable stands in for the flag not given.
    let a = parse(&[]).unwrap();
    assert_eq!(
        (a.turn_ticks, a.max_matches, a.fixed_delay),
        (Some(4), Some(7), true)
    );
    // The flag wins over its variable.
    let a = parse(&["--turn-ticks", "6", "--max-matches", "9"]).unwrap();
    assert_eq!((a.turn_ticks, a.max_matches), (Some(6), Some(9)));
    // A flag or variable wins over the file.
    let file = dir.join("server.toml");
    std::fs::write(
        &file,
        "max_matches = 3\n[[match]]\nid = \"f\"\nturn_ticks = 2\n",
    )
    .unwrap();
    let config = ServerConfig::load(
        &parse(&["--config", file.to_str().unwrap()]).unwrap(),
        &rules,
    )
    .unwrap();
    assert_eq!(config.max_matches, 7);
    assert_eq!(config.matches[0].config.turn_ticks, 4);
    let a = parse(&["--config", file.to_str().unwrap(), "--max-matches", "5"]).unwrap();
    assert_eq!(ServerConfig::load(&a, &rules).unwrap().max_matches, 5);
    std::env::remove_var("COHORT_TURN_TICKS");
    std::env::remove_var("COHORT_MAX_MATCHES");
    std::env::remove_var("COHORT_FIXED_DELAY");

    // A secret from the variable and a secret file from the flag conflict, as two flags do.
    std::env::set_var("COHORT_SECRET", "a-secret-from-the-environment");
    let secret_file = dir.join("secret");
    std::fs::write(&secret_file, "a-secret-from-a-file\n").unwrap();
    let e = parse(&["--secret-file", secret_file.to_str().unwrap()]).unwrap_err();
    assert_eq!(e.kind(), clap::error::ErrorKind::ArgumentConflict, "{e}");
    std::env::remove_var("COHORT_SECRET");

    // The admin token: its file (here a flag) before the COHORT_ADMIN_TOKEN variable.
    let token_file = dir.join("admin-token");
    std::fs::write(&token_file, "the-admin-token-from-the-file\n").unwrap();
    std::env::set_var("COHORT_ADMIN_TOKEN", "the-admin-token-from-the-variable");
    let a = parse(&["--admin", "127.0.0.1:0"]).unwrap();
    let (_, token) = ServerConfig::load(&a, &rules).unwrap().admin.unwrap();
    assert_eq!(token, b"the-admin-token-from-the-variable");
    let a = parse(&[
        "--admin",
        "127.0.0.1:0",
        "--admin-token-file",
        token_file.to_str().unwrap(),
    ])
    .unwrap();
    let (_, token) = ServerConfig::load(&a, &rules).unwrap().admin.unwrap();
    assert_eq!(token, b"the-admin-token-from-the-file");
    std::env::remove_var("COHORT_ADMIN_TOKEN");
    let _ = std::fs::remove_dir_all(&dir);
}
