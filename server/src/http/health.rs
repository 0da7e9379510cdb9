//! `/metrics` (OpenMetrics text), `/healthz` (the process is alive: always 200) and `/readyz`
//! (it takes players: 200, else 503 saying why).

use crate::driver::Host;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

/// The content type of what prometheus-client writes (OpenMetrics text, which Prometheus
/// scrapes).
pub const METRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub fn router(host: Arc<Host>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .with_state(host)
}

async fn metrics(State(host): State<Arc<Host>>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, METRICS_CONTENT_TYPE)],
        host.metrics.render(),
    )
}

async fn ready(State(host): State<Arc<Host>>) -> (StatusCode, String) {
    match host.ready() {
        Ok(()) => (StatusCode::OK, "ready\n".into()),
        Err(why) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {why}\n"),
        ),
    }
}
