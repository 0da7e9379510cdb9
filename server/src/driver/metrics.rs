//! `/metrics` (Prometheus text format) and `/healthz` on a TCP port.

use super::Host;
use anyhow::{Context, Result};
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The most bytes of a request read before answering.
const MAX_REQUEST_BYTES: usize = 4096;

/// Binds `addr` and serves until the process ends.
pub async fn spawn(addr: SocketAddr, host: Arc<Host>) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding the metrics address {addr}"))?;
    // The bound address: a port 0 asked for is shown as the one given.
    let addr = listener.local_addr().unwrap_or(addr);
    tracing::info!(%addr, "metrics on /metrics, health on /healthz");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let host = host.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; MAX_REQUEST_BYTES];
                let n = stream.read(&mut buf).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&buf[..n]);
                let path = request.split_whitespace().nth(1).unwrap_or("/");
                let (status, body) = match path {
                    "/metrics" => ("200 OK", render(&host)),
                    "/healthz" => ("200 OK", "ok\n".to_string()),
                    _ => ("404 Not Found", "not found\n".to_string()),
                };
                let response = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            });
        }
    });
    Ok(())
}

fn render(host: &Host) -> String {
    let s = &host.stats;
    let mut out = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, value: u64| {
        out.push_str(&format!(
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n"
        ));
    };
    metric(
        "cohort_matches_running",
        "gauge",
        "Matches not yet ended.",
        s.matches_running.load(Ordering::Relaxed),
    );
    metric(
        "cohort_connections_total",
        "counter",
        "QUIC connections accepted.",
        s.connections.load(Ordering::Relaxed),
    );
    metric(
        "cohort_joins_total",
        "counter",
        "Connections admitted to a match.",
        s.peers.load(Ordering::Relaxed),
    );
    metric(
        "cohort_turns_total",
        "counter",
        "Turns run by the server's sims.",
        s.turns.load(Ordering::Relaxed),
    );
    metric(
        "cohort_desync_reports_total",
        "counter",
        "Desync reports written.",
        s.desyncs.load(Ordering::Relaxed),
    );
    metric(
        "cohort_bytes_in_total",
        "counter",
        "Frame bytes received.",
        s.bytes_in.load(Ordering::Relaxed),
    );
    metric(
        "cohort_bytes_out_total",
        "counter",
        "Frame bytes sent.",
        s.bytes_out.load(Ordering::Relaxed),
    );
    let lateness = &s.send_lateness;
    let name = "cohort_turn_send_lateness_seconds";
    out.push_str(&format!(
        "# HELP {name} Turn send jitter: each bundle handed to a client's stream minus its turn's deadline.\n# TYPE {name} summary\n"
    ));
    for (q, p) in [("0.5", 50), ("0.99", 99), ("1", 100)] {
        let seconds = lateness.percentile_us(p) as f64 / 1e6;
        out.push_str(&format!("{name}{{quantile=\"{q}\"}} {seconds}\n"));
    }
    out.push_str(&format!(
        "{name}_sum {}\n{name}_count {}\n",
        lateness.sum_us() as f64 / 1e6,
        lateness.count()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::HostStats;
    use std::time::Duration;

    #[test]
    fn renders_counters_and_the_send_jitter_summary() {
        let host = Host {
            secret: Vec::new(),
            matches: Default::default(),
            stats: HostStats::default(),
        };
        host.stats.turns.store(7, Ordering::Relaxed);
        for ms in [1, 2, 3] {
            host.stats.send_lateness.record(Duration::from_millis(ms));
        }
        let text = render(&host);
        assert!(text.contains("\ncohort_turns_total 7\n"), "{text}");
        assert!(text.contains("# TYPE cohort_turn_send_lateness_seconds summary\n"));
        assert!(text.contains("cohort_turn_send_lateness_seconds{quantile=\"1\"} 0.003\n"));
        assert!(text.contains("cohort_turn_send_lateness_seconds_sum 0.006\n"));
        assert!(text.contains("cohort_turn_send_lateness_seconds_count 3\n"));
    }
}
