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
    out
}
