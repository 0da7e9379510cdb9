//! `cohort play`: join a match and play it from the keyboard (or a pipe).

use super::connect::{ConnectArgs, ReconnectArgs};
use super::ruleset::RulesetArgs;
use anyhow::{Context, Result};
use cohort_client::core::{ClientCore, ClientOptions, Event};
use cohort_client::events::{ClientView, EventPrinter, Shown, Stream};
use cohort_client::session::{play_seat, Pace};
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
        let mut printer = EventPrinter::new();
        let mut on_event =
            |core: &mut ClientCore, e: &Event| match printer.line(ClientView::of(core), e) {
                Some(Shown {
                    stream: Stream::Out,
                    text,
                }) => println!("{text}"),
                Some(Shown {
                    stream: Stream::Err,
                    text,
                }) => eprintln!("{text}"),
                None => {}
            };
        let seat = play_seat(
            &connect,
            options,
            rules,
            &pace,
            &mut Some(rx),
            &mut on_event,
        )
        .await;
        if let Some(e) = &seat.error {
            eprintln!("error: {e}");
        }
        Ok(if printer.closed_by_error || seat.error.is_some() {
            ExitCode::from(2)
        } else if printer.diverged {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    })
}
