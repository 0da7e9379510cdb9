//! The client on a game loop's terms (what cohort-ffi's client handle is): the QUIC link runs
//! on a thread of its own with its own tokio runtime and only moves messages; the
//! [`ClientCore`] stays with the caller, who pumps it once a frame ([`ThreadedClient::pump`]):
//! the messages that arrived go into the core (so turns run on the caller's thread, between
//! its frames), the core's timeouts fire, and what the core sends goes to the link. Nothing
//! here blocks but [`ThreadedClient::wait`] (when asked to) and closing.
//!
//! Every lockstep rule stays in the core; this is the synchronous twin of [`crate::net::drive`].

use crate::core::{ClientCore, Phase};
use crate::net::Link;
use crate::session::Connect;
use anyhow::{Context, Result};
use cohort_protocol::{ClientMessage, ServerMessage};
use std::sync::mpsc as std_mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};

/// What the link thread hands the caller.
enum Inbound {
    Message(ServerMessage),
    /// The link is gone: none when the server closed in good order, else why.
    Ended(Option<String>),
    /// The link was never made: the server's certificate was refused (why).
    NotTrusted(String),
    /// The server closed the link with `moved`: where the match went (before `Ended`).
    Moved(cohort_protocol::close::MovedTo),
}

/// What the caller hands the link thread.
enum Outbound {
    Message(ClientMessage),
    /// Finish the stream and close the connection (after the messages before it).
    Close,
}

/// A client core and its link on their own thread. Dropping it closes the link and waits for
/// its thread (at most about twice [`crate::net::CLOSE_GRACE`]).
pub struct ThreadedClient {
    core: ClientCore,
    inbound: std_mpsc::Receiver<Inbound>,
    /// One message taken from `inbound` by [`ThreadedClient::wait`], not yet handled.
    held: Option<Inbound>,
    outbound: mpsc::UnboundedSender<Outbound>,
    /// Tells the link thread to give up at once (even while it connects).
    abort: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
    close_sent: bool,
    link_ended: bool,
    /// Where the match went, when the server closed the link with `moved`.
    moved: Option<cohort_protocol::close::MovedTo>,
}

impl ThreadedClient {
    /// Starts the link thread (it connects as `connect` says) and the core's handshake; returns
    /// at once. A failure to connect arrives later, through the core's events.
    pub fn start(connect: Connect, mut core: ClientCore) -> Result<ThreadedClient> {
        let (in_tx, inbound) = std_mpsc::channel();
        let (outbound, out_rx) = mpsc::unbounded_channel();
        let (abort, abort_rx) = watch::channel(false);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the client's network runtime")?;
        let thread = std::thread::Builder::new()
            .name("cohort-link".into())
            .spawn(move || runtime.block_on(run_link(connect, in_tx, out_rx, abort_rx)))
            .context("starting the client's network thread")?;
        core.start(Instant::now());
        let mut client = ThreadedClient {
            core,
            inbound,
            held: None,
            outbound,
            abort,
            thread: Some(thread),
            close_sent: false,
            link_ended: false,
            moved: None,
        };
        client.flush();
        Ok(client)
    }

    pub fn core(&self) -> &ClientCore {
        &self.core
    }

    /// Where the match went, when the server closed the connection with `moved`
    /// (docs/PROTOCOL.md, "QUIC close codes"): a new connection should go there.
    pub fn moved_to(&self) -> Option<&cohort_protocol::close::MovedTo> {
        self.moved.as_ref()
    }

    /// The core, to give orders, chat, pause or leave; [`ThreadedClient::pump`] sends what
    /// they queue.
    pub fn core_mut(&mut self) -> &mut ClientCore {
        &mut self.core
    }

    /// Hands every message that arrived to the core (calling `before` with the core as it
    /// stands before each), fires the core's timeouts, and sends what the core queued. Turns
    /// run here, on the caller's thread.
    pub fn pump(&mut self, mut before: impl FnMut(&ClientCore, &ServerMessage)) {
        loop {
            let item = match self.held.take() {
                Some(item) => item,
                None => match self.inbound.try_recv() {
                    Ok(item) => item,
                    Err(std_mpsc::TryRecvError::Empty) => break,
                    Err(std_mpsc::TryRecvError::Disconnected) => {
                        Inbound::Ended(Some("the network thread stopped".into()))
                    }
                },
            };
            match item {
                Inbound::Message(m) => {
                    before(&self.core, &m);
                    self.core.handle_message(m, Instant::now());
                }
                Inbound::Ended(why) => {
                    self.link_ended = true;
                    let why = why.unwrap_or_else(|| "the server closed the connection".into());
                    self.core.connection_lost(why);
                    break;
                }
                Inbound::NotTrusted(why) => {
                    self.link_ended = true;
                    self.core.server_not_trusted(why);
                    break;
                }
                Inbound::Moved(to) => self.moved = Some(to),
            }
        }
        let now = Instant::now();
        if self.core.poll_timeout().is_some_and(|t| t <= now) {
            self.core.handle_timeout(now);
        }
        self.flush();
    }

    /// Blocks until a message arrives, the core has something to do, or `timeout` passes,
    /// whichever comes first (for loops that have nothing else to do between turns).
    pub fn wait(&mut self, timeout: Duration) {
        if self.held.is_some() || self.link_ended {
            return;
        }
        let now = Instant::now();
        let mut until = now + timeout;
        if let Some(t) = self.core.poll_timeout() {
            until = until.min(t);
        }
        self.held = match self
            .inbound
            .recv_timeout(until.saturating_duration_since(now))
        {
            Ok(item) => Some(item),
            Err(std_mpsc::RecvTimeoutError::Timeout) => None,
            Err(std_mpsc::RecvTimeoutError::Disconnected) => {
                Some(Inbound::Ended(Some("the network thread stopped".into())))
            }
        };
    }

    /// Sends what the core queued; once the core is over, closes the link (after those).
    fn flush(&mut self) {
        while let Some(m) = self.core.poll_transmit() {
            if !self.link_ended {
                let _ = self.outbound.send(Outbound::Message(m));
            }
        }
        if self.core.phase() == Phase::Over && !self.close_sent {
            self.close_sent = true;
            let _ = self.outbound.send(Outbound::Close);
        }
    }
}

impl Drop for ThreadedClient {
    fn drop(&mut self) {
        // Not joined yet (perhaps still connecting): nothing to say, nothing to wait for.
        let joining = matches!(self.core.phase(), Phase::Idle | Phase::Joining);
        if self.core.phase() != Phase::Over {
            self.core.leave();
        }
        self.flush();
        if joining || self.core.may_rejoin() || self.link_ended {
            let _ = self.abort.send(true);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The link thread: connects, then moves messages both ways until told to close or the link
/// ends. Every way out tells the caller why (unless the caller is gone).
async fn run_link(
    connect: Connect,
    inbound: std_mpsc::Sender<Inbound>,
    mut outbound: mpsc::UnboundedReceiver<Outbound>,
    mut abort: watch::Receiver<bool>,
) {
    let connecting = Link::connect(&connect.server, &connect.auth, &connect.server_name);
    let mut link = tokio::select! {
        link = connecting => match link {
            Ok(link) => link,
            Err(e) => {
                let why = format!("{e:#}");
                let _ = inbound.send(if crate::net::handshake_refused(&e) {
                    Inbound::NotTrusted(why)
                } else {
                    Inbound::Ended(Some(why))
                });
                return;
            }
        },
        _ = abort.changed() => return,
    };
    let ended = loop {
        tokio::select! {
            message = link.recv() => match message {
                Ok(Some(m)) => {
                    if inbound.send(Inbound::Message(m)).is_err() {
                        break None;
                    }
                }
                Ok(None) => {
                    if let Some(to) = link.moved_to() {
                        let _ = inbound.send(Inbound::Moved(to));
                    }
                    break Some(Inbound::Ended(None));
                }
                Err(e) => break Some(Inbound::Ended(Some(format!("{e:#}")))),
            },
            out = outbound.recv() => match out {
                Some(Outbound::Message(m)) => {
                    if let Err(e) = link.send(&m).await {
                        // The server may have said its last words just before: they are read
                        // on the next turn of the loop, then the stream's end.
                        tracing::debug!(error = %format!("{e:#}"), "sending to the server");
                    }
                }
                Some(Outbound::Close) | None => break None,
            },
            _ = abort.changed() => {
                link.abort();
                return;
            }
        }
    };
    if let Some(e) = ended {
        let _ = inbound.send(e);
    }
    tokio::select! {
        () = link.close() => {}
        _ = abort.changed() => {}
    }
}
