//! What `cohort play` shows of the client core's events: one line each (stdout or stderr), the
//! turn's status about once a second, and what the exit code is made of (a desync that was this
//! client's, a connection the server closed for an error).

use crate::core::{ClientCore, Event};
use cohort_protocol::message::Role;
use cohort_protocol::ErrorCode;

/// Where a line goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Out,
    Err,
}

/// A line to show (it may hold several, as `help` does), without its newline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    pub stream: Stream,
    pub text: String,
}

/// What the player's client is, for telling its events: the match's turn length and its seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientView {
    /// Milliseconds a turn (none before the join).
    pub turn_ms: Option<u64>,
    /// Its player slot (none for a spectator, or before the join).
    pub player: Option<u8>,
}

impl ClientView {
    pub fn of(core: &ClientCore) -> ClientView {
        ClientView {
            turn_ms: core.config().map(|c| c.turn_ms()),
            player: core.player(),
        }
    }
}

/// Tells `cohort play`'s events, and keeps what its exit code is made of.
#[derive(Debug)]
pub struct EventPrinter {
    /// The turn's status is shown on every this many turns (about once a second).
    status_every: u64,
    /// This client's hash disagreed, or a desync named it: exit 1.
    pub diverged: bool,
    /// The server closed the connection for an error (not a drop for lag): exit 2.
    pub closed_by_error: bool,
}

impl Default for EventPrinter {
    fn default() -> EventPrinter {
        EventPrinter::new()
    }
}

fn out(text: String) -> Option<Shown> {
    Some(Shown {
        stream: Stream::Out,
        text,
    })
}

fn err(text: String) -> Option<Shown> {
    Some(Shown {
        stream: Stream::Err,
        text,
    })
}

impl EventPrinter {
    pub fn new() -> EventPrinter {
        EventPrinter {
            status_every: 8,
            diverged: false,
            closed_by_error: false,
        }
    }

    /// The line `e` is shown as, if any, for the client `view` describes.
    pub fn line(&mut self, view: ClientView, e: &Event) -> Option<Shown> {
        if let Some(ms) = view.turn_ms {
            self.status_every = (1000 / ms.max(1)).max(1);
        }
        match e {
            Event::Turn(t) => {
                if t.turn % self.status_every == 0 || t.previous_agrees == Some(false) {
                    let agree = match t.previous_agrees {
                        Some(true) => "hashes agree",
                        Some(false) => "HASHES DIFFER",
                        None => "hash pending",
                    };
                    let ping = t.rtt.map_or("ping -".to_string(), |r| {
                        format!("ping {} ms", r.as_millis())
                    });
                    out(format!(
                        "turn {:>6}  {ping}  input delay {}  {agree}",
                        t.turn, t.input_delay
                    ))
                } else {
                    None
                }
            }
            Event::Joined {
                match_id,
                role,
                next_turn,
                input_delay,
            } => {
                let who = match role {
                    Role::Player(p) => format!("player {p}"),
                    Role::Spectator => "spectator".to_string(),
                };
                out(format!(
                    "joined match {match_id} as {who} at turn {next_turn}, input delay {input_delay}"
                ))
            }
            Event::SnapshotLoaded { turn } => out(format!("loaded the state after turn {turn}")),
            Event::SnapshotChecked { turn, agrees } => out(format!(
                "the state after turn {turn} {} the server's",
                if *agrees {
                    "agrees with"
                } else {
                    "DIFFERS FROM"
                }
            )),
            Event::InputDelay(d) => out(format!("input delay is now {d} turns")),
            Event::HashDisagrees { turn, mine, server } => {
                self.diverged = true;
                out(format!(
                    "DESYNC after turn {turn}: mine {mine}, server's {server}"
                ))
            }
            Event::Desync(d) => {
                if view.player.is_some_and(|p| d.players.contains(&p)) {
                    self.diverged = true;
                }
                out(format!(
                    "desync after turn {} (players {:?}); the match {}",
                    d.turn,
                    d.players,
                    if d.continuing { "goes on" } else { "stops" }
                ))
            }
            Event::Rescheduled(r) => out(format!(
                "{} order(s) for turn {} were late and run at turn {}",
                r.count, r.asked, r.turn
            )),
            Event::Chat(c) => out(format!("<{}> {}", c.name, c.text)),
            Event::Paused(p) => out(format!(
                "paused by player {} ({} pause(s) left; resumes by itself in {} s)",
                p.by,
                p.pauses_left,
                p.resumes_in_ms / 1000
            )),
            Event::Resumed(r) => match r.by {
                Some(p) => out(format!("resumed by player {p}")),
                None => out("resumed".to_string()),
            },
            Event::ServerError { error, closes } => {
                // Refused at the door, replaced, or closed for bad input: an error (exit 2).
                // Dropped for lag, the seat is taken back.
                if *closes {
                    self.closed_by_error = error.code != ErrorCode::DroppedForLag;
                }
                err(format!(
                    "server: {:?}: {}{}",
                    error.code,
                    error.text,
                    if *closes { " (connection closed)" } else { "" }
                ))
            }
            Event::ServerSilent => err("the server fell silent: connection lost".to_string()),
            Event::ConnectionLost(why) => err(format!("connection lost: {why}")),
            Event::ServerNotTrusted(why) => err(format!("the server is not trusted: {why}")),
            Event::Reconnecting {
                why,
                attempt,
                attempts,
                wait,
            } => err(format!(
                "connection lost ({why}); reconnecting in {} ms (try {attempt} of {attempts})",
                wait.as_millis()
            )),
            Event::Refused(why) => err(format!("refused: {why}")),
            Event::Help(text) => out(text.to_string()),
            Event::Ended(m) => out(format!(
                "the match ended after turn {} ({:?})",
                m.last_turn, m.reason
            )),
        }
    }
}

#[cfg(test)]
mod tests;
