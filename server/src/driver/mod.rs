//! The tokio/quinn driver: moves bytes and timers for many matches in one process. Every
//! lockstep rule is in [`crate::lockstep`]; here a task per match feeds its `Match` and
//! carries out its actions (frames to connections, replay and report files), and a task per
//! connection reads and writes frames.

mod clock;
mod connection;
pub mod disk;
mod lateness;
mod match_task;
pub mod metrics;
pub mod registry;
mod sim_pool;
mod udp;
pub mod view;
pub mod watcher;
pub mod webhook;

pub use clock::Clock;
pub use lateness::Lateness;
pub use metrics::Metrics;
pub use registry::Lookup;
pub use sim_pool::{SimPool, SIM_NICE};
pub use udp::UDP_BUFFER_BYTES;
pub use view::{EndSummary, MatchState, MatchView, PlayerView};

pub use match_task::MatchSummary;

use crate::config::ServerConfig;
use crate::lockstep::{Match, PeerId, Settings};
use crate::tokens::MatchTokens;
use anyhow::{Context, Result};
use cohort_protocol::codec::encode_frame;
use cohort_protocol::message::{Hello, Role, ServerMessage};
use cohort_sim::Ruleset;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::{mpsc, oneshot, watch};

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
        /// Closes the connection at once, whatever still waits in its outbox.
        cut: oneshot::Sender<()>,
    },
    Message {
        peer: PeerId,
        message: cohort_protocol::ClientMessage,
    },
    Disconnected {
        peer: PeerId,
    },
    /// An operator ends the match.
    End,
    /// A browser's WebTransport session, its spectator token checked, watches the match.
    Watch {
        peer: PeerId,
        out: mpsc::Sender<Outgoing>,
        cut: oneshot::Sender<()>,
    },
}

/// What every connection task, match task and HTTP handler shares.
pub struct Host {
    pub secret: Vec<u8>,
    pub metrics: Metrics,
    /// Turn send jitter for `--stats-file`: every bundle frame handed to a client's stream,
    /// minus its deadline.
    pub send_lateness: Lateness,
    /// The matches, live and recently ended.
    pub matches: registry::Matches,
    pub(crate) kit: match_task::Kit,
    /// Where players connect, once listening.
    public: std::sync::OnceLock<Public>,
    /// Whether connections are taken (listening, not shutting down): `/readyz`.
    accepting: std::sync::atomic::AtomicBool,
    /// Whether the process stays up with no match (the admin API is on).
    stay_up: bool,
    /// Matches set up so far.
    hosted: AtomicU64,
    /// Where ended matches' summaries go.
    pub(crate) webhook: Option<webhook::Webhook>,
    /// Who to tell players connecting and leaving (the Agones SDK).
    pub(crate) players: std::sync::OnceLock<Box<dyn Fn(PlayerChange) + Send + Sync>>,
}

/// Where players connect to this server.
#[derive(Clone, Debug, Serialize)]
pub struct Public {
    /// HOST:PORT, as players are given it.
    pub address: String,
    pub fingerprint: String,
    pub self_signed: bool,
}

/// A player slot connected or left (told to the Agones SDK).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerChange {
    pub match_id: String,
    pub slot: u8,
    pub connected: bool,
}

/// A match set up: how it stands and its tokens.
#[derive(Clone, Debug, Serialize)]
pub struct Created {
    #[serde(flatten)]
    pub public: Public,
    pub tokens: MatchTokens,
    pub view: MatchView,
}

/// Why a match was not set up.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("a match `{0}` exists already")]
    Exists(String),
    #[error("this server hosts {0} matches already (max_matches)")]
    Full(usize),
    #[error("the server is shutting down")]
    ShuttingDown,
    #[error("setting up the match: {0}")]
    Setup(String),
}

impl Host {
    /// Sets up a match and starts its task; it waits in its lobby for its players.
    pub fn create_match(self: &Arc<Host>, settings: Settings) -> Result<Created, CreateError> {
        if !self.accepting.load(Ordering::Relaxed) && self.public.get().is_some() {
            return Err(CreateError::ShuttingDown);
        }
        let id = settings.config.match_id.clone();
        let config = settings.config.clone();
        let created_at = unix_now();
        let m = Match::new(settings, self.kit.rules.clone(), std::time::Instant::now())
            .map_err(|e| CreateError::Setup(e.to_string()))?;
        let view = MatchView::of(&m, created_at);
        let (tx, rx) = mpsc::channel(MATCH_INBOX);
        let (view_tx, view_rx) = watch::channel(view.clone());
        self.matches
            .insert(&id, tx, view_rx, self.kit.max_matches)?;
        self.hosted.fetch_add(1, Ordering::Relaxed);
        self.metrics.matches_created.inc();
        self.metrics.matches_running.inc();
        let task = match_task::run(m, rx, self.clone(), view_tx, created_at);
        self.kit.spawn(task);
        tracing::info!(match_id = %id, players = config.players.len(), "match set up");
        Ok(Created {
            public: self.public().unwrap_or_else(|| Public {
                address: String::new(),
                fingerprint: String::new(),
                self_signed: false,
            }),
            tokens: MatchTokens::mint(&config, &self.secret, unix_now() + self.kit.token_ttl_secs),
            view,
        })
    }

    /// The ruleset every match plays by.
    pub fn rules(&self) -> &cohort_sim::Ruleset {
        &self.kit.rules
    }

    /// The most matches hosted at once.
    pub fn kit_max_matches(&self) -> usize {
        self.kit.max_matches
    }

    /// Where players connect (once the server listens).
    pub fn public(&self) -> Option<Public> {
        self.public.get().cloned()
    }

    /// Whether the server takes players: it listens, is not shutting down, and a match is
    /// open for joining or the admin API can set one up.
    pub fn ready(&self) -> Result<(), &'static str> {
        if !self.accepting.load(Ordering::Relaxed) {
            return Err("not listening (starting or shutting down)");
        }
        let live = self.matches.live();
        if live > 0 || (self.stay_up && live < self.kit.max_matches) {
            Ok(())
        } else if self.stay_up {
            Err("hosting max_matches matches")
        } else {
            Err("no match to join")
        }
    }

    /// Tells the Agones SDK (if any) a player connected or left.
    pub(crate) fn player_change(&self, change: PlayerChange) {
        if let Some(tell) = self.players.get() {
            tell(change);
        }
    }

    /// Asks a live match to end (an operator's call); false if it is not live.
    pub async fn end_match(&self, id: &str) -> bool {
        match self.matches.lookup(id) {
            Lookup::Live(tx) => tx.send(MatchInput::End).await.is_ok(),
            Lookup::Ended | Lookup::Unknown => false,
        }
    }
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
    /// Clients' state hashes compared with the server's, over every match.
    pub hashes_compared: u64,
    pub desyncs: u64,
    pub dropped: u64,
    pub matches: Vec<MatchSummary>,
}

/// Everything printed at start: the address, the fingerprint, the tokens.
pub struct Started {
    pub local_addr: std::net::SocketAddr,
    pub fingerprint: String,
    pub self_signed: bool,
    /// Where `/metrics`, `/healthz` and `/readyz` are served (with `--metrics`).
    pub metrics: Option<std::net::SocketAddr>,
    /// Where the admin API is served (with `--admin`).
    pub admin: Option<std::net::SocketAddr>,
}

/// Runs the server until `shutdown` turns true: then every match finishes its turn, flushes
/// its replay and tells its clients, and the connections get a moment to take it. Without the
/// admin API it also ends once every match has ended (under Agones: once it has hosted one).
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
    let local_addr = endpoint.local_addr()?;
    std::fs::create_dir_all(&config.replay_dir)
        .with_context(|| format!("creating {}", config.replay_dir.display()))?;
    std::fs::create_dir_all(&config.report_dir)
        .with_context(|| format!("creating {}", config.report_dir.display()))?;
    let metrics = Metrics::new();
    let webhook = config
        .webhook
        .clone()
        .map(|url| {
            webhook::Webhook::new(
                url,
                config.webhook_secret.clone(),
                metrics.webhook_deliveries.clone(),
            )
        })
        .transpose()?;
    let disk = disk::Disk::start(disk::DiskCounters {
        dropped: metrics.disk_writes_dropped.clone(),
        failed: metrics.disk_write_failures.clone(),
    });
    let host = Arc::new(Host {
        secret,
        metrics,
        send_lateness: Lateness::default(),
        matches: registry::Matches::default(),
        kit: match_task::Kit::new(
            rules,
            match_task::Files {
                replay_dir: config.replay_dir.clone(),
                report_dir: config.report_dir.clone(),
            },
            disk,
            shutdown.clone(),
            config.max_matches,
            config.token_ttl_secs,
        ),
        public: std::sync::OnceLock::new(),
        accepting: std::sync::atomic::AtomicBool::new(false),
        stay_up: config.admin.is_some(),
        hosted: AtomicU64::new(0),
        webhook,
        players: std::sync::OnceLock::new(),
    });
    for settings in config.matches {
        host.create_match(settings).context("setting up a match")?;
    }
    let address = config.public_address.clone().unwrap_or_else(|| {
        let ip = if local_addr.ip().is_unspecified() {
            std::net::IpAddr::from([127, 0, 0, 1])
        } else {
            local_addr.ip()
        };
        std::net::SocketAddr::new(ip, local_addr.port()).to_string()
    });
    let _ = host.public.set(Public {
        address,
        fingerprint: fingerprint.clone(),
        self_signed,
    });
    let metrics = match config.metrics {
        Some(addr) => Some(crate::http::serve_health(addr, host.clone()).await?),
        None => None,
    };
    let admin = match &config.admin {
        Some((addr, token)) => Some(
            crate::http::serve_admin(*addr, host.clone(), crate::http::AdminToken::new(token))
                .await?,
        ),
        None => None,
    };
    host.accepting.store(true, Ordering::Relaxed);
    started(&Started {
        local_addr,
        fingerprint,
        self_signed,
        metrics,
        admin,
    });
    // Players can join from here on.
    let agones = config
        .agones
        .map(|port| crate::agones::Lifecycle::start(port, host.clone()));
    let mut next_peer: PeerId = 1;
    loop {
        tokio::select! {
            incoming = endpoint.accept() => {
                let Some(incoming) = incoming else { break };
                host.metrics.connections.inc();
                tokio::spawn(connection::run(incoming, host.clone(), next_peer));
                next_peer += 1;
            }
            _ = shutdown.changed() => break,
            _ = all_done(&host) => break,
        }
    }
    host.accepting.store(false, Ordering::Relaxed);
    tracing::info!("shutting down: finishing turns, flushing replays");
    let matches = host.kit.finish().await;
    // Every replay record and report queued is on disk before the server says it is done.
    host.kit.disk.flush().await;
    // Let the last frames (MatchEnded) reach the clients, and the last summaries the webhook.
    let webhook_done = async {
        if let Some(w) = &host.webhook {
            w.drain().await;
        }
    };
    let _ = tokio::join!(
        tokio::time::timeout(SHUTDOWN_GRACE, endpoint.wait_idle()),
        webhook_done
    );
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
        send_lateness_us_p50: host.send_lateness.percentile_us(50),
        send_lateness_us_p99: host.send_lateness.percentile_us(99),
        send_lateness_us_max: host.send_lateness.max_us(),
        bundle_sends: host.send_lateness.count(),
        turns_closed: matches.iter().map(|m| m.stats.turns_closed).sum(),
        hashes_compared: matches.iter().map(|m| m.stats.hashes_compared).sum(),
        desyncs: matches.iter().map(|m| m.stats.desyncs).sum(),
        dropped: matches.iter().map(|m| m.stats.dropped).sum(),
        seconds: begun.elapsed().as_secs_f64(),
        bytes_in: host.metrics.bytes_in.get(),
        bytes_out: host.metrics.bytes_out.get(),
        connections: host.metrics.connections.get(),
        matches,
    })
}

/// Resolves once every match has ended, when the server is not to stay up without one: it has
/// hosted a match, and the admin API is off.
async fn all_done(host: &Host) {
    loop {
        if !host.stay_up
            && host.hosted.load(Ordering::Relaxed) > 0
            && host.metrics.matches_running.get() == 0
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A running match of two players at `now`, both joined, for the driver's tests.
#[cfg(test)]
pub(crate) fn running_test_match(id: &str, rules: &Arc<Ruleset>, now: std::time::Instant) -> Match {
    let config = cohort_protocol::MatchConfig::standard(id, rules, 2);
    let mut m = Match::new(Settings::new(config), rules.clone(), now).expect("a match");
    for p in 0..2u8 {
        let hello = Hello {
            protocol_version: cohort_protocol::limits::PROTOCOL_VERSION,
            ruleset_hash: rules.hash(),
            token: String::new(),
            client_name: format!("p{p}"),
        };
        let (peer, role) = (u64::from(p) + 1, Role::Player(p));
        m.handle(now, crate::lockstep::Event::Join { peer, role, hello });
    }
    m
}
