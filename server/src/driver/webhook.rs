//! The match-end webhook: every ended match's [`EndSummary`] is POSTed as JSON to the
//! configured URL, in a task of its own (a turn never waits for it), retried with backoff
//! while the receiver fails: [`WEBHOOK_ATTEMPTS`] attempts, the first retry after
//! [`WEBHOOK_FIRST_BACKOFF`], each later one after twice the wait before (at most
//! [`WEBHOOK_MAX_BACKOFF`]). A 2xx answer is a delivery; anything else, or no answer within
//! [`WEBHOOK_TIMEOUT`], is retried. On shutdown the server waits up to
//! [`WEBHOOK_SHUTDOWN_GRACE`] for deliveries under way. With a secret, each post is signed
//! ([`SIGNATURE_HEADER`]: HMAC-SHA256 of the body).

use super::metrics::Reason;
use super::EndSummary;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use std::sync::Mutex;
use std::time::Duration;
use tokio::task::JoinSet;

/// Attempts per summary.
pub const WEBHOOK_ATTEMPTS: u32 = 8;

/// The wait before the first retry; doubled after each retry.
pub const WEBHOOK_FIRST_BACKOFF: Duration = Duration::from_millis(500);

/// The longest wait between two attempts.
pub const WEBHOOK_MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How long one attempt may take, connecting included.
pub const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(5);

/// How long shutdown waits for deliveries under way.
pub const WEBHOOK_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Deliveries under way at once; a summary beyond them is dropped and logged.
pub const WEBHOOK_IN_FLIGHT: usize = 256;

/// The header naming the attempt (1, 2, …), so a receiver can tell retries.
pub const ATTEMPT_HEADER: &str = "cohort-delivery-attempt";

/// The header carrying the body's signature, `sha256=<hex HMAC-SHA256 of the body with the
/// webhook secret>`, when a secret is configured.
pub const SIGNATURE_HEADER: &str = "cohort-signature";

/// The signature header's value for `body`.
pub fn signature(secret: &[u8], body: &[u8]) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret);
    format!(
        "sha256={}",
        hex::encode(ring::hmac::sign(&key, body).as_ref())
    )
}

/// Where summaries go.
pub struct Webhook {
    url: reqwest::Url,
    secret: Option<Vec<u8>>,
    client: reqwest::Client,
    deliveries: Mutex<JoinSet<()>>,
    outcomes: Family<Reason, Counter>,
}

impl Webhook {
    pub fn new(
        url: reqwest::Url,
        secret: Option<Vec<u8>>,
        outcomes: Family<Reason, Counter>,
    ) -> anyhow::Result<Webhook> {
        let client = reqwest::Client::builder()
            .timeout(WEBHOOK_TIMEOUT)
            .user_agent(concat!("cohort-server/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Webhook {
            url,
            secret,
            client,
            deliveries: Mutex::new(JoinSet::new()),
            outcomes,
        })
    }

    /// Starts delivering `summary`; returns at once.
    pub fn post(&self, summary: EndSummary) {
        let mut deliveries = self.deliveries.lock().unwrap_or_else(|e| e.into_inner());
        while deliveries.try_join_next().is_some() {}
        if deliveries.len() >= WEBHOOK_IN_FLIGHT {
            tracing::error!(match_id = %summary.match_id, "{WEBHOOK_IN_FLIGHT} webhook deliveries under way; this summary is not posted");
            self.outcome("dropped");
            return;
        }
        let body = match serde_json::to_vec(&summary) {
            Ok(b) => b,
            Err(e) => {
                tracing::error!(match_id = %summary.match_id, error = %e, "cannot encode the match summary");
                self.outcome("dropped");
                return;
            }
        };
        let signed = self.secret.as_ref().map(|s| signature(s, &body));
        let (url, client, outcomes) =
            (self.url.clone(), self.client.clone(), self.outcomes.clone());
        deliveries.spawn(async move {
            let delivered = deliver(&client, &url, &summary.match_id, body, signed).await;
            outcomes
                .get_or_create(&Reason {
                    reason: if delivered { "delivered" } else { "failed" }.into(),
                })
                .inc();
        });
    }

    fn outcome(&self, outcome: &str) {
        self.outcomes
            .get_or_create(&Reason {
                reason: outcome.into(),
            })
            .inc();
    }

    /// Waits (at most [`WEBHOOK_SHUTDOWN_GRACE`]) for the deliveries under way.
    pub async fn drain(&self) {
        let mut set =
            std::mem::take(&mut *self.deliveries.lock().unwrap_or_else(|e| e.into_inner()));
        if set.is_empty() {
            return;
        }
        let all = async { while set.join_next().await.is_some() {} };
        if tokio::time::timeout(WEBHOOK_SHUTDOWN_GRACE, all)
            .await
            .is_err()
        {
            tracing::warn!("webhook deliveries still under way at shutdown were given up");
        }
    }
}

/// Posts until a 2xx answer or [`WEBHOOK_ATTEMPTS`] attempts; whether it was delivered.
async fn deliver(
    client: &reqwest::Client,
    url: &reqwest::Url,
    match_id: &str,
    body: Vec<u8>,
    signed: Option<String>,
) -> bool {
    let mut wait = WEBHOOK_FIRST_BACKOFF;
    for attempt in 1..=WEBHOOK_ATTEMPTS {
        let mut post = client
            .post(url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(ATTEMPT_HEADER, attempt.to_string())
            .body(body.clone());
        if let Some(s) = &signed {
            post = post.header(SIGNATURE_HEADER, s);
        }
        let sent = post.send().await;
        let failure = match sent {
            Ok(r) if r.status().is_success() => {
                tracing::info!(match_id, attempt, "match summary posted to the webhook");
                return true;
            }
            Ok(r) => format!("HTTP {}", r.status()),
            Err(e) => e.to_string(),
        };
        if attempt == WEBHOOK_ATTEMPTS {
            tracing::error!(match_id, attempts = WEBHOOK_ATTEMPTS, error = %failure, "the webhook never took the match summary");
            return false;
        }
        tracing::warn!(match_id, attempt, error = %failure, retry_in = ?wait, "webhook delivery failed; retrying");
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(WEBHOOK_MAX_BACKOFF);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_sha256_of_the_body() {
        // RFC 4231, test case 2.
        assert_eq!(
            signature(b"Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
