//! What the outside-Rust tests share: where the built library is, a real server with a
//! `cohort bot` beside the foreign client, a child process bounded in time, and the check that
//! the foreign client's hashes are the server's on every turn.

#![allow(dead_code)]

use cohort_client::brain::RandomBrain;
use cohort_ffi::client::CohortConnectOptions;
use cohort_protocol::message::Role;
use cohort_protocol::replay::Replay;
use cohort_sim::{EntityId, Ruleset};
use cohort_tests::{outcome, plan, spawn_bot, the_replay, TestServer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::ptr::null;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Turns the foreign client plays (the match's turn limit).
pub const TURNS: u64 = 300;

/// The longest a foreign client may run before the test fails.
pub const CHILD_LIMIT: Duration = Duration::from_secs(200);

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The directory cargo built this test into (`target/<profile>`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>")
        .to_path_buf()
}

/// The shared library (`libcohort_ffi.so`), built with this test. `cargo test` builds it only
/// as `target/<profile>/deps/libcohort_ffi.so` (it copies a cdylib up into `target/<profile>/`
/// only on `cargo build`), so that one comes first: the one above may be missing, or stale
/// from an older `cargo build`.
pub fn library() -> PathBuf {
    let name = format!(
        "{}cohort_ffi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let dir = target_dir();
    let candidates = [dir.join("deps").join(&name), dir.join(&name)];
    candidates
        .iter()
        .find(|lib| lib.exists())
        .unwrap_or_else(|| {
            panic!(
                "{name} was not built (looked for {} and {})",
                candidates[0].display(),
                candidates[1].display()
            )
        })
        .clone()
}

/// Compiles the C program `docs/examples/<name>.c` with the system C compiler (C11, warnings as
/// errors) against the header and the library, into `dir`; returns the executable.
pub fn build_c_example(name: &str, dir: &Path) -> PathBuf {
    let exe = dir.join(name);
    let lib_dir = library().parent().unwrap().to_path_buf();
    let out = Command::new("cc")
        .arg("-std=c11")
        .args(["-Wall", "-Wextra", "-Werror", "-g"])
        .arg("-I")
        .arg(root().join("ffi/include"))
        .arg(root().join(format!("docs/examples/{name}.c")))
        .arg("-L")
        .arg(&lib_dir)
        .arg("-lcohort_ffi")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("the system C compiler `cc` runs");
    assert!(
        out.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// An order of `kind` for `units`, every other field 0 (null pointers).
pub fn order(
    kind: cohort_ffi::orders::CohortCommand,
    units: &[u64],
) -> cohort_ffi::orders::CohortOrder {
    cohort_ffi::orders::CohortOrder {
        kind: kind as i32,
        units: units.as_ptr(),
        unit_count: units.len(),
        x_fx: 0,
        y_fx: 0,
        target: 0,
        tile_x: 0,
        tile_y: 0,
        turned: 0,
        formation: 0,
        building: std::ptr::null(),
        building_len: 0,
    }
}

/// Whether valgrind is installed (the tests that run under it skip that half, saying so, when
/// it is not).
pub fn valgrind_present() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `exe` under valgrind: full leak checks, every leak kind an error, exit 97 on one;
/// ffi/tests/valgrind.supp names the reports that are not Cohort's.
pub fn under_valgrind(exe: &Path) -> Command {
    let mut c = Command::new("valgrind");
    c.args([
        "--leak-check=full",
        "--show-leak-kinds=definite,indirect,possible",
        "--errors-for-leak-kinds=definite,indirect,possible",
        "--error-exitcode=97",
    ])
    .arg(format!(
        "--suppressions={}",
        root().join("ffi/tests/valgrind.supp").display()
    ))
    .arg(exe);
    c
}

/// This thread's last error message.
pub fn last_error() -> String {
    let mut buf = vec![0u8; 1024];
    let n = unsafe { cohort_ffi::cohort_last_error(buf.as_mut_ptr(), buf.len()) };
    buf.truncate(n.min(1024));
    String::from_utf8(buf).unwrap()
}

/// A fresh directory for a test's files.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-ffi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// What a foreign client printed and how it ended.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `command` to its end, its output in files under `dir`, killing it after
/// [`CHILD_LIMIT`].
pub async fn run_bounded(mut command: Command, dir: &Path, name: &str) -> Run {
    let out_path = dir.join(format!("{name}.out"));
    let err_path = dir.join(format!("{name}.err"));
    let mut child = command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {name}: {e}"));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for the child") {
            break s;
        }
        if start.elapsed() > CHILD_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{name} ran over {CHILD_LIMIT:?}; stderr: {}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    Run {
        status,
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

/// The `turn N hash HEX` lines a foreign client printed.
pub fn printed_hashes(stdout: &str) -> BTreeMap<u64, [u8; 32]> {
    stdout
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("turn ")?;
            let (turn, hash) = rest.split_once(" hash ")?;
            let bytes: [u8; 32] = hex::decode(hash.trim()).ok()?.try_into().ok()?;
            Some((turn.parse().ok()?, bytes))
        })
        .collect()
}

/// Plays a match of [`TURNS`] turns on a real server (`--turn-ticks turn_ticks`): the foreign
/// client `client` (given the server's address, fingerprint and player 0's token) in slot 0, a
/// `cohort bot` (the same session code the binary runs) in slot 1. Checks that the foreign
/// client ran every turn and printed, for every turn, the server's own hash; that no desync was
/// seen; and that it gave orders, for its own units only. Returns its run.
pub async fn play_beside_a_bot(
    name: &str,
    turn_ticks: u32,
    client: impl FnOnce(&str, &str, &str) -> Command,
) -> Run {
    let ticks = turn_ticks.to_string();
    let turns = TURNS.to_string();
    let server = TestServer::start(
        name,
        &[
            "--players",
            "2",
            "--turn-ticks",
            &ticks,
            "--max-turns",
            &turns,
            "--require-hashes",
        ],
    )
    .await
    .expect("the server starts");
    let bot = spawn_bot(
        &server,
        plan(
            server.token("default", Role::Player(1)),
            "bot",
            Box::new(RandomBrain::new(31)),
        ),
    );
    let command = client(
        &server.addr,
        &server.fingerprint,
        &server.token("default", Role::Player(0)),
    );
    let dir = server.dir.clone();
    let run = run_bounded(command, &dir, name).await;
    let bot = outcome(bot).await;
    let summary = server.finish().await.expect("the server ends by itself");
    assert!(
        run.status.success(),
        "{name} failed ({}):\nstdout: {}\nstderr: {}",
        run.status,
        run.stdout
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .join("\n"),
        run.stderr
    );
    let replay = the_replay(&summary);
    assert_eq!(replay.records.len() as u64, TURNS);
    assert_eq!(summary.matches[0].stats.desyncs, 0, "no desync");
    assert!(summary.matches[0].reports.is_empty());
    let hashes = printed_hashes(&run.stdout);
    assert_eq!(hashes.len() as u64, TURNS, "{name} ran every turn");
    for (turn, hash) in &hashes {
        assert_eq!(
            replay.records[*turn as usize].hash.0, *hash,
            "{name}'s hash after turn {turn} is the server's"
        );
    }
    assert_eq!(bot.tally.hashes_disagreed, 0);
    assert_eq!(bot.tally.turns_run, TURNS);
    assert_orders_for_its_own_units(&replay, 0);
    run
}

/// Player `player` gave orders in the match, each naming only its own units.
fn assert_orders_for_its_own_units(replay: &Replay, player: u8) {
    let start = replay
        .header
        .config
        .world(Arc::new(Ruleset::default_rules()))
        .expect("the match's world");
    let owner = |id: &EntityId| start.unit(*id).map(|u| u.owner);
    let mut given = 0;
    for record in &replay.records {
        for c in record.bundle.commands.iter().filter(|c| c.player == player) {
            given += 1;
            assert!(
                c.command.units().iter().all(|u| owner(u) == Some(player)),
                "{c:?} names only player {player}'s units"
            );
        }
    }
    assert!(given >= 20, "player {player} gave {given} orders");
}

/// Options with these strings (kept alive by the caller); `ca` instead of `fingerprint` when
/// given.
pub fn options(
    server: &str,
    fingerprint: &str,
    ca: Option<&str>,
    token: &str,
) -> CohortConnectOptions {
    let (fp, fp_len) = match ca {
        Some(_) => (null(), 0),
        None => (fingerprint.as_ptr(), fingerprint.len()),
    };
    let (ca, ca_len) = ca.map_or((null(), 0), |c| (c.as_ptr(), c.len()));
    CohortConnectOptions {
        server: server.as_ptr(),
        server_len: server.len(),
        fingerprint: fp,
        fingerprint_len: fp_len,
        ca_file: ca,
        ca_file_len: ca_len,
        server_name: null(),
        server_name_len: 0,
        token: token.as_ptr(),
        token_len: token.len(),
        name: "ana".as_ptr(),
        name_len: 3,
        ruleset_toml: null(),
        ruleset_len: 0,
    }
}
