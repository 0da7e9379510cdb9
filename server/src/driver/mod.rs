//! The tokio/quinn driver: moves bytes and timers for many matches in one process. Every
//! lockstep rule is in [`crate::lockstep`]; here a task per match feeds its `Match` and
//! carries out its actions (frames to connections, replay and report files), and a task per
//! connection reads and writes frames.

mod clock;
mod connection;
mod lateness;
mod match_task;
mod metrics;
mod sim_pool;
mod udp;

pub use clock::Clock;
pub use lateness::Lateness;
pub use sim_pool::{SimPool, SIM_NICE};
pub use udp::UDP_BUFFER_BYTES;

pub use match_task::MatchSummary;

use crate::config::ServerConfig;
use crate::lockstep::{Match, PeerId};
use anyhow::{Context, Result};
use cohort_protocol::codec::encode_frame;
use cohort_protocol::message::{Hello, Role, ServerMessage};
use cohort_sim::Ruleset;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::{mpsc, watch};

/// Inputs waiting for one match's task.
pub const MATCH_INBOX: usize = 4096;

/// How long shutdown waits for connections to take their last frames.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Unix seconds now.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A frame for a connection, or the order to close it.
#[derive(Clone, Debug)]
pub enum Outgoing {
    Frame(Arc<Vec<u8>>),
    /// A turn's bundle and when its turn was scheduled to close: the writer records how late
    /// it handed the frame to QUIC ([`HostStats::send_lateness`]).
    Bundle(Arc<Vec<u8>>, std::time::Instant),
    Close,
}

impl Outgoing {
    fn frame(message: &ServerMessage) -> Outgoing {
        Outgoing::Frame(Arc::new(
            encode_frame(message).expect("server messages stay under the frame limit"),
        ))
    }
}

/// What a connection tells its match's task.
pub enum MatchInput {
    Join {
        peer: PeerId,
        role: Role,
        hello: Hello,
        out: mpsc::Sender<Outgoing>,
    },
    Message {
        peer: PeerId,
        message: cohort_protocol::ClientMessage,
    },
    Disconnected {
        peer: PeerId,
    },
}

/// Process-wide counters.
#[derive(Debug, Default)]
pub struct HostStats {
    pub bytes_in: AtomicU64,
    pub bytes_out: AtomicU64,
    pub connections: AtomicU64,
    pub peers: AtomicU64,
    pub turns: AtomicU64,
    pub desyncs: AtomicU64,
    pub matches_running: AtomicU64,
    /// Turn send jitter: every bundle frame handed to a client's stream, minus its deadline.
    pub send_lateness: Lateness,
}

/// What every connection task shares.
pub struct Host {
    pub secret: Vec<u8>,
    pub matches: HashMap<String, mpsc::Sender<MatchInput>>,
    pub stats: HostStats,
}

/// What the server did, written to `--stats-file` on exit.
#[derive(Debug, Serialize)]
pub struct ServerSummary {
    pub seconds: f64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub connections: u64,
    /// How late turns closed after their deadline, over every match, in microseconds.
    pub close_lateness_us_p50: u32,
    pub close_lateness_us_p99: u32,
    pub close_lateness_us_max: u32,
    /// Turn send jitter: how long after its turn's deadline each bundle was handed to each
    /// client's QUIC stream, in microseconds (10 µs buckets), over `bundle_sends` sends.
    pub send_lateness_us_p50: u64,
    pub send_lateness_us_p99: u64,
    pub send_lateness_us_max: u64,
    pub bundle_sends: u64,
    pub turns_closed: u64,
    pub desyncs: u64,
    pub dropped: u64,
    pub matches: Vec<MatchSummary>,
}

/// Everything printed at start: the address, the fingerprint, the tokens.
pub struct Started {
    pub local_addr: std::net::SocketAddr,
    pub fingerprint: String,
    pub self_signed: bool,
}

/// Runs the server until `shutdown` turns true: then every match finishes its turn, flushes
/// its replay and tells its clients, and the connections get a moment to take it.
pub async fn serve(
    config: ServerConfig,
    secret: Vec<u8>,
    rules: Arc<Ruleset>,
    identity: crate::tls::Identity,
    mut shutdown: watch::Receiver<bool>,
    started: impl FnOnce(&Started),
) -> Result<ServerSummary> {
    let begun = std::time::Instant::now();
    let fingerprint = identity.fingerprint.clone();
    let self_signed = identity.self_signed;
    let endpoint = udp::server_endpoint(config.listen, identity.server_config()?)
        .with_context(|| format!("listening on UDP {}", config.listen))?;
    let sims = SimPool::per_core();
    let clock = Clock::start();
    std::fs::create_dir_all(&config.replay_dir)
        .with_context(|| format!("creating {}", config.replay_dir.display()))?;
    std::fs::create_dir_all(&config.report_dir)
        .with_context(|| format!("creating {}", config.report_dir.display()))?;
    let mut senders = HashMap::new();
    let mut inboxes = Vec::new();
    for settings in config.matches {
        let (tx, rx) = mpsc::channel(MATCH_INBOX);
        senders.insert(settings.config.match_id.clone(), tx);
        let m = Match::new(
            settings,
            rules.clone(),
            tokio::time::Instant::now().into_std(),
        )
        .context("setting up a match")?;
        inboxes.push((m, rx));
    }
    let host = Arc::new(Host {
        secret,
        matches: senders,
        stats: HostStats::default(),
    });
    let files = match_task::Files {
        replay_dir: config.replay_dir.clone(),
        report_dir: config.report_dir.clone(),
    };
    let mut tasks = Vec::new();
    for (m, rx) in inboxes {
        host.stats.matches_running.fetch_add(1, Ordering::Relaxed);
        tasks.push(tokio::spawn(match_task::run(
            m,
            rx,
            files.clone(),
            host.clone(),
            sims.clone(),
            clock.clone(),
            shutdown.clone(),
        )));
    }
    if let Some(addr) = config.metrics {
        metrics::spawn(addr, host.clone()).await?;
    }
    started(&Started {
        local_addr: endpoint.local_addr()?,
        fingerprint,
        self_signed,
    });
    // Players can join from here on.
    let agones = config.agones.map(crate::agones::Lifecycle::start);
    let mut next_peer: PeerId = 1;
    loop {
        tokio::select! {
            incoming = endpoint.accept() => {
                let Some(incoming) = incoming else { break };
                host.stats.connections.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(connection::run(incoming, host.clone(), next_peer));
                next_peer += 1;
            }
            _ = shutdown.changed() => break,
            _ = all_done(&host) => break,
        }
    }
    tracing::info!("shutting down: finishing turns, flushing replays");
    let mut matches = Vec::new();
    for t in tasks {
        if let Ok(s) = t.await {
            matches.push(s);
        }
    }
    // Let the last frames (MatchEnded) reach the clients.
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, endpoint.wait_idle()).await;
    endpoint.close(
        cohort_protocol::close::SHUTTING_DOWN.code.into(),
        cohort_protocol::close::SHUTTING_DOWN.reason_bytes(),
    );
    if let Some(agones) = agones {
        agones.shutdown().await;
    }
    let mut lateness: Vec<u32> = matches.iter().flat_map(|m| m.lateness_us.clone()).collect();
    lateness.sort_unstable();
    Ok(ServerSummary {
        close_lateness_us_p50: match_task::percentile(&lateness, 50),
        close_lateness_us_p99: match_task::percentile(&lateness, 99),
        close_lateness_us_max: lateness.last().copied().unwrap_or(0),
        send_lateness_us_p50: host.stats.send_lateness.percentile_us(50),
        send_lateness_us_p99: host.stats.send_lateness.percentile_us(99),
        send_lateness_us_max: host.stats.send_lateness.max_us(),
        bundle_sends: host.stats.send_lateness.count(),
        turns_closed: matches.iter().map(|m| m.stats.turns_closed).sum(),
        desyncs: matches.iter().map(|m| m.stats.desyncs).sum(),
        dropped: matches.iter().map(|m| m.stats.dropped).sum(),
        seconds: begun.elapsed().as_secs_f64(),
        bytes_in: host.stats.bytes_in.load(Ordering::Relaxed),
        bytes_out: host.stats.bytes_out.load(Ordering::Relaxed),
        connections: host.stats.connections.load(Ordering::Relaxed),
        matches,
    })
}

/// Resolves once every match has ended.
async fn all_done(host: &Host) {
    loop {
        if host.stats.matches_running.load(Ordering::Relaxed) == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
