//! `cohort verify` as a newcomer runs it: the real binary, anywhere (its scenario files are
//! embedded), or over a directory of them.

use std::path::PathBuf;
use std::process::{Command, Output};

fn cohort_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cohort"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cohort runs")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn runs_from_anywhere_on_its_embedded_scenarios() {
    let away = std::env::temp_dir();
    let out = cohort_in(&away, &["verify", "sharedwalk,crowdgoal"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("sharedwalk    pass"), "{stdout}");
    assert!(stdout.contains("crowdgoal     pass"), "{stdout}");
    assert!(stdout.contains(" searches="), "{stdout}");
    assert!(stdout.contains("2 checks, 0 failed"), "{stdout}");
}

#[test]
fn reads_a_directory_and_exits_1_when_a_check_fails() {
    let out = cohort_in(
        &root(),
        &["verify", "--dir", "scenarios/verify", "sharedwalk"],
    );
    assert!(out.status.success(), "{}", text(&out.stdout));
    // The same file with 10 soldiers instead of 100: the check's scene is short of the group it
    // measures, and it fails on that, measuring nothing else.
    let dir = std::env::temp_dir().join(format!("cohort-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = std::fs::read_to_string(root().join("scenarios/verify/sharedwalk.toml")).unwrap();
    std::fs::write(
        dir.join("sharedwalk.toml"),
        file.replace("count = 100", "count = 10"),
    )
    .unwrap();
    let out = cohort_in(
        &root(),
        &["verify", "--dir", dir.to_str().unwrap(), "sharedwalk"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("sharedwalk    FAIL"), "{stdout}");
    assert!(stdout.contains("!block=10"), "{stdout}");
    assert!(!stdout.contains("searches="), "{stdout}");
    // A file missing from the directory is a failure naming it.
    let out = cohort_in(&root(), &["verify", "--dir", dir.to_str().unwrap(), "gap"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("gap_one_body.toml"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn lists_the_checks_and_refuses_an_unknown_one() {
    let out = cohort_in(&root(), &["verify", "--list"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success());
    assert_eq!(stdout.lines().count(), 11, "{stdout}");
    assert!(stdout.contains("march         march_width.toml march_no_stack.toml"));
    let out = cohort_in(&root(), &["verify", "nosuch"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("no check named `nosuch`"));
}
