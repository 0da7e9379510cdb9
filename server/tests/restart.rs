//! A match outlives its server (issue 40), with the real `cohort-server` binary and real QUIC
//! clients on loopback: SIGKILLed mid-match again and again — once with the replay's last
//! record cut short, as a kill in the middle of its write leaves it — and started again on the
//! same folders, the server takes the match up again; two bots and a spectator come back by
//! themselves with the tokens and the fingerprint they had; the match is played to its end;
//! its one replay verifies whole as `cohort replay` checks it. A SIGTERM (a planned restart)
//! suspends the match, the next start takes it up; with `--end-on-shutdown` it ends it. A match
//! moved between two servers through their admin APIs, behind one address or told to its
//! clients (close code `moved`, which they follow). A
//! replay damaged while the server was down is refused and the match reported lost, never
//! half-resumed.

use cohort_client::brain::RandomBrain;
use cohort_client::net::ServerAuth;
use cohort_client::session::{run_bot_paced, BotOutcome, BotPlan, Connect, Pace, Reconnect};
use cohort_client::verify::{verify_replay, Verdict};
use cohort_protocol::fingerprint::parse_fingerprint;
use cohort_protocol::message::EndReason;
use cohort_protocol::replay::{read_replay, Replay, Tail};
use cohort_sim::Ruleset;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// The most time any wait of these tests may take before the test fails.
const STEP_TIMEOUT: Duration = Duration::from_secs(120);

/// The server process, killed when dropped.
struct Server {
    child: Child,
    fingerprint: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// SIGKILL: no turn finished, nothing flushed but what was written.
    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then the process's exit, which must be clean.
    fn terminate(mut self) {
        let pid = self.child.id().to_string();
        let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(status.success(), "kill -TERM {pid}");
        self.exits_cleanly();
    }

    /// Waits (at most [`STEP_TIMEOUT`]) for the server to exit by itself (a server without
    /// the admin API exits once its matches are over) and checks it exited cleanly. A client
    /// hears `MatchEnded` before the server has run and recorded the last turns it closed:
    /// only once the process is gone is its replay whole.
    fn exits_cleanly(&mut self) {
        let begun = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "the server exited with {status}");
                return;
            }
            assert!(begun.elapsed() < STEP_TIMEOUT, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A folder of the test's own, emptied.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cohort-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A UDP port free now on loopback (the server is started again on the same one).
fn free_udp_port() -> u16 {
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.local_addr().unwrap().port()
}

/// A TCP port free now on loopback (the admin API's).
fn free_tcp_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Starts the binary on `port` with the test's folders (state, replays, reports) and no secret
/// of its own: it makes one and keeps it in the state folder, with its certificate.
fn start(dir: &Path, port: u16, run: u32, extra: &[&str]) -> Server {
    let log = std::fs::File::create(dir.join(format!("server-{run}.log"))).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cohort-server"))
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--state-dir")
        .arg(dir.join("state"))
        .arg("--replay-dir")
        .arg(dir.join("replays"))
        .arg("--report-dir")
        .arg(dir.join("reports"))
        .arg("--tokens-file")
        .arg(dir.join(format!("tokens-{run}.json")))
        .args(extra)
        .env("COHORT_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("cohort-server starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let _listening = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    let fingerprint = second.rsplit(' ').next().unwrap().to_string();
    std::thread::spawn(move || for _ in lines {});
    Server { child, fingerprint }
}

/// The tokens the first start wrote: players', then the spectator's.
fn tokens(dir: &Path) -> (Vec<String>, String) {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tokens-0.json")).unwrap()).unwrap();
    let m = &json["matches"][0];
    let players = m["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    (players, m["spectator"].as_str().unwrap().to_string())
}

/// The one replay of the folder.
fn the_replay(dir: &Path) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cohort-replay"))
        .collect();
    assert_eq!(found.len(), 1, "one replay across the restarts: {found:?}");
    found[0].clone()
}

fn read(path: &Path) -> Replay {
    read_replay(&std::fs::read(path).unwrap()).unwrap()
}

/// Waits until the replay holds more than `turns` whole turns.
async fn recorded_past(dir: &Path, turns: usize) {
    tokio::time::timeout(STEP_TIMEOUT, async {
        loop {
            let path = dir.join("replays");
            let n = std::fs::read_dir(&path)
                .ok()
                .and_then(|mut d| {
                    d.find_map(|e| {
                        let p = e.ok()?.path();
                        p.extension()
                            .is_some_and(|e| e == "cohort-replay")
                            .then_some(p)
                    })
                })
                .and_then(|p| std::fs::read(p).ok())
                .and_then(|b| read_replay(&b).ok())
                .map_or(0, |r| r.records.len());
            if n > turns {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the replay never got past turn {turns}"));
}

/// A bot (or, with the spectator's token, a watcher) that comes back by itself.
fn bot(addr: SocketAddr, fingerprint: &str, token: String, name: &str) -> JoinHandle<BotOutcome> {
    let connect = Connect {
        server: addr.to_string(),
        auth: ServerAuth::Fingerprint(parse_fingerprint(fingerprint).unwrap()),
        server_name: "localhost".into(),
    };
    let seed = name.len() as u64;
    let plan = BotPlan::new(token, name, Box::new(RandomBrain::new(seed)));
    let pace = Pace::new(
        1,
        Reconnect {
            attempts: 1000,
            window: STEP_TIMEOUT,
            first_wait: Duration::from_millis(100),
            max_wait: Duration::from_millis(500),
        },
    );
    tokio::spawn(async move {
        run_bot_paced(&connect, plan, Arc::new(Ruleset::default_rules()), &pace).await
    })
}

/// What a kill in the middle of a record's write leaves: the record's first bytes.
fn cut_a_record_short(replay: &Path) {
    let bytes = std::fs::read(replay).unwrap();
    let r = read_replay(&bytes).unwrap();
    let last = cohort_protocol::replay::encode_turn_record(r.records.last().unwrap()).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(replay)
        .unwrap();
    f.write_all(&last[..last.len() / 2]).unwrap();
}

/// Every client's outcome, each awaited within the step's time.
async fn all_end(bots: Vec<JoinHandle<BotOutcome>>) -> Vec<BotOutcome> {
    let mut outcomes = Vec::new();
    for b in bots {
        let o = tokio::time::timeout(STEP_TIMEOUT, b).await;
        outcomes.push(o.expect("every client sees the end").unwrap());
    }
    outcomes
}

/// The one replay of `dir`: whole, `turns` long, every hash re-simulated as `cohort replay`
/// checks them; and every client played to the turn limit, came back at least `reconnects`
/// times, and computed the replay's hash for every turn it kept.
fn verified_whole(dir: &Path, turns: u64, outcomes: &[BotOutcome], reconnects: u32) {
    let replay = read(&the_replay(dir));
    assert_eq!(replay.tail, Tail::Whole);
    assert_eq!(replay.records.len() as u64, turns);
    match verify_replay(&replay, Arc::new(Ruleset::default_rules()), |_| {}).unwrap() {
        Verdict::Verified { turns: t, .. } => assert_eq!(t, turns),
        Verdict::Differs(d) => panic!("the replay does not verify: {d:?}"),
    }
    for o in outcomes {
        assert!(!o.failed(), "{o:?}");
        assert_eq!(o.ended.map(|e| e.reason), Some(EndReason::TurnLimit));
        assert!(o.reconnects >= reconnects, "back after each stop: {o:?}");
        assert_eq!(o.tally.hashes_disagreed, 0, "{o:?}");
        assert_eq!(o.snapshot_agreed, Some(true));
        for (turn, hash) in &o.hashes {
            let recorded = replay.records[usize::try_from(*turn).unwrap()].hash;
            assert_eq!(
                *hash, recorded,
                "turn {turn}: the client's hash is the replay's"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_match_killed_three_times_is_taken_up_again_and_played_to_its_end() {
    const TURNS: u64 = 420;
    let dir = folder("restart");
    let port = free_udp_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let flags = ["--turn-ticks", "2", "--max-turns", "420"];
    let mut server = start(&dir, port, 0, &flags);
    let fingerprint = server.fingerprint.clone();
    let (players, spectator) = tokens(&dir);
    let bots = vec![
        bot(addr, &fingerprint, players[0].clone(), "ana"),
        bot(addr, &fingerprint, players[1].clone(), "bo"),
        bot(addr, &fingerprint, spectator, "watcher"),
    ];
    // Killed at three points; before the third start, the replay's tail is cut mid-record.
    for (run, past) in [(1, 40), (2, 150), (3, 290)] {
        recorded_past(&dir, past).await;
        server.kill();
        if run == 3 {
            cut_a_record_short(&the_replay(&dir));
            assert!(matches!(
                read(&the_replay(&dir)).tail,
                Tail::CutShort { .. }
            ));
        }
        server = start(&dir, port, run, &flags);
        assert_eq!(
            server.fingerprint, fingerprint,
            "the certificate players pinned is kept"
        );
    }
    let outcomes = all_end(bots).await;
    server.exits_cleanly();
    verified_whole(&dir, TURNS, &outcomes, 3);
    let logs: String = (1..=3)
        .map(|run| std::fs::read_to_string(dir.join(format!("server-{run}.log"))).unwrap())
        .collect();
    assert_eq!(
        logs.matches("match taken up again from its replay").count(),
        3
    );
    assert!(logs.contains("cut last record"), "the cut tail was dropped");
    let snapshots = std::fs::read_dir(dir.join("replays"))
        .unwrap()
        .filter(|e| {
            let p = e.as_ref().unwrap().path();
            p.extension().is_some_and(|e| e == "cohort-snapshot")
        })
        .count();
    assert_eq!(snapshots, 0, "an ended match leaves no snapshot to take up");
    if std::env::var_os("COHORT_KEEP_TEST_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_with_a_state_folder_suspends_the_match_and_the_next_start_takes_it_up() {
    const TURNS: u64 = 300;
    let dir = folder("sigterm");
    let port = free_udp_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let flags = ["--turn-ticks", "2", "--max-turns", "300"];
    let server = start(&dir, port, 0, &flags);
    let fingerprint = server.fingerprint.clone();
    let (players, _) = tokens(&dir);
    let bots = vec![
        bot(addr, &fingerprint, players[0].clone(), "ana"),
        bot(addr, &fingerprint, players[1].clone(), "bo"),
    ];
    recorded_past(&dir, 60).await;
    // A planned restart: SIGTERM, the process gone, started again on the same folders.
    server.terminate();
    let path = the_replay(&dir);
    let stopped = read(&path);
    assert_eq!(stopped.tail, Tail::Whole, "its open turn recorded whole");
    let turns_then = stopped.records.len() as u64;
    assert!(turns_then > 60 && turns_then < TURNS, "{turns_then} turns");
    let snapshot = path.with_extension("cohort-snapshot");
    let saved = cohort_protocol::resume::decode_match_snapshot(&std::fs::read(&snapshot).unwrap())
        .expect("suspended: its snapshot kept beside its replay");
    assert_eq!(saved.turns_run, turns_then, "the state after its last turn");
    let log = std::fs::read_to_string(dir.join("server-0.log")).unwrap();
    assert!(log.contains("match suspended"), "suspended, not ended");
    assert!(!log.contains("match ended"), "not ended");
    let mut server = start(&dir, port, 1, &flags);
    assert_eq!(server.fingerprint, fingerprint);
    let outcomes = all_end(bots).await;
    server.exits_cleanly();
    verified_whole(&dir, TURNS, &outcomes, 1);
    let log = std::fs::read_to_string(dir.join("server-1.log")).unwrap();
    assert!(
        log.contains(&format!("{turns_then} turns; 0 re-simulated")),
        "taken up from the state saved at the SIGTERM, nothing re-simulated: {log}"
    );
    assert!(
        !snapshot.exists(),
        "ended at its turn limit: nothing left to take up"
    );
    if std::env::var_os("COHORT_KEEP_TEST_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_with_end_on_shutdown_ends_the_match_and_keeps_nothing_to_take_up() {
    let dir = folder("sigterm-end");
    let port = free_udp_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let server = start(&dir, port, 0, &["--turn-ticks", "2", "--end-on-shutdown"]);
    let fingerprint = server.fingerprint.clone();
    let (players, _) = tokens(&dir);
    let bots = vec![
        bot(addr, &fingerprint, players[0].clone(), "ana"),
        bot(addr, &fingerprint, players[1].clone(), "bo"),
    ];
    recorded_past(&dir, 30).await;
    server.terminate();
    for o in all_end(bots).await {
        assert_eq!(
            o.ended.map(|e| e.reason),
            Some(EndReason::ServerShutdown),
            "{o:?}"
        );
        assert_eq!(o.reconnects, 0, "an ended match is not reconnected to");
    }
    let path = the_replay(&dir);
    assert_eq!(read(&path).tail, Tail::Whole);
    assert!(
        !path.with_extension("cohort-snapshot").exists(),
        "ended: no snapshot"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replay_damaged_while_the_server_was_down_is_refused_and_the_match_reported_lost() {
    let dir = folder("restart-damaged");
    let port = free_udp_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let server = start(&dir, port, 0, &["--turn-ticks", "2"]);
    let fingerprint = server.fingerprint.clone();
    let (players, _) = tokens(&dir);
    let bots = [
        bot(addr, &fingerprint, players[0].clone(), "ana"),
        bot(addr, &fingerprint, players[1].clone(), "bo"),
    ];
    recorded_past(&dir, 60).await;
    server.kill();
    for b in &bots {
        b.abort();
    }
    let path = the_replay(&dir);
    let mut bytes = std::fs::read(&path).unwrap();
    // A bit flipped in the record of turn 30 (whole records after it): damage, not a cut.
    let before = read_replay(&bytes).unwrap();
    let header = cohort_protocol::replay::encode_replay_start(&before.header)
        .unwrap()
        .len();
    let at: usize = header
        + before.records[..30]
            .iter()
            .map(|r| {
                cohort_protocol::replay::encode_turn_record(r)
                    .unwrap()
                    .len()
            })
            .sum::<usize>()
        + 6;
    bytes[at] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();
    let admin_port = free_tcp_port();
    let token_file = dir.join("admin-token");
    std::fs::write(&token_file, "an-admin-token-of-the-test").unwrap();
    let server = start(
        &dir,
        port,
        1,
        &[
            "--admin",
            &format!("127.0.0.1:{admin_port}"),
            "--admin-token-file",
            token_file.to_str().unwrap(),
        ],
    );
    let view: serde_json::Value = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{admin_port}/v1/matches/default"))
        .bearer_auth("an-admin-token-of-the-test")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(view["state"], "ended", "{view}");
    assert_eq!(view["summary"]["reason"], "lost", "{view}");
    let why = view["summary"]["lost"].as_str().unwrap();
    assert!(
        why.contains("the record of turn 30") && why.contains("damaged"),
        "{why}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the replay is left as it was"
    );
    let set_aside = path.with_extension("cohort-snapshot.lost");
    assert!(set_aside.exists(), "the snapshot is set aside");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A stable public address in front of servers (a load balancer, a proxy): a UDP relay on
/// loopback whose server can be changed while clients use it.
struct Front {
    addr: SocketAddr,
    to: Arc<std::sync::atomic::AtomicU16>,
    task: JoinHandle<()>,
}

impl Drop for Front {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Front {
    async fn start(port: u16) -> Front {
        use std::collections::HashMap;
        use std::sync::atomic::{AtomicU16, Ordering};
        let front = Arc::new(tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap());
        let addr = front.local_addr().unwrap();
        let to = Arc::new(AtomicU16::new(port));
        let target = to.clone();
        let task = tokio::spawn(async move {
            let mut ways: HashMap<SocketAddr, Arc<tokio::net::UdpSocket>> = HashMap::new();
            let mut buf = vec![0u8; 65536];
            while let Ok((n, client)) = front.recv_from(&mut buf).await {
                let up = match ways.get(&client) {
                    Some(up) => up.clone(),
                    None => {
                        let up =
                            Arc::new(tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap());
                        let (back, front) = (up.clone(), front.clone());
                        tokio::spawn(async move {
                            let mut buf = vec![0u8; 65536];
                            while let Ok((n, _)) = back.recv_from(&mut buf).await {
                                let _ = front.send_to(&buf[..n], client).await;
                            }
                        });
                        ways.insert(client, up.clone());
                        up
                    }
                };
                let port = target.load(Ordering::Relaxed);
                let _ = up.send_to(&buf[..n], ("127.0.0.1", port)).await;
            }
        });
        Front { addr, to, task }
    }

    fn point_to(&self, port: u16) {
        self.to.store(port, std::sync::atomic::Ordering::Relaxed);
    }
}

const ADMIN_TOKEN: &str = "an-admin-token-of-the-test";

/// Starts a server on `dir` and `port` with `flags` (first start).
fn start_with(dir: &Path, port: u16, flags: &[String]) -> Server {
    start(
        dir,
        port,
        0,
        &flags.iter().map(String::as_str).collect::<Vec<_>>(),
    )
}

/// Creates the two-player match "moving", `turns` long, through the admin API on port `admin`:
/// its players' tokens and its spectator's.
async fn create_moving(admin_port: u16, turns: u64) -> (Vec<String>, String) {
    let body =
        format!(r#"{{"id": "moving", "players": 2, "turn_ticks": 2, "max_turns": {turns}}}"#);
    let (status, created) = admin(
        reqwest::Method::POST,
        admin_port,
        "/v1/matches",
        Some(body.into_bytes()),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let tokens = &created["tokens"];
    let players = (0..2)
        .map(|i| tokens["players"][i].as_str().unwrap().to_string())
        .collect();
    (players, tokens["spectator"].as_str().unwrap().to_string())
}

async fn admin(
    method: reqwest::Method,
    port: u16,
    path: &str,
    body: Option<Vec<u8>>,
) -> (u16, serde_json::Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("http://127.0.0.1:{port}{path}"))
        .bearer_auth(ADMIN_TOKEN);
    if let Some(b) = body {
        request = request.body(b);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_match_suspended_on_one_server_moves_to_another_and_is_played_to_its_end() {
    const TURNS: u64 = 400;
    // Both servers hold the same certificate and secret (a fleet's), behind one address.
    let root = folder("move");
    let key = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    std::fs::write(root.join("cert.pem"), key.cert.pem()).unwrap();
    std::fs::write(root.join("key.pem"), key.key_pair.serialize_pem()).unwrap();
    std::fs::write(root.join("admin-token"), ADMIN_TOKEN).unwrap();
    let (a, b) = (root.join("a"), root.join("b"));
    for d in [&a, &b] {
        std::fs::create_dir_all(d).unwrap();
    }
    let (port_a, port_b) = (free_udp_port(), free_udp_port());
    let (admin_a, admin_b) = (free_tcp_port(), free_tcp_port());
    let flags = |admin: u16| -> Vec<String> {
        let p = |f: &str| root.join(f).to_str().unwrap().to_string();
        [
            "--secret",
            "the-fleet-secret",
            "--cert",
            &p("cert.pem"),
            "--key",
            &p("key.pem"),
            "--admin-token-file",
            &p("admin-token"),
            "--admin",
            &format!("127.0.0.1:{admin}"),
        ]
        .map(String::from)
        .to_vec()
    };
    let (fa, fb) = (flags(admin_a), flags(admin_b));
    let server_a = start_with(&a, port_a, &fa);
    let server_b = start_with(&b, port_b, &fb);
    assert_eq!(server_a.fingerprint, server_b.fingerprint);
    let (players, spectator) = create_moving(admin_a, TURNS).await;
    let token = |i: usize| players[i].clone();
    let front = Front::start(port_a).await;
    let fp = server_a.fingerprint.clone();
    let bots = vec![
        bot(front.addr, &fp, token(0), "ana"),
        bot(front.addr, &fp, token(1), "bo"),
        bot(front.addr, &fp, spectator, "watcher"),
    ];
    recorded_past(&a, 80).await;
    // Suspended on A: its open turn played, its state saved beside its replay.
    let (status, view) = admin(
        reqwest::Method::POST,
        admin_a,
        "/v1/matches/moving/suspend",
        None,
    )
    .await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["state"], "ended");
    assert_eq!(view["summary"]["reason"], "suspended", "{view}");
    let replay = the_replay(&a);
    let name = replay.file_name().unwrap().to_str().unwrap().to_string();
    let snapshot = replay.with_extension("cohort-snapshot");
    assert!(snapshot.exists(), "kept to be taken up again");
    // The matchmaker uploads both files to B and takes the match up there.
    for file in [&replay, &snapshot] {
        let n = file.file_name().unwrap().to_str().unwrap();
        let (status, put) = admin(
            reqwest::Method::PUT,
            admin_b,
            &format!("/v1/replays/{n}"),
            Some(std::fs::read(file).unwrap()),
        )
        .await;
        assert_eq!(status, 201, "{put}");
    }
    let (status, refused) = admin(
        reqwest::Method::PUT,
        admin_b,
        &format!("/v1/replays/{name}"),
        Some(Vec::new()),
    )
    .await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (409, Some("file_exists"))
    );
    let body = format!(r#"{{"replay": "{name}"}}"#);
    let (status, resumed) = admin(
        reqwest::Method::POST,
        admin_b,
        "/v1/resume",
        Some(body.into_bytes()),
    )
    .await;
    assert_eq!(status, 201, "{resumed}");
    assert_eq!(resumed["view"]["state"], "resuming");
    front.point_to(port_b);
    let outcomes = all_end(bots).await;
    verified_whole(&b, TURNS, &outcomes, 1);
    drop((server_a, server_b));
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_match_moved_to_another_address_tells_its_clients_where_and_they_follow() {
    const TURNS: u64 = 360;
    // Two servers on two addresses, each with a self-signed certificate of its own (two
    // fingerprints), sharing the token secret.
    let root = folder("move-to");
    std::fs::write(root.join("admin-token"), ADMIN_TOKEN).unwrap();
    let (a, b) = (root.join("a"), root.join("b"));
    for d in [&a, &b] {
        std::fs::create_dir_all(d).unwrap();
    }
    let (port_a, port_b) = (free_udp_port(), free_udp_port());
    let (admin_a, admin_b) = (free_tcp_port(), free_tcp_port());
    let token_file = root.join("admin-token").to_str().unwrap().to_string();
    let flags = |admin: u16| -> Vec<String> {
        [
            "--secret",
            "the-fleet-secret",
            "--admin-token-file",
            &token_file,
            "--admin",
            &format!("127.0.0.1:{admin}"),
        ]
        .map(String::from)
        .to_vec()
    };
    let (fa, fb) = (flags(admin_a), flags(admin_b));
    let server_a = start_with(&a, port_a, &fa);
    let server_b = start_with(&b, port_b, &fb);
    assert_ne!(server_a.fingerprint, server_b.fingerprint);
    let (players, _spectator) = create_moving(admin_a, TURNS).await;
    let token = |i: usize| players[i].clone();
    let addr_a: SocketAddr = format!("127.0.0.1:{port_a}").parse().unwrap();
    let bots = vec![
        bot(addr_a, &server_a.fingerprint, token(0), "ana"),
        bot(addr_a, &server_a.fingerprint, token(1), "bo"),
    ];
    recorded_past(&a, 60).await;
    // A bad address is refused, naming its key; nothing is suspended.
    let (status, refused) = admin(
        reqwest::Method::POST,
        admin_a,
        "/v1/matches/moving/suspend",
        Some(br#"{"address": "no port here"}"#.to_vec()),
    )
    .await;
    assert_eq!((status, refused["field"].as_str()), (400, Some("address")));
    // Suspended on A, its clients told it goes on at B with B's certificate.
    let to_b = format!(
        r#"{{"address": "127.0.0.1:{port_b}", "fingerprint": "{}"}}"#,
        server_b.fingerprint
    );
    let (status, view) = admin(
        reqwest::Method::POST,
        admin_a,
        "/v1/matches/moving/suspend",
        Some(to_b.into_bytes()),
    )
    .await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["summary"]["reason"], "suspended", "{view}");
    // A client joining it at A now is closed with `moved` and where.
    let mut link = cohort_client::net::Link::connect(
        &addr_a.to_string(),
        &ServerAuth::Fingerprint(parse_fingerprint(&server_a.fingerprint).unwrap()),
        "localhost",
    )
    .await
    .unwrap();
    link.send(&cohort_protocol::ClientMessage::Hello(
        cohort_protocol::message::Hello {
            protocol_version: cohort_protocol::limits::PROTOCOL_VERSION,
            ruleset_hash: Ruleset::default_rules().hash(),
            token: token(0),
            client_name: "late".into(),
        },
    ))
    .await
    .unwrap();
    assert!(
        link.recv().await.unwrap().is_none(),
        "no message, only the close"
    );
    let moved = link.moved_to().expect("closed with `moved`");
    assert_eq!(moved.address, format!("127.0.0.1:{port_b}"));
    assert_eq!(moved.fingerprint, parse_fingerprint(&server_b.fingerprint));
    // Meanwhile the files go to B, which takes the match up.
    let replay = the_replay(&a);
    let name = replay.file_name().unwrap().to_str().unwrap().to_string();
    for file in [replay.clone(), replay.with_extension("cohort-snapshot")] {
        let n = file.file_name().unwrap().to_str().unwrap();
        let (status, put) = admin(
            reqwest::Method::PUT,
            admin_b,
            &format!("/v1/replays/{n}"),
            Some(std::fs::read(&file).unwrap()),
        )
        .await;
        assert_eq!(status, 201, "{put}");
    }
    let (status, resumed) = admin(
        reqwest::Method::POST,
        admin_b,
        "/v1/resume",
        Some(format!(r#"{{"replay": "{name}"}}"#).into_bytes()),
    )
    .await;
    assert_eq!(status, 201, "{resumed}");
    // The bots followed to B by themselves and play the match to its end there.
    let outcomes = all_end(bots).await;
    let (status, ended) = admin(reqwest::Method::GET, admin_b, "/v1/matches/moving", None).await;
    assert_eq!(status, 200);
    assert_eq!(ended["state"], "ended", "{ended}");
    verified_whole(&b, TURNS, &outcomes, 1);
    drop((server_a, server_b));
    let _ = std::fs::remove_dir_all(&root);
}
