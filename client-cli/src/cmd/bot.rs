//! `cohort bot`: clients that play by themselves, for demos, tests and load.

use super::connect::{ConnectArgs, ReconnectArgs};
use super::ruleset::RulesetArgs;
use anyhow::{bail, Context, Result};
use cohort_client::brain::{Brain, RandomBrain, Script, RANDOM_GROUP_MAX, RANDOM_ORDER_EVERY};
use cohort_client::core::ClientOptions;
use cohort_client::session::{run_bot_paced, BotOutcome, BotPlan, Pace, DEFAULT_HANDSHAKES};
use cohort_protocol::file::{read_limited, FileLimit};
use cohort_protocol::limits::MAX_NAME_BYTES;
use std::path::PathBuf;
use std::process::ExitCode;

/// The largest bot script (`--script`), in bytes.
pub const MAX_SCRIPT_BYTES: usize = 4 << 20;

const SCRIPT_FILE: FileLimit = FileLimit {
    bytes: MAX_SCRIPT_BYTES,
    what: "bot script",
    name: "MAX_SCRIPT_BYTES",
};

/// Run bots: N clients in one process, each joining with its own token and playing scripted or
/// seeded-random orders for its own units.
///
/// Every bot runs the match's simulation and sends its hash after every turn, unless
/// --no-sim (pure load: commands and acknowledgements, no hashes; the server still runs the
/// sim). A lost connection is taken back (--reconnect-*). At the end one JSON line per bot is
/// printed whatever happened: its name, turns run, hashes agreed and disagreed, desync notices,
/// commands sent, reconnections, last round-trip time, the server's errors and, if it failed,
/// `error`. Exits 0 when no bot saw its hash differ, 1 otherwise, 2 if a bot failed (it could
/// not connect, the connection was lost for good, or the server refused or dropped it).
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    connect: ConnectArgs,
    #[command(flatten)]
    ruleset: RulesetArgs,
    /// Join tokens, one per bot (repeat the flag or separate with commas).
    #[arg(long = "token", required = true, value_delimiter = ',', num_args = 1..)]
    tokens: Vec<String>,
    /// How many bots to run (default: one per token; at most the number of tokens).
    #[arg(long)]
    clients: Option<usize>,
    /// Play the orders of this script file (`TURN ORDER` per line; see docs/CLIENT.md).
    #[arg(long, value_name = "FILE", conflicts_with = "seed")]
    script: Option<PathBuf>,
    /// Give random orders drawn from this seed (bot i uses seed + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Leave after this many turns (default: play until the match ends).
    #[arg(long)]
    turns: Option<u64>,
    /// Run no simulation: send orders and acknowledgements but no hashes (load generation).
    #[arg(long)]
    no_sim: bool,
    /// Only every Nth bot (the 1st, the N+1th…) runs the simulation and sends hashes; the
    /// others acknowledge as with --no-sim. With the tokens in match order and N players per
    /// match, one client of each match is checked against the server (load: the server's work
    /// is the same, the bots' is one sim per match).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    sim_every: u64,
    /// Random orders about once in this many turns (1: every turn).
    #[arg(long, value_name = "N", default_value_t = RANDOM_ORDER_EVERY, value_parser = clap::value_parser!(u64).range(1..=1000))]
    order_every: u64,
    /// The most units one random order names (a crowd: 50).
    #[arg(long, value_name = "N", default_value_t = RANDOM_GROUP_MAX, value_parser = clap::value_parser!(u16).range(1..=512))]
    group_max: u16,
    /// At most this many bots handshake at once; a bot whose handshake fails (no answer in
    /// time) tries again after 0.5 s, 1 s, 2 s (4 attempts in all).
    #[arg(long, default_value_t = DEFAULT_HANDSHAKES, value_parser = clap::value_parser!(u32).range(1..=1024))]
    handshakes: u32,
    #[command(flatten)]
    reconnect: ReconnectArgs,
    /// The bots' names are this, then the bot's number (default: `bot-PID-`, so that bots of
    /// separate processes have distinct names). Names are at most 32 bytes.
    #[arg(long)]
    name: Option<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let connect = args.connect.connect()?;
    let n = args.clients.unwrap_or(args.tokens.len());
    if n == 0 || n > args.tokens.len() {
        bail!(
            "--clients {n} needs {n} tokens, {} given (one --token per bot)",
            args.tokens.len()
        );
    }
    let script = match &args.script {
        Some(path) => {
            let bytes = read_limited(path, SCRIPT_FILE)?;
            let origin = path.display().to_string();
            let text =
                cohort_sim::scenario::text_of(&origin, &bytes, SCRIPT_FILE.bytes, SCRIPT_FILE.name)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
            Some(Script::parse(text).with_context(|| format!("in {}", path.display()))?)
        }
        None => None,
    };
    let rules = args.ruleset.load()?;
    let prefix = args
        .name
        .clone()
        .unwrap_or_else(|| format!("bot-{}-", std::process::id()));
    let names: Vec<String> = (1..=n).map(|i| format!("{prefix}{i}")).collect();
    if let Some(long) = names.iter().find(|n| n.len() > MAX_NAME_BYTES) {
        bail!("the bot name `{long}` is over {MAX_NAME_BYTES} bytes (--name)");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let pace = Pace::new(args.handshakes, args.reconnect.reconnect());
    let outcomes: Vec<BotOutcome> = runtime.block_on(async {
        let mut tasks = Vec::new();
        for (i, (token, name)) in args.tokens.iter().zip(&names).enumerate() {
            let brain: Box<dyn Brain> = match &script {
                Some(s) => Box::new(s.clone()),
                None => Box::new(RandomBrain::with(
                    args.seed.wrapping_add(i as u64),
                    args.order_every,
                    usize::from(args.group_max),
                )),
            };
            let plan = BotPlan {
                options: ClientOptions {
                    token: token.clone(),
                    name: name.clone(),
                    simulate: !args.no_sim && (i as u64).is_multiple_of(args.sim_every),
                    perturb_at_turn: None,
                    perturb_at_tick: None,
                },
                brain,
                turns: args.turns,
                keep_hashes: false,
            };
            let (connect, rules, pace) = (connect.clone(), rules.clone(), pace.clone());
            tasks.push(tokio::spawn(async move {
                run_bot_paced(&connect, plan, rules, &pace).await
            }));
        }
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap_or_else(|e| BotOutcome {
                error: Some(format!("the bot's task failed: {e}")),
                ..BotOutcome::default()
            }));
        }
        out
    });
    let mut code = ExitCode::SUCCESS;
    let mut failed = 0;
    for (i, (o, name)) in outcomes.iter().zip(&names).enumerate() {
        if o.tally.hashes_disagreed > 0 || !o.desyncs.is_empty() {
            code = ExitCode::from(1);
        }
        if o.failed() {
            failed += 1;
        }
        if let Some(e) = &o.error {
            eprintln!("bot {name}: {e}");
        }
        println!("{}", o.json_line(i + 1, name));
    }
    if failed > 0 {
        return Ok(ExitCode::from(2));
    }
    Ok(code)
}
