//! Agones (DESIGN.md, "Operations": fleets on Kubernetes). Under Agones a game server tells the
//! SDK sidecar in its pod how it is doing, over the sidecar's REST API on localhost
//! (`AGONES_SDK_HTTP_PORT`): `POST /ready` once it can take players, `POST /health` every
//! [`HEALTH_INTERVAL`] while it runs, `POST /shutdown` when its matches have ended or it shuts
//! down. Three fixed calls, so a minimal HTTP/1.1 client over a tokio `TcpStream` does it; no
//! HTTP or gRPC stack is pulled in (the `agones` crate speaks gRPC through tonic and prost, a
//! large build for three calls; allocation, its other use, is the matchmaker's, not ours).
//!
//! The sidecar may start after the server (Agones says so), be slow or be absent: a call that
//! fails is logged at `warn` and never blocks or stops the server. `/ready` is retried every
//! [`READY_RETRY_INTERVAL`], [`READY_ATTEMPTS`] times at most; health pings start once the
//! sidecar has heard `/ready`.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// The sidecar's REST port when `AGONES_SDK_HTTP_PORT` is not set (Agones' default).
pub const DEFAULT_SDK_HTTP_PORT: u16 = 9358;

/// How often a running server sends `POST /health`. The fleet's `health.periodSeconds` (5 in
/// deploy/agones-fleet.yaml) must be longer.
pub const HEALTH_INTERVAL: Duration = Duration::from_secs(2);

/// How long one call may take, connecting included, before it counts as failed.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(2);

/// How long to wait between `/ready` attempts while the sidecar does not answer.
pub const READY_RETRY_INTERVAL: Duration = Duration::from_secs(1);

/// The most `/ready` attempts; after them the server runs on without Agones.
pub const READY_ATTEMPTS: u32 = 30;

/// The most bytes of a sidecar's answer that are read (only the status line matters).
pub const MAX_ANSWER_BYTES: usize = 4096;

/// The sidecar at `127.0.0.1:port`.
pub fn sidecar(port: u16) -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, port))
}

/// Why a call to the sidecar failed.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("no answer within {CALL_TIMEOUT:?}")]
    Timeout,
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("the answer is not HTTP: {0:?}")]
    NotHttp(String),
    #[error("the sidecar answered HTTP {0}")]
    Status(u16),
}

/// `POST {path}` with the body `{}` to the sidecar at `addr`; Ok on a 2xx answer.
pub async fn post(addr: SocketAddr, path: &str) -> Result<(), CallError> {
    tokio::time::timeout(CALL_TIMEOUT, exchange(addr, path))
        .await
        .map_err(|_| CallError::Timeout)?
}

async fn exchange(addr: SocketAddr, path: &str) -> Result<(), CallError> {
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut answer = Vec::new();
    let mut buf = [0u8; 512];
    while !answer.windows(2).any(|w| w == b"\r\n") && answer.len() < MAX_ANSWER_BYTES {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&answer);
    let status_line = text.lines().next().unwrap_or_default();
    let mut words = status_line.split(' ');
    let status = match (words.next(), words.next()) {
        (Some(v), Some(code)) if v.starts_with("HTTP/1.") => code.parse::<u16>().ok(),
        _ => None,
    }
    .ok_or_else(|| CallError::NotHttp(status_line.chars().take(80).collect()))?;
    if (200..300).contains(&status) {
        Ok(())
    } else {
        Err(CallError::Status(status))
    }
}

/// The server's life as Agones sees it: [`Lifecycle::start`] once the server can take players
/// (`/ready`, then `/health` pings), [`Lifecycle::shutdown`] when it stops (`/shutdown`).
pub struct Lifecycle {
    sidecar: SocketAddr,
    task: JoinHandle<()>,
}

impl Lifecycle {
    /// Says `/ready` (retrying while the sidecar is not there yet), then pings `/health`
    /// every [`HEALTH_INTERVAL`], in a task of its own.
    pub fn start(sidecar: SocketAddr) -> Lifecycle {
        let task = tokio::spawn(async move {
            if !ready(sidecar).await {
                return;
            }
            let mut failing = false;
            let mut every = tokio::time::interval(HEALTH_INTERVAL);
            loop {
                every.tick().await;
                match post(sidecar, "/health").await {
                    Ok(()) if failing => {
                        failing = false;
                        tracing::info!(%sidecar, "Agones health pings get through again");
                    }
                    Ok(()) => {}
                    Err(e) if !failing => {
                        failing = true;
                        tracing::warn!(%sidecar, error = %e, "Agones health ping failed");
                    }
                    Err(_) => {}
                }
            }
        });
        Lifecycle { sidecar, task }
    }

    /// Stops the pings and says `/shutdown`: Agones then deletes the game server.
    pub async fn shutdown(self) {
        self.task.abort();
        let _ = self.task.await;
        match post(self.sidecar, "/shutdown").await {
            Ok(()) => tracing::info!(sidecar = %self.sidecar, "Agones told: shutdown"),
            Err(e) => {
                tracing::warn!(sidecar = %self.sidecar, error = %e, "Agones shutdown call failed")
            }
        }
    }
}

/// `/ready`, retried; whether the sidecar heard it.
async fn ready(sidecar: SocketAddr) -> bool {
    for attempt in 1..=READY_ATTEMPTS {
        match post(sidecar, "/ready").await {
            Ok(()) => {
                tracing::info!(%sidecar, attempt, "Agones told: ready");
                return true;
            }
            Err(e) if attempt == 1 => {
                tracing::warn!(%sidecar, error = %e, "Agones sidecar not answering /ready yet; retrying")
            }
            Err(e) if attempt == READY_ATTEMPTS => {
                tracing::warn!(%sidecar, error = %e, attempts = READY_ATTEMPTS, "Agones sidecar never answered /ready; running without it")
            }
            Err(_) => {}
        }
        tokio::time::sleep(READY_RETRY_INTERVAL).await;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    /// A stand-in sidecar answering every request with `status`, reporting each request line.
    async fn sidecar_answering(
        status: &'static str,
    ) -> (SocketAddr, tokio::sync::mpsc::UnboundedReceiver<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                let mut head = Vec::new();
                let mut buf = [0u8; 256];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = s.read(&mut buf).await.unwrap();
                    if n == 0 {
                        break;
                    }
                    head.extend_from_slice(&buf[..n]);
                }
                let text = String::from_utf8_lossy(&head).to_string();
                let _ = tx.send(text.lines().next().unwrap_or_default().to_string());
                let _ = s
                    .write_all(
                        format!("HTTP/1.1 {status}\r\nContent-Length: 2\r\n\r\n{{}}").as_bytes(),
                    )
                    .await;
            }
        });
        (addr, rx)
    }

    #[tokio::test]
    async fn a_post_reaches_the_sidecar_and_its_status_counts() {
        let (addr, mut seen) = sidecar_answering("200 OK").await;
        post(addr, "/ready").await.unwrap();
        assert_eq!(seen.recv().await.unwrap(), "POST /ready HTTP/1.1");
        let (addr, _) = sidecar_answering("503 Service Unavailable").await;
        assert!(matches!(
            post(addr, "/health").await,
            Err(CallError::Status(503))
        ));
    }

    #[tokio::test]
    async fn an_absent_sidecar_is_an_error_not_a_hang_or_a_panic() {
        // A port just freed: nothing listens there.
        let addr = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap();
        assert!(post(addr, "/ready").await.is_err());
        let life = Lifecycle::start(addr);
        life.shutdown().await;
    }
}
