//! The real `cohort-server` binary with real QUIC clients on loopback: a server killed with
//! SIGKILL mid-match leaves a replay that re-simulates to the same hashes up to its last
//! record; SIGTERM finishes the turn, flushes the replay and tells the clients; bad hellos get
//! their documented errors.

use cohort_client::net::{client_config, ServerAuth};
use cohort_protocol::codec::{encode_frame, frame_length};
use cohort_protocol::fingerprint::parse_fingerprint;
use cohort_protocol::limits::PROTOCOL_VERSION;
use cohort_protocol::message::{
    ClientMessage, Commands, EndReason, ErrorCode, Hello, MatchEnded, ServerMessage, TurnHash,
};
use cohort_protocol::replay::read_replay;
use cohort_protocol::setup::run_bundle;
use cohort_protocol::MatchConfig;
use cohort_sim::{Command, Ruleset, StateHash, Vec2, World};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::sync::Arc;
use std::time::Duration;

/// The most time any step of these tests may take before it is given up.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

struct Server {
    child: Child,
    addr: SocketAddr,
    fingerprint: [u8; 32],
    tokens: Vec<String>,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(name: &str, extra: &[&str]) -> Server {
    let dir = std::env::temp_dir().join(format!("cohort-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let tokens_file = dir.join("tokens.json");
    let mut child = Process::new(env!("CARGO_BIN_EXE_cohort-server"))
        .args(["--listen", "127.0.0.1:0", "--secret", "test-secret"])
        .arg("--replay-dir")
        .arg(dir.join("replays"))
        .arg("--report-dir")
        .arg(dir.join("reports"))
        .arg("--tokens-file")
        .arg(&tokens_file)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cohort-server starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr: SocketAddr = first
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .expect("the address is printed");
    let second = lines.next().unwrap().unwrap();
    let fingerprint = parse_fingerprint(second.rsplit(' ').next().unwrap()).unwrap();
    std::thread::spawn(move || for _ in lines {});
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tokens_file).unwrap()).unwrap();
    let tokens = json["matches"][0]["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    Server {
        child,
        addr,
        fingerprint,
        tokens,
        dir,
    }
}

struct Client {
    send: quinn::SendStream,
    recv: quinn::RecvStream,
    _conn: quinn::Connection,
    _endpoint: quinn::Endpoint,
}

async fn connect(server: &Server) -> Client {
    let config = client_config(&ServerAuth::Fingerprint(server.fingerprint)).unwrap();
    let mut endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    endpoint.set_default_client_config(config);
    let conn = endpoint
        .connect(server.addr, "localhost")
        .unwrap()
        .await
        .unwrap();
    let (send, recv) = conn.open_bi().await.unwrap();
    Client {
        send,
        recv,
        _conn: conn,
        _endpoint: endpoint,
    }
}

impl Client {
    /// Writes bytes; a server that has just closed the stream (shutdown) is not an error
    /// here — what the server sent is checked on the reading side.
    async fn write_raw(&mut self, bytes: &[u8]) {
        let _ = self.send.write_all(bytes).await;
    }

    async fn write(&mut self, message: &ClientMessage) {
        let frame = encode_frame(message).unwrap();
        self.write_raw(&frame).await;
    }

    /// The next message, or none when the stream ended.
    async fn read(&mut self) -> Option<ServerMessage> {
        let mut prefix = [0u8; 4];
        tokio::time::timeout(STEP_TIMEOUT, self.recv.read_exact(&mut prefix))
            .await
            .expect("the server answers in time")
            .ok()?;
        let mut payload = vec![0u8; frame_length(prefix).unwrap()];
        self.recv.read_exact(&mut payload).await.ok()?;
        Some(cohort_protocol::codec::decode_message(&payload).unwrap())
    }

    async fn hello(&mut self, token: &str) -> MatchConfig {
        self.write(&ClientMessage::Hello(hello(token))).await;
        match self.read().await {
            Some(ServerMessage::JoinAccepted(a)) => a.config,
            other => panic!("expected JoinAccepted, got {other:?}"),
        }
    }
}

fn hello(token: &str) -> Hello {
    Hello {
        protocol_version: PROTOCOL_VERSION,
        ruleset_hash: Ruleset::default_rules().hash(),
        token: token.to_string(),
        client_name: "test".into(),
    }
}

/// Plays: runs every bundle, sends its hash, and now and then a command; returns its hashes
/// by turn until the stream ends or `until` says stop.
async fn play(
    mut c: Client,
    config: MatchConfig,
    slot: u8,
    mut until: impl FnMut(u64) -> bool,
) -> (Vec<StateHash>, Option<MatchEnded>) {
    let rules = Arc::new(Ruleset::default_rules());
    let mut world: World = config.world(rules).unwrap();
    let mine: Vec<_> = world
        .state()
        .units
        .iter()
        .filter(|u| u.owner == slot)
        .map(|u| u.id)
        .collect();
    let mut hashes = Vec::new();
    while let Some(m) = c.read().await {
        match m {
            ServerMessage::TurnBundle(b) => {
                run_bundle(&mut world, &b, config.turn_ticks);
                hashes.push(world.hash());
                c.write(&ClientMessage::TurnHash(TurnHash {
                    turn: b.turn,
                    hash: world.hash(),
                }))
                .await;
                if b.turn % 5 == 1 {
                    let k = (b.turn / 5) as i32;
                    let to = Vec2::new(
                        cohort_sim::fx(30 + (k * 7 + i32::from(slot) * 13) % 60),
                        cohort_sim::fx(30 + (k * 11) % 60),
                    );
                    c.write(&ClientMessage::Commands(Commands {
                        turn: b.turn + 2,
                        commands: vec![Command::Move {
                            units: mine.clone(),
                            to,
                        }],
                    }))
                    .await;
                }
                if until(b.turn) {
                    return (hashes, None);
                }
            }
            ServerMessage::MatchEnded(e) => return (hashes, Some(e)),
            ServerMessage::Error(e) => panic!("server error {e:?}"),
            ServerMessage::DesyncNotice(d) => panic!("desync {d:?}"),
            _ => {}
        }
    }
    (hashes, None)
}

/// Waits (at most [`STEP_TIMEOUT`]) for the server to exit by itself and checks it exited
/// cleanly. A client hears MatchEnded before the server has run and recorded the match's last
/// turns; only once the process is gone is its replay whole.
fn exits_cleanly(server: &mut Server) {
    let begun = std::time::Instant::now();
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            assert!(status.success(), "the server exited with {status}");
            return;
        }
        assert!(
            begun.elapsed() < STEP_TIMEOUT,
            "the server did not exit after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn the_replay(dir: &Path) -> PathBuf {
    let replays: Vec<PathBuf> = std::fs::read_dir(dir.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(replays.len(), 1, "{replays:?}");
    replays[0].clone()
}

/// Re-simulates a replay and checks every record's hash; returns the hashes.
fn resimulate(path: &Path) -> Vec<StateHash> {
    let replay = read_replay(&std::fs::read(path).unwrap()).unwrap();
    assert!(
        !matches!(replay.tail, cohort_protocol::replay::Tail::Damaged { .. }),
        "a killed server leaves a cut, never damage: {}",
        replay.tail
    );
    let rules = Arc::new(Ruleset::default_rules());
    let mut world = replay.header.config.world(rules).unwrap();
    replay
        .records
        .iter()
        .map(|r| {
            run_bundle(&mut world, &r.bundle, replay.header.config.turn_ticks);
            assert_eq!(world.hash(), r.hash, "turn {}", r.bundle.turn);
            r.hash
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_match_leaves_a_replay_that_resimulates() {
    let mut server = start_server("kill", &["--turn-ticks", "2"]);
    let mut a = connect(&server).await;
    let mut b = connect(&server).await;
    let config = a.hello(&server.tokens[0].clone()).await;
    b.hello(&server.tokens[1].clone()).await;
    let pa = tokio::spawn(play(a, config.clone(), 0, |t| t >= 40));
    let pb = tokio::spawn(play(b, config, 1, |t| t >= 40));
    let (ha, _) = pa.await.unwrap();
    let (hb, _) = pb.await.unwrap();
    server.child.kill().unwrap(); // SIGKILL
    server.child.wait().unwrap();
    let from_replay = resimulate(&the_replay(&server.dir));
    assert!(from_replay.len() >= 40, "{} records", from_replay.len());
    let n = ha.len().min(hb.len()).min(from_replay.len());
    assert_eq!(ha[..n], from_replay[..n]);
    assert_eq!(hb[..n], from_replay[..n]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_finishes_the_turn_flushes_the_replay_and_tells_the_clients() {
    let mut server = start_server("term", &["--turn-ticks", "2"]);
    let mut a = connect(&server).await;
    let mut b = connect(&server).await;
    let config = a.hello(&server.tokens[0].clone()).await;
    b.hello(&server.tokens[1].clone()).await;
    let pid = server.child.id().to_string();
    let pa = tokio::spawn(play(a, config.clone(), 0, |_| false));
    let pb = tokio::spawn(play(b, config, 1, move |t| {
        if t == 20 {
            Process::new("kill").args(["-TERM", &pid]).status().unwrap();
        }
        false
    }));
    let (ha, ea) = pa.await.unwrap();
    let (hb, eb) = pb.await.unwrap();
    let end = ea.expect("told the match ended");
    assert_eq!(end.reason, EndReason::ServerShutdown);
    assert_eq!(eb.map(|e| e.reason), Some(EndReason::ServerShutdown));
    exits_cleanly(&mut server);
    let from_replay = resimulate(&the_replay(&server.dir));
    assert_eq!(from_replay.len() as u64, end.last_turn + 1);
    assert_eq!(ha, from_replay);
    assert_eq!(hb, from_replay);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_hellos_get_their_documented_errors_and_the_server_carries_on() {
    let server = start_server("refuse", &[]);
    let refused = |code: ErrorCode| {
        move |m: Option<ServerMessage>| match m {
            Some(ServerMessage::Error(e)) => assert_eq!(e.code, code, "{e:?}"),
            other => panic!("expected {code:?}, got {other:?}"),
        }
    };
    let mut c = connect(&server).await;
    let mut h = hello(&server.tokens[0]);
    h.protocol_version = PROTOCOL_VERSION + 1;
    c.write(&ClientMessage::Hello(h)).await;
    refused(ErrorCode::VersionMismatch)(c.read().await);

    let mut c = connect(&server).await;
    let forged = server.tokens[0].replacen(".0.", ".1.", 1);
    c.write(&ClientMessage::Hello(hello(&forged))).await;
    refused(ErrorCode::BadToken)(c.read().await);

    let mut c = connect(&server).await;
    let other = cohort_protocol::token::mint(
        b"test-secret",
        &cohort_protocol::token::Claims {
            match_id: "elsewhere".into(),
            role: cohort_protocol::message::Role::Player(0),
            expires: u64::MAX,
        },
    );
    c.write(&ClientMessage::Hello(hello(&other))).await;
    refused(ErrorCode::UnknownMatch)(c.read().await);

    let mut c = connect(&server).await;
    let mut h = hello(&server.tokens[0]);
    h.ruleset_hash = [7; 32];
    c.write(&ClientMessage::Hello(h)).await;
    refused(ErrorCode::RulesetMismatch)(c.read().await);

    let mut c = connect(&server).await;
    c.write_raw(&u32::MAX.to_be_bytes()).await;
    refused(ErrorCode::FrameTooLarge)(c.read().await);

    let mut c = connect(&server).await;
    c.write_raw(&[0, 0, 0, 4, 0xde, 0xad, 0xbe, 0xef]).await;
    refused(ErrorCode::Malformed)(c.read().await);

    // After all that, a good client still joins.
    let mut c = connect(&server).await;
    let config = c.hello(&server.tokens[0]).await;
    assert_eq!(config.match_id, "default");
}
