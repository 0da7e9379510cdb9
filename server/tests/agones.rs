//! The real `cohort-server` binary under Agones, with a real HTTP listener on loopback standing
//! in for the SDK sidecar (the sidecar itself cannot run here): `AGONES_SDK_HTTP_PORT` set as
//! Agones sets it, the server says `POST /ready`, then `POST /health`, and on SIGTERM
//! `POST /shutdown`, in that order — or, when its matches have ended by themselves, on its way
//! out. Without a sidecar it serves and shuts down all the same.

use cohort_client::brain::RandomBrain;
use cohort_client::core::ClientOptions;
use cohort_client::net::ServerAuth;
use cohort_client::session::{run_bot, BotPlan, Connect};
use cohort_protocol::fingerprint::parse_fingerprint;
use cohort_sim::Ruleset;
use std::sync::Arc;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The most time any step of these tests may take before it is given up.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

/// A stand-in sidecar: answers every request `200 OK` and sends its request line (with the
/// body, which Agones' REST gateway wants as JSON) down the channel.
fn fake_sidecar() -> (SocketAddr, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut request = Vec::new();
            let mut buf = [0u8; 512];
            // The head, then the 2-byte body `{}`.
            while !(request.windows(4).any(|w| w == b"\r\n\r\n") && request.ends_with(b"{}")) {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            if !request.windows(4).any(|w| w == b"\r\n\r\n") {
                continue; // A call cut short (a health ping stopped by shutdown): not a call.
            }
            let text = String::from_utf8_lossy(&request).to_string();
            let line = text.lines().next().unwrap_or_default().to_string();
            let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
            if tx.send(format!("{line} {body}")).is_err() {
                return;
            }
        }
    });
    (addr, rx)
}

struct Server {
    child: Child,
    /// The UDP address and certificate fingerprint it printed.
    addr: String,
    fingerprint: [u8; 32],
    /// Its replay and report directories' parent, removed at the end.
    dir: std::path::PathBuf,
    /// What the server logs, line by line.
    logs: mpsc::Receiver<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts the real binary with `env` set; returns once it prints where it listens.
fn start_server(name: &str, env: &[(&str, String)], extra: &[&str]) -> Server {
    let dir = std::env::temp_dir().join(format!("cohort-agones-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cohort-server"))
        .args(["--listen", "127.0.0.1:0", "--secret", "test-secret"])
        .arg("--replay-dir")
        .arg(dir.join("replays"))
        .arg("--report-dir")
        .arg(dir.join("reports"))
        .args(extra)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cohort-server starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("cohort-server listening"), "{first}");
    let addr = first.split_whitespace().nth(4).unwrap().to_string();
    let second = lines.next().unwrap().unwrap();
    let fingerprint = parse_fingerprint(second.rsplit(' ').next().unwrap()).unwrap();
    std::thread::spawn(move || for _ in lines {});
    let (tx, logs) = mpsc::channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    Server {
        child,
        addr,
        fingerprint,
        dir,
        logs,
    }
}

impl Server {
    /// Waits for a log line containing `text`.
    fn logged(&self, text: &str) {
        loop {
            let line = self
                .logs
                .recv_timeout(STEP_TIMEOUT)
                .unwrap_or_else(|_| panic!("the server logs `{text}`"));
            if line.contains(text) {
                return;
            }
        }
    }
}

/// Waits for the server to exit by itself.
fn exits(server: &mut Server) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + STEP_TIMEOUT;
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            return status;
        }
        assert!(std::time::Instant::now() < deadline, "the server exits");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn sigterm(server: &mut Server) -> std::process::ExitStatus {
    let pid = server.child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    exits(server)
}

#[test]
fn under_agones_the_server_says_ready_then_health_then_shutdown() {
    let (sidecar, calls) = fake_sidecar();
    let mut server = start_server(
        "lifecycle",
        &[("AGONES_SDK_HTTP_PORT", sidecar.port().to_string())],
        &[],
    );
    let next = || {
        calls
            .recv_timeout(STEP_TIMEOUT)
            .expect("a call to the sidecar")
    };
    assert_eq!(next(), "POST /ready HTTP/1.1 {}");
    // Health pings from then on (the first at once, then every HEALTH_INTERVAL).
    assert_eq!(next(), "POST /health HTTP/1.1 {}");
    assert!(sigterm(&mut server).success());
    // Whatever pings were on their way, then /shutdown, and nothing after it.
    let mut rest = Vec::new();
    while rest
        .last()
        .is_none_or(|c| c != "POST /shutdown HTTP/1.1 {}")
    {
        rest.push(next());
    }
    rest.pop();
    assert!(
        rest.iter().all(|c| c == "POST /health HTTP/1.1 {}"),
        "{rest:?}"
    );
    assert!(calls.try_recv().is_err(), "nothing after /shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_its_matches_end_the_server_says_shutdown_on_its_way_out() {
    let (sidecar, calls) = fake_sidecar();
    let dir = std::env::temp_dir().join(format!("cohort-agones-tokens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tokens_file = dir.join("tokens.json");
    let mut server = start_server(
        "end",
        &[("AGONES_SDK_HTTP_PORT", sidecar.port().to_string())],
        &[
            "--turn-ticks",
            "2",
            "--max-turns",
            "10",
            "--tokens-file",
            tokens_file.to_str().unwrap(),
        ],
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tokens_file).unwrap()).unwrap();
    let connect = Connect {
        server: server.addr.clone(),
        auth: ServerAuth::Fingerprint(server.fingerprint),
        server_name: "localhost".into(),
    };
    let bots: Vec<_> = (0..2)
        .map(|p| {
            let plan = BotPlan {
                options: ClientOptions {
                    token: json["matches"][0]["players"][p].as_str().unwrap().into(),
                    name: format!("bot{p}"),
                    simulate: true,
                    perturb_at_turn: None,
                },
                brain: Box::new(RandomBrain::new(p as u64)),
                turns: None,
                keep_hashes: false,
            };
            let connect = connect.clone();
            tokio::spawn(async move {
                run_bot(&connect, plan, Arc::new(Ruleset::default_rules())).await
            })
        })
        .collect();
    for b in bots {
        let o = tokio::time::timeout(STEP_TIMEOUT, b)
            .await
            .expect("the bot finishes")
            .unwrap();
        assert_eq!(o.error, None);
        assert_eq!(o.tally.turns_run, 10);
    }
    let status = tokio::task::spawn_blocking(move || {
        let status = exits(&mut server);
        let mut seen = Vec::new();
        while seen
            .last()
            .is_none_or(|c| c != "POST /shutdown HTTP/1.1 {}")
        {
            seen.push(calls.recv_timeout(STEP_TIMEOUT).expect("a call"));
        }
        (status, seen)
    })
    .await
    .unwrap();
    let (status, seen) = status;
    assert!(status.success());
    assert_eq!(
        seen.first().map(String::as_str),
        Some("POST /ready HTTP/1.1 {}")
    );
    let middle = &seen[1..seen.len() - 1];
    assert!(
        middle.iter().all(|c| c == "POST /health HTTP/1.1 {}"),
        "{seen:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_sidecar_the_server_runs_and_shuts_down_all_the_same() {
    // A port just freed: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = start_server(
        "absent",
        &[],
        &["--agones", "--agones-port", &port.to_string()],
    );
    server.logged("Agones sidecar not answering /ready yet");
    assert!(sigterm(&mut server).success());
    server.logged("Agones shutdown call failed");
}
