//! One seat's whole match, as `cohort bot` and `cohort play` (and the end-to-end tests) run it:
//! connect, join, play; when the connection is lost (the link fails, the server falls silent
//! for `SERVER_SILENCE_MS` — killed or restarted —, or it drops this client for lag), connect
//! again with backoff for [`RECONNECT_WINDOW`] ([`Reconnect`]) and take the seat back — from
//! the same server or from one started again that took the match up again — — the server hands it over at once, even while it
//! still holds the old connection (docs/PROTOCOL.md, "Seat takeover"). A server that closes the
//! connection with `moved` says where the match went: the tries go there (pinning the
//! fingerprint it gave), and a `UnknownMatch` there is waited out within the same window (the
//! match is being taken up). Nothing reconnects after
//! the match ended, the client left, or the server refused it or gave its seat to another
//! connection (`Replaced`).

use crate::brain::Brain;
use crate::core::{ClientCore, ClientOptions, Event, Tally};
use crate::net::{drive, Link, OnEvent, ServerAuth};
use anyhow::Result;
use cohort_protocol::message::{DesyncNotice, MatchEnded};
use cohort_sim::{Ruleset, StateHash};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Semaphore};

/// Where and how a client connects.
#[derive(Clone, Debug)]
pub struct Connect {
    /// HOST:PORT.
    pub server: String,
    pub auth: ServerAuth,
    /// The name the server's certificate must carry (checked against a CA only).
    pub server_name: String,
}

/// How many times a client tries its first connection before giving up: a handshake whose
/// packets were lost (a server or socket swamped by a burst of connections) is tried again.
pub const CONNECT_ATTEMPTS: u32 = 4;

/// The wait after a first failed connection attempt; doubled after each later one.
pub const CONNECT_BACKOFF: Duration = Duration::from_millis(500);

/// How many of one process's bots handshake at once, unless told (`cohort bot --handshakes`).
pub const DEFAULT_HANDSHAKES: u32 = 16;

/// Reconnection tries after a lost connection before the client gives up, unless told
/// (`--reconnect-attempts`). A try that gets back in and runs a turn starts the count anew.
pub const RECONNECT_ATTEMPTS: u32 = 64;

/// How long after losing its connection a client keeps trying to get back, unless told
/// (`--reconnect-for`): long enough for a server to be restarted and to take its matches up
/// again (a match taken up again waits `RESUME_GRACE_MS`, 60 s, for its players). A try that
/// gets back in and runs a turn starts the time anew.
pub const RECONNECT_WINDOW: Duration = Duration::from_secs(120);

/// The wait before the first reconnection try, unless told (`--reconnect-wait-ms`); doubled
/// before each later try, up to [`RECONNECT_MAX_WAIT`].
pub const RECONNECT_FIRST_WAIT: Duration = Duration::from_millis(200);

/// The longest wait between two reconnection tries, unless told (`--reconnect-max-wait-ms`).
pub const RECONNECT_MAX_WAIT: Duration = Duration::from_secs(5);

/// How a client reconnects after losing its connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reconnect {
    /// Tries before giving up (0: never reconnect).
    pub attempts: u32,
    /// No try starts later than this after the connection was lost.
    pub window: Duration,
    pub first_wait: Duration,
    pub max_wait: Duration,
}

impl Default for Reconnect {
    fn default() -> Reconnect {
        Reconnect {
            attempts: RECONNECT_ATTEMPTS,
            window: RECONNECT_WINDOW,
            first_wait: RECONNECT_FIRST_WAIT,
            max_wait: RECONNECT_MAX_WAIT,
        }
    }
}

impl Reconnect {
    /// Never reconnect.
    pub const NEVER: Reconnect = Reconnect {
        attempts: 0,
        window: Duration::ZERO,
        first_wait: Duration::ZERO,
        max_wait: Duration::ZERO,
    };

    /// The wait before try `n` (from 1): `first_wait` × 2ⁿ⁻¹, at most `max_wait`.
    pub fn wait(&self, n: u32) -> Duration {
        let factor = 1u32.checked_shl(n.saturating_sub(1)).unwrap_or(u32::MAX);
        self.first_wait.saturating_mul(factor).min(self.max_wait)
    }
}

/// How a process's clients pace their connections.
#[derive(Clone, Debug)]
pub struct Pace {
    /// Held while a handshake runs, so that N clients do not all handshake at once.
    pub handshakes: Arc<Semaphore>,
    pub reconnect: Reconnect,
}

impl Default for Pace {
    fn default() -> Pace {
        Pace::new(DEFAULT_HANDSHAKES, Reconnect::default())
    }
}

impl Pace {
    pub fn new(handshakes: u32, reconnect: Reconnect) -> Pace {
        Pace {
            handshakes: Arc::new(Semaphore::new(handshakes.max(1) as usize)),
            reconnect,
        }
    }
}

/// Connects like [`Link::connect`], holding one of `handshakes`' permits while the handshake
/// runs (so N bots do not all handshake at once), and tries again after a failure that may
/// pass — no answer in time, a lost connection — up to [`CONNECT_ATTEMPTS`] times, waiting
/// [`CONNECT_BACKOFF`], then twice that, and so on. A server that answered and refused (a
/// certificate that does not verify, a closed connection) is not asked again.
/// Returns the link (or why not) and the attempts it took.
pub async fn connect_paced(connect: &Connect, handshakes: &Semaphore) -> (Result<Link>, u32) {
    let mut wait = CONNECT_BACKOFF;
    let mut attempt = 1;
    loop {
        match connect_once(connect, handshakes).await {
            Ok(link) => return (Ok(link), attempt),
            Err(e) if attempt < CONNECT_ATTEMPTS && may_pass(&e) => {
                tracing::info!(attempt, error = %format!("{e:#}"), "connecting failed; trying again");
                tokio::time::sleep(wait).await;
                wait *= 2;
                attempt += 1;
            }
            Err(e) => {
                let e = e.context(format!(
                    "connecting to {} ({attempt} attempts)",
                    connect.server
                ));
                return (Err(e), attempt);
            }
        }
    }
}

/// One connection attempt, holding a handshake permit.
async fn connect_once(connect: &Connect, handshakes: &Semaphore) -> Result<Link> {
    let _permit = handshakes.acquire().await?;
    Link::connect(&connect.server, &connect.auth, &connect.server_name).await
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

/// Whether a reconnection try's failure may pass: anything but a certificate refused (a TLS
/// alert: not the pinned one, not signed by the CA). A server shutting down or starting again
/// refuses or closes connections mid-handshake for a moment, which passes.
fn may_pass_again(e: &anyhow::Error) -> bool {
    !crate::net::handshake_refused(e)
}

/// What one seat's play came to, over every connection it took.
#[derive(Clone, Debug, Default)]
pub struct Seat {
    /// Summed over the connections.
    pub tally: Tally,
    /// The turn of the next bundle the last connection would have run.
    pub next_turn: u64,
    pub last_rtt: Option<Duration>,
    /// Attempts the first connection took.
    pub connect_attempts: u32,
    /// Times the seat was taken back on a new connection after a loss.
    pub reconnects: u32,
    /// Why the seat was given up, if not by the match ending or the client leaving.
    pub error: Option<String>,
}

/// Plays one seat (`options.token`'s) until the match ends for it, reconnecting as `pace`
/// says when the connection is lost. `lines` are typed orders (`cohort play`); every event of
/// every connection goes to `on_event`, with [`Event::Reconnecting`] before each try. Never
/// fails: what went wrong is in [`Seat::error`], beside the tally.
pub async fn play_seat(
    connect: &Connect,
    options: ClientOptions,
    rules: Arc<Ruleset>,
    pace: &Pace,
    lines: &mut Option<mpsc::Receiver<String>>,
    on_event: &mut OnEvent<'_>,
) -> Seat {
    let mut seat = Seat::default();
    // Where the seat is played: the match may move (a `moved` close says where).
    let mut connect = connect.clone();
    let (first, attempts) = connect_paced(&connect, &pace.handshakes).await;
    seat.connect_attempts = attempts;
    let mut link = match first {
        Ok(link) => link,
        Err(e) => {
            seat.error = Some(format!("{e:#}"));
            return seat;
        }
    };
    // Reconnection tries since the seat last ran a turn, and when they began.
    let mut tries = 0;
    let mut lost_at: Option<tokio::time::Instant> = None;
    // A move followed since the seat last ran a turn: the new server may not have taken the
    // match up yet.
    let mut followed = false;
    loop {
        let played_before = seat.tally.turns_run > 0;
        let mut restarted = false;
        let mut not_there = false;
        let mut watch = |core: &mut ClientCore, e: &Event| {
            if let Event::ServerError {
                error,
                closes: true,
            } = e
            {
                not_there = error.code == cohort_protocol::ErrorCode::UnknownMatch;
            }
            // A running match is rejoined mid-way; a lobby means the server's match began
            // anew (the server restarted): the match this seat played is gone.
            if let (true, Event::Joined { next_turn: 0, .. }) = (played_before, e) {
                restarted = true;
                core.leave();
            }
            on_event(core, e);
        };
        let core = ClientCore::new(options.clone(), rules.clone());
        let (mut core, result, moved) = drive(core, link, lines, &mut watch).await;
        seat.tally.add(core.tally());
        seat.next_turn = core.next_turn();
        seat.last_rtt = core.rtt().or(seat.last_rtt);
        if core.tally().turns_run > 0 {
            tries = 0;
            lost_at = None;
            followed = false;
        }
        let lost_at = *lost_at.get_or_insert_with(tokio::time::Instant::now);
        if restarted {
            seat.error = Some(
                "the server's match began anew (a restarted server): this match is gone".into(),
            );
            return seat;
        }
        // Followed to a server that does not host the match yet: it is being taken up there.
        let waiting_there = followed && not_there;
        if !core.may_rejoin() && !waiting_there {
            seat.error = result.err().map(|e| format!("{e:#}"));
            return seat;
        }
        let mut why = match result {
            Err(e) => format!("{e:#}"),
            Ok(()) => "the server fell silent or dropped this client".to_string(),
        };
        if let Some(to) = moved {
            why = format!("the match moved to {}", to.address);
            connect.server = to.address;
            if let Some(f) = to.fingerprint {
                connect.auth = ServerAuth::Fingerprint(f);
            }
            followed = true;
        } else if waiting_there {
            why = format!("{} does not host the match yet", connect.server);
        }
        link = loop {
            tries += 1;
            let attempts = pace.reconnect.attempts;
            if tries > attempts {
                seat.error = Some(format!(
                    "{why} (gave up after {attempts} reconnection tries)"
                ));
                return seat;
            }
            let wait = pace.reconnect.wait(tries);
            let window = pace.reconnect.window;
            if lost_at.elapsed() + wait > window {
                seat.error = Some(format!(
                    "{why} (gave up: no way back within {} s, {} reconnection tries)",
                    window.as_secs(),
                    tries - 1
                ));
                return seat;
            }
            let notice = Event::Reconnecting {
                why: why.clone(),
                attempt: tries,
                attempts,
                wait,
            };
            on_event(&mut core, &notice);
            tokio::time::sleep(wait).await;
            match connect_once(&connect, &pace.handshakes).await {
                Ok(link) => break link,
                Err(e) if may_pass_again(&e) => why = format!("{e:#}"),
                Err(e) => {
                    seat.error = Some(format!("{e:#}"));
                    return seat;
                }
            }
        };
        seat.reconnects += 1;
    }
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

impl BotPlan {
    /// A player (or, with a spectator's token, a watcher) that runs the sim, plays until the
    /// match ends and keeps every hash it computed.
    pub fn new(token: String, name: &str, brain: Box<dyn Brain>) -> BotPlan {
        BotPlan {
            options: ClientOptions {
                token,
                name: name.into(),
                simulate: true,
                perturb_at_turn: None,
                perturb_at_tick: None,
            },
            brain,
            turns: None,
            keep_hashes: true,
        }
    }
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
    /// Whether the server closed the connection with an error (refused at the door, dropped,
    /// replaced) and it was not taken back.
    pub closed_by_error: bool,
    pub last_rtt: Option<Duration>,
    /// Attempts the first connection took.
    pub connect_attempts: u32,
    /// Times the seat was taken back on a new connection.
    pub reconnects: u32,
    /// Whether the last loaded snapshot (a rejoin) was confirmed by the server's hash.
    pub snapshot_agreed: Option<bool>,
    /// Why the bot stopped, if not by the match ending or its leaving (it could not connect,
    /// the connection was lost for good).
    pub error: Option<String>,
}

impl BotOutcome {
    /// The line `cohort bot` prints of bot number `bot`, named `name`: one JSON object
    /// (docs/CLIENT.md, "cohort bot").
    pub fn json_line(&self, bot: usize, name: &str) -> serde_json::Value {
        serde_json::json!({
            "bot": bot,
            "name": name,
            "turns_run": self.tally.turns_run,
            "hashes_agreed": self.tally.hashes_agreed,
            "hashes_disagreed": self.tally.hashes_disagreed,
            "desync_notices": self.tally.desync_notices,
            "commands_sent": self.tally.commands_sent,
            "rescheduled": self.tally.rescheduled,
            "connect_attempts": self.connect_attempts,
            "reconnects": self.reconnects,
            "last_rtt_ms": self.last_rtt.map(|r| r.as_secs_f64() * 1000.0),
            "ended": self.ended.map(|e| format!("{:?}", e.reason)),
            "server_errors": self.errors,
            "error": self.error,
        })
    }

    /// Whether the bot failed: an error, or the server closed it with one.
    pub fn failed(&self) -> bool {
        self.error.is_some() || self.closed_by_error
    }
}

/// Plays one bot's match to its end with the default [`Pace`].
pub async fn run_bot(connect: &Connect, plan: BotPlan, rules: Arc<Ruleset>) -> BotOutcome {
    run_bot_paced(connect, plan, rules, &Pace::default()).await
}

/// Plays one bot's match to its end: orders come from the brain after every turn run; a lost
/// connection is taken back as `pace` says. Never fails: what went wrong is in the outcome.
pub async fn run_bot_paced(
    connect: &Connect,
    plan: BotPlan,
    rules: Arc<Ruleset>,
    pace: &Pace,
) -> BotOutcome {
    let BotPlan {
        options,
        mut brain,
        turns,
        keep_hashes,
    } = plan;
    let mut out = BotOutcome::default();
    // Turns run on the connections before the current one.
    let mut turns_run = 0;
    let mut on_event = |core: &mut ClientCore, e: &Event| match e {
        Event::Turn(t) => {
            turns_run += 1;
            if keep_hashes {
                if let Some(h) = t.hash {
                    out.hashes.insert(t.turn, h);
                }
            }
            if turns.is_some_and(|n| turns_run >= n) {
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
            // Dropped for lag, the seat is taken back (else `error` says why not).
            if *closes {
                out.closed_by_error = error.code != cohort_protocol::ErrorCode::DroppedForLag;
            }
            out.errors.push(format!("{:?}: {}", error.code, error.text))
        }
        Event::SnapshotChecked { agrees, .. } => out.snapshot_agreed = Some(*agrees),
        Event::Reconnecting {
            why,
            attempt,
            attempts,
            wait,
        } => tracing::info!(%why, attempt, attempts, ?wait, "reconnecting"),
        _ => {}
    };
    let seat = play_seat(connect, options, rules, pace, &mut None, &mut on_event).await;
    out.tally = seat.tally;
    out.next_turn = seat.next_turn;
    out.last_rtt = seat.last_rtt;
    out.connect_attempts = seat.connect_attempts;
    out.reconnects = seat.reconnects;
    out.error = seat.error;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconnection_waits_double_up_to_their_bound() {
        let r = Reconnect::default();
        let waits: Vec<u128> = (1..=8).map(|n| r.wait(n).as_millis()).collect();
        assert_eq!(waits, vec![200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
        assert_eq!(r.wait(u32::MAX), RECONNECT_MAX_WAIT);
    }
}
