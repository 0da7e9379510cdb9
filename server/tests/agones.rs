//! The real `cohort-server` binary under Agones, against a stand-in for the SDK sidecar that
//! speaks the real API: a tonic gRPC server built in this test from the Agones SDK's own proto
//! files (`agones-proto/`, compiled by build.rs with protox and tonic-build, the server's
//! client from the same descriptors), on 127.0.0.1. The server publishes its
//! fingerprint, says Ready and pings Health; an allocation annotated with a match makes it
//! host that match (a bad one is annotated as an error); real QUIC bots join with tokens
//! minted by the "matchmaker" and play; the players list follows them; after the match the
//! server says Shutdown and exits. Without a sidecar it serves and shuts down all the same.

mod common;

#[allow(clippy::all, clippy::pedantic)]
mod sdk {
    include!(concat!(env!("OUT_DIR"), "/agones-server/agones.dev.sdk.rs"));
}
#[allow(clippy::all, clippy::pedantic, dead_code)]
mod beta {
    include!(concat!(
        env!("OUT_DIR"),
        "/agones-server/agones.dev.sdk.beta.rs"
    ));
}

use cohort_client::net::ServerAuth;
use cohort_client::session::Connect;
use cohort_protocol::fingerprint::parse_fingerprint;
use cohort_protocol::message::EndReason;
use sdk::game_server::{ObjectMeta, Status as GsStatus};
use sdk::GameServer;
use std::io::{BufRead, BufReader};
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

/// The most time any step of these tests may take before it is given up.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

const SECRET: &str = "agones-test-secret";

/// What the stand-in sidecar was told, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Call {
    Ready,
    Health,
    Shutdown,
    Annotate(String, String),
    ListAdd(String, String),
    ListRemove(String, String),
}

/// The sidecar's side: the GameServer it keeps, and who to tell each call.
#[derive(Clone)]
struct Sidecar {
    game_server: Arc<watch::Sender<GameServer>>,
    calls: mpsc::UnboundedSender<Call>,
    lists: Arc<Mutex<std::collections::BTreeMap<String, Vec<String>>>>,
}

impl Sidecar {
    fn update(&self, f: impl FnOnce(&mut GameServer)) {
        self.game_server.send_modify(f);
    }

    fn annotations(&self) -> std::collections::HashMap<String, String> {
        self.game_server
            .borrow()
            .object_meta
            .as_ref()
            .map(|m| m.annotations.clone())
            .unwrap_or_default()
    }

    /// What Agones does on a GameServerAllocation with metadata annotations.
    fn allocate(&self, annotations: &[(&str, &str)]) {
        self.update(|gs| {
            let meta = gs.object_meta.get_or_insert_with(Default::default);
            for (k, v) in annotations {
                meta.annotations.insert(k.to_string(), v.to_string());
            }
            gs.status.get_or_insert_with(Default::default).state = "Allocated".into();
        });
    }
}

type GsStream = Pin<Box<dyn Stream<Item = Result<GameServer, Status>> + Send>>;

#[tonic::async_trait]
impl sdk::sdk_server::Sdk for Sidecar {
    async fn ready(&self, _: Request<sdk::Empty>) -> Result<Response<sdk::Empty>, Status> {
        self.update(|gs| gs.status.get_or_insert_with(Default::default).state = "Ready".into());
        let _ = self.calls.send(Call::Ready);
        Ok(Response::new(sdk::Empty {}))
    }

    async fn allocate(&self, _: Request<sdk::Empty>) -> Result<Response<sdk::Empty>, Status> {
        Err(Status::unimplemented("not used by cohort-server"))
    }

    async fn shutdown(&self, _: Request<sdk::Empty>) -> Result<Response<sdk::Empty>, Status> {
        self.update(|gs| gs.status.get_or_insert_with(Default::default).state = "Shutdown".into());
        let _ = self.calls.send(Call::Shutdown);
        Ok(Response::new(sdk::Empty {}))
    }

    async fn health(
        &self,
        request: Request<Streaming<sdk::Empty>>,
    ) -> Result<Response<sdk::Empty>, Status> {
        let mut pings = request.into_inner();
        while let Some(Ok(_)) = pings.next().await {
            let _ = self.calls.send(Call::Health);
        }
        Ok(Response::new(sdk::Empty {}))
    }

    async fn get_game_server(
        &self,
        _: Request<sdk::Empty>,
    ) -> Result<Response<GameServer>, Status> {
        Ok(Response::new(self.game_server.borrow().clone()))
    }

    type WatchGameServerStream = GsStream;

    async fn watch_game_server(
        &self,
        _: Request<sdk::Empty>,
    ) -> Result<Response<GsStream>, Status> {
        let updates = tokio_stream::wrappers::WatchStream::new(self.game_server.subscribe());
        Ok(Response::new(Box::pin(updates.map(Ok))))
    }

    async fn set_label(&self, _: Request<sdk::KeyValue>) -> Result<Response<sdk::Empty>, Status> {
        Err(Status::unimplemented("not used by cohort-server"))
    }

    async fn set_annotation(
        &self,
        request: Request<sdk::KeyValue>,
    ) -> Result<Response<sdk::Empty>, Status> {
        let kv = request.into_inner();
        // As Agones does: SDK annotations are prefixed.
        let key = format!("agones.dev/sdk-{}", kv.key);
        self.update(|gs| {
            gs.object_meta
                .get_or_insert_with(Default::default)
                .annotations
                .insert(key, kv.value.clone());
        });
        let _ = self.calls.send(Call::Annotate(kv.key, kv.value));
        Ok(Response::new(sdk::Empty {}))
    }

    async fn reserve(&self, _: Request<sdk::Duration>) -> Result<Response<sdk::Empty>, Status> {
        Err(Status::unimplemented("not used by cohort-server"))
    }
}

#[tonic::async_trait]
impl beta::sdk_server::Sdk for Sidecar {
    async fn get_counter(
        &self,
        _: Request<beta::GetCounterRequest>,
    ) -> Result<Response<beta::Counter>, Status> {
        Err(Status::unimplemented("not used by cohort-server"))
    }

    async fn update_counter(
        &self,
        _: Request<beta::UpdateCounterRequest>,
    ) -> Result<Response<beta::Counter>, Status> {
        Err(Status::unimplemented("not used by cohort-server"))
    }

    async fn get_list(
        &self,
        request: Request<beta::GetListRequest>,
    ) -> Result<Response<beta::List>, Status> {
        let name = request.into_inner().name;
        let values = self.lists.lock().unwrap().get(&name).cloned();
        let values = values.ok_or_else(|| Status::not_found(name.clone()))?;
        Ok(Response::new(beta::List {
            name,
            capacity: 16,
            values,
        }))
    }

    async fn update_list(
        &self,
        _: Request<beta::UpdateListRequest>,
    ) -> Result<Response<beta::List>, Status> {
        Err(Status::unimplemented("not used by cohort-server"))
    }

    async fn add_list_value(
        &self,
        request: Request<beta::AddListValueRequest>,
    ) -> Result<Response<beta::List>, Status> {
        let r = request.into_inner();
        let mut lists = self.lists.lock().unwrap();
        // As Agones does: only a list the fleet declared, and no value twice.
        let list = lists
            .get_mut(&r.name)
            .ok_or_else(|| Status::not_found(r.name.clone()))?;
        if list.contains(&r.value) {
            return Err(Status::already_exists(r.value));
        }
        list.push(r.value.clone());
        let _ = self.calls.send(Call::ListAdd(r.name.clone(), r.value));
        Ok(Response::new(beta::List {
            name: r.name,
            capacity: 16,
            values: list.clone(),
        }))
    }

    async fn remove_list_value(
        &self,
        request: Request<beta::RemoveListValueRequest>,
    ) -> Result<Response<beta::List>, Status> {
        let r = request.into_inner();
        let mut lists = self.lists.lock().unwrap();
        let list = lists
            .get_mut(&r.name)
            .ok_or_else(|| Status::not_found(r.name.clone()))?;
        let Some(at) = list.iter().position(|v| *v == r.value) else {
            return Err(Status::not_found(r.value));
        };
        list.remove(at);
        let _ = self.calls.send(Call::ListRemove(r.name.clone(), r.value));
        Ok(Response::new(beta::List {
            name: r.name,
            capacity: 16,
            values: list.clone(),
        }))
    }
}

/// Starts the stand-in on 127.0.0.1; its port and the calls it is told.
async fn sidecar() -> (u16, Sidecar, mpsc::UnboundedReceiver<Call>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (calls, rx) = mpsc::unbounded_channel();
    let gs = GameServer {
        object_meta: Some(ObjectMeta {
            name: "cohort-fleet-abcde".into(),
            ..Default::default()
        }),
        spec: None,
        status: Some(GsStatus {
            state: "Scheduled".into(),
            ..Default::default()
        }),
    };
    let side = Sidecar {
        game_server: Arc::new(watch::channel(gs).0),
        calls,
        lists: Arc::new(Mutex::new([("players".to_string(), Vec::new())].into())),
    };
    let serving = side.clone();
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(sdk::sdk_server::SdkServer::new(serving.clone()))
            .add_service(beta::sdk_server::SdkServer::new(serving))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
            .await
    });
    (port, side, rx)
}

struct Server {
    child: Child,
    addr: String,
    fingerprint: String,
    dir: std::path::PathBuf,
    logs: std::sync::mpsc::Receiver<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts the real binary; returns once it prints where it listens.
fn start_server(name: &str, extra: &[&str]) -> Server {
    let dir = std::env::temp_dir().join(format!("cohort-agones-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cohort-server"))
        .args(["--listen", "127.0.0.1:0", "--secret", SECRET])
        .arg("--replay-dir")
        .arg(dir.join("replays"))
        .arg("--report-dir")
        .arg(dir.join("reports"))
        .args(extra)
        .env_remove("AGONES_SDK_GRPC_PORT")
        .env_remove("AGONES_SDK_HTTP_PORT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cohort-server starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("cohort-server listening"), "{first}");
    let addr = first.split_whitespace().nth(4).unwrap().to_string();
    let second = lines.next().unwrap().unwrap();
    let fingerprint = second.rsplit(' ').next().unwrap().to_string();
    std::thread::spawn(move || for _ in lines {});
    let (tx, logs) = std::sync::mpsc::channel();
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

    /// Waits for it to exit by itself.
    fn exits(&mut self) -> std::process::ExitStatus {
        let deadline = std::time::Instant::now() + STEP_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(std::time::Instant::now() < deadline, "the server exits");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The next call that is not a health ping (within [`STEP_TIMEOUT`], pings or not).
async fn next_call(calls: &mut mpsc::UnboundedReceiver<Call>) -> Call {
    let deadline = tokio::time::Instant::now() + STEP_TIMEOUT;
    loop {
        let c = tokio::time::timeout_at(deadline, calls.recv())
            .await
            .expect("a call to the sidecar in time")
            .expect("the sidecar runs");
        if c != Call::Health {
            return c;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allocated_server_hosts_the_annotated_match_tracks_its_players_and_shuts_down() {
    let (port, side, mut calls) = sidecar().await;
    let server = start_server("flow", &["--agones-port", &port.to_string()]);
    // The fingerprint is published before Ready (so it is in the allocation's answer).
    assert_eq!(
        next_call(&mut calls).await,
        Call::Annotate("cohort-fingerprint".into(), server.fingerprint.clone())
    );
    assert_eq!(next_call(&mut calls).await, Call::Ready);
    let health = tokio::time::timeout(STEP_TIMEOUT, async {
        while calls.recv().await != Some(Call::Health) {}
    });
    health.await.expect("health pings");
    // An allocation whose match is wrong is refused and says why.
    side.allocate(&[("cohort.dev/match", r#"{"id":"bad","players":1}"#)]);
    match next_call(&mut calls).await {
        Call::Annotate(k, v) => {
            assert_eq!(k, "cohort-error");
            assert!(v.contains("players"), "{v}");
        }
        other => panic!("{other:?}"),
    }
    // The matchmaker's allocation: the match to host, in an annotation.
    side.allocate(&[(
        "cohort.dev/match",
        r#"{"id":"fleet-1","players":2,"turn_ticks":2,"max_turns":30}"#,
    )]);
    assert_eq!(
        next_call(&mut calls).await,
        Call::Annotate("cohort-match-id".into(), "fleet-1".into())
    );
    // The matchmaker hands the players the address, the published fingerprint and tokens.
    let published = side.annotations()["agones.dev/sdk-cohort-fingerprint"].clone();
    let connect = Connect {
        server: server.addr.clone(),
        auth: ServerAuth::Fingerprint(parse_fingerprint(&published).unwrap()),
        server_name: "localhost".into(),
    };
    let bots: Vec<_> = (0..2u8)
        .map(|p| tokio::spawn(common::bot(&connect, SECRET, "fleet-1", p, u64::from(p))))
        .collect();
    let mut added = vec![next_call(&mut calls).await, next_call(&mut calls).await];
    added.sort_by_key(|c| format!("{c:?}"));
    assert_eq!(
        added,
        vec![
            Call::ListAdd("players".into(), "fleet-1/0".into()),
            Call::ListAdd("players".into(), "fleet-1/1".into()),
        ]
    );
    for b in bots {
        let o = tokio::time::timeout(STEP_TIMEOUT, b)
            .await
            .expect("the bot finishes")
            .unwrap();
        assert_eq!(o.error, None);
        assert_eq!(o.ended.map(|e| e.reason), Some(EndReason::TurnLimit));
        assert_eq!(o.tally.turns_run, 30);
    }
    let mut removed = vec![next_call(&mut calls).await, next_call(&mut calls).await];
    removed.sort_by_key(|c| format!("{c:?}"));
    assert_eq!(
        removed,
        vec![
            Call::ListRemove("players".into(), "fleet-1/0".into()),
            Call::ListRemove("players".into(), "fleet-1/1".into()),
        ]
    );
    assert_eq!(next_call(&mut calls).await, Call::Shutdown);
    let status = tokio::task::spawn_blocking(move || {
        let mut server = server;
        server.exits()
    })
    .await
    .unwrap();
    assert!(status.success());
    assert!(side.lists.lock().unwrap()["players"].is_empty());
}

#[test]
fn without_a_sidecar_the_server_runs_and_shuts_down_all_the_same() {
    // A port just freed: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = start_server("absent", &["--agones", "--agones-port", &port.to_string()]);
    let pid = server.child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(server.exits().success());
    server.logged("Agones shutdown not said: the sidecar was never reached");
}
