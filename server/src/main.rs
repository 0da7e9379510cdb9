//! `cohort-server`: hosts lockstep matches over QUIC. Thin: configuration, certificates and
//! signals here; everything else in the library.

use anyhow::{Context, Result};
use clap::Parser;
use cohort_server::config::{load_ruleset, Args, ServerConfig};
use cohort_server::driver::{self, unix_now, Started};
use cohort_server::tls::Identity;
use cohort_server::tokens::MatchTokens;
use std::process::ExitCode;
use std::sync::Arc;
use tokio::sync::watch;

fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("COHORT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Args) -> Result<()> {
    let rules = Arc::new(load_ruleset(&args)?);
    let config = ServerConfig::load(&args, &rules)?;
    // With a state folder, what the server makes itself is kept there and used again, so a
    // restart changes neither the fingerprint players pinned nor the tokens they hold.
    let identity = match (&config.cert, &config.state_dir) {
        (Some((cert, key)), _) => Identity::from_files(cert, key)?,
        (None, Some(dir)) => cohort_server::state::self_signed_identity(dir)?,
        (None, None) => Identity::self_signed()?,
    };
    let secret = match (&config.secret, &config.state_dir) {
        (Some(s), _) => s.clone(),
        (None, Some(dir)) => cohort_server::state::secret(dir, random_secret)?,
        (None, None) => random_secret()?,
    };
    let tokens = Tokens::mint(&config, &secret);
    if let Some(path) = &config.tokens_file {
        std::fs::write(path, serde_json::to_string_pretty(&tokens.json)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let print_tokens = config.print_tokens;
    let ruleset_hash = hex::encode(rules.hash());
    let stats_file = config.stats_file.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let summary = runtime.block_on(async move {
        let (tx, rx) = watch::channel(false);
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!("signal received");
            let _ = tx.send(true);
        });
        driver::serve(config, secret, rules, identity, rx, |s| {
            announce(s, &ruleset_hash, &tokens, print_tokens)
        })
        .await
    })?;
    if let Some(path) = stats_file {
        std::fs::write(&path, serde_json::to_string_pretty(&summary)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Resolves on SIGTERM or ctrl-c.
async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

fn random_secret() -> Result<Vec<u8>> {
    use ring::rand::SecureRandom;
    let mut bytes = vec![0u8; 32];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| anyhow::anyhow!("no randomness for the token secret"))?;
    Ok(bytes)
}

/// Every match's tokens.
struct Tokens {
    matches: Vec<MatchTokens>,
    json: serde_json::Value,
}

impl Tokens {
    fn mint(config: &ServerConfig, secret: &[u8]) -> Tokens {
        let expires = unix_now() + config.token_ttl_secs;
        let matches: Vec<MatchTokens> = config
            .matches
            .iter()
            .map(|m| MatchTokens::mint(&m.config, secret, expires))
            .collect();
        let json = serde_json::json!({
            "expires": expires,
            "matches": matches.iter().map(|t| serde_json::json!({
                "match_id": t.match_id,
                "players": t.players,
                "spectator": t.spectator,
            })).collect::<Vec<_>>(),
        });
        Tokens { matches, json }
    }
}

/// Prints where the server listens, its fingerprint, the ruleset's hash (what a client's Hello
/// carries) and (when asked) the join tokens.
fn announce(s: &Started, ruleset_hash: &str, tokens: &Tokens, print_tokens: bool) {
    let port = s.local_addr.port();
    println!(
        "cohort-server listening on UDP {} (ALPN cohort/1)",
        s.local_addr
    );
    println!("certificate SHA-256 fingerprint: {}", s.fingerprint);
    println!("ruleset hash: {ruleset_hash}");
    if !print_tokens {
        return;
    }
    let host = if s.local_addr.ip().is_unspecified() {
        "127.0.0.1".to_string()
    } else {
        s.local_addr.ip().to_string()
    };
    let pin = if s.self_signed {
        format!("--fingerprint {}", s.fingerprint)
    } else {
        "--ca <your CA file>".to_string()
    };
    for m in &tokens.matches {
        println!("match {}:", m.match_id);
        for (slot, t) in m.players.iter().enumerate() {
            println!("  player {slot} token: {t}");
        }
        println!("  spectator token: {}", m.spectator);
        if let Some(admin) = s.admin {
            println!(
                "  watch: http://{admin}/watch/{}?token={}",
                m.match_id, m.spectator
            );
        }
        for t in &m.players {
            println!("  join: cohort play --server {host}:{port} {pin} --token {t}");
        }
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
}
