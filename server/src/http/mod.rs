//! The server's HTTP side (axum): metrics and health on `--metrics`, the admin API on
//! `--admin` (and beside it, outside its bearer check, the watch page `/watch/<match>`). Both only read the driver's state or hand it requests; no lockstep rule here.

mod admin;
mod health;

pub use admin::{
    parse_match, router as admin_router, AdminToken, ADMIN_BODY_LIMIT_BYTES, END_WAIT,
};
pub use health::router as health_router;

use crate::driver::Host;
use anyhow::{Context, Result};
use std::net::SocketAddr;
use std::sync::Arc;

/// Binds `addr` and serves `router` on it in a task until the process ends; the bound address.
async fn serve(addr: SocketAddr, what: &str, router: axum::Router) -> Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding the {what} address {addr}"))?;
    let bound = listener.local_addr().unwrap_or(addr);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::error!(error = %e, "HTTP server stopped");
        }
    });
    Ok(bound)
}

/// `/metrics`, `/healthz`, `/readyz` on `addr`.
pub async fn serve_health(addr: SocketAddr, host: Arc<Host>) -> Result<SocketAddr> {
    let bound = serve(addr, "metrics", health_router(host)).await?;
    tracing::info!(addr = %bound, "metrics on /metrics, liveness on /healthz, readiness on /readyz");
    Ok(bound)
}

/// The admin API on `addr`.
pub async fn serve_admin(
    addr: SocketAddr,
    host: Arc<Host>,
    token: AdminToken,
) -> Result<SocketAddr> {
    let router = admin_router(host.clone(), token).merge(crate::watch::page::router(host));
    let bound = serve(addr, "admin", router).await?;
    tracing::info!(addr = %bound, "admin API on /v1, the watch page on /watch/<match>");
    Ok(bound)
}
