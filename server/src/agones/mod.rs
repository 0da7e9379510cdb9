//! Agones (DESIGN.md, "Operations": fleets on Kubernetes): the SDK's gRPC API ([`sdk`]: tonic,
//! generated from the SDK's own proto files) to the SDK sidecar in the pod, on
//! `localhost:AGONES_SDK_GRPC_PORT`. A game server in a fleet:
//!
//! 1. connects to the sidecar (waiting for it up to [`sdk::CONNECT_TIMEOUT`]: it may start
//!    after us);
//! 2. publishes its certificate fingerprint (`SetAnnotation`, key [`FINGERPRINT_KEY`]: Agones
//!    stores it as the annotation `agones.dev/sdk-cohort-fingerprint`), then says `Ready`, then
//!    pings `Health` every [`HEALTH_INTERVAL`];
//! 3. reads its GameServer (`GetGameServer`, then `WatchGameServer`): once it is `Allocated` with the annotation
//!    [`MATCH_ANNOTATION`] (the match's keys as JSON, the same keys as a `[[match]]` and the
//!    admin API), it hosts that match and annotates [`HOSTED_KEY`] with its id (a bad spec is
//!    annotated [`ERROR_KEY`] and logged instead);
//! 4. reports every player slot connecting and leaving in the GameServer's list
//!    [`PLAYERS_LIST`] (Counters and Lists: `AddListValue` / `RemoveListValue` of
//!    `<match id>/<slot>`);
//! 5. says `Shutdown` when the process ends — after its matches have ended (the driver ends
//!    once it has hosted a match and every match is over), or on SIGTERM.
//!
//! A sidecar that is absent, slow or answers an error never blocks or stops the server: the
//! failure is logged at `warn` and the server serves on.

pub mod sdk;

use crate::driver::{Host, PlayerChange};
use sdk::Sdk;
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// The sidecar's gRPC port when `AGONES_SDK_GRPC_PORT` is not set (Agones' default).
pub const DEFAULT_SDK_GRPC_PORT: u16 = 9357;

/// How often a running server pings `Health`. The fleet's `health.periodSeconds` (5 in
/// deploy/agones-fleet.yaml) must be longer.
pub const HEALTH_INTERVAL: Duration = Duration::from_secs(2);

/// How long one SDK call may take before it counts as failed.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The annotation a matchmaker puts on the allocation (`GameServerAllocation`
/// `spec.metadata.annotations`): the match to host, as JSON with a `[[match]]`'s keys.
pub const MATCH_ANNOTATION: &str = "cohort.dev/match";

/// The SDK annotation key of the certificate's SHA-256 fingerprint (Agones prefixes SDK keys:
/// the annotation is `agones.dev/sdk-cohort-fingerprint`).
pub const FINGERPRINT_KEY: &str = "cohort-fingerprint";

/// The SDK annotation key of the match hosted after an allocation
/// (`agones.dev/sdk-cohort-match-id`).
pub const HOSTED_KEY: &str = "cohort-match-id";

/// The SDK annotation key saying why an allocation's match could not be hosted
/// (`agones.dev/sdk-cohort-error`).
pub const ERROR_KEY: &str = "cohort-error";

/// The GameServer list (Counters and Lists) that holds the connected players, as
/// `<match id>/<slot>`; the fleet declares it (`spec.template.spec.lists.players`).
pub const PLAYERS_LIST: &str = "players";

/// The Agones state of an allocated game server.
pub const ALLOCATED: &str = "Allocated";

/// The server's life as Agones sees it: [`Lifecycle::start`] once the server can take players,
/// [`Lifecycle::shutdown`] when it stops.
pub struct Lifecycle {
    sdk: Arc<OnceLock<Sdk>>,
    task: JoinHandle<()>,
    reports: mpsc::UnboundedSender<Report>,
}

/// What the players' reporter is told.
enum Report {
    Player(PlayerChange),
    /// Answer once every change before has been reported.
    Flush(oneshot::Sender<()>),
}

/// Runs an SDK call with [`CALL_TIMEOUT`]; logs a failure (`what` names the call).
async fn call<T>(
    what: &str,
    f: impl std::future::Future<Output = Result<T, tonic::Status>>,
) -> Option<T> {
    match tokio::time::timeout(CALL_TIMEOUT, f).await {
        Ok(Ok(v)) => Some(v),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "Agones {what} failed");
            None
        }
        Err(_) => {
            tracing::warn!("Agones {what}: no answer within {CALL_TIMEOUT:?}");
            None
        }
    }
}

impl Lifecycle {
    /// Connects to the sidecar on `port`, publishes the fingerprint, says `Ready`, pings
    /// `Health`, reports players and hosts the allocated match — in tasks of their own.
    pub fn start(port: u16, host: Arc<Host>) -> Lifecycle {
        let sdk_cell = Arc::new(OnceLock::new());
        let cell = sdk_cell.clone();
        let (reports, players_rx) = mpsc::unbounded_channel();
        let tell = reports.clone();
        let _ = host.players.set(Box::new(move |change| {
            let _ = tell.send(Report::Player(change));
        }));
        let task = tokio::spawn(async move {
            let mut sdk = match Sdk::connect(port).await {
                Ok(sdk) => sdk,
                Err(e) => {
                    tracing::warn!(port, error = %e, "no Agones SDK sidecar; running without it");
                    return;
                }
            };
            let _ = cell.set(sdk.clone());
            if let Some(public) = host.public() {
                call(
                    "SetAnnotation (fingerprint)",
                    sdk.set_annotation(FINGERPRINT_KEY, public.fingerprint),
                )
                .await;
            }
            if call("Ready", sdk.ready()).await.is_some() {
                tracing::info!(port, "Agones told: ready");
            }
            let health = sdk.health_check();
            let pings = tokio::spawn(async move {
                let mut every = tokio::time::interval(HEALTH_INTERVAL);
                loop {
                    every.tick().await;
                    if health.send(()).await.is_err() {
                        tracing::warn!("Agones health stream closed");
                        return;
                    }
                }
            });
            let players = tokio::spawn(report_players(sdk.clone(), players_rx));
            watch(sdk, host).await;
            // The watch ended (the sidecar went away): keep pinging and reporting for as
            // long as they get through.
            let _ = tokio::join!(pings, players);
        });
        Lifecycle {
            sdk: sdk_cell,
            task,
            reports,
        }
    }

    /// Reports the last players leaving, stops the pings and says `Shutdown`: Agones then
    /// deletes the game server. Not said when `kept` matches were suspended on the way out
    /// (a state folder): the container started again in the same pod takes them up.
    pub async fn shutdown(self, kept: usize) {
        let (flushed, reported) = oneshot::channel();
        if self.sdk.get().is_some() && self.reports.send(Report::Flush(flushed)).is_ok() {
            let _ = tokio::time::timeout(CALL_TIMEOUT, reported).await;
        }
        self.task.abort();
        let _ = self.task.await;
        let Some(mut sdk) = self.sdk.get().cloned() else {
            tracing::warn!("Agones shutdown not said: the sidecar was never reached");
            return;
        };
        if kept > 0 {
            tracing::info!(
                kept,
                "Agones not told to shut down: matches suspended here are taken up when the server starts again on its folders"
            );
            return;
        }
        if call("Shutdown", sdk.shutdown()).await.is_some() {
            tracing::info!("Agones told: shutdown");
        }
    }
}

/// Hosts the match of each allocation: the GameServer as it stands (`GetGameServer`: it may
/// have been allocated already), then as its updates come (`WatchGameServer`).
async fn watch(mut sdk: Sdk, host: Arc<Host>) {
    // The specs already acted on (every update repeats the annotations).
    let mut seen = BTreeSet::new();
    if let Some(gs) = call("GetGameServer", sdk.get_gameserver()).await {
        allocation(&mut sdk, &host, &gs, &mut seen).await;
    }
    let Some(mut stream) = call("WatchGameServer", sdk.watch_gameserver()).await else {
        return;
    };
    loop {
        match stream.message().await {
            Ok(Some(gs)) => allocation(&mut sdk, &host, &gs, &mut seen).await,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(error = %e, "Agones WatchGameServer stream failed");
                return;
            }
        }
    }
}

/// If `gs` is allocated with a match not yet acted on, hosts it and annotates how it went.
async fn allocation(
    sdk: &mut Sdk,
    host: &Arc<Host>,
    gs: &sdk::GameServer,
    seen: &mut BTreeSet<String>,
) {
    let allocated = gs.status.as_ref().is_some_and(|s| s.state == ALLOCATED);
    let spec = gs
        .object_meta
        .as_ref()
        .and_then(|m| m.annotations.get(MATCH_ANNOTATION));
    let Some(spec) = spec.filter(|_| allocated) else {
        return;
    };
    if !seen.insert(spec.clone()) {
        return;
    }
    match host_match(host, spec) {
        Ok(id) => {
            tracing::info!(match_id = %id, "Agones allocation: hosting its match");
            call(
                "SetAnnotation (match id)",
                sdk.set_annotation(HOSTED_KEY, id),
            )
            .await;
        }
        Err(e) => {
            tracing::error!(error = %e, annotation = MATCH_ANNOTATION, "Agones allocation: cannot host its match");
            let text: String = e.chars().take(256).collect();
            call("SetAnnotation (error)", sdk.set_annotation(ERROR_KEY, text)).await;
        }
    }
}

/// Sets up the match an allocation's annotation describes; its id, or why not.
fn host_match(host: &Arc<Host>, spec: &str) -> Result<String, String> {
    let keys = crate::http::parse_match(spec.as_bytes())
        .map_err(|(field, message)| format!("`{field}`: {message}"))?;
    let settings = keys.settings(host.rules()).map_err(|e| e.to_string())?;
    let id = settings.config.match_id.clone();
    match host.create_match(settings) {
        Ok(created) => Ok(created.tokens.match_id),
        // Taken up again from the replay folder at start (a server restarted on its volume,
        // `--state-dir`): the allocation's match is that one.
        Err(crate::driver::CreateError::Exists(_))
            if matches!(host.matches.lookup(&id), crate::driver::Lookup::Live(_)) =>
        {
            Ok(id)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Adds and removes `<match id>/<slot>` in the [`PLAYERS_LIST`] as players connect and leave.
async fn report_players(mut sdk: Sdk, mut reports: mpsc::UnboundedReceiver<Report>) {
    while let Some(report) = reports.recv().await {
        let c = match report {
            Report::Player(c) => c,
            Report::Flush(done) => {
                let _ = done.send(());
                continue;
            }
        };
        let value = format!("{}/{}", c.match_id, c.slot);
        if c.connected {
            call(
                "AddListValue (player connected)",
                sdk.add_list_value(PLAYERS_LIST, &value),
            )
            .await;
        } else {
            call(
                "RemoveListValue (player left)",
                sdk.remove_list_value(PLAYERS_LIST, &value),
            )
            .await;
        }
    }
}
