//! One client's whole match, as `cohort bot` (and the end-to-end tests) run it: connect, join,
//! play the brain's orders every turn, stop after a number of turns or when the match ends.

use crate::brain::Brain;
use crate::core::{ClientCore, ClientOptions, Event, Tally};
use crate::net::{drive, Link, ServerAuth};
use anyhow::Result;
use cohort_protocol::message::{DesyncNotice, MatchEnded};
use cohort_sim::{Ruleset, StateHash};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Where and how a bot connects.
#[derive(Clone, Debug)]
pub struct Connect {
    /// HOST:PORT.
    pub server: String,
    pub auth: ServerAuth,
    /// The name the server's certificate must carry (checked against a CA only).
    pub server_name: String,
}

/// A bot's part in a match.
pub struct BotPlan {
    pub options: ClientOptions,
    pub brain: Box<dyn Brain>,
    /// Leave after this many turns run (none: play until the match ends).
    pub turns: Option<u64>,
    /// Keep every hash this client computed (tests compare them with the replay's).
    pub keep_hashes: bool,
}

/// What a bot saw.
#[derive(Clone, Debug, Default)]
pub struct BotOutcome {
    pub tally: Tally,
    pub next_turn: u64,
    /// Every hash this client computed, by turn (with `keep_hashes`).
    pub hashes: BTreeMap<u64, StateHash>,
    pub desyncs: Vec<DesyncNotice>,
    pub ended: Option<MatchEnded>,
    /// Errors the server sent (code and text).
    pub errors: Vec<String>,
    /// Whether the server closed the connection with an error (refused at the door, dropped).
    pub closed_by_error: bool,
    pub last_rtt: Option<Duration>,
    /// Connection attempts it took (with [`connect_paced`]; 1 otherwise).
    pub connect_attempts: u32,
    /// Whether a loaded snapshot (a rejoin) was confirmed by the server's hash.
    pub snapshot_agreed: Option<bool>,
}

/// Plays one bot's match to its end. Orders come from the brain after every turn run.
pub async fn run_bot(connect: &Connect, plan: BotPlan, rules: Arc<Ruleset>) -> Result<BotOutcome> {
    let link = Link::connect(&connect.server, &connect.auth, &connect.server_name).await?;
    run_bot_on(link, plan, rules).await
}

/// How many times a bot of `cohort bot` tries to connect before giving up: a handshake whose
/// packets were lost (a server or socket swamped by a burst of connections) is tried again.
pub const CONNECT_ATTEMPTS: u32 = 4;

/// The wait after a bot's first failed connection attempt; doubled after each later one.
pub const CONNECT_BACKOFF: Duration = Duration::from_millis(500);

/// How many of one process's bots handshake at once, unless told (`cohort bot --handshakes`).
pub const DEFAULT_HANDSHAKES: u32 = 16;

/// Connects like [`Link::connect`], holding one of `handshakes`' permits while the handshake
/// runs (so N bots do not all handshake at once), and tries again after a failure that may
/// pass — no answer in time, a lost connection — up to [`CONNECT_ATTEMPTS`] times, waiting
/// [`CONNECT_BACKOFF`], then twice that, and so on. A server that answered and refused (a
/// certificate that does not verify, a closed connection) is not asked again.
/// Returns the link and the attempts it took.
pub async fn connect_paced(connect: &Connect, handshakes: &Semaphore) -> Result<(Link, u32)> {
    let mut wait = CONNECT_BACKOFF;
    let mut attempt = 1;
    loop {
        let tried = {
            let _permit = handshakes.acquire().await?;
            Link::connect(&connect.server, &connect.auth, &connect.server_name).await
        };
        match tried {
            Ok(link) => return Ok((link, attempt)),
            Err(e) if attempt < CONNECT_ATTEMPTS && may_pass(&e) => {
                tracing::info!(attempt, error = %format!("{e:#}"), "connecting failed; trying again");
                tokio::time::sleep(wait).await;
                wait *= 2;
                attempt += 1;
            }
            Err(e) => {
                return Err(e.context(format!(
                    "connecting to {} ({attempt} attempts)",
                    connect.server
                )))
            }
        }
    }
}

/// Whether a connection failure may pass if tried again: anything but the server's answer.
fn may_pass(e: &anyhow::Error) -> bool {
    !e.chain().any(|c| {
        matches!(
            c.downcast_ref::<quinn::ConnectionError>(),
            Some(
                quinn::ConnectionError::TransportError(_)
                    | quinn::ConnectionError::ConnectionClosed(_)
                    | quinn::ConnectionError::ApplicationClosed(_)
                    | quinn::ConnectionError::VersionMismatch
            )
        )
    })
}

/// [`run_bot`], connecting through [`connect_paced`].
pub async fn run_bot_paced(
    connect: &Connect,
    plan: BotPlan,
    rules: Arc<Ruleset>,
    handshakes: &Semaphore,
) -> Result<BotOutcome> {
    let (link, attempts) = connect_paced(connect, handshakes).await?;
    let mut outcome = run_bot_on(link, plan, rules).await?;
    outcome.connect_attempts = attempts;
    Ok(outcome)
}

/// [`run_bot`] over a link already open.
pub async fn run_bot_on(link: Link, plan: BotPlan, rules: Arc<Ruleset>) -> Result<BotOutcome> {
    let BotPlan {
        options,
        mut brain,
        turns,
        keep_hashes,
    } = plan;
    let core = ClientCore::new(options, rules);
    let mut out = BotOutcome {
        connect_attempts: 1,
        ..BotOutcome::default()
    };
    let mut on_event = |core: &mut ClientCore, e: &Event| match e {
        Event::Turn(t) => {
            if keep_hashes {
                if let Some(h) = t.hash {
                    out.hashes.insert(t.turn, h);
                }
            }
            if turns.is_some_and(|n| core.tally().turns_run >= n) {
                core.leave();
                return;
            }
            if let (Some(me), Some(world)) = (core.player(), core.world()) {
                let orders = brain.orders(t.turn, world, me);
                core.order(orders);
            }
        }
        Event::Desync(d) => out.desyncs.push(d.clone()),
        Event::Ended(m) => out.ended = Some(*m),
        Event::ServerError { error, closes } => {
            out.closed_by_error |= *closes;
            out.errors.push(format!("{:?}: {}", error.code, error.text))
        }
        Event::SnapshotChecked { agrees, .. } => out.snapshot_agreed = Some(*agrees),
        _ => {}
    };
    let core = drive(core, link, None, &mut on_event).await?;
    out.tally = core.tally().clone();
    out.next_turn = core.next_turn();
    out.last_rtt = core.rtt();
    Ok(out)
}
