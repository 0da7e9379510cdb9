//! A browser watching a match (`/watch/<match>`): a WebTransport session (ALPN `h3`) on the
//! same QUIC endpoint and UDP port as the lockstep clients. Its CONNECT request names the
//! match and carries a spectator token (`https://HOST:PORT/watch/<match>?token=<token>`);
//! once both are checked the server opens one unidirectional stream and writes the match's view
//! frames on it (`crate::watch::frame`, each length-prefixed like the lockstep frames). The
//! browser sends nothing. Which turns it is shown, and when, is the match's rule
//! (`lockstep/watch.rs`); this task only moves the frames.

use super::connection::{CLOSE_GRACE, HELLO_TIMEOUT, OUTBOX_FRAMES};
use super::{Host, Lookup, MatchInput, Outgoing};
use crate::lockstep::PeerId;
use cohort_protocol::message::{ErrorCode, Role};
use cohort_protocol::token::{verify, TokenError};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
use web_transport_quinn::http::StatusCode;

/// The path a browser's WebTransport session asks for, before the match id.
pub const WATCH_PATH: &str = "/watch/";

/// Whether a connection negotiated WebTransport's ALPN (`h3`) rather than `cohort/1`.
pub fn is_webtransport(conn: &quinn::Connection) -> bool {
    conn.handshake_data()
        .and_then(|d| d.downcast::<quinn::crypto::rustls::HandshakeData>().ok())
        .and_then(|d| d.protocol)
        .is_some_and(|p| p == web_transport_quinn::ALPN.as_bytes())
}

/// Why a session was refused: its HTTP status, the error code counted in the metrics, why.
type Refusal = (StatusCode, ErrorCode, String);

/// The match a session's URL asks for, if its token lets it watch.
fn admit(url: &url::Url, host: &Host) -> Result<mpsc::Sender<MatchInput>, Refusal> {
    let forbidden = |code, why: String| (StatusCode::FORBIDDEN, code, why);
    let Some(asked) = url.path().strip_prefix(WATCH_PATH) else {
        return Err((
            StatusCode::NOT_FOUND,
            ErrorCode::UnknownMatch,
            format!("sessions are opened on {WATCH_PATH}<match>"),
        ));
    };
    let token = url
        .query_pairs()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let claims = verify(&host.secret, &token, super::unix_now()).map_err(|e| match e {
        TokenError::Expired { .. } => forbidden(ErrorCode::TokenExpired, e.to_string()),
        _ => forbidden(ErrorCode::BadToken, e.to_string()),
    })?;
    if claims.role != Role::Spectator {
        return Err(forbidden(
            ErrorCode::BadToken,
            "watching takes a spectator token".into(),
        ));
    }
    if claims.match_id != asked {
        return Err(forbidden(
            ErrorCode::BadToken,
            format!("the token is for match `{}`", claims.match_id),
        ));
    }
    match host.matches.lookup(&claims.match_id) {
        Lookup::Live(tx) => Ok(tx),
        Lookup::Ended => Err((
            StatusCode::GONE,
            ErrorCode::MatchOver,
            format!("the match `{asked}` is over"),
        )),
        // Suspended here: it goes on after a restart or elsewhere; the page may try again.
        Lookup::Suspended(_) => Err((
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::MatchOver,
            format!("the match `{asked}` is suspended on this server"),
        )),
        Lookup::Unknown => Err((
            StatusCode::NOT_FOUND,
            ErrorCode::UnknownMatch,
            format!("this server hosts no match `{asked}`"),
        )),
    }
}

/// Runs a browser's session from its CONNECT request to its end.
pub async fn run(conn: quinn::Connection, host: Arc<Host>, peer: PeerId) {
    let request = match tokio::time::timeout(
        HELLO_TIMEOUT,
        web_transport_quinn::Request::accept(conn.clone()),
    )
    .await
    {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "WebTransport handshake failed");
            conn.close(1u32.into(), b"no session");
            return;
        }
        Err(_) => {
            conn.close(1u32.into(), b"no session");
            return;
        }
    };
    let match_tx = match admit(&request.url, &host) {
        Ok(tx) => tx,
        Err((status, code, why)) => {
            tracing::info!(remote = %conn.remote_address(), ?code, %why, "watcher refused");
            host.metrics.refused(code);
            let _ = request.reject(status).await;
            return;
        }
    };
    let session = match request.ok().await {
        Ok(s) => s,
        Err(e) => {
            tracing::debug!(error = %e, "WebTransport session not accepted");
            return;
        }
    };
    let send = match session.open_uni().await {
        Ok(s) => s,
        Err(_) => return,
    };
    let (out_tx, out_rx) = mpsc::channel(OUTBOX_FRAMES);
    let (cut_tx, cut_rx) = oneshot::channel();
    let watch = MatchInput::Watch {
        peer,
        out: out_tx,
        cut: cut_tx,
    };
    if match_tx.send(watch).await.is_err() {
        session.close(0, b"the match is over");
        return;
    }
    tracing::debug!(peer, remote = %conn.remote_address(), "watching");
    tokio::select! {
        () = write_frames(send, out_rx, &host) => {}
        Ok(_) = cut_rx => {}
        _ = session.closed() => {}
    }
    let _ = match_tx.send(MatchInput::Disconnected { peer }).await;
    session.close(0, b"closed");
}

/// Writes the view frames until told to close, every sender is gone or the stream fails; then
/// gives the last of them a moment to arrive.
async fn write_frames(
    mut send: web_transport_quinn::SendStream,
    mut rx: mpsc::Receiver<Outgoing>,
    host: &Host,
) {
    while let Some(out) = rx.recv().await {
        let bytes = match out {
            Outgoing::Frame(b) | Outgoing::Bundle(b, _) => b,
            Outgoing::Close(_) => break,
        };
        if send.write_all(&bytes).await.is_err() {
            return;
        }
        host.metrics.bytes_out.inc_by(bytes.len() as u64);
    }
    let _ = send.finish();
    let _ = tokio::time::timeout(CLOSE_GRACE, send.stopped()).await;
}
