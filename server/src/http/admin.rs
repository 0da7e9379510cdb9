//! The admin API (docs/admin-openapi.yaml, docs/OPERATIONS.md "Admin API"): a matchmaker
//! creates, lists, reads and ends matches over HTTP/JSON. Every request carries
//! `Authorization: Bearer <admin token>`: none → 401, a wrong one → 403 (compared in constant
//! time; the scheme's name in any case). A request body is at most [`ADMIN_BODY_LIMIT_BYTES`];
//! a bad one → 400 naming the field. Every answer is JSON, axum's own rejections included
//! (`json_errors`). Ending a match is an event its `Match` handles: here requests are only
//! moved.

use crate::config::FileMatch;
use crate::driver::{CreateError, Host, MatchState, ResumeError};
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use cohort_protocol::close::{MovedError, MovedTo};
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

/// The largest request body taken, in bytes (a match's keys fit in a fraction of it).
pub const ADMIN_BODY_LIMIT_BYTES: usize = 16 * 1024;

/// The largest file `PUT /v1/replays/{name}` takes, in bytes: a replay or match snapshot
/// uploaded to take a match up again here (a 20-minute full-army replay is about 2.4 MB).
pub const MAX_UPLOAD_BYTES: usize = 64 << 20;

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

/// At most one log line about refused tokens in this long; the refusals in between are
/// counted into the next line.
pub const WRONG_TOKEN_LOG_EVERY: Duration = Duration::from_secs(10);

#[derive(Clone)]
struct Admin {
    host: Arc<Host>,
    token: AdminToken,
    refusals: Arc<Mutex<Refusals>>,
}

/// Requests refused for a wrong token, for a log line at most every [`WRONG_TOKEN_LOG_EVERY`].
#[derive(Default)]
struct Refusals {
    logged_at: Option<Instant>,
    unlogged: u64,
}

impl Refusals {
    /// Counts a refusal at `now`; how many to log now, if a line is due.
    fn note(&mut self, now: Instant) -> Option<u64> {
        self.unlogged += 1;
        let due = self
            .logged_at
            .is_none_or(|at| now.saturating_duration_since(at) >= WRONG_TOKEN_LOG_EVERY);
        if !due {
            return None;
        }
        self.logged_at = Some(now);
        Some(std::mem::take(&mut self.unlogged))
    }
}

pub fn router(host: Arc<Host>, token: AdminToken) -> Router {
    let admin = Admin {
        host,
        token,
        refusals: Arc::default(),
    };
    Router::new()
        .route("/v1/server", get(server))
        .route("/v1/matches", get(list).post(create))
        .route("/v1/matches/:id", get(one))
        .route("/v1/matches/:id/end", post(end))
        .route("/v1/matches/:id/suspend", post(suspend))
        .route("/v1/resume", post(resume))
        .route(
            "/v1/replays/:name",
            put(upload).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .fallback(|| async { failure(StatusCode::NOT_FOUND, "not_found", "no such endpoint") })
        .layer(middleware::from_fn_with_state(admin.clone(), authenticate))
        .layer(DefaultBodyLimit::max(ADMIN_BODY_LIMIT_BYTES))
        .layer(middleware::map_response(json_errors))
        .with_state(admin)
}

/// Every answer is JSON: one that is not (axum's own, such as a 405 for a method the path
/// does not have) becomes an error body of its status, its headers (`Allow`) kept.
async fn json_errors(response: Response) -> Response {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let status = response.status();
    if json || status.is_success() {
        return response;
    }
    let (code, default) = match status {
        StatusCode::METHOD_NOT_ALLOWED => (
            "method_not_allowed",
            "this path has no such method (the Allow header lists its methods)",
        ),
        StatusCode::NOT_FOUND => ("not_found", "no such endpoint"),
        StatusCode::PAYLOAD_TOO_LARGE => ("body_too_large", "the request body is too large"),
        s if s.is_client_error() => ("bad_request", "the request is not one the API takes"),
        _ => ("internal", "the server failed to answer"),
    };
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let message = match text.trim() {
        "" => default.to_string(),
        t => t.to_string(),
    };
    let mut answer = failure(status, code, message);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            answer.headers_mut().append(name, value.clone());
        }
    }
    answer
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
        .and_then(|v| bearer_token(v.as_bytes()));
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
            let due = admin
                .refusals
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .note(Instant::now());
            if let Some(refused) = due {
                tracing::warn!(
                    refused,
                    "admin API: requests with a wrong token were refused (this line at most every {}s)",
                    WRONG_TOKEN_LOG_EVERY.as_secs()
                );
            }
            failure(
                StatusCode::FORBIDDEN,
                "forbidden",
                "the admin token is wrong",
            )
        }
        Some(_) => next.run(request).await,
    }
}

/// The token of an `Authorization` header's value in the `Bearer` scheme, whose name is
/// matched in any case (RFC 9110, 11.1): `Bearer`, `bearer`, `BEARER`; one or more spaces
/// before the token.
fn bearer_token(value: &[u8]) -> Option<&[u8]> {
    let space = value.iter().position(|b| *b == b' ')?;
    let (scheme, rest) = value.split_at(space);
    if !scheme.eq_ignore_ascii_case(b"bearer") {
        return None;
    }
    let token = rest.trim_ascii_start();
    (!token.is_empty()).then_some(token)
}

/// The answer to a match id in the path that is not UTF-8 once percent-decoded.
fn bad_id(e: &PathRejection) -> Response {
    bad_field(
        "id".to_string(),
        format!(
            "the match id in the path is not UTF-8 once percent-decoded ({})",
            e.body_text()
        ),
    )
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

async fn one(State(admin): State<Admin>, path: Result<Path<String>, PathRejection>) -> Response {
    let id = match path {
        Ok(Path(id)) => id,
        Err(e) => return bad_id(&e),
    };
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

/// The `field` of a bad body that is not a JSON object of a match's keys: not JSON, truncated,
/// not UTF-8, or another JSON value.
pub const WHOLE_BODY: &str = "(body)";

/// A match's keys from JSON (an admin API body, an Agones annotation), or which key is wrong
/// (its path, e.g. `names[1]`, or [`WHOLE_BODY`]) and why.
pub fn parse_match(body: &[u8]) -> Result<FileMatch, (String, String)> {
    // serde's structs also take a JSON array of their fields in order: only an object is a
    // match's keys.
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err((
            WHOLE_BODY.to_string(),
            "the body must be a JSON object of a match's keys".to_string(),
        ));
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    let parsed: Result<FileMatch, _> = serde_path_to_error::deserialize(&mut de);
    let m = parsed.map_err(|e| blame(&e.path().to_string(), e.inner()))?;
    de.end()
        .map_err(|e| (WHOLE_BODY.to_string(), e.to_string()))?;
    Ok(m)
}

/// Which key a JSON error is about: the key's path for a value of the wrong kind or a string
/// that is not text (not UTF-8, a bad escape), a key's own name when it is unknown, missing or
/// given twice, else [`WHOLE_BODY`] (not JSON, truncated).
fn blame(path: &str, e: &serde_json::Error) -> (String, String) {
    use serde_json::error::Category;
    let message = e.to_string();
    // serde_path_to_error writes `.` for the top and `?` for a place it could not follow.
    let known = path != "." && !path.contains('?');
    let in_a_string = [
        "invalid unicode code point",
        "lone leading surrogate in hex escape",
        "unexpected end of hex escape",
        "invalid escape",
        "control character",
    ]
    .iter()
    .any(|m| message.starts_with(m));
    let field = match e.classify() {
        Category::Data if path == "." => {
            ["unknown field `", "missing field `", "duplicate field `"]
                .iter()
                .find_map(|p| message.strip_prefix(p))
                .and_then(|rest| rest.split('`').next())
                .map(str::to_string)
        }
        Category::Data if known => Some(path.to_string()),
        Category::Syntax if known && in_a_string => Some(path.to_string()),
        _ => None,
    };
    (field.unwrap_or_else(|| WHOLE_BODY.to_string()), message)
}

/// A body, or the answer to one refused: over `limit` bytes (413), or unreadable.
fn body_within(body: Result<Bytes, BytesRejection>, limit: usize) -> Result<Bytes, Box<Response>> {
    match body {
        Ok(b) => Ok(b),
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => Err(Box::new(failure(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("a request body is at most {limit} bytes here"),
        ))),
        Err(e) => Err(Box::new(failure(e.status(), "bad_request", e.body_text()))),
    }
}

/// The match the path names and a receiver of its views, or the answer: 400 for an id that
/// is not UTF-8, 404 for an unknown match.
fn named_match(
    host: &Host,
    path: Result<Path<String>, PathRejection>,
) -> Result<
    (
        String,
        tokio::sync::watch::Receiver<crate::driver::MatchView>,
    ),
    Box<Response>,
> {
    let id = match path {
        Ok(Path(id)) => id,
        Err(e) => return Err(Box::new(bad_id(&e))),
    };
    match host.matches.watch(&id) {
        Some(view) => Ok((id, view)),
        None => Err(Box::new(unknown(&id))),
    }
}

async fn create(State(admin): State<Admin>, body: Result<Bytes, BytesRejection>) -> Response {
    let body = match body_within(body, ADMIN_BODY_LIMIT_BYTES) {
        Ok(b) => b,
        Err(answer) => return *answer,
    };
    let spec = match parse_match(&body) {
        Ok(m) => m,
        Err((field, message)) => return bad_field(field, message),
    };
    let settings = match spec.settings(admin.host.rules()) {
        Ok(s) => s,
        Err(e) => return bad_field(e.field, e.message),
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

async fn end(State(admin): State<Admin>, path: Result<Path<String>, PathRejection>) -> Response {
    let host = &admin.host;
    let (id, mut view) = match named_match(host, path) {
        Ok(m) => m,
        Err(answer) => return *answer,
    };
    if view.borrow().state != MatchState::Ended {
        host.end_match(&id).await;
        tracing::info!(match_id = %id, "admin API: match ended by an operator");
    }
    once_ended(&mut view).await
}

/// 200 with the match once its view says it has ended, 202 with it as it stands if not
/// within [`END_WAIT`].
async fn once_ended(view: &mut tokio::sync::watch::Receiver<crate::driver::MatchView>) -> Response {
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

/// `POST /v1/matches/{id}/suspend`'s body, all of it optional (an empty body is none): where
/// the match goes on, told to its clients (close code `moved`).
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SuspendBody {
    /// HOST:PORT players connect to there.
    address: Option<String>,
    /// The SHA-256 fingerprint of the certificate there, for clients that pin one.
    fingerprint: Option<String>,
}

/// Where a suspend's body says the match goes on, or the 400 answer.
fn moved_to(body: &[u8]) -> Result<Option<MovedTo>, Box<Response>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let b: SuspendBody = serde_json::from_slice(body)
        .map_err(|e| Box::new(bad_field(WHOLE_BODY.to_string(), e.to_string())))?;
    match (b.address, b.fingerprint) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err(Box::new(bad_field(
            "address".into(),
            "a fingerprint comes with the address it is for".into(),
        ))),
        (Some(address), fingerprint) => MovedTo::new(&address, fingerprint.as_deref())
            .map(Some)
            .map_err(|e| {
                let field = match e {
                    MovedError::Address(_) => "address",
                    MovedError::Fingerprint(_) => "fingerprint",
                };
                Box::new(bad_field(field.into(), e.to_string()))
            }),
    }
}

/// Suspends a match: its open turn played and recorded, its state saved beside its replay,
/// its connections closed without `MatchEnded` (clients reconnect; told where it goes on when
/// the body says); 200 with the match (state `ended`, reason `suspended`), 202 if not done
/// within [`END_WAIT`]. A match already suspended here is only told where it went (200).
async fn suspend(
    State(admin): State<Admin>,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let host = &admin.host;
    let (id, mut view) = match named_match(host, path) {
        Ok(m) => m,
        Err(answer) => return *answer,
    };
    let body = match body_within(body, ADMIN_BODY_LIMIT_BYTES) {
        Ok(b) => b,
        Err(answer) => return *answer,
    };
    let to = match moved_to(&body) {
        Ok(to) => to,
        Err(answer) => return *answer,
    };
    if view.borrow().state == MatchState::Ended {
        let now = view.borrow().clone();
        if let Some(to) = to {
            if host.set_moved(&id, to.clone()) {
                tracing::info!(match_id = %id, address = %to.address, "admin API: a suspended match's clients are told where it went");
                return Json(now).into_response();
            }
        }
        return failure(
            StatusCode::CONFLICT,
            "match_ended",
            format!("match `{id}` has ended: there is nothing to suspend"),
        );
    }
    let address = to.as_ref().map(|t| t.address.clone());
    host.suspend_match(&id, to).await;
    tracing::info!(match_id = %id, moved_to = ?address, "admin API: match suspended by an operator");
    once_ended(&mut view).await
}

/// `POST /v1/resume`'s body.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ResumeBody {
    /// The replay's file name in the server's replay folder.
    replay: String,
    /// The turn limit, when the replay has no snapshot beside it to say.
    max_turns: Option<u64>,
}

/// Takes a match up again from a replay in the replay folder (and the snapshot beside it):
/// 201 with its address, fingerprint, tokens and view (state `resuming`).
async fn resume(State(admin): State<Admin>, body: Result<Bytes, BytesRejection>) -> Response {
    let body = match body_within(body, ADMIN_BODY_LIMIT_BYTES) {
        Ok(b) => b,
        Err(answer) => return *answer,
    };
    let b: ResumeBody = match serde_json::from_slice(&body) {
        Ok(b) => b,
        Err(e) => return bad_field(WHOLE_BODY.to_string(), e.to_string()),
    };
    match admin.host.resume_match(&b.replay, b.max_turns).await {
        Ok(created) => (StatusCode::CREATED, Json(created)).into_response(),
        Err(e) => resume_failure(e),
    }
}

/// Writes an uploaded replay or match snapshot into the replay folder (at most
/// [`MAX_UPLOAD_BYTES`]), for `POST /v1/resume`: 201 with its name and size.
async fn upload(
    State(admin): State<Admin>,
    path: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let Ok(Path(name)) = path else {
        return bad_field("name".into(), "the file name is not UTF-8".into());
    };
    let body = match body_within(body, MAX_UPLOAD_BYTES) {
        Ok(b) => b,
        Err(answer) => return *answer,
    };
    match admin.host.put_file(&name, &body) {
        Ok(()) => (
            StatusCode::CREATED,
            Json(serde_json::json!({"name": name, "bytes": body.len()})),
        )
            .into_response(),
        Err(e) => resume_failure(e),
    }
}

fn resume_failure(e: ResumeError) -> Response {
    match e {
        ResumeError::BadName(_) => bad_field("name".into(), e.to_string()),
        ResumeError::NoFile(_) => failure(StatusCode::NOT_FOUND, "unknown_file", e.to_string()),
        ResumeError::Exists(_) => failure(StatusCode::CONFLICT, "file_exists", e.to_string()),
        ResumeError::Refused(_) => failure(
            StatusCode::UNPROCESSABLE_ENTITY,
            "replay_refused",
            e.to_string(),
        ),
        ResumeError::Create(e @ CreateError::Exists(_)) => {
            failure(StatusCode::CONFLICT, "match_exists", e.to_string())
        }
        ResumeError::Create(e @ CreateError::Full(_)) => failure(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_matches",
            e.to_string(),
        ),
        ResumeError::Create(e @ CreateError::ShuttingDown) => failure(
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting_down",
            e.to_string(),
        ),
        ResumeError::Create(e @ CreateError::Setup(_)) => {
            failure(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string())
        }
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
        assert_eq!(field(r#"{"id":"a","id":"b"}"#), "id");
        // Not a JSON object: the body, and no internal type name.
        for body in ["42", "[]", r#"["a",2]"#, "null", r#""a""#, ""] {
            let (field, message) = parse_match(body.as_bytes()).unwrap_err();
            assert_eq!(field, "(body)", "{body}");
            assert!(!message.contains("FileMatch"), "{body}: {message}");
        }
        // Truncated, not JSON.
        for body in [
            r#"{"id":"a","#,
            r#"{"id":"a","names":["x""#,
            "{not json",
            "{",
        ] {
            assert_eq!(field(body), "(body)", "{body}");
        }
        // A string that is not text names its key.
        let bad_utf8 = parse_match(b"{\"id\":\"a\",\"names\":[\"A\",\"\xff\"]}").unwrap_err();
        assert_eq!(bad_utf8.0, "names[1]", "{bad_utf8:?}");
        assert_eq!(field(r#"{"id":"a","names":["A","\ud800"]}"#), "names[1]");
        // Bytes that are not UTF-8 outside a string: the body.
        assert_eq!(parse_match(b"{\xff}").unwrap_err().0, "(body)");
        assert_eq!(
            parse_match(br#"{"id":"a","players":4}"#).unwrap().players,
            4
        );
    }

    #[test]
    fn the_bearer_scheme_is_matched_in_any_case() {
        for header in ["Bearer tok", "bearer tok", "BEARER tok", "bEaReR  tok"] {
            assert_eq!(
                bearer_token(header.as_bytes()),
                Some(&b"tok"[..]),
                "{header}"
            );
        }
        for header in ["Basic tok", "Bearer", "Bearer ", "Bearertok", "tok", ""] {
            assert_eq!(bearer_token(header.as_bytes()), None, "{header}");
        }
    }

    #[test]
    fn wrong_tokens_are_logged_at_most_every_interval() {
        let mut r = Refusals::default();
        let t0 = Instant::now();
        assert_eq!(r.note(t0), Some(1));
        for _ in 0..99 {
            assert_eq!(r.note(t0 + Duration::from_secs(1)), None);
        }
        assert_eq!(r.note(t0 + WRONG_TOKEN_LOG_EVERY), Some(100));
        assert_eq!(r.note(t0 + WRONG_TOKEN_LOG_EVERY), None);
    }
}
