//! Every file `cohort` reads goes through its size limit: an endless file (`/dev/zero`) named
//! anywhere is refused at once with the file, line and field (or the limit's name), exit 2.

use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("cohort-limits-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `cohort ARGS`: its exit status and its stderr.
fn cohort(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(args)
        .output()
        .expect("cohort runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_scenario_naming_an_endless_map_or_ruleset_is_refused_at_that_line() {
    let path = dir().join("endless.toml");
    std::fs::write(&path, "name = \"endless\"\n[map]\nfile = \"/dev/zero\"\n").unwrap();
    let (code, err) = cohort(&["sim", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("endless.toml:3: map.file: `/dev/zero` is larger than 8388608 bytes (MAX_MAP_FILE_BYTES)"),
        "{err}"
    );
    std::fs::write(
        &path,
        "rules = \"/dev/zero\"\n[map]\nascii = \"\"\"\n...\n\"\"\"\n",
    )
    .unwrap();
    let (code, err) = cohort(&["sim", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("endless.toml:1: rules:"), "{err}");
    assert!(err.contains("MAX_RULESET_BYTES"), "{err}");
}

#[test]
fn endless_files_given_on_the_command_line_are_refused() {
    let (code, err) = cohort(&["sim", "/dev/zero"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("MAX_SCENARIO_BYTES"), "{err}");
    let (code, err) = cohort(&["sim", "--default-map", "--rules", "/dev/zero"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("MAX_RULESET_BYTES"), "{err}");
    let (code, err) = cohort(&["replay", "/dev/zero"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("neither a replay"), "{err}");
}

#[test]
fn a_scenario_that_is_not_utf8_is_refused_at_its_line() {
    let path = dir().join("latin1.toml");
    std::fs::write(&path, b"name = \"x\"\ndescription = \"caf\xe9\"\n").unwrap();
    let (code, err) = cohort(&["sim", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("latin1.toml:2: description: column 19: byte 0xe9 is not UTF-8"),
        "{err}"
    );
}
