//! The movement spec's self-checks, one test each: the same functions `cohort verify` runs, over
//! the same scenario files (`scenarios/verify/`, embedded in the build).

use cohort_sim::verify::{run, run_one, CHECKS, SCENES};

fn holds(name: &str) {
    let o = run_one(name).expect("a check of that name");
    assert!(
        o.passed,
        "{name} failed on {:?}; figures: {:?}",
        o.failed, o.figures
    );
}

/// The `formation` check run over `scene` in place of its own file
/// (`formation_mixed_speeds.toml`): whether it held, and if not, what failed and every figure.
fn formation_over(scene: &str) -> Result<(), String> {
    let files = |name: &str, _most: usize| -> Result<Vec<u8>, String> {
        match name {
            "formation_mixed_speeds.toml" => Ok(scene.as_bytes().to_vec()),
            other => Err(format!("no file {other}")),
        }
    };
    let o = run(&["formation".to_string()], &files).expect("the formation check")[0].clone();
    if o.passed {
        Ok(())
    } else {
        Err(format!(
            "failed on {:?}; figures: {:?}",
            o.failed, o.figures
        ))
    }
}

/// A formation scene turned round: the knights start where the archers do and the archers
/// where the knights do, so the shooters start ahead of the hand-to-hand fighters.
fn turned_round(scene: &str) -> String {
    let turned = scene
        .replace("at = [6, 12]", "at = [6, TWELVE]")
        .replace("at = [6, 6]", "at = [6, 12]")
        .replace("at = [6, TWELVE]", "at = [6, 6]");
    assert_ne!(
        turned, scene,
        "the scene has the knights and archers to swap"
    );
    turned
}

/// planner (standing spots): own face first and finely, a worker's width apart, corners clear,
/// then full; blocked when walled in.
#[test]
fn planner() {
    holds("planner");
}

/// march: soldiers keep their width, do not stack, stand round a target, spread along a wall.
#[test]
fn march() {
    holds("march");
}

/// sharedwalk: 100 soldiers sent as a block to one point cost at most 10 searches.
#[test]
fn sharedwalk() {
    holds("sharedwalk");
}

/// crowdgoal: a route into a crowd of more than 32 tiles goes straight in; into one of 32, round.
#[test]
fn crowdgoal() {
    holds("crowdgoal");
}

/// replanspread: an army of 40 round one enemy replans on at least 6 different ticks of every
/// 500 ms.
#[test]
fn replanspread() {
    holds("replanspread");
}

/// After a group of 50 arrives, no two bodies overlap by more than the keep-apart allowance.
#[test]
fn arrive50() {
    holds("arrive50");
}

/// 8 villagers at one gold mine stand along its faces, none stacked.
#[test]
fn goldmine() {
    holds("goldmine");
}

/// A villager sent into the sea stops on the shore nearest the point.
#[test]
fn shore() {
    holds("shore");
}

/// A unit walks through a gap one body wide.
#[test]
fn gap() {
    holds("gap");
}

/// A formation of mixed speeds arrives together.
#[test]
fn formation() {
    holds("formation");
}

/// The same formation check with the block turned round: the shooters start ahead of the
/// hand-to-hand fighters, so the fighters must pass through the shooters' rank to reach the
/// front (scenarios/formation_fighters_behind.toml). Members whose ways to their places cross
/// let each other through (`Stepper::lets_through`), so all arrive together, each on its place.
#[test]
#[ignore = "issue 33: fighters behind the shooters now go round them (shoving formation mates aside) instead of through: 3,872 ms apart, 4 off their places"]
fn formation_with_fighters_behind_the_shooters() {
    let behind = include_str!("../../scenarios/formation_fighters_behind.toml");
    if let Err(e) = formation_over(behind) {
        panic!("{e}");
    }
}

/// The turned-round formation in every layout and toward other points: down the map (the
/// fighters straight behind the shooters, in their lanes) and across it. Each holds the
/// `formation` check: together, each on its place, none stacked.
#[test]
#[ignore = "issue 33: fighters behind the shooters now go round them (shoving formation mates aside) instead of through: a line to [8, 40] arrives 3,216 ms apart, 9 off their places"]
fn formation_with_fighters_behind_in_every_layout() {
    let behind = include_str!("../../scenarios/formation_fighters_behind.toml");
    for kind in ["line", "staggered", "box", "flank"] {
        for to in ["[8, 40]", "[40, 40]", "[70, 10]"] {
            let scene = behind
                .replace("to = [66, 36]", &format!("to = {to}"))
                .replace("formation = \"line\"", &format!("formation = \"{kind}\""));
            assert!(
                scene.contains(&format!("to = {to}")) && scene.contains(&format!("\"{kind}\""))
            );
            if let Err(e) = formation_over(&scene) {
                panic!("{kind} to {to} {e}");
            }
        }
    }
}

/// A formation sent near the map's edge (scenarios/formation_at_the_edge.toml: to (40, 44) on a
/// 48-row map, its front corner laid out off the bottom). The layout is shifted inward so every
/// body stands on the map, rather than each place off it being turned into the nearest point
/// its unit could stand on (which stacked neighbours). Held as laid out, turned round (the
/// shooters ahead of the fighters), toward (60, 46) and toward a corner, in every layout: the
/// `formation` check, together, each on its place, none stacked.
#[test]
#[ignore = "issue 33: members no longer pass through each other; a box to [40, 44] arrives 2,816 ms apart (the check allows 1,000)"]
fn formation_sent_to_the_edge_of_the_map() {
    let edge = include_str!("../../scenarios/formation_at_the_edge.toml");
    let turned = turned_round(edge);
    for (how, scene) in [("as laid out", edge), ("turned round", turned.as_str())] {
        for kind in ["line", "staggered", "box", "flank"] {
            for to in ["[40, 44]", "[60, 46]", "[79, 47]"] {
                let scene = scene
                    .replace("to = [40, 44]", &format!("to = {to}"))
                    .replace("formation = \"line\"", &format!("formation = \"{kind}\""));
                assert!(
                    scene.contains(&format!("to = {to}")) && scene.contains(&format!("\"{kind}\""))
                );
                if let Err(e) = formation_over(&scene) {
                    panic!("{how}, {kind} to {to} {e}");
                }
            }
        }
    }
}

/// A formation sent beside ground it cannot stand on (scenarios/formation_beside_the_trees.toml:
/// to (40, 30), its front corner on a wood). A place is kept only when the unit's whole body
/// stands on its ground; the others are turned into the nearest point clear of every goal
/// already settled (`toward_clear_of`), rather than each into the nearest tile (which stacked
/// neighbours). Held as laid out and turned round, with the wood and with water in its stead, in
/// every layout: the `formation` check, together, each on its place, none stacked.
#[test]
#[ignore = "issue 33: members no longer pass through each other; a line beside trees arrives 1,616 ms apart (the check allows 1,000)"]
fn formation_sent_beside_trees_and_water() {
    let trees = include_str!("../../scenarios/formation_beside_the_trees.toml");
    let wood = "T".repeat(15);
    let water = trees.replace(&wood, &"~".repeat(15));
    assert!(trees.contains(&wood) && !water.contains(&wood));
    for (ground, scene) in [("trees", trees), ("water", water.as_str())] {
        let turned = turned_round(scene);
        for (how, scene) in [("as laid out", scene), ("turned round", turned.as_str())] {
            for kind in ["line", "staggered", "box", "flank"] {
                let scene =
                    scene.replace("formation = \"line\"", &format!("formation = \"{kind}\""));
                assert!(scene.contains(&format!("\"{kind}\"")));
                if let Err(e) = formation_over(&scene) {
                    panic!("{ground}, {how}, {kind} {e}");
                }
            }
        }
    }
}

/// A chaser of a fleeing unit replans per the spec's table.
#[test]
fn chasetable() {
    holds("chasetable");
}

/// Every file in scenarios/verify/ is embedded, every check's file is there, and every embedded
/// file is run by a check: the binary's copies are the checkout's.
#[test]
fn the_checks_run_the_files_in_scenarios_verify() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/verify");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .expect("scenarios/verify")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".toml"))
        .collect();
    on_disk.sort();
    let mut embedded: Vec<String> = SCENES.iter().map(|s| s.0.to_string()).collect();
    embedded.sort();
    assert_eq!(on_disk, embedded);
    for (name, text) in SCENES {
        let file = std::fs::read_to_string(format!("{dir}/{name}")).expect("the file");
        assert_eq!(file, text, "{name}");
        assert!(
            CHECKS.iter().any(|c| c.files.contains(&name)),
            "{name} is run by no check"
        );
    }
    for c in &CHECKS {
        for f in c.files {
            assert!(SCENES.iter().any(|s| s.0 == *f), "{} runs {f}", c.name);
        }
    }
}

/// The entities a scene file names, each with the `count` its table gives (1 when none):
/// `(name, count)` for every `[[units]]`, `[[buildings]]` or `[[resources]]` table.
fn named_groups(text: &str) -> Vec<(String, u32)> {
    let mut groups = Vec::new();
    for table in text.split("\n[").skip(1) {
        if !["[units]]", "[buildings]]", "[resources]]"]
            .iter()
            .any(|t| table.starts_with(t))
        {
            continue;
        }
        let value = |key: &str| {
            table
                .lines()
                .find_map(|l| l.strip_prefix(key)?.trim().strip_prefix('=').map(str::trim))
        };
        if let Some(name) = value("name ") {
            let count = value("count ").map_or(1, |c| c.parse().expect("a count"));
            groups.push((name.trim_matches('"').to_string(), count));
        }
    }
    groups
}

/// What check `check` found with `text` in place of its file `file` (its other files not
/// there: each fails on its own, and the figures of `file`'s scene are what is asked).
fn check_over(check: &str, file: &'static str, text: String) -> cohort_sim::verify::Outcome {
    let files = move |name: &str, _most: usize| -> Result<Vec<u8>, String> {
        if name == file {
            Ok(text.as_bytes().to_vec())
        } else {
            Err(format!("not this test's file: {name}"))
        }
    };
    run(&[check.to_string()], &files).expect("a check")[0].clone()
}

/// Whether `o` failed on the figure of group `name` (`name`, or `prefix.name`).
fn failed_on(o: &cohort_sim::verify::Outcome, name: &str) -> bool {
    !o.passed
        && o.failed
            .iter()
            .any(|f| f == name || f.ends_with(&format!(".{name}")))
}

/// No check passes on nothing: every entity a check's scene names, renamed throughout its file
/// (as `cohort verify --dir` reads a file changed by hand), and every group cut to one body,
/// fails the check on that group's figure.
#[test]
fn every_check_fails_on_a_scene_without_the_groups_it_measures() {
    let mut tried = 0;
    for check in &CHECKS {
        for &file in check.files {
            let text = SCENES.iter().find(|s| s.0 == file).expect("embedded").1;
            let groups = named_groups(text);
            assert!(!groups.is_empty(), "{file} names its entities");
            for (name, count) in groups {
                let quoted = format!("\"{name}\"");
                // Renamed where it is named and wherever the file refers to it, never in a
                // `kind` (a barracks named "barracks").
                let renamed: String = text
                    .split_inclusive('\n')
                    .map(|line| match line.starts_with("kind") {
                        true => line.to_string(),
                        false => line.replace(&quoted, &format!("\"{name}_renamed\"")),
                    })
                    .collect();
                let mut changed = vec![("renamed", renamed)];
                if count > 1 {
                    let line = format!("count = {count}\n");
                    let at = text.find(&format!("name = {quoted}")).expect("named");
                    let from = text[..at].rfind(&line).expect("its count, above its name");
                    let rest = &text[from + line.len()..];
                    changed.push(("cut to one", format!("{}count = 1\n{rest}", &text[..from])));
                }
                for (how, scene) in changed {
                    let o = check_over(check.name, file, scene);
                    assert!(
                        failed_on(&o, &name),
                        "{}: `{name}` {how} in {file}: failed on {:?}",
                        check.name,
                        o.failed
                    );
                    tried += 1;
                }
            }
        }
    }
    assert!(tried >= 40, "{tried} scenes tried");
}
