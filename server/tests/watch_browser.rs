//! The live match in a real browser: the real `cohort-server` binary on 127.0.0.1 with a
//! spectator delay, two real QUIC bots (the `cohort bot` library) playing a match to its turn
//! limit, and Debian's headless `chromium` driven by `playwright-core` (`watch/drive.cjs`)
//! opening the page `/watch/<match>`, which connects over WebTransport. The page reports what
//! it drew; the test holds it to the server: every turn shown is at least the delay behind the
//! match's live turn (read from the admin API after the page's report), the units drawn at a
//! turn are where the server's sim has them (the replay re-run to that turn), the pixel under
//! the last unit drawn is its owner's colour, and the page draws the match to its end. The
//! screenshot is saved to `$CARGO_TARGET_TMPDIR/watch.png` (its path is printed).
//!
//! Needs `chromium`, `node` and `playwright-core` installed in `target/playwright` (or
//! `$COHORT_PLAYWRIGHT_DIR`); `.ci/run` installs them. A missing one fails the test, naming it.

mod common;

use cohort_client::net::ServerAuth;
use cohort_client::session::Connect;
use cohort_protocol::fingerprint::parse_fingerprint;
use cohort_protocol::message::EndReason;
use cohort_protocol::replay::read_replay;
use cohort_protocol::setup::run_bundle;
use cohort_sim::Ruleset;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

const SECRET: &str = "watch-browser-test-secret";
const ADMIN_TOKEN: &str = "watch-browser-admin-token";
/// 2 s at 128 ms a turn: 16 turns (15.6 rounded up).
const DELAY_SECS: u32 = 2;
const DELAY_TURNS: u64 = 16;
const TURNS: u64 = 200;
/// The most the browser is given to watch the whole match (about 30 s of play and delay).
const BROWSER_TIMEOUT_MS: u64 = 150_000;

/// Where `node_modules/playwright-core` is.
fn playwright_dir() -> PathBuf {
    std::env::var_os("COHORT_PLAYWRIGHT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/playwright"))
}

/// The path of a program on PATH, or a failure naming the Debian package that brings it.
fn program(name: &str, package: &str) -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!("`{name}` is not installed: this test needs Debian's `{package}` package (apt-get install {package}; .ci/run installs it)")
    })
}

struct Server {
    child: Child,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn a_browser_watches_the_match_delayed_and_draws_units_where_the_server_has_them() {
    let chromium = program("chromium", "chromium");
    let node = program("node", "nodejs");
    let pw = playwright_dir();
    assert!(
        pw.join("node_modules/playwright-core/package.json").is_file(),
        "playwright-core is not installed in {}: run `npm install playwright-core` there (npm: Debian's `npm` package; .ci/run does it), or set COHORT_PLAYWRIGHT_DIR",
        pw.display()
    );
    let dir = std::env::temp_dir().join(format!("cohort-watch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cohort-server"))
        .args(["--listen", "127.0.0.1:0", "--secret", SECRET])
        .args(["--admin", "127.0.0.1:0", "--matches", "1", "--print-tokens"])
        .args(["--max-turns", &TURNS.to_string()])
        .args(["--spectator-delay", &DELAY_SECS.to_string()])
        .arg("--replay-dir")
        .arg(dir.join("replays"))
        .arg("--report-dir")
        .arg(dir.join("reports"))
        .env("COHORT_ADMIN_TOKEN", ADMIN_TOKEN)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cohort-server starts");
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let lines: Vec<String> = out
        .by_ref()
        .map_while(Result::ok)
        .take_while(|l| !l.contains("join:"))
        .collect();
    // The rest of what it prints is read too (a closed pipe would end it).
    std::thread::spawn(move || for _ in out {});
    let server = Server { child, dir };
    let addr = lines[0].split_whitespace().nth(4).unwrap().to_string();
    let fingerprint = parse_fingerprint(lines[1].rsplit(' ').next().unwrap()).unwrap();
    let watch = lines
        .iter()
        .find_map(|l| l.trim().strip_prefix("watch: "))
        .expect("the watch page's address is printed")
        .to_string();
    let admin = watch.split("/watch/").next().unwrap().to_string();

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let connect = Connect {
        server: addr,
        auth: ServerAuth::Fingerprint(fingerprint),
        server_name: "localhost".into(),
    };
    let bots: Vec<_> = (0..2u8)
        .map(|p| runtime.spawn(common::bot(&connect, SECRET, "m1", p, u64::from(p) + 7)))
        .collect();

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("watch.png");
    let _ = std::fs::remove_file(&shot);
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/watch/drive.cjs");
    let out = Command::new(node)
        .arg(driver)
        .arg(&pw)
        .arg(&chromium)
        .arg(&watch)
        .arg(&admin)
        .arg(ADMIN_TOKEN)
        .arg("m1")
        .arg(&shot)
        .arg(BROWSER_TIMEOUT_MS.to_string())
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "the browser's driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    println!("screenshot: {}", shot.display());
    assert!(shot.is_file(), "the screenshot is saved");

    for b in bots {
        let o = runtime
            .block_on(async { tokio::time::timeout(Duration::from_secs(60), b).await })
            .expect("the bot finishes")
            .unwrap();
        assert_eq!(o.ended.map(|e| e.reason), Some(EndReason::TurnLimit));
    }

    let last = &seen["last"];
    assert_eq!(last["error"], serde_json::Value::Null, "{seen}");
    assert_eq!(last["delay_secs"], DELAY_SECS);
    assert_eq!(
        last["turn"],
        TURNS - 1,
        "the page drew the match to its last turn: {last}"
    );
    assert_eq!(last["ended"], true);
    let samples = seen["samples"].as_array().unwrap();
    assert!(samples.len() >= 10, "{} samples", samples.len());
    for s in samples {
        let shown = s["shown"].as_u64().unwrap();
        // The live turn was read after the page's report: the newest closed turn then was at
        // least what it was when the page drew `shown`. After the end, the page plays out.
        if s["live_state"] == "running" {
            let newest_closed = s["live_open_turn"].as_u64().unwrap() - 1;
            assert!(
                shown + DELAY_TURNS <= newest_closed,
                "the page showed turn {shown} when turn {newest_closed} had closed"
            );
        }
        let probe = &s["probe"];
        assert_eq!(
            probe["rgb"], probe["expected"],
            "the last unit's pixel: {probe}"
        );
    }

    // The units drawn at a turn are where the server's sim has them after that turn.
    let replays = std::fs::read_dir(server.dir.join("replays")).unwrap();
    let path = replays.map(|e| e.unwrap().path()).next().unwrap();
    let replay = read_replay(&std::fs::read(path).unwrap()).unwrap();
    let rules = Arc::new(Ruleset::default_rules());
    let mut world = replay.header.config.world(rules).unwrap();
    let drawn: Vec<(u64, &Vec<serde_json::Value>)> = samples
        .iter()
        .filter_map(|s| Some((s["shown"].as_u64()?, s["units"].as_array()?)))
        .collect();
    let mut checked = 0;
    for r in &replay.records {
        run_bundle(&mut world, &r.bundle, replay.header.config.turn_ticks);
        for (_, units) in drawn.iter().filter(|(t, _)| *t == r.bundle.turn) {
            let sim: Vec<serde_json::Value> = world
                .state()
                .units
                .iter()
                .map(|u| {
                    serde_json::json!([
                        u.owner,
                        u.position.x.to_bits() >> 12,
                        u.position.y.to_bits() >> 12
                    ])
                })
                .collect();
            assert_eq!(&sim, *units, "turn {}", r.bundle.turn);
            checked += 1;
        }
    }
    assert!(checked >= 2, "units checked at {checked} turns");
    println!(
        "browser: {} samples, {checked} turns' units checked against the sim, last turn {}",
        samples.len(),
        last["turn"]
    );
}
