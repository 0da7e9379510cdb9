//! The server's Prometheus metrics (prometheus-client), served as text at `/metrics` by the
//! HTTP side ([`crate::http`]). The driver counts what it moves; the matches' own counts come
//! from their `Match` ([`crate::lockstep::Observed`], `MatchStats`).
//!
//! Labels are bounded: `reason` takes the protocol's error codes or end reasons (a fixed set),
//! and `match_id` is kept only for live matches — a match's series are removed when it ends, so
//! there are at most `max_matches` (docs/OPERATIONS.md) of them per family.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};
use std::time::Duration;

/// Turn send jitter buckets: 50 µs doubling 12 times (to 102 ms), in seconds.
pub const SEND_JITTER_BUCKETS: (f64, f64, u16) = (0.000_05, 2.0, 12);

/// Round-trip buckets: 0.5 ms doubling 13 times (to 2 s), in seconds.
pub const ROUND_TRIP_BUCKETS: (f64, f64, u16) = (0.000_5, 2.0, 13);

/// Sim time per turn buckets: 50 µs doubling 14 times (to 410 ms), in seconds.
pub const SIM_TIME_BUCKETS: (f64, f64, u16) = (0.000_05, 2.0, 14);

/// A label naming why (an error code, an end reason, a delivery outcome).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Reason {
    pub reason: String,
}

/// A live match's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct MatchLabel {
    pub match_id: String,
}

fn histogram((start, factor, count): (f64, f64, u16)) -> Histogram {
    Histogram::new(exponential_buckets(start, factor, count))
}

/// Every metric the server exports.
pub struct Metrics {
    registry: Registry,
    pub connections: Counter,
    pub joins: Counter,
    pub refused: Family<Reason, Counter>,
    pub rejoins: Counter,
    pub drops: Counter,
    pub desyncs: Counter,
    pub hashes_compared: Counter,
    pub reports: Counter,
    pub turns: Counter,
    pub bytes_in: Counter,
    pub bytes_out: Counter,
    pub matches_created: Counter,
    /// Matches taken up again from their replays after a restart.
    pub matches_resumed: Counter,
    pub matches_ended: Family<Reason, Counter>,
    pub matches_running: Gauge,
    pub webhook_deliveries: Family<Reason, Counter>,
    pub send_jitter: Histogram,
    pub round_trip: Histogram,
    pub sim_time: Histogram,
    /// Match files' writes dropped because the disk queue was full (`disk`).
    pub disk_writes_dropped: Counter,
    /// Match files' writes the disk refused.
    pub disk_write_failures: Counter,
    /// Matches whose sim failed (a sim job panicked).
    pub sim_failures: Counter,
    /// A live match's turns closed and not yet run by the server's sim.
    pub match_sim_behind: Family<MatchLabel, Gauge>,
    pub match_turn: Family<MatchLabel, Gauge>,
    pub match_players: Family<MatchLabel, Gauge>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("cohort");
        let m = Metrics {
            connections: Counter::default(),
            joins: Counter::default(),
            refused: Family::default(),
            rejoins: Counter::default(),
            drops: Counter::default(),
            desyncs: Counter::default(),
            hashes_compared: Counter::default(),
            reports: Counter::default(),
            turns: Counter::default(),
            bytes_in: Counter::default(),
            bytes_out: Counter::default(),
            matches_created: Counter::default(),
            matches_resumed: Counter::default(),
            matches_ended: Family::default(),
            matches_running: Gauge::default(),
            webhook_deliveries: Family::default(),
            send_jitter: histogram(SEND_JITTER_BUCKETS),
            round_trip: histogram(ROUND_TRIP_BUCKETS),
            sim_time: histogram(SIM_TIME_BUCKETS),
            sim_failures: Counter::default(),
            disk_writes_dropped: Counter::default(),
            disk_write_failures: Counter::default(),
            match_sim_behind: Family::default(),
            match_turn: Family::default(),
            match_players: Family::default(),
            registry: Registry::default(),
        };
        let r = &mut registry;
        r.register(
            "connections",
            "QUIC connections accepted",
            m.connections.clone(),
        );
        r.register("joins", "Connections admitted to a match", m.joins.clone());
        r.register(
            "connections_refused",
            "Connections refused, at the door or by their match, by error code",
            m.refused.clone(),
        );
        r.register(
            "rejoins",
            "Dropped players who came back",
            m.rejoins.clone(),
        );
        r.register(
            "drops",
            "Players dropped (lost, lagging, bad input)",
            m.drops.clone(),
        );
        r.register("desyncs", "Hash mismatches caught", m.desyncs.clone());
        r.register(
            "hashes_compared",
            "Clients' state hashes compared with the server's",
            m.hashes_compared.clone(),
        );
        r.register(
            "desync_reports",
            "Desync reports written",
            m.reports.clone(),
        );
        r.register("turns", "Turns run by the server's sims", m.turns.clone());
        r.register_with_unit(
            "received",
            "Frame bytes received",
            Unit::Bytes,
            m.bytes_in.clone(),
        );
        r.register_with_unit("sent", "Frame bytes sent", Unit::Bytes, m.bytes_out.clone());
        r.register(
            "matches_created",
            "Matches set up",
            m.matches_created.clone(),
        );
        r.register(
            "matches_resumed",
            "Matches taken up again from their replays after a restart",
            m.matches_resumed.clone(),
        );
        r.register(
            "matches_ended",
            "Matches ended, by reason",
            m.matches_ended.clone(),
        );
        r.register(
            "matches_running",
            "Matches not yet ended",
            m.matches_running.clone(),
        );
        r.register(
            "webhook_deliveries",
            "Match summaries posted to the webhook, by outcome",
            m.webhook_deliveries.clone(),
        );
        r.register_with_unit(
            "turn_send_jitter",
            "Each turn bundle handed to a client's stream minus its turn's deadline",
            Unit::Seconds,
            m.send_jitter.clone(),
        );
        r.register_with_unit(
            "round_trip",
            "Ping round trips to clients",
            Unit::Seconds,
            m.round_trip.clone(),
        );
        r.register_with_unit(
            "turn_sim",
            "Server sim time per batch of closed turns (one turn, but for catch-ups)",
            Unit::Seconds,
            m.sim_time.clone(),
        );
        r.register(
            "disk_writes_dropped",
            "Replay records and reports dropped because the disk queue was full",
            m.disk_writes_dropped.clone(),
        );
        r.register(
            "disk_write_failures",
            "Replay and report writes the disk refused",
            m.disk_write_failures.clone(),
        );
        r.register(
            "sim_failures",
            "Matches ended because the server's sim failed (panicked)",
            m.sim_failures.clone(),
        );
        r.register(
            "match_sim_behind_turns",
            "A live match's turns closed and not yet run by the server's sim",
            m.match_sim_behind.clone(),
        );
        r.register(
            "match_turn",
            "A live match's open turn",
            m.match_turn.clone(),
        );
        r.register(
            "match_players_connected",
            "A live match's connected players",
            m.match_players.clone(),
        );
        Metrics { registry, ..m }
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }

    pub fn refused(&self, reason: impl std::fmt::Debug) {
        self.refused
            .get_or_create(&Reason {
                reason: snake(&format!("{reason:?}")),
            })
            .inc();
    }

    /// A live match's figures.
    pub fn match_figures(&self, match_id: &str, turn: u64, players: usize) {
        let label = MatchLabel {
            match_id: match_id.to_string(),
        };
        self.match_turn
            .get_or_create(&label)
            .set(i64::try_from(turn).unwrap_or(i64::MAX));
        self.match_players
            .get_or_create(&label)
            .set(i64::try_from(players).unwrap_or(i64::MAX));
    }

    /// A live match's sim lag, in turns.
    pub fn match_sim_behind(&self, match_id: &str, turns: u64) {
        let label = MatchLabel {
            match_id: match_id.to_string(),
        };
        self.match_sim_behind
            .get_or_create(&label)
            .set(i64::try_from(turns).unwrap_or(i64::MAX));
    }

    /// Forgets an ended match's series (keeps the labels bounded).
    pub fn match_gone(&self, match_id: &str) {
        let label = MatchLabel {
            match_id: match_id.to_string(),
        };
        self.match_turn.remove(&label);
        self.match_players.remove(&label);
        self.match_sim_behind.remove(&label);
    }
}

/// Seconds as the histograms take them.
pub fn seconds(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// `SlotTaken` → `slot_taken`.
pub fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohort_protocol::message::ErrorCode;

    #[test]
    fn renders_counters_histograms_and_bounded_match_labels() {
        let m = Metrics::new();
        m.turns.inc_by(7);
        m.refused(ErrorCode::SlotTaken);
        for ms in [1, 2, 3] {
            m.send_jitter.observe(seconds(Duration::from_millis(ms)));
        }
        m.match_figures("final", 12, 2);
        let text = m.render();
        assert!(text.contains("\ncohort_turns_total 7\n"), "{text}");
        assert!(text.contains("cohort_connections_refused_total{reason=\"slot_taken\"} 1\n"));
        assert!(text.contains("# TYPE cohort_turn_send_jitter_seconds histogram\n"));
        assert!(text.contains("cohort_turn_send_jitter_seconds_count 3\n"));
        assert!(text.contains("cohort_match_turn{match_id=\"final\"} 12\n"));
        m.match_gone("final");
        assert!(!m.render().contains("final"));
    }

    #[test]
    fn names_become_snake_case() {
        assert_eq!(snake("SlotTaken"), "slot_taken");
        assert_eq!(snake("Operator"), "operator");
    }
}
