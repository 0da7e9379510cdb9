//! Malformed scenario, map and ruleset files each give the documented error: the file, the line
//! and the field, never a panic (docs/SCENARIOS.md, "Errors").

use cohort_sim::scenario::{NoFiles, Scenario, ScenarioError};

fn load_err(text: &str) -> ScenarioError {
    Scenario::from_toml(text, "bad.toml", &NoFiles, None).expect_err("the scenario is malformed")
}

fn load_with(text: &str, name: &'static str, file: &'static str) -> ScenarioError {
    let files = move |n: &str, _most: usize| -> Result<Vec<u8>, String> {
        if n == name {
            Ok(file.as_bytes().to_vec())
        } else {
            Err(format!("cannot read `{n}`"))
        }
    };
    Scenario::from_toml(text, "bad.toml", &files, None).expect_err("a named file is malformed")
}

const MAP: &str = "[map]\nascii = \"\"\"\n....\n....\n\"\"\"\n";

#[test]
fn toml_syntax_errors_name_the_line() {
    let e = load_err("name = \"x\"\nturn_ticks = = 4\n");
    assert_eq!((e.file.as_str(), e.line), ("bad.toml", 2), "{e}");
}

#[test]
fn wrong_types_name_the_field() {
    let text = format!("{MAP}[[units]]\nkind = \"villager\"\nowner = 0\nat = [1, 1]\n[[units]]\nkind = \"villager\"\nowner = 0\nat = [1, 1]\ncount = \"many\"\n");
    let e = load_err(&text);
    assert_eq!(e.line, 14, "{e}");
    assert_eq!(e.field, "units[1].count", "{e}");
}

#[test]
fn unknown_fields_are_refused() {
    let text = format!("{MAP}[[units]]\nkind = \"villager\"\nownr = 0\nat = [1, 1]\n");
    let e = load_err(&text);
    assert!(e.message.contains("ownr"), "{e}");
    assert!(e.field.starts_with("units[0]"), "{e}");
}

#[test]
fn unknown_kinds_name_line_and_field() {
    let text = format!("{MAP}\n[[units]]\nkind = \"dragon\"\nowner = 0\nat = [1, 1]\n");
    let e = load_err(&text);
    assert_eq!((e.line, e.field.as_str()), (7, "units[0].kind"), "{e}");
    assert!(e.message.contains("dragon"), "{e}");
}

#[test]
fn units_on_closed_ground_or_off_the_map_are_refused() {
    let text = "[map]\nascii = \"\"\"\n..~~\n....\n\"\"\"\n[[units]]\nkind = \"villager\"\nowner = 0\nat = [0, 0]\ncount = 4\ncolumns = 4\n";
    let e = load_err(text);
    assert_eq!((e.line, e.field.as_str()), (6, "units[0].at"), "{e}");
    assert!(e.message.contains("unit 3"), "{e}");
    let far = format!("{MAP}[[units]]\nkind = \"knight\"\nowner = 0\nat = [\"140737488355327\", 1]\ncount = 3\ncolumns = 3\nspacing = \"140737488355327\"\n");
    let e = load_err(&far);
    assert_eq!(e.field, "units[0].at", "{e}");
}

#[test]
fn inline_map_errors_point_into_the_scenario() {
    let text = "name = \"x\"\n[map]\nascii = \"\"\"\n....\n..?.\n\"\"\"\n";
    let e = load_err(text);
    assert_eq!((e.line, e.field.as_str()), (5, "map.ascii"), "{e}");
    assert!(e.message.contains("column 3"), "{e}");
    let ragged = "[map]\nascii = \"\"\"\n....\n...\n\"\"\"\n";
    assert_eq!(load_err(ragged).line, 4);
}

#[test]
fn map_file_errors_name_the_map_file() {
    let text = "[map]\nfile = \"m.txt\"\n";
    let e = load_with(text, "m.txt", "...\n.x.\n");
    assert_eq!((e.file.as_str(), e.line), ("m.txt", 2), "{e}");
    let text = "[map]\nfile = \"m.map\"\n";
    let e = load_with(
        text,
        "m.map",
        "type octile\nheight 2\nwidth 2\nmap\n..\n.Q\n",
    );
    assert_eq!((e.file.as_str(), e.line), ("m.map", 6), "{e}");
    let e = load_err("[map]\nfile = \"missing.txt\"\n");
    assert_eq!((e.line, e.field.as_str()), (2, "map.file"), "{e}");
}

#[test]
fn a_map_needs_exactly_one_source() {
    let e = load_err("[map]\nascii = \"..\"\nfile = \"x\"\n");
    assert_eq!(e.field, "map", "{e}");
    let e = load_err("name = \"no map\"\n");
    assert!(e.message.contains("map"), "{e}");
}

#[test]
fn ruleset_errors_name_the_ruleset_file_line_and_field() {
    let base = cohort_sim::ruleset::DEFAULT_RULESET_TOML;
    // A figure of the wrong type: the TOML reader's error, located.
    let broken: &'static str = Box::leak(
        base.replacen("hit_points = 25", "hit_points = \"lots\"", 1)
            .into_boxed_str(),
    );
    let e = load_with(&format!("rules = \"r.toml\"\n{MAP}"), "r.toml", broken);
    assert_eq!(e.file, "r.toml");
    let want = broken.lines().position(|l| l.contains("\"lots\"")).unwrap() + 1;
    assert_eq!(e.line, want, "{e}");
    assert!(e.field.ends_with("hit_points"), "{e}");
    // A name the ruleset cannot resolve: the compiler's error, located by its field.
    let unknown: &'static str = Box::leak(
        base.replacen("restriction = \"land\"", "restriction = \"lava\"", 1)
            .into_boxed_str(),
    );
    let e = load_with(&format!("rules = \"r.toml\"\n{MAP}"), "r.toml", unknown);
    assert_eq!(e.file, "r.toml");
    let want = unknown
        .lines()
        .position(|l| l.contains("\"lava\""))
        .unwrap()
        + 1;
    assert_eq!(e.line, want, "{e}");
}

#[test]
fn commands_must_name_what_they_need() {
    let text = format!("{MAP}[[units]]\nkind = \"villager\"\nowner = 0\nat = [1, 1]\nname = \"v\"\n[[commands]]\ntick = 0\nplayer = 0\ndo = \"move\"\nunits = [\"v\"]\n");
    let e = load_err(&text);
    assert_eq!((e.line, e.field.as_str()), (11, "commands[0].to"), "{e}");
    let text = format!("{MAP}[[commands]]\ntick = 0\nplayer = 0\ndo = \"move\"\nunits = [\"nobody\"]\nto = [1, 1]\n");
    let e = load_err(&text);
    assert_eq!(e.field, "commands[0].units", "{e}");
    let text = format!("{MAP}[[commands]]\ntick = 0\nplayer = 0\ndo = \"teleport\"\n");
    let e = load_err(&text);
    assert!(e.message.contains("teleport"), "{e}");
    assert_eq!(e.line, 9, "{e}");
}

#[test]
fn limits_are_enforced() {
    let e = load_err(&format!("turn_ticks = 0\n{MAP}"));
    assert_eq!((e.line, e.field.as_str()), (1, "turn_ticks"), "{e}");
    let e = load_err("[map]\ngenerate = { players = 9 }\n");
    assert_eq!(e.field, "map.generate.players", "{e}");
    let e = load_err(&format!(
        "{MAP}[[units]]\nkind = \"villager\"\nowner = 0\nat = [1, 1]\ncount = 4000000000\n"
    ));
    assert_eq!((e.line, e.field.as_str()), (10, "units[0].count"), "{e}");
    let e = load_err(&format!(
        "{MAP}[[units]]\nkind = \"villager\"\nowner = 5\nat = [1, 1]\n[[players]]\n"
    ));
    assert_eq!(e.field, "units[0].owner", "{e}");
}

#[test]
fn errors_display_file_line_field_and_message() {
    let e = load_err(&format!(
        "{MAP}[[units]]\nkind = \"dragon\"\nowner = 0\nat = [1, 1]\n"
    ));
    let shown = e.to_string();
    assert!(shown.starts_with("bad.toml:6: units[0].kind: "), "{shown}");
}

/// A command aimed far off the map (as a hostile peer might send) neither overflows nor panics:
/// the target is clamped onto the map when the order is applied.
#[test]
fn far_off_command_targets_are_clamped_onto_the_map() {
    use cohort_sim::position::{Fx, Tile, Vec2};
    use cohort_sim::scenario::Runner;
    use cohort_sim::{Command, EntityId, PlayerCommand};
    let text = format!("{MAP}[[units]]\nkind = \"knight\"\nowner = 0\nat = [1, 1]\n[[units]]\nkind = \"villager\"\nowner = 0\nat = [2, 0]\n");
    let s = Scenario::from_toml(&text, "far.toml", &NoFiles, None).unwrap();
    let mut r = Runner::new(s);
    let far = [
        Fx::MAX,
        Fx::MIN,
        Fx::from_num(1_000_000_000i64),
        -Fx::from_num(1_000_000_000i64),
    ];
    let mut commands = Vec::new();
    for (i, &x) in far.iter().enumerate() {
        for &y in far.iter().rev() {
            let to = Vec2::new(x, y);
            for command in [
                Command::Move {
                    units: vec![EntityId(1)],
                    to,
                },
                Command::AttackMove {
                    units: vec![EntityId(1)],
                    to,
                },
                Command::FormationMove {
                    units: vec![EntityId(1), EntityId(2)],
                    to,
                },
            ] {
                commands.push(PlayerCommand { player: 0, command });
            }
        }
        commands.push(PlayerCommand {
            player: 0,
            command: Command::PlaceBuilding {
                kind: "house".into(),
                at: Tile::new([i32::MAX, i32::MIN, 7, -7][i], i32::MIN),
                turned: false,
                builders: vec![EntityId(2)],
            },
        });
    }
    for pc in commands {
        r.world.step(&[pc]);
        r.run(20, |w| {
            for u in &w.state().units {
                assert!(
                    w.grid().contains(u.position.tile()),
                    "unit {} left the map",
                    u.id.0
                );
            }
        });
    }
    // The last move aimed at (-1e9, MAX) ends at the map's corner (0, 1).
    let knight = r.world.unit(EntityId(1)).unwrap();
    assert!(knight.position.x <= Fx::from_num(1) && knight.position.y >= Fx::from_num(0));
}

#[test]
fn a_block_may_set_its_hit_points_but_not_to_zero() {
    let text =
        format!("{MAP}[[units]]\nkind = \"militia\"\nowner = 0\nat = [1, 1]\nhit_points = 0\n");
    let e = load_err(&text);
    assert_eq!(e.field, "units[0].hit_points", "{e}");
    let text = format!(
        "{MAP}[[units]]\nkind = \"militia\"\nowner = 0\nat = [1, 0]\ncount = 2\nhit_points = 1000000\nname = \"stout\"\n"
    );
    let s = Scenario::from_toml(&text, "ok.toml", &NoFiles, None).expect("loads");
    assert!(s
        .world
        .state()
        .units
        .iter()
        .all(|u| u.hit_points == 1_000_000));
    assert_eq!(s.names[0].0, "stout");
    assert_eq!(s.names[0].1.len(), 2);
}

/// A 20 × 2 map.
const WIDE: &str = "[map]\nascii = \"\"\"\n....................\n....................\n\"\"\"\n";

#[test]
fn a_unit_far_past_the_edge_is_refused_not_wrapped_onto_the_map() {
    // 2^32 + 4 would be tile 4 if the tile were cut to 32 bits.
    let text = format!("{WIDE}[[units]]\nkind = \"villager\"\nowner = 0\nat = [4294967300, 1]\n");
    let e = load_err(&text);
    assert_eq!((e.line, e.field.as_str()), (6, "units[0].at"), "{e}");
    assert!(e.message.contains("off the map"), "{e}");
    for at in ["[-1, 1]", "[19.49, 1]", "[19.5, 1]", "[\"-0.51\", 0]"] {
        let text = format!("{WIDE}[[units]]\nkind = \"villager\"\nowner = 0\nat = {at}\n");
        let loaded = Scenario::from_toml(&text, "edge.toml", &NoFiles, None);
        let on_map = at == "[19.49, 1]";
        assert_eq!(loaded.is_ok(), on_map, "{at}: {:?}", loaded.err());
    }
}

#[test]
fn surplus_or_missing_array_elements_are_refused_where_written() {
    for (at, line) in [("[5, 1, 7]", 9), ("[5, 1, 7, 8, 9]", 9), ("[5]", 9)] {
        let text = format!("{WIDE}[[units]]\nkind = \"villager\"\nowner = 0\nat = {at}\n");
        let e = load_err(&text);
        assert_eq!(
            (e.line, e.field.as_str()),
            (line, "units[0].at"),
            "{at}: {e}"
        );
        assert!(e.message.contains("exactly 2"), "{e}");
    }
    let text = format!("{WIDE}[[resources]]\nkind = \"tree\"\nat = [1, 1]\nto = [2, 2, 2]\n");
    assert_eq!(load_err(&text).field, "resources[0].to");
    let text = format!(
        "{WIDE}[[commands]]\ntick = 0\nplayer = 0\ndo = \"move\"\nunits = []\nto = [1, 1, 1]\n"
    );
    assert_eq!(load_err(&text).field, "commands[0].to");
    let base = cohort_sim::ruleset::DEFAULT_RULESET_TOML;
    let line = base
        .lines()
        .position(|l| l.contains("half_extent"))
        .unwrap()
        + 1;
    let old = base.lines().nth(line - 1).unwrap();
    let three: &'static str = Box::leak(
        base.replacen(old, "half_extent = [1, 1, 1]", 1)
            .into_boxed_str(),
    );
    let e = load_with(&format!("rules = \"r.toml\"\n{MAP}"), "r.toml", three);
    assert_eq!((e.file.as_str(), e.line), ("r.toml", line), "{e}");
    assert!(e.field.ends_with("half_extent"), "{e}");
    assert!(e.message.contains("exactly 2"), "{e}");
}

#[test]
fn invalid_utf8_is_refused_at_its_line_and_field() {
    let mut bytes = b"name = \"ok\"\ndescription = \"caf".to_vec();
    bytes.push(0xe9);
    bytes.extend_from_slice(b"\"\n");
    let e = Scenario::from_bytes(&bytes, "bad.toml", &NoFiles, None).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (2, "description"), "{e}");
    assert!(
        e.message.contains("column 19") && e.message.contains("0xe9"),
        "{e}"
    );
    // In a file the scenario names: that file's line.
    let map: &'static [u8] = b"....\n..\xff.\n";
    let files = move |_: &str, _: usize| -> Result<Vec<u8>, String> { Ok(map.to_vec()) };
    let e = Scenario::from_toml("[map]\nfile = \"m.txt\"\n", "s.toml", &files, None).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("m.txt", 2), "{e}");
}

#[test]
fn files_over_their_limit_are_refused_without_reading_them_whole() {
    use cohort_sim::scenario::{MAX_MAP_FILE_BYTES, MAX_SCENARIO_BYTES};
    // An endless map file: the reader is asked for one byte over the limit, no more.
    let asked = std::cell::Cell::new(0);
    let endless = |_: &str, most: usize| -> Result<Vec<u8>, String> {
        asked.set(most);
        Ok(vec![b'.'; most])
    };
    let e =
        Scenario::from_toml("[map]\nfile = \"/dev/zero\"\n", "s.toml", &endless, None).unwrap_err();
    assert_eq!(asked.get(), MAX_MAP_FILE_BYTES + 1);
    assert_eq!(
        (e.file.as_str(), e.line, e.field.as_str()),
        ("s.toml", 2, "map.file"),
        "{e}"
    );
    assert!(e.message.contains("MAX_MAP_FILE_BYTES"), "{e}");
    let e = Scenario::from_toml(
        &format!("rules = \"/dev/zero\"\n{MAP}"),
        "s.toml",
        &endless,
        None,
    )
    .unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (1, "rules"), "{e}");
    assert!(e.message.contains("MAX_RULESET_BYTES"), "{e}");
    let mut big = format!("{MAP}description = \"").into_bytes();
    big.resize(MAX_SCENARIO_BYTES + 1, b'x');
    let e = Scenario::from_bytes(&big, "big.toml", &NoFiles, None).unwrap_err();
    assert!(e.message.contains("MAX_SCENARIO_BYTES"), "{e}");
    assert_eq!(e.line, 6, "{e}");
}

#[test]
fn ticks_past_their_limit_are_refused() {
    let e = load_err(&format!(
        "turn_ticks = 4\nticks = 18446744073709551615\n{MAP}"
    ));
    assert_eq!((e.line, e.field.as_str()), (2, "ticks"), "{e}");
    let text = format!("{MAP}[[commands]]\ntick = 99999999999\nplayer = 0\ndo = \"stop\"\n");
    let e = load_err(&text);
    assert_eq!(e.field, "commands[0].tick", "{e}");
}
