//! End-to-end test helpers: the real server driver (`cohort_server::driver::serve`, the same
//! function the `cohort-server` binary runs) on 127.0.0.1 with a fresh self-signed certificate,
//! and real QUIC clients (`cohort_client`). Every helper is bounded in time.

pub mod openapi;

use anyhow::{Context, Result};
use clap::Parser;
use cohort_client::brain::{Brain, Script};
use cohort_client::net::ServerAuth;
use cohort_client::session::{run_bot, BotOutcome, BotPlan, Connect};
use cohort_protocol::message::Role;
use cohort_protocol::replay::{read_replay, Replay};
use cohort_protocol::token::{mint, Claims};
use cohort_server::config::{load_ruleset, Args, ServerConfig};
use cohort_server::driver::{serve, unix_now, ServerSummary};
use cohort_server::tls::Identity;
use cohort_sim::Ruleset;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

/// The secret the test servers sign tokens with.
pub const SECRET: &str = "end-to-end-test-secret";

/// The longest any end-to-end test may run before it fails.
pub const TEST_LIMIT: Duration = Duration::from_secs(240);

/// A server running in this process on a loopback port.
pub struct TestServer {
    pub addr: String,
    pub fingerprint: String,
    /// The `--metrics` HTTP address, when asked for.
    pub metrics: Option<std::net::SocketAddr>,
    /// The `--admin` HTTP address, when asked for.
    pub admin: Option<std::net::SocketAddr>,
    pub dir: PathBuf,
    shutdown: watch::Sender<bool>,
    handle: JoinHandle<Result<ServerSummary>>,
}

fn fresh_dir(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "cohort-e2e-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

impl TestServer {
    /// Starts a server with `cohort-server`'s flags `flags` (besides listen, secret and dirs).
    pub async fn start(name: &str, flags: &[&str]) -> Result<TestServer> {
        let dir = fresh_dir(name);
        let replays = dir.join("replays");
        let reports = dir.join("reports");
        let mut argv: Vec<String> = vec![
            "cohort-server".into(),
            "--listen".into(),
            "127.0.0.1:0".into(),
            "--secret".into(),
            SECRET.into(),
            "--replay-dir".into(),
            replays.display().to_string(),
            "--report-dir".into(),
            reports.display().to_string(),
        ];
        argv.extend(flags.iter().map(|s| s.to_string()));
        let args = Args::try_parse_from(argv).context("server flags")?;
        let rules = Arc::new(load_ruleset(&args)?);
        let config = ServerConfig::load(&args, &rules)?;
        let identity = Identity::self_signed()?;
        let (tx, rx) = watch::channel(false);
        let (started_tx, started_rx) = oneshot::channel();
        let handle = tokio::spawn(async move {
            let mut started_tx = Some(started_tx);
            serve(
                config,
                SECRET.as_bytes().to_vec(),
                rules,
                identity,
                rx,
                |s| {
                    if let Some(t) = started_tx.take() {
                        let _ = t.send((s.local_addr, s.fingerprint.clone(), s.metrics, s.admin));
                    }
                },
            )
            .await
        });
        let (addr, fingerprint, metrics, admin) =
            tokio::time::timeout(Duration::from_secs(20), started_rx)
                .await
                .context("the server did not start")??;
        Ok(TestServer {
            addr: addr.to_string(),
            fingerprint,
            metrics,
            admin,
            dir,
            shutdown: tx,
            handle,
        })
    }

    pub fn connect(&self) -> Connect {
        Connect {
            server: self.addr.clone(),
            auth: ServerAuth::fingerprint(&self.fingerprint).expect("the server's fingerprint"),
            server_name: "localhost".into(),
        }
    }

    /// A good token for `role` in match `match_id`.
    pub fn token(&self, match_id: &str, role: Role) -> String {
        mint(
            SECRET.as_bytes(),
            &Claims {
                match_id: match_id.into(),
                role,
                expires: unix_now() + 3600,
            },
        )
    }

    /// Asks the server to shut down (what SIGTERM and ctrl-c do) and waits for it.
    pub async fn stop(self) -> Result<ServerSummary> {
        let _ = self.shutdown.send(true);
        self.finish().await
    }

    /// Waits for the server to end by itself (every match over).
    pub async fn finish(self) -> Result<ServerSummary> {
        tokio::time::timeout(TEST_LIMIT, self.handle)
            .await
            .context("the server did not stop")??
    }
}

/// Reads the one replay a match wrote.
pub fn the_replay(summary: &ServerSummary) -> Replay {
    let path = summary.matches[0]
        .replay
        .as_ref()
        .expect("the match wrote a replay");
    read_replay(&std::fs::read(path).expect("the replay file")).expect("a readable replay")
}

/// A bot's plan: a player with `brain`, keeping its hashes.
pub fn plan(token: String, name: &str, brain: Box<dyn Brain>) -> BotPlan {
    BotPlan::new(token, name, brain)
}

/// A brain that gives no orders.
pub fn idle() -> Box<dyn Brain> {
    Box::new(Script::default())
}

/// Runs a bot in its own task.
pub fn spawn_bot(server: &TestServer, plan: BotPlan) -> JoinHandle<BotOutcome> {
    spawn_bot_with(server, plan, Arc::new(Ruleset::default_rules()))
}

/// [`spawn_bot`] playing by `rules`.
pub fn spawn_bot_with(
    server: &TestServer,
    plan: BotPlan,
    rules: Arc<Ruleset>,
) -> JoinHandle<BotOutcome> {
    let connect = server.connect();
    tokio::spawn(async move { run_bot(&connect, plan, rules).await })
}

/// Waits for a bot's task, bounded; the bot must not have failed but by the server's word.
pub async fn outcome(task: JoinHandle<BotOutcome>) -> BotOutcome {
    let o = tokio::time::timeout(TEST_LIMIT, task)
        .await
        .expect("the bot finished in time")
        .expect("the bot's task");
    assert_eq!(o.error, None, "the bot's match: {o:?}");
    o
}

/// Waits for every bot's task in turn ([`outcome`] each).
pub async fn outcomes(tasks: Vec<JoinHandle<BotOutcome>>) -> Vec<BotOutcome> {
    let mut all = Vec::with_capacity(tasks.len());
    for t in tasks {
        all.push(outcome(t).await);
    }
    all
}

/// Checks that every hash a client computed is the replay's (the server's) for that turn.
pub fn agrees_with_replay(o: &BotOutcome, replay: &Replay) -> usize {
    for (turn, hash) in &o.hashes {
        let record = replay
            .records
            .get(*turn as usize)
            .unwrap_or_else(|| panic!("turn {turn} is in the replay"));
        assert_eq!(record.hash, *hash, "turn {turn}");
    }
    o.hashes.len()
}

/// A UDP relay on 127.0.0.1 between clients and a server that can cut the link (every packet
/// either way dropped) and mend it: a lost connection, on loopback. Stops when dropped.
pub struct Relay {
    pub addr: String,
    cut: Arc<std::sync::atomic::AtomicBool>,
    task: JoinHandle<()>,
}

impl Relay {
    /// Relays to `server` (HOST:PORT).
    pub async fn start(server: &str) -> Result<Relay> {
        use std::collections::HashMap;
        use std::net::SocketAddr;
        use tokio::net::UdpSocket;
        let server: SocketAddr = server.parse().context("the server's address")?;
        let front = Arc::new(UdpSocket::bind("127.0.0.1:0").await?);
        let addr = front.local_addr()?.to_string();
        let cut = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let task = tokio::spawn({
            let cut = cut.clone();
            async move {
                // One upstream socket per client address; dropped with this task.
                let mut ways: HashMap<SocketAddr, Arc<UdpSocket>> = HashMap::new();
                let mut replies = tokio::task::JoinSet::new();
                let mut buf = vec![0u8; 65_536];
                while let Ok((n, from)) = front.recv_from(&mut buf).await {
                    if cut.load(Ordering::Relaxed) {
                        continue;
                    }
                    let up = match ways.get(&from) {
                        Some(up) => up.clone(),
                        None => {
                            let Ok(up) = UdpSocket::bind("127.0.0.1:0").await else {
                                continue;
                            };
                            if up.connect(server).await.is_err() {
                                continue;
                            }
                            let up = Arc::new(up);
                            let (back, front, cut) = (up.clone(), front.clone(), cut.clone());
                            replies.spawn(async move {
                                let mut buf = vec![0u8; 65_536];
                                while let Ok(n) = back.recv(&mut buf).await {
                                    if !cut.load(Ordering::Relaxed) {
                                        let _ = front.send_to(&buf[..n], from).await;
                                    }
                                }
                            });
                            ways.insert(from, up.clone());
                            up
                        }
                    };
                    let _ = up.send(&buf[..n]).await;
                }
            }
        });
        Ok(Relay { addr, cut, task })
    }

    /// Cuts the link (`true`) or mends it (`false`).
    pub fn cut(&self, cut: bool) {
        self.cut.store(cut, Ordering::Relaxed);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A brain that orders as `inner` does and shows the test, after every turn the bot runs, what
/// `see` makes of it (the turn and the world as the bot simulated it): a test waits on that for
/// what it needs — a bot past some turn, a seat dropped — never for a time.
pub fn watched<T: Send + Sync + 'static>(
    inner: Box<dyn Brain>,
    first: T,
    see: impl FnMut(u64, &cohort_sim::World) -> T + Send + 'static,
) -> (Box<dyn Brain>, watch::Receiver<T>) {
    let (tx, rx) = watch::channel(first);
    (Box::new(Watched { inner, see, tx }), rx)
}

/// A brain that shows the test the last turn its bot ran ([`watched`]).
pub fn told(inner: Box<dyn Brain>) -> (Box<dyn Brain>, watch::Receiver<u64>) {
    watched(inner, 0, |turn, _| turn)
}

struct Watched<T, F> {
    inner: Box<dyn Brain>,
    see: F,
    tx: watch::Sender<T>,
}

impl<T: Send + Sync, F: FnMut(u64, &cohort_sim::World) -> T + Send> Brain for Watched<T, F> {
    fn orders(
        &mut self,
        turn: u64,
        world: &cohort_sim::World,
        me: cohort_sim::PlayerId,
    ) -> Vec<cohort_sim::Command> {
        self.tx.send_replace((self.see)(turn, world));
        self.inner.orders(turn, world, me)
    }
}

/// Waits, bounded by [`TEST_LIMIT`], until what a [`watched`] bot shows holds `what`.
pub async fn until<T>(seen: &mut watch::Receiver<T>, what: impl FnMut(&T) -> bool) {
    tokio::time::timeout(TEST_LIMIT, seen.wait_for(what))
        .await
        .expect("what the test waits for happened in time")
        .expect("the bot is still playing");
}
