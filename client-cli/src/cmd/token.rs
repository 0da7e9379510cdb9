//! `cohort token`: mint join tokens.

use anyhow::{bail, Context, Result};
use cohort_protocol::message::Role;
use cohort_protocol::setup::valid_match_id;
use cohort_protocol::token::{mint, Claims, SPECTATOR};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

/// Mint a join token: a match id, a player slot (or `spectator`) and an expiry, signed with the
/// server's secret (keyed blake3). Prints the token on one line.
///
/// The server must be configured with the same secret; a token signed with another one is
/// refused as forged, an expired one as expired.
#[derive(clap::Args)]
pub struct Args {
    /// The server's token secret (the same text as in its configuration).
    #[arg(long, env = "COHORT_SECRET", hide_env_values = true)]
    secret: String,
    /// The match id (letters, digits, `-` and `_`).
    #[arg(long = "match", value_name = "MATCH")]
    match_id: String,
    /// The player slot, 0 to 7, or `spectator`.
    #[arg(long)]
    slot: String,
    /// How long the token is good for, in seconds from now.
    #[arg(long, default_value_t = 3600)]
    ttl: u64,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if !valid_match_id(&args.match_id) {
        bail!(
            "`{}` is not a match id (1 to 64 letters, digits, `-` or `_`)",
            args.match_id
        );
    }
    let role = if args.slot == SPECTATOR {
        Role::Spectator
    } else {
        match args.slot.parse::<u8>() {
            Ok(p) if p < 8 => Role::Player(p),
            _ => bail!("`{}` is not a slot (0 to 7, or `spectator`)", args.slot),
        }
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the system clock is before 1970")?
        .as_secs();
    let claims = Claims {
        match_id: args.match_id,
        role,
        expires: now.saturating_add(args.ttl),
    };
    println!("{}", mint(args.secret.as_bytes(), &claims));
    Ok(ExitCode::SUCCESS)
}
