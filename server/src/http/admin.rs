//! The admin API (docs/admin-openapi.yaml, docs/OPERATIONS.md "Admin API"): a matchmaker
//! creates, lists, reads and ends matches over HTTP/JSON. Every request carries
//! `Authorization: Bearer <admin token>`: none → 401, a wrong one → 403 (compared in constant
//! time). A request body is at most [`ADMIN_BODY_LIMIT_BYTES`]; a bad one → 400 naming the
//! field. Ending a match is an event its `Match` handles: here requests are only moved.

use crate::config::FileMatch;
use crate::driver::{CreateError, Host, MatchState};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;
use subtle::ConstantTimeEq;

/// The largest request body taken, in bytes (a match's keys fit in a fraction of it).
pub const ADMIN_BODY_LIMIT_BYTES: usize = 16 * 1024;

/// How long `POST /v1/matches/{id}/end` waits for the match to have ended before answering
/// 202 (it ends all the same).
pub const END_WAIT: Duration = Duration::from_secs(15);

/// The admin token, kept as its blake3 hash: presented tokens are hashed and the hashes
/// compared in constant time (neither the content nor the length leaks through timing).
#[derive(Clone)]
pub struct AdminToken([u8; 32]);

impl AdminToken {
    pub fn new(token: &[u8]) -> AdminToken {
        AdminToken(*blake3::hash(token).as_bytes())
    }

    pub fn admits(&self, presented: &[u8]) -> bool {
        blake3::hash(presented).as_bytes().ct_eq(&self.0).into()
    }
}

#[derive(Clone)]
struct Admin {
    host: Arc<Host>,
    token: AdminToken,
}

pub fn router(host: Arc<Host>, token: AdminToken) -> Router {
    let admin = Admin { host, token };
    Router::new()
        .route("/v1/server", get(server))
        .route("/v1/matches", get(list).post(create))
        .route("/v1/matches/:id", get(one))
        .route("/v1/matches/:id/end", post(end))
        .fallback(|| async { failure(StatusCode::NOT_FOUND, "not_found", "no such endpoint") })
        .layer(middleware::from_fn_with_state(admin.clone(), authenticate))
        .layer(DefaultBodyLimit::max(ADMIN_BODY_LIMIT_BYTES))
        .with_state(admin)
}

/// An error answer: `{"error": code, "message": text, "field": key}`.
#[derive(Serialize)]
struct Failure {
    error: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<String>,
}

fn failure(status: StatusCode, error: &'static str, message: impl Into<String>) -> Response {
    (
        status,
        Json(Failure {
            error,
            message: message.into(),
            field: None,
        }),
    )
        .into_response()
}

fn bad_field(field: String, message: String) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(Failure {
            error: "bad_request",
            message,
            field: Some(field),
        }),
    )
        .into_response()
}

async fn authenticate(
    State(admin): State<Admin>,
    headers: HeaderMap,
    request: Request,
    next: Next,
) -> Response {
    let presented = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes())
        .and_then(|v| v.strip_prefix(b"Bearer "));
    match presented {
        None => {
            let mut r = failure(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "an `Authorization: Bearer <admin token>` header is required",
            );
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
            r
        }
        Some(t) if !admin.token.admits(t) => {
            tracing::warn!("admin API: a request with a wrong token was refused");
            failure(
                StatusCode::FORBIDDEN,
                "forbidden",
                "the admin token is wrong",
            )
        }
        Some(_) => next.run(request).await,
    }
}

async fn server(State(admin): State<Admin>) -> Response {
    let host = &admin.host;
    Json(serde_json::json!({
        "public": host.public(),
        "matches_live": host.matches.live(),
        "max_matches": host.kit_max_matches(),
        "version": env!("CARGO_PKG_VERSION"),
    }))
    .into_response()
}

async fn list(State(admin): State<Admin>) -> Response {
    Json(serde_json::json!({ "matches": admin.host.matches.views() })).into_response()
}

async fn one(State(admin): State<Admin>, Path(id): Path<String>) -> Response {
    match admin.host.matches.view(&id) {
        Some(v) => Json(v).into_response(),
        None => unknown(&id),
    }
}

fn unknown(id: &str) -> Response {
    failure(
        StatusCode::NOT_FOUND,
        "unknown_match",
        format!("this server has no match `{id}`"),
    )
}

/// A match's keys from JSON (an admin API body, an Agones annotation), or which key is wrong
/// (its path, e.g. `names[1]`) and why.
pub fn parse_match(body: &[u8]) -> Result<FileMatch, (String, String)> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let parsed: Result<FileMatch, _> = serde_path_to_error::deserialize(&mut de);
    let m = parsed.map_err(|e| {
        let message = e.inner().to_string();
        let path = e.path().to_string();
        let field = if path == "." {
            // Unknown or missing keys name themselves: "unknown field `x`, …".
            message
                .split('`')
                .nth(1)
                .map_or_else(|| "(body)".to_string(), str::to_string)
        } else {
            path
        };
        (field, message)
    })?;
    de.end()
        .map_err(|e| ("(body)".to_string(), e.to_string()))?;
    Ok(m)
}

async fn create(State(admin): State<Admin>, body: Result<Bytes, BytesRejection>) -> Response {
    let body = match body {
        Ok(b) => b,
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return failure(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                format!("a request body is at most {ADMIN_BODY_LIMIT_BYTES} bytes"),
            )
        }
        Err(e) => return failure(e.status(), "bad_request", e.body_text()),
    };
    let spec = match parse_match(&body) {
        Ok(m) => m,
        Err((field, message)) => return bad_field(field, message),
    };
    let settings = match spec.settings(admin.host.rules()) {
        Ok(s) => s,
        Err(e) => return bad_field(e.field.to_string(), e.message),
    };
    match admin.host.create_match(settings) {
        Ok(created) => (StatusCode::CREATED, Json(created)).into_response(),
        Err(e @ CreateError::Exists(_)) => {
            failure(StatusCode::CONFLICT, "match_exists", e.to_string())
        }
        Err(e @ CreateError::Full(_)) => failure(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_matches",
            e.to_string(),
        ),
        Err(e @ CreateError::ShuttingDown) => failure(
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting_down",
            e.to_string(),
        ),
        Err(e @ CreateError::Setup(_)) => {
            failure(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
        }
    }
}

async fn end(State(admin): State<Admin>, Path(id): Path<String>) -> Response {
    let host = &admin.host;
    let Some(mut view) = host.matches.watch(&id) else {
        return unknown(&id);
    };
    if view.borrow().state != MatchState::Ended {
        host.end_match(&id).await;
        tracing::info!(match_id = %id, "admin API: match ended by an operator");
    }
    let ended = matches!(
        tokio::time::timeout(END_WAIT, view.wait_for(|v| v.state == MatchState::Ended)).await,
        Ok(Ok(_))
    );
    let now = view.borrow().clone();
    if ended {
        Json(now).into_response()
    } else {
        (StatusCode::ACCEPTED, Json(now)).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_compared_by_hash() {
        let t = AdminToken::new(b"a-long-admin-token");
        assert!(t.admits(b"a-long-admin-token"));
        assert!(!t.admits(b"a-long-admin-tokeN"));
        assert!(!t.admits(b""));
    }

    #[test]
    fn a_bad_body_names_its_field() {
        let field = |body: &str| parse_match(body.as_bytes()).unwrap_err().0;
        assert_eq!(field(r#"{"id":"a","players":"four"}"#), "players");
        assert_eq!(field(r#"{"id":"a","colour":1}"#), "colour");
        assert_eq!(field(r#"{"players":2}"#), "id");
        assert_eq!(field(r#"{"id":"a","names":["x",3]}"#), "names[1]");
        assert_eq!(field(r#"{"id":"a"} trailing"#), "(body)");
        assert_eq!(
            parse_match(br#"{"id":"a","players":4}"#).unwrap().players,
            4
        );
    }
}
