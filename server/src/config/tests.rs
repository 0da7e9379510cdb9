//! The configuration: flags over the file over the defaults, and every refusal.

use super::*;
use cohort_protocol::setup::MapSpec;
use cohort_sim::map::MAX_ARMY;

fn rules() -> Ruleset {
    Ruleset::default_rules()
}

#[test]
fn no_arguments_host_the_default_match() {
    let c = ServerConfig::load(&Args::default(), &rules()).unwrap();
    assert_eq!(c.listen.port(), DEFAULT_PORT);
    assert_eq!(c.matches.len(), 1);
    assert_eq!(c.matches[0].config.match_id, "default");
    assert_eq!(c.matches[0].config.players.len(), 2);
    assert!(c.secret.is_none() && c.print_tokens);
    assert_eq!(c.agones, None, "not under Agones");
}

#[test]
fn agones_is_on_with_the_flag_or_the_sidecar_port() {
    let load = |args: Args| ServerConfig::load(&args, &rules()).unwrap().agones;
    let flag = Args {
        agones: true,
        ..Args::default()
    };
    assert_eq!(load(flag), Some(9357));
    let port = Args {
        agones_port: Some(9400),
        ..Args::default()
    };
    assert_eq!(load(port), Some(9400));
}

#[test]
fn a_file_with_matches_under_flags() {
    let dir = std::env::temp_dir().join(format!("cohort-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("server.toml");
    std::fs::write(
        &path,
        r#"
listen = "127.0.0.1:9000"
secret = "s3cret"
[[match]]
id = "final"
players = 4
names = ["Ana", "Bo"]
teams = [1, 1, 2, 2]
turn_ticks = 6
on_desync = "stop"
[[match]]
id = "other"
require_hashes = true
"#,
    )
    .unwrap();
    let args = Args {
        config: Some(path),
        turn_ticks: Some(5),
        ..Args::default()
    };
    let c = ServerConfig::load(&args, &rules()).unwrap();
    assert_eq!(c.listen.port(), 9000);
    assert_eq!(c.secret.as_deref(), Some(&b"s3cret"[..]));
    assert!(!c.print_tokens);
    let m = &c.matches[0];
    assert_eq!(m.config.players.len(), 4);
    assert_eq!(m.config.players[1].name, "Bo");
    assert_eq!(m.config.players[3].team, 2);
    assert_eq!(m.config.turn_ticks, 5, "the flag wins");
    assert_eq!(m.on_desync, OnDesync::Stop);
    assert_eq!(c.matches[1].config.match_id, "other");
    assert!(!m.require_hashes && c.matches[1].require_hashes);
    let everywhere = Args {
        require_hashes: true,
        ..Args::default()
    };
    let c = ServerConfig::load(&everywhere, &rules()).unwrap();
    assert!(
        c.matches[0].require_hashes,
        "the flag sets it for every match"
    );
}

#[test]
fn many_generated_matches() {
    let args = Args {
        matches: Some(3),
        players: Some(8),
        ..Args::default()
    };
    let c = ServerConfig::load(&args, &rules()).unwrap();
    let ids: Vec<&str> = c
        .matches
        .iter()
        .map(|m| m.config.match_id.as_str())
        .collect();
    assert_eq!(ids, vec!["m1", "m2", "m3"]);
    assert!(c.matches.iter().all(|m| m.config.players.len() == 8));
    assert!(c
        .matches
        .iter()
        .all(|m| matches!(m.config.map, MapSpec::Generated { .. })));
    let armies = Args {
        army: Some(MAX_ARMY),
        ..args
    };
    let c = ServerConfig::load(&armies, &rules()).unwrap();
    for m in &c.matches {
        let MapSpec::Armies { army, .. } = m.config.map else {
            panic!("{:?}", m.config.map)
        };
        assert_eq!(army, MAX_ARMY);
    }
}

#[test]
fn the_admin_api_needs_a_token_and_then_starts_with_no_match() {
    let dir = std::env::temp_dir().join(format!("cohort-admin-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let token = dir.join("token");
    let admin = |file: Option<PathBuf>| Args {
        admin: Some("127.0.0.1:0".parse().unwrap()),
        admin_token_file: file,
        ..Args::default()
    };
    std::fs::write(&token, "short\n").unwrap();
    let e = ServerConfig::load(&admin(Some(token.clone())), &rules()).unwrap_err();
    assert!(format!("{e:#}").contains("at least 16 bytes"), "{e:#}");
    std::fs::write(&token, "a-long-enough-admin-token\n").unwrap();
    let c = ServerConfig::load(&admin(Some(token)), &rules()).unwrap();
    let (_, t) = c.admin.unwrap();
    assert_eq!(t, b"a-long-enough-admin-token");
    assert!(c.matches.is_empty(), "matches come on demand");
    assert_eq!(c.max_matches, DEFAULT_MAX_MATCHES);
    if std::env::var_os(ADMIN_TOKEN_ENV).is_none() {
        let e = ServerConfig::load(&admin(None), &rules()).unwrap_err();
        assert!(format!("{e:#}").contains(ADMIN_TOKEN_ENV), "{e:#}");
    }
}

#[test]
fn webhooks_are_http_urls_and_max_matches_bounds_the_file() {
    let hook = |url: &str| Args {
        webhook: Some(url.into()),
        ..Args::default()
    };
    assert!(
        ServerConfig::load(&hook("http://127.0.0.1:9/end"), &rules())
            .unwrap()
            .webhook
            .is_some()
    );
    assert!(ServerConfig::load(&hook("ftp://x/"), &rules()).is_err());
    assert!(ServerConfig::load(&hook("not a url"), &rules()).is_err());
    let many = Args {
        matches: Some(3),
        max_matches: Some(2),
        ..Args::default()
    };
    let e = ServerConfig::load(&many, &rules()).unwrap_err();
    assert!(format!("{e:#}").contains("max_matches"), "{e:#}");
}

#[test]
fn a_wrong_match_key_is_named() {
    let m = |f: fn(&mut FileMatch)| {
        let mut m = FileMatch::standard("k", 2);
        f(&mut m);
        m.settings(&rules()).unwrap_err().field
    };
    assert_eq!(m(|m| m.players = 1), "players");
    assert_eq!(m(|m| m.id = "a b".into()), "id");
    assert_eq!(m(|m| m.names = vec!["a".into(); 3]), "names");
    assert_eq!(m(|m| m.names = vec![String::new()]), "names[0]");
    assert_eq!(
        m(|m| m.names = vec!["Ana".into(), "x".repeat(33)]),
        "names[1]"
    );
    assert_eq!(m(|m| m.teams = vec![1; 3]), "teams");
    assert_eq!(m(|m| m.turn_ticks = Some(0)), "turn_ticks");
    assert_eq!(m(|m| m.map_size = Some(9)), "map_size");
    assert_eq!(m(|m| m.input_delay = Some(0)), "input_delay");
    assert_eq!(m(|m| m.army = Some(0)), "army");
    assert_eq!(m(|m| m.army = Some(MAX_ARMY + 1)), "army");
}

#[test]
fn bad_configurations_are_refused_clearly() {
    let args = Args {
        matches: Some(1),
        players: Some(9),
        ..Args::default()
    };
    let e = ServerConfig::load(&args, &rules()).unwrap_err();
    assert!(format!("{e:#}").contains("2 to 8 players"), "{e:#}");
}

mod example {
    use super::*;

    #[test]
    fn the_example_file_in_deploy_is_valid() {
        let file: FileConfig =
            toml::from_str(include_str!("../../../deploy/server.example.toml")).unwrap();
        let rules = Ruleset::default_rules();
        let settings: Vec<Settings> = file
            .matches
            .iter()
            .map(|m| m.settings(&rules).unwrap())
            .collect();
        assert_eq!(settings.len(), 2);
        assert_eq!(settings[0].config.players[2].name, "Cy");
        assert_eq!(settings[0].max_turns, None);
    }
}
