//! A client handle that takes its seat back by itself (`cohort_client_reconnect_for`): when its
//! connection is lost for a passing reason, a new connection with the same options is started
//! after a wait that doubles, for as long as the caller allowed — what `cohort play` and
//! `cohort bot` do (`cohort_client::session`), on the caller's thread, inside
//! `cohort_client_poll`. Off (as before the function existed) until asked.

use cohort_client::core::{ClientCore, ClientOptions, Phase};
use cohort_client::session::{Connect, Reconnect, RECONNECT_ATTEMPTS};
use cohort_client::threaded::ThreadedClient;
use cohort_sim::Ruleset;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest time `cohort_client_reconnect_for` accepts, in seconds.
pub const COHORT_MAX_RECONNECT_SECS: u32 = 3600;

/// What a new connection needs, and how far the tries have gone.
pub struct Again {
    connect: Connect,
    options: ClientOptions,
    rules: Arc<Ruleset>,
    /// None: never reconnect.
    pace: Option<Reconnect>,
    tries: u32,
    lost_at: Option<Instant>,
    next_try: Option<Instant>,
}

impl Again {
    pub fn new(connect: Connect, options: ClientOptions, rules: Arc<Ruleset>) -> Again {
        Again {
            connect,
            options,
            rules,
            pace: None,
            tries: 0,
            lost_at: None,
            next_try: None,
        }
    }

    /// The client to start: a new core with the same options, connecting as the first did.
    /// Why not: no thread or runtime.
    pub fn start(&self) -> Result<ThreadedClient, String> {
        let core = ClientCore::new(self.options.clone(), self.rules.clone());
        ThreadedClient::start(self.connect.clone(), core).map_err(|e| format!("{e:#}"))
    }

    /// The match moved (the server closed with `moved`): new connections go to its address,
    /// pinning its fingerprint when it gave one.
    pub fn follow(&mut self, to: &cohort_protocol::close::MovedTo) {
        self.connect.server = to.address.clone();
        if let Some(f) = to.fingerprint {
            self.connect.auth = cohort_client::net::ServerAuth::Fingerprint(f);
        }
    }

    /// Reconnect for `window` after a loss (zero: never).
    pub fn set_window(&mut self, window: Duration) {
        self.pace = (!window.is_zero()).then(|| Reconnect {
            attempts: RECONNECT_ATTEMPTS,
            window,
            ..Reconnect::default()
        });
    }

    /// When the next try is due, while one is waited for.
    pub fn due(&self) -> Option<Instant> {
        self.next_try
    }

    /// Whether to start a new connection now in place of `core`'s: it was lost with the seat
    /// still this client's, the wait since the last try is over, and the window is not. A core
    /// that has run a turn starts the count and the window anew.
    pub fn try_now(&mut self, core: &ClientCore, now: Instant) -> bool {
        let Some(pace) = self.pace else {
            return false;
        };
        if core.phase() != Phase::Over || !core.may_rejoin() {
            if core.tally().turns_run > 0 {
                (self.tries, self.lost_at) = (0, None);
            }
            return false;
        }
        let lost_at = *self.lost_at.get_or_insert(now);
        let next = *self
            .next_try
            .get_or_insert_with(|| now + pace.wait(self.tries + 1));
        if now < next {
            return false;
        }
        self.next_try = None;
        if now.saturating_duration_since(lost_at) > pace.window || self.tries >= pace.attempts {
            // Given up: the core stays over, as without reconnecting.
            self.pace = None;
            return false;
        }
        self.tries += 1;
        true
    }
}
