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
mod resume;
mod sim_pool;
mod udp;
pub mod view;
pub mod watcher;
pub mod webhook;

pub use clock::Clock;
pub use lateness::Lateness;
pub use metrics::Metrics;
pub use registry::Lookup;
pub use resume::{LOST_EXTENSION, MAX_MATCH_SNAPSHOT_FILE_BYTES};
pub use sim_pool::{SimPool, SIM_NICE};
pub use udp::UDP_BUFFER_BYTES;
pub use view::{EndSummary, MatchState, MatchView, PlayerView};

pub use match_task::MatchSummary;

use crate::config::ServerConfig;
use crate::lockstep::{Match, PeerId, Settings};
use crate::tokens::MatchTokens;
use anyhow::{Context, Result};
use cohort_protocol::close::MovedTo;
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
    /// Close the connection once the frames before it are written, as said.
    Close(Closing),
}

/// How the server closes a joined connection (docs/PROTOCOL.md, "QUIC close codes").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Closing {
    /// After its last frame: `closed` (0).
    Closed,
    /// Its match is suspended here, its seat still the player's: `suspended` (2), no `Error`
    /// before it; the client tries again.
    Suspended,
    /// Its match is suspended here and goes on there: `moved` (3), the reason saying where.
    Moved(Arc<MovedTo>),
}

impl Closing {
    /// A match suspended here: told where it went, when known.
    pub fn suspended(to: Option<&Arc<MovedTo>>) -> Closing {
        match to {
            Some(to) => Closing::Moved(to.clone()),
            None => Closing::Suspended,
        }
    }

    /// Closes `conn` so.
    pub fn close(&self, conn: &quinn::Connection) {
        use cohort_protocol::close::{CLOSED, MOVED, SUSPENDED};
        match self {
            Closing::Closed => conn.close(CLOSED.code.into(), CLOSED.reason_bytes()),
            Closing::Suspended => conn.close(SUSPENDED.code.into(), SUSPENDED.reason_bytes()),
            Closing::Moved(to) => conn.close(MOVED.code.into(), &to.reason()),
        }
    }
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
        /// Closes the connection at once, as said, whatever still waits in its outbox.
        cut: oneshot::Sender<Closing>,
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
        cut: oneshot::Sender<Closing>,
    },
    /// An operator suspends the match (or the server, shutting down, keeps it); `to`: where it
    /// goes on, told to its clients.
    Suspend {
        to: Option<Arc<MovedTo>>,
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
    pub fn create_match(self: &Arc<Host>, mut settings: Settings) -> Result<Created, CreateError> {
        if !self.accepting.load(Ordering::Relaxed) && self.public.get().is_some() {
            return Err(CreateError::ShuttingDown);
        }
        if self.kit.files.save_state {
            settings.snapshot_every = Some(crate::lockstep::SNAPSHOT_TURNS);
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
        let task = match_task::run(m, rx, self.clone(), view_tx, created_at, None);
        self.kit.spawn(task);
        tracing::info!(match_id = %id, players = config.players.len(), "match set up");
        Ok(self.created(&config, view))
    }

    /// What the admin API answers of a match set up: where to connect, its tokens, its view.
    fn created(&self, config: &cohort_protocol::MatchConfig, view: MatchView) -> Created {
        Created {
            public: self.public().unwrap_or_else(|| Public {
                address: String::new(),
                fingerprint: String::new(),
                self_signed: false,
            }),
            tokens: MatchTokens::mint(config, &self.secret, unix_now() + self.kit.token_ttl_secs),
            view,
        }
    }

    /// Starts the task of a match taken up again from its files; it waits for its players.
    fn start_resumed(self: &Arc<Host>, t: resume::TakenUp) -> Result<(), CreateError> {
        let id = t.m.id().to_string();
        let view = MatchView::of(&t.m, t.created_at);
        let (tx, rx) = mpsc::channel(MATCH_INBOX);
        let (view_tx, view_rx) = watch::channel(view);
        self.matches
            .insert(&id, tx, view_rx, self.kit.max_matches)?;
        self.hosted.fetch_add(1, Ordering::Relaxed);
        self.metrics.matches_running.inc();
        self.metrics.matches_resumed.inc();
        tracing::info!(match_id = %id, path = %t.replay_path.display(), note = %t.note, "match taken up again from its replay");
        let task = match_task::run(
            t.m,
            rx,
            self.clone(),
            view_tx,
            t.created_at,
            Some((t.writer, t.replay_path)),
        );
        self.kit.spawn(task);
        Ok(())
    }

    /// A match that could not be taken up again: logged, counted, told to the webhook and
    /// kept as ended (reason `lost`, with why) for the admin API; its snapshot set aside.
    fn report_lost(&self, lost: resume::Lost, snapshot: &std::path::Path) {
        tracing::error!(match_id = %lost.match_id, why = %lost.why, path = %snapshot.display(), "match lost: it cannot be taken up again");
        resume::set_aside(snapshot);
        let players: Vec<PlayerView> = lost
            .config
            .as_ref()
            .map(|c| {
                c.players
                    .iter()
                    .map(|p| PlayerView {
                        slot: p.slot,
                        name: p.name.clone(),
                        team: p.team,
                        connected: false,
                        leave_reason: None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let summary = EndSummary {
            match_id: lost.match_id.clone(),
            reason: "lost",
            turns: lost.turns,
            created_at: lost.created_at,
            ended_at: unix_now(),
            players: players.clone(),
            desyncs: 0,
            sim_panicked: false,
            sim_failed_turn: None,
            replay: lost.replay_path,
            reports: Vec::new(),
            lost: Some(lost.why),
        };
        self.metrics
            .matches_ended
            .get_or_create(&metrics::Reason {
                reason: "lost".to_string(),
            })
            .inc();
        if let Some(w) = &self.webhook {
            w.post(summary.clone());
        }
        let view = MatchView {
            match_id: lost.match_id.clone(),
            state: MatchState::Ended,
            turn: lost.turns,
            players_connected: 0,
            spectators: 0,
            desyncs: 0,
            created_at: lost.created_at,
            players,
            summary: Some(summary),
        };
        let (tx, _) = mpsc::channel(1);
        let (_view_tx, view_rx) = watch::channel(view);
        if self
            .matches
            .insert(&lost.match_id, tx, view_rx, usize::MAX)
            .is_ok()
        {
            self.matches.ended(&lost.match_id);
        }
    }

    /// Takes up again every match of the replay folder that had not ended (it has a snapshot
    /// beside its replay), or reports it lost. Rebuilding runs off the async threads.
    async fn take_up_all(self: &Arc<Host>) {
        let dir = self.kit.files.replay_dir.clone();
        for path in resume::snapshots_in(&dir) {
            let rules = self.kit.rules_arc();
            let p = path.clone();
            let outcome = tokio::task::spawn_blocking(move || resume::take_up(&p, rules)).await;
            match outcome {
                Ok(Ok(t)) => {
                    let id = t.m.id().to_string();
                    if let Err(e) = self.start_resumed(t) {
                        tracing::error!(match_id = %id, error = %e, "cannot host the match taken up again");
                    }
                }
                Ok(Err(lost)) => self.report_lost(*lost, &path),
                Err(e) => {
                    tracing::error!(path = %path.display(), error = %e, "taking the match up again failed");
                }
            }
        }
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
        self.tell_match(id, MatchInput::End).await
    }

    /// Asks a live match to suspend (an operator's call), its clients told where it goes on
    /// when `to` says; false if it is not live.
    pub async fn suspend_match(&self, id: &str, to: Option<MovedTo>) -> bool {
        let to = to.map(Arc::new);
        if let Some(to) = &to {
            self.matches.set_moved(id, to.clone());
        }
        self.tell_match(id, MatchInput::Suspend { to }).await
    }

    /// Tells a match already suspended here where it went: a client joining it here from now
    /// on is closed with `moved` and that address. False if it is not suspended here.
    pub fn set_moved(&self, id: &str, to: MovedTo) -> bool {
        matches!(self.matches.lookup(id), Lookup::Suspended(_))
            && self.matches.set_moved(id, Arc::new(to))
    }

    async fn tell_match(&self, id: &str, input: MatchInput) -> bool {
        match self.matches.lookup(id) {
            Lookup::Live(tx) => tx.send(input).await.is_ok(),
            Lookup::Ended | Lookup::Suspended(_) | Lookup::Unknown => false,
        }
    }

    /// Takes up again the match whose replay is `name` in the replay folder (the admin API):
    /// with the snapshot beside it when there is one, else from the replay alone, its settings
    /// the defaults and `max_turns`. The match waits for its players.
    pub async fn resume_match(
        self: &Arc<Host>,
        name: &str,
        max_turns: Option<u64>,
    ) -> Result<Created, ResumeError> {
        if !is_file_name(name, "cohort-replay") {
            return Err(ResumeError::BadName(name.to_string()));
        }
        let replay = self.kit.files.replay_dir.join(name);
        if !replay.is_file() {
            return Err(ResumeError::NoFile(name.to_string()));
        }
        let snapshot = resume::snapshot_path(&replay);
        let made = !snapshot.exists();
        if made {
            resume::snapshot_of_replay(&replay, &snapshot, max_turns)
                .map_err(ResumeError::Refused)?;
        }
        let rules = self.kit.rules_arc();
        let path = snapshot.clone();
        let taken = tokio::task::spawn_blocking(move || resume::take_up(&path, rules))
            .await
            .map_err(|e| e.to_string())
            .and_then(|t| t.map_err(|lost| lost.why));
        let taken = match taken {
            Ok(t) => t,
            Err(why) => {
                if made {
                    // Refused: nothing of this call is left behind to be tried at a restart.
                    let _ = std::fs::remove_file(&snapshot);
                }
                return Err(ResumeError::Refused(why));
            }
        };
        self.matches.forget_suspended(taken.m.id());
        let config = taken.m.config().clone();
        let view = MatchView::of(&taken.m, taken.created_at);
        self.start_resumed(taken).map_err(ResumeError::Create)?;
        Ok(self.created(&config, view))
    }

    /// Writes a file into the replay folder (the admin API's upload of a replay or a match
    /// snapshot), atomically; refused if one of that name is there.
    pub fn put_file(&self, name: &str, bytes: &[u8]) -> Result<(), ResumeError> {
        if !is_file_name(name, "cohort-replay") && !is_file_name(name, "cohort-snapshot") {
            return Err(ResumeError::BadName(name.to_string()));
        }
        let path = self.kit.files.replay_dir.join(name);
        if path.exists() {
            return Err(ResumeError::Exists(name.to_string()));
        }
        crate::state::write_atomically(&path, bytes, false)
            .map_err(|e| ResumeError::Refused(format!("{e:#}")))
    }
}

/// Why a match could not be taken up again through the admin API.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error("`{0}` is not a file name ending in .cohort-replay (or .cohort-snapshot)")]
    BadName(String),
    #[error("the replay folder has no file `{0}`")]
    NoFile(String),
    #[error("the replay folder has a file `{0}` already")]
    Exists(String),
    #[error("the match cannot be taken up again: {0}")]
    Refused(String),
    #[error(transparent)]
    Create(CreateError),
}

/// Whether `name` is a bare file name (letters, digits, `-`, `_`, `.`; no path) ending in
/// `.{extension}`.
fn is_file_name(name: &str, extension: &str) -> bool {
    name.len() <= 200
        && name
            .strip_suffix(extension)
            .and_then(|stem| stem.strip_suffix('.'))
            .is_some_and(|stem| {
                !stem.is_empty()
                    && !stem.starts_with('.')
                    && stem
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            })
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
                save_state: config.state_dir.is_some(),
                suspend_on_shutdown: config.state_dir.is_some() && !config.end_on_shutdown,
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
    if config.state_dir.is_some() {
        host.take_up_all().await;
    }
    for settings in config.matches {
        let id = settings.config.match_id.clone();
        if host.matches.view(&id).is_some() {
            // Taken up again (or lost) from the replay folder: the configured match is that one.
            tracing::info!(match_id = %id, "the configured match was found in the replay folder");
            continue;
        }
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
        // Matches suspended on the way out are taken up by the next start on these folders:
        // Agones is not told to shut the game server (and its pod) down.
        let kept = matches.iter().filter(|m| m.suspended).count();
        agones.shutdown(kept).await;
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
