//! `cohort play`: join a match and play it from the keyboard (or a pipe).

use super::connect::{ConnectArgs, ReconnectArgs};
use super::ruleset::RulesetArgs;
use anyhow::{Context, Result};
use cohort_client::core::{ClientCore, ClientOptions, Event};
use cohort_client::session::{play_seat, Pace};
use cohort_protocol::message::Role;
use cohort_protocol::ErrorCode;
use std::io::BufRead;
use std::process::ExitCode;
use tokio::sync::mpsc;

/// How many typed lines may wait to be sent.
const LINE_QUEUE: usize = 64;

/// Join a match and play: orders are read from stdin, one per line (type `help`).
///
/// The client runs the match's simulation, sends its hash after every turn and shows, about
/// once a second, the turn, the round-trip time to the server, the input delay and whether its
/// hashes agree with the server's. Orders: `move 3 4 to 10.5 20`, `attack 5 on 9`,
/// `formation line 3 4 5`, `stop 3`, `chat gl hf`, `pause`, `resume`, `leave`
/// (docs/CLIENT.md lists every form). A lost connection is taken back: the client reconnects
/// with backoff (--reconnect-*) and the server gives it its seat at once, with a snapshot.
/// Exits 0 when the match ends or you leave, 1 if this client's state diverged from the
/// server's, 2 on an error.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    connect: ConnectArgs,
    #[command(flatten)]
    ruleset: RulesetArgs,
    /// The join token the server's operator gave you (names the match and your slot).
    #[arg(long, env = "COHORT_TOKEN")]
    token: String,
    /// Your name, shown to the others.
    #[arg(long, default_value = "player")]
    name: String,
    /// TEST SWITCH: after running turn N, nudge a unit by 1/65536 of a tile so that this
    /// client desyncs on purpose (for testing desync detection; never in a real match).
    #[arg(long, value_name = "N")]
    perturb_at_turn: Option<u64>,
    /// TEST SWITCH: the same nudge after running tick N (counted from the match's start), so
    /// that this client goes wrong in the middle of a turn.
    #[arg(long, value_name = "N")]
    perturb_at_tick: Option<u64>,
    #[command(flatten)]
    reconnect: ReconnectArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let connect = args.connect.connect()?;
    let rules = args.ruleset.load()?;
    let (tx, rx) = mpsc::channel::<String>(LINE_QUEUE);
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.blocking_send(line).is_err() {
                break;
            }
        }
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let pace = Pace::new(1, args.reconnect.reconnect());
    runtime.block_on(async move {
        let options = ClientOptions {
            token: args.token,
            name: args.name,
            simulate: true,
            perturb_at_turn: args.perturb_at_turn,
            perturb_at_tick: args.perturb_at_tick,
        };
        let mut diverged = false;
        let mut closed_by_error = false;
        let mut status_every = 8u64;
        let mut on_event = |core: &mut ClientCore, e: &Event| {
            if let Some(c) = core.config() {
                status_every = (1000 / c.turn_ms().max(1)).max(1);
            }
            match e {
                Event::Turn(t) => {
                    if t.turn % status_every == 0 || t.previous_agrees == Some(false) {
                        let agree = match t.previous_agrees {
                            Some(true) => "hashes agree",
                            Some(false) => "HASHES DIFFER",
                            None => "hash pending",
                        };
                        let ping = t
                            .rtt
                            .map_or("ping -".to_string(), |r| format!("ping {} ms", r.as_millis()));
                        println!(
                            "turn {:>6}  {ping}  input delay {}  {agree}",
                            t.turn, t.input_delay
                        );
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
                    println!(
                        "joined match {match_id} as {who} at turn {next_turn}, input delay {input_delay}"
                    );
                }
                Event::SnapshotLoaded { turn } => println!("loaded the state after turn {turn}"),
                Event::SnapshotChecked { turn, agrees } => println!(
                    "the state after turn {turn} {} the server's",
                    if *agrees { "agrees with" } else { "DIFFERS FROM" }
                ),
                Event::InputDelay(d) => println!("input delay is now {d} turns"),
                Event::HashDisagrees { turn, mine, server } => {
                    diverged = true;
                    println!("DESYNC after turn {turn}: mine {mine}, server's {server}");
                }
                Event::Desync(d) => {
                    if core.player().is_some_and(|p| d.players.contains(&p)) {
                        diverged = true;
                    }
                    println!(
                        "desync after turn {} (players {:?}); the match {}",
                        d.turn,
                        d.players,
                        if d.continuing { "goes on" } else { "stops" }
                    );
                }
                Event::Rescheduled(r) => println!(
                    "{} order(s) for turn {} were late and run at turn {}",
                    r.count, r.asked, r.turn
                ),
                Event::Chat(c) => println!("<{}> {}", c.name, c.text),
                Event::Paused(p) => println!(
                    "paused by player {} ({} pause(s) left; resumes by itself in {} s)",
                    p.by,
                    p.pauses_left,
                    p.resumes_in_ms / 1000
                ),
                Event::Resumed(r) => match r.by {
                    Some(p) => println!("resumed by player {p}"),
                    None => println!("resumed"),
                },
                Event::ServerError { error, closes } => {
                    // Refused at the door, replaced, or closed for bad input: an error (exit 2).
                    // Dropped for lag, the seat is taken back.
                    if *closes {
                        closed_by_error = error.code != ErrorCode::DroppedForLag;
                    }
                    eprintln!(
                        "server: {:?}: {}{}",
                        error.code,
                        error.text,
                        if *closes { " (connection closed)" } else { "" }
                    )
                }
                Event::ServerSilent => eprintln!("the server fell silent: connection lost"),
                Event::ConnectionLost(why) => eprintln!("connection lost: {why}"),
                Event::Reconnecting {
                    why,
                    attempt,
                    attempts,
                    wait,
                } => eprintln!(
                    "connection lost ({why}); reconnecting in {} ms (try {attempt} of {attempts})",
                    wait.as_millis()
                ),
                Event::Refused(why) => eprintln!("refused: {why}"),
                Event::Help(text) => println!("{text}"),
                Event::Ended(m) => println!(
                    "the match ended after turn {} ({:?})",
                    m.last_turn, m.reason
                ),
            }
        };
        let seat = play_seat(&connect, options, rules, &pace, &mut Some(rx), &mut on_event).await;
        if let Some(e) = &seat.error {
            eprintln!("error: {e}");
        }
        Ok(if closed_by_error || seat.error.is_some() {
            ExitCode::from(2)
        } else if diverged {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    })
}
