//! `GET /watch/<match>?token=<spectator token>` on the admin API's HTTP side: the page that
//! watches the match in a browser. It is one HTML file with its script inlined (both embedded
//! in the binary, no build step), given where to open the WebTransport session: the server's
//! public address, the match, the token, and the certificate's SHA-256 when it is self-signed
//! (for `serverCertificateHashes`). The page needs no admin token; the session checks the
//! spectator token (`driver/watcher.rs`).

use crate::driver::{Host, Lookup};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;
use std::sync::Arc;

const HTML: &str = include_str!("page/watch.html");
const SCRIPT: &str = include_str!("page/watch.js");

/// The page's route, merged into the admin API's router outside its bearer check.
pub fn router(host: Arc<Host>) -> Router {
    Router::new()
        .route("/watch/:id", get(page))
        .with_state(host)
}

#[derive(Deserialize)]
struct Token {
    #[serde(default)]
    token: String,
}

/// What the page's script is told, as JSON in the page.
#[derive(serde::Serialize)]
struct PageConfig<'a> {
    #[serde(rename = "match")]
    match_id: &'a str,
    /// The WebTransport session's URL.
    url: String,
    /// The certificate's SHA-256 (hex) when it is self-signed, else none (a CA-signed one is
    /// checked by the browser as usual).
    fingerprint: Option<String>,
}

async fn page(
    State(host): State<Arc<Host>>,
    Path(id): Path<String>,
    Query(q): Query<Token>,
) -> Response {
    if matches!(host.matches.lookup(&id), Lookup::Unknown) {
        return (
            StatusCode::NOT_FOUND,
            format!("this server hosts no match `{id}`\n"),
        )
            .into_response();
    }
    let Some(public) = host.public() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "not listening yet\n").into_response();
    };
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("token", &q.token)
        .finish();
    let path: String = url::form_urlencoded::byte_serialize(id.as_bytes()).collect();
    let config = PageConfig {
        match_id: &id,
        url: format!("https://{}/watch/{path}?{query}", public.address),
        fingerprint: public.self_signed.then_some(public.fingerprint),
    };
    let json = serde_json::to_string(&config)
        .unwrap_or_else(|_| "{}".into())
        .replace("</", "<\\/");
    let html = HTML
        .replace("{{MATCH}}", &escape(&id))
        .replace("{{CONFIG}}", &json)
        .replace("{{SCRIPT}}", SCRIPT);
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}

/// Text for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
