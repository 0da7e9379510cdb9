//! One QUIC connection: its first frame is checked at the door ([`crate::admit`]); then its
//! frames go to its match as messages, and the match's frames come back through its outbox.
//! Bad input closes this connection only.

use super::{Closing, Host, Lookup, MatchInput, Outgoing};
use crate::admit::admit;
use crate::lockstep::PeerId;
use cohort_protocol::close;
use cohort_protocol::codec::{decode_message, encode_frame, frame_length, CodecError};
use cohort_protocol::message::{ClientMessage, ErrorCode, ServerMessage};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// How long a QUIC handshake may take on the server (each runs in its own task: a slow one
/// holds up nothing else).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a new connection has to open its stream and send its Hello.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// Frames waiting to go to one client; past them the match task holds frames back, and the
/// match drops a client whose outbox stays full ([`crate::lockstep::OUTBOX_FULL_DROP_MS`]).
pub const OUTBOX_FRAMES: usize = 4096;

/// How long a closing connection has to take what was sent before it is cut.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Why a frame could not be read.
enum ReadError {
    /// The stream ended or the connection was lost.
    Gone,
    Codec(CodecError),
}

async fn read_frame(recv: &mut quinn::RecvStream) -> Result<Vec<u8>, ReadError> {
    let mut prefix = [0u8; 4];
    recv.read_exact(&mut prefix)
        .await
        .map_err(|_| ReadError::Gone)?;
    let len = frame_length(prefix).map_err(ReadError::Codec)?;
    let mut payload = vec![0u8; len];
    recv.read_exact(&mut payload)
        .await
        .map_err(|_| ReadError::Gone)?;
    Ok(payload)
}

/// Sends one error frame on a stream and closes the connection.
async fn refuse(
    host: &Host,
    conn: &quinn::Connection,
    mut send: quinn::SendStream,
    code: ErrorCode,
    text: String,
) {
    tracing::info!(remote = %conn.remote_address(), ?code, %text, "refused at the door");
    host.metrics.refused(code);
    if let Ok(frame) = encode_frame(&ServerMessage::error(code, text)) {
        let _ = send.write_all(&frame).await;
    }
    let _ = send.finish();
    let _ = tokio::time::timeout(CLOSE_GRACE, send.stopped()).await;
    conn.close(close::REFUSED.code.into(), close::REFUSED.reason_bytes());
}

/// Runs a connection from its handshake to its end.
pub async fn run(incoming: quinn::Incoming, host: Arc<Host>, peer: PeerId) {
    let conn = match tokio::time::timeout(HANDSHAKE_TIMEOUT, incoming).await {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "handshake failed");
            return;
        }
        Err(_) => {
            tracing::debug!("handshake not finished in time");
            return;
        }
    };
    if super::watcher::is_webtransport(&conn) {
        return super::watcher::run(conn, host, peer).await;
    }
    let (send, mut recv) = match tokio::time::timeout(HELLO_TIMEOUT, conn.accept_bi()).await {
        Ok(Ok(s)) => s,
        _ => {
            conn.close(
                close::NO_STREAM.code.into(),
                close::NO_STREAM.reason_bytes(),
            );
            return;
        }
    };
    let first = match tokio::time::timeout(HELLO_TIMEOUT, read_frame(&mut recv)).await {
        Ok(Ok(p)) => p,
        Ok(Err(ReadError::Codec(e))) => {
            return refuse(&host, &conn, send, ErrorCode::FrameTooLarge, e.to_string()).await
        }
        _ => {
            conn.close(close::NO_HELLO.code.into(), close::NO_HELLO.reason_bytes());
            return;
        }
    };
    host.metrics.bytes_in.inc_by(first.len() as u64 + 4);
    let (hello, claims) = match admit(&first, &host.secret, super::unix_now()) {
        Ok(ok) => ok,
        Err(r) => return refuse(&host, &conn, send, r.code, r.text).await,
    };
    let match_tx = match host.matches.lookup(&claims.match_id) {
        Lookup::Live(tx) => tx,
        Lookup::Ended => {
            let text = format!("the match `{}` is over", claims.match_id);
            return refuse(&host, &conn, send, ErrorCode::MatchOver, text).await;
        }
        Lookup::Suspended(to) => return Closing::suspended(to.as_ref()).close(&conn),
        Lookup::Unknown => {
            let text = format!("this server hosts no match `{}`", claims.match_id);
            return refuse(&host, &conn, send, ErrorCode::UnknownMatch, text).await;
        }
    };
    let (out_tx, out_rx) = mpsc::channel(OUTBOX_FRAMES);
    let (cut_tx, cut_rx) = oneshot::channel();
    let writer = tokio::spawn(write_loop(conn.clone(), send, out_rx, cut_rx, host.clone()));
    let join = MatchInput::Join {
        peer,
        role: claims.role,
        hello,
        out: out_tx.clone(),
        cut: cut_tx,
    };
    if match_tx.send(join).await.is_err() {
        if let Lookup::Suspended(to) = host.matches.lookup(&claims.match_id) {
            return Closing::suspended(to.as_ref()).close(&conn);
        }
        host.metrics.refused(ErrorCode::MatchOver);
        let _ = out_tx.try_send(Outgoing::frame(&ServerMessage::error(
            ErrorCode::MatchOver,
            "the match is over",
        )));
        let _ = out_tx.try_send(Outgoing::Close(Closing::Closed));
        let _ = writer.await;
        return;
    }
    tracing::debug!(peer, remote = %conn.remote_address(), match_id = %claims.match_id, "connection admitted");
    loop {
        let payload = match read_frame(&mut recv).await {
            Ok(p) => p,
            Err(ReadError::Gone) => break,
            Err(ReadError::Codec(e)) => {
                close_with(&out_tx, ErrorCode::FrameTooLarge, e.to_string());
                break;
            }
        };
        host.metrics.bytes_in.inc_by(payload.len() as u64 + 4);
        match decode_message::<ClientMessage>(&payload) {
            Ok(message) => {
                if match_tx
                    .send(MatchInput::Message { peer, message })
                    .await
                    .is_err()
                {
                    break;
                }
            }
            Err(e) => {
                close_with(&out_tx, ErrorCode::Malformed, e.to_string());
                break;
            }
        }
    }
    let _ = match_tx.send(MatchInput::Disconnected { peer }).await;
    drop(out_tx);
    let _ = writer.await;
}

/// Sends an error that ends the connection, then closes it.
fn close_with(out: &mpsc::Sender<Outgoing>, code: ErrorCode, text: String) {
    tracing::info!(?code, %text, "closing a connection for bad input");
    let _ = out.try_send(Outgoing::frame(&ServerMessage::error(code, text)));
    let _ = out.try_send(Outgoing::Close(Closing::Closed));
}

/// Writes the match's frames until told to close or every sender is gone; closes the
/// connection at once when its match cuts it (a client not taking its frames, or a match
/// suspended with frames still held for it).
async fn write_loop(
    conn: quinn::Connection,
    mut send: quinn::SendStream,
    rx: mpsc::Receiver<Outgoing>,
    cut: oneshot::Receiver<Closing>,
    host: Arc<Host>,
) {
    let closing = tokio::select! {
        closing = write_frames(&mut send, rx, &host) => closing,
        Ok(closing) = cut => {
            closing.close(&conn);
            return;
        }
    };
    let _ = send.finish();
    let _ = tokio::time::timeout(CLOSE_GRACE, send.stopped()).await;
    closing.close(&conn);
}

/// Writes frames until told to close, every sender is gone, or the stream fails; how to close.
async fn write_frames(
    send: &mut quinn::SendStream,
    mut rx: mpsc::Receiver<Outgoing>,
    host: &Host,
) -> Closing {
    while let Some(out) = rx.recv().await {
        match out {
            Outgoing::Frame(bytes) => {
                if send.write_all(&bytes).await.is_err() {
                    break;
                }
                host.metrics.bytes_out.inc_by(bytes.len() as u64);
            }
            Outgoing::Bundle(bytes, due) => {
                if send.write_all(&bytes).await.is_err() {
                    break;
                }
                let late = std::time::Instant::now().saturating_duration_since(due);
                host.send_lateness.record(late);
                host.metrics
                    .send_jitter
                    .observe(super::metrics::seconds(late));
                host.metrics.bytes_out.inc_by(bytes.len() as u64);
            }
            Outgoing::Close(closing) => return closing,
        }
    }
    Closing::Closed
}

// A join for a match suspended here gets no `Error` (the seat is still the player's), only the
// close `suspended` — which a client takes as a lost connection and tries again: the match goes
// on after this server's restart — or `moved` with where it went, when an operator said.
