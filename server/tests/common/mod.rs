//! What the real-binary tests share: a real QUIC bot (the `cohort bot` library) playing a seat
//! with a token minted from the server's secret.

use cohort_client::brain::RandomBrain;
use cohort_client::core::ClientOptions;
use cohort_client::session::{run_bot, BotOutcome, BotPlan, Connect};
use cohort_protocol::message::Role;
use cohort_protocol::token::{mint, Claims};
use cohort_sim::Ruleset;
use std::future::Future;
use std::sync::Arc;

/// A seeded random bot playing `slot` of `match_id` until the match ends.
pub fn bot(
    connect: &Connect,
    secret: &str,
    match_id: &str,
    slot: u8,
    seed: u64,
) -> impl Future<Output = BotOutcome> + Send + 'static {
    let token = mint(
        secret.as_bytes(),
        &Claims {
            match_id: match_id.into(),
            role: Role::Player(slot),
            expires: cohort_server::driver::unix_now() + 600,
        },
    );
    let plan = BotPlan {
        options: ClientOptions {
            token,
            name: format!("bot{slot}"),
            simulate: true,
            perturb_at_turn: None,
            perturb_at_tick: None,
        },
        brain: Box::new(RandomBrain::new(seed)),
        turns: None,
        keep_hashes: false,
    };
    let connect = connect.clone();
    async move { run_bot(&connect, plan, Arc::new(Ruleset::default_rules())).await }
}
