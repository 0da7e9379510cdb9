//! `cohort bot`: clients that play by themselves, for demos, tests and load.

use super::connect::ConnectArgs;
use super::ruleset::RulesetArgs;
use anyhow::{bail, Context, Result};
use cohort_client::brain::{Brain, RandomBrain, Script};
use cohort_client::core::ClientOptions;
use cohort_client::session::{run_bot_paced, BotOutcome, BotPlan, DEFAULT_HANDSHAKES};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Run bots: N clients in one process, each joining with its own token and playing scripted or
/// seeded-random orders for its own units.
///
/// Every bot runs the match's simulation and sends its hash after every turn, unless
/// --no-sim (pure load: commands and acknowledgements, no hashes; the server still runs the
/// sim). At the end one JSON line per bot is printed: turns run, hashes agreed and disagreed,
/// desync notices, commands sent, last round-trip time. Exits 0 when no bot saw its hash
/// differ, 1 otherwise, 2 if a bot failed (it could not connect, or the server refused or
/// dropped it).
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
    /// At most this many bots handshake at once; a bot whose handshake fails (no answer in
    /// time) tries again after 0.5 s, 1 s, 2 s (4 attempts in all).
    #[arg(long, default_value_t = DEFAULT_HANDSHAKES, value_parser = clap::value_parser!(u32).range(1..=1024))]
    handshakes: u32,
    /// The bots' names are this, then the bot's number.
    #[arg(long, default_value = "bot")]
    name: String,
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
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the script {}", path.display()))?;
            Some(Script::parse(&text).with_context(|| format!("in {}", path.display()))?)
        }
        None => None,
    };
    let rules = args.ruleset.load()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let outcomes: Vec<(usize, Result<BotOutcome>)> = runtime.block_on(async {
        let mut tasks = Vec::new();
        let handshakes = Arc::new(tokio::sync::Semaphore::new(args.handshakes as usize));
        for (i, token) in args.tokens.iter().take(n).enumerate() {
            let brain: Box<dyn Brain> = match &script {
                Some(s) => Box::new(s.clone()),
                None => Box::new(RandomBrain::new(args.seed.wrapping_add(i as u64))),
            };
            let plan = BotPlan {
                options: ClientOptions {
                    token: token.clone(),
                    name: format!("{}{}", args.name, i + 1),
                    simulate: !args.no_sim,
                    perturb_at_turn: None,
                },
                brain,
                turns: args.turns,
                keep_hashes: false,
            };
            let (connect, rules, gate) = (connect.clone(), rules.clone(), handshakes.clone());
            tasks.push(tokio::spawn(async move {
                run_bot_paced(&connect, plan, rules, &gate).await
            }));
        }
        let mut out = Vec::new();
        for (i, t) in tasks.into_iter().enumerate() {
            out.push((i, t.await.unwrap_or_else(|e| Err(e.into()))));
        }
        out
    });
    let mut code = ExitCode::SUCCESS;
    let mut failed = 0;
    for (i, outcome) in outcomes {
        match outcome {
            Ok(o) => {
                if o.tally.hashes_disagreed > 0 || !o.desyncs.is_empty() {
                    code = ExitCode::from(1);
                }
                if o.closed_by_error {
                    failed += 1;
                }
                println!(
                    "{}",
                    serde_json::json!({
                        "bot": i + 1,
                        "turns_run": o.tally.turns_run,
                        "hashes_agreed": o.tally.hashes_agreed,
                        "hashes_disagreed": o.tally.hashes_disagreed,
                        "desync_notices": o.tally.desync_notices,
                        "commands_sent": o.tally.commands_sent,
                        "rescheduled": o.tally.rescheduled,
                        "connect_attempts": o.connect_attempts,
                        "last_rtt_ms": o.last_rtt.map(|r| r.as_secs_f64() * 1000.0),
                        "ended": o.ended.map(|e| format!("{:?}", e.reason)),
                        "server_errors": o.errors,
                    })
                );
            }
            Err(e) => {
                failed += 1;
                eprintln!("bot {}: {e:#}", i + 1);
            }
        }
    }
    if failed > 0 {
        return Ok(ExitCode::from(2));
    }
    Ok(code)
}
