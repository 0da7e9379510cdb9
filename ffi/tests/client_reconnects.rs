//! The C ABI's client takes its seat back by itself once asked (`cohort_client_reconnect_for`),
//! called as C calls it, against a real server on loopback: its link cut by a relay, it
//! reports `CONNECTION_LOST`, connects again through the relay once the link is back, joins
//! with a snapshot the server's hash confirms and runs turns again; a client closed with
//! `moved` goes where it was told, pinning the fingerprint it was given, and plays there; a
//! client not asked stays lost, as before the function.

mod common;

use cohort_ffi::client::*;
use cohort_ffi::reconnect::COHORT_MAX_RECONNECT_SECS;
use cohort_ffi::{CohortHandle, CohortStatus};
use cohort_protocol::message::Role;
use cohort_tests::{Relay, TestServer};
use common::options;
use std::sync::Arc;
use tokio::task::JoinHandle;

/// The most polls (of up to 100 ms each) a step may take before the test fails.
const POLLS: u32 = 1200;

/// Polls (waiting up to 100 ms between polls) until an event of `kind`; every event on the
/// way goes to `seen`.
fn until(client: CohortHandle, kind: CohortEventKind, seen: &mut Vec<i32>) -> CohortEvent {
    let mut event = std::mem::MaybeUninit::<CohortEvent>::uninit();
    for _ in 0..POLLS {
        assert_eq!(cohort_client_wait(client, 100), CohortStatus::Ok);
        loop {
            assert_eq!(
                unsafe { cohort_client_poll(client, event.as_mut_ptr()) },
                CohortStatus::Ok
            );
            let e = unsafe { event.assume_init() };
            if e.kind == CohortEventKind::None as i32 {
                break;
            }
            seen.push(e.kind);
            if e.kind == kind as i32 {
                return e;
            }
        }
    }
    panic!("no {kind:?} event after {POLLS} polls; seen {seen:?}");
}

/// A server (2 ticks a turn) with a bot in slot 0, a relay to it, and slot 1's token.
async fn beside_a_bot(
    name: &str,
) -> (
    TestServer,
    Arc<Relay>,
    JoinHandle<cohort_client::session::BotOutcome>,
    String,
) {
    let server = TestServer::start(name, &["--turn-ticks", "2"])
        .await
        .unwrap();
    let relay = Arc::new(Relay::start(&server.addr).await.unwrap());
    let steady = cohort_tests::spawn_bot(
        &server,
        cohort_tests::plan(
            server.token("default", Role::Player(0)),
            "steady",
            cohort_tests::idle(),
        ),
    );
    let token = server.token("default", Role::Player(1));
    (server, relay, steady, token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_asked_to_reconnects_through_a_link_cut_and_mended() {
    let (server, relay, steady, token) = beside_a_bot("ffi-reconnect").await;
    let (addr, fp) = (relay.addr.clone(), server.fingerprint.clone());
    let cut = relay.clone();
    let seen = tokio::task::spawn_blocking(move || {
        let o = options(&addr, &fp, None, &token);
        let mut client: CohortHandle = 0;
        assert_eq!(
            unsafe { cohort_client_connect(&o, &mut client) },
            CohortStatus::Ok
        );
        assert_eq!(
            cohort_client_reconnect_for(client, COHORT_MAX_RECONNECT_SECS + 1),
            CohortStatus::InvalidArgument
        );
        assert_eq!(cohort_client_reconnect_for(client, 120), CohortStatus::Ok);
        let mut seen = Vec::new();
        until(client, CohortEventKind::Joined, &mut seen);
        for _ in 0..10 {
            until(client, CohortEventKind::TurnRun, &mut seen);
        }
        cut.cut(true);
        until(client, CohortEventKind::ConnectionLost, &mut seen);
        cut.cut(false);
        until(client, CohortEventKind::Joined, &mut seen);
        let checked = until(client, CohortEventKind::SnapshotChecked, &mut seen);
        assert_eq!(checked.agrees, 1, "the state taken back is the server's");
        for _ in 0..10 {
            let t = until(client, CohortEventKind::TurnRun, &mut seen);
            assert_ne!(t.agrees, 0, "every turn agrees with the server");
        }
        let mut s = CohortClientStatus::default();
        assert_eq!(
            unsafe { cohort_client_status(client, &mut s) },
            CohortStatus::Ok
        );
        assert_eq!(s.phase, CohortPhase::Playing as i32);
        assert_eq!(cohort_client_free(client), CohortStatus::Ok);
        seen
    })
    .await
    .unwrap();
    assert!(seen.contains(&(CohortEventKind::SnapshotLoaded as i32)));
    server.stop().await.unwrap();
    cohort_tests::outcome(steady).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_not_asked_stays_lost_as_before() {
    let (server, relay, steady, token) = beside_a_bot("ffi-no-reconnect").await;
    let (addr, fp) = (relay.addr.clone(), server.fingerprint.clone());
    let cut = relay.clone();
    tokio::task::spawn_blocking(move || {
        let o = options(&addr, &fp, None, &token);
        let mut client: CohortHandle = 0;
        assert_eq!(
            unsafe { cohort_client_connect(&o, &mut client) },
            CohortStatus::Ok
        );
        let mut seen = Vec::new();
        until(client, CohortEventKind::TurnRun, &mut seen);
        cut.cut(true);
        until(client, CohortEventKind::ConnectionLost, &mut seen);
        cut.cut(false);
        let mut s = CohortClientStatus::default();
        for _ in 0..30 {
            let mut e = std::mem::MaybeUninit::<CohortEvent>::uninit();
            assert_eq!(cohort_client_wait(client, 100), CohortStatus::Ok);
            assert_eq!(
                unsafe { cohort_client_poll(client, e.as_mut_ptr()) },
                CohortStatus::Ok
            );
            assert_eq!(
                unsafe { e.assume_init() }.kind,
                CohortEventKind::None as i32
            );
        }
        assert_eq!(
            unsafe { cohort_client_status(client, &mut s) },
            CohortStatus::Ok
        );
        assert_eq!(s.phase, CohortPhase::Over as i32);
        assert_eq!(s.may_rejoin, 1, "the seat is still its to take back");
        assert_eq!(cohort_client_free(client), CohortStatus::Ok);
    })
    .await
    .unwrap();
    server.stop().await.unwrap();
    cohort_tests::outcome(steady).await;
}

/// A stand-in for a server the match moved away from: it answers every `Hello` by closing the
/// connection with `moved`, naming `to`. Its own address and fingerprint.
fn moved_away(to: cohort_protocol::close::MovedTo) -> (String, String) {
    let identity = cohort_server::tls::Identity::self_signed().unwrap();
    let fingerprint = identity.fingerprint.clone();
    let endpoint = quinn::Endpoint::server(
        identity.server_config().unwrap(),
        "127.0.0.1:0".parse().unwrap(),
    )
    .unwrap();
    let addr = endpoint.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Some(incoming) = endpoint.accept().await {
            let Ok(conn) = incoming.await else { continue };
            let reason = to.reason();
            tokio::spawn(async move {
                if let Ok((_send, mut recv)) = conn.accept_bi().await {
                    // The Hello's length prefix: the client has said who it is.
                    let mut prefix = [0u8; 4];
                    let _ = recv.read_exact(&mut prefix).await;
                    let moved = cohort_protocol::close::MOVED;
                    conn.close(moved.code.into(), &reason);
                }
            });
        }
    });
    (addr, fingerprint)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_asked_to_follows_a_match_that_moved_to_another_server() {
    let (server, _relay, steady, token) = beside_a_bot("ffi-follow").await;
    let to = cohort_protocol::close::MovedTo::new(&server.addr, Some(&server.fingerprint)).unwrap();
    let (old_addr, old_fp) = moved_away(to);
    assert_ne!(old_fp, server.fingerprint, "another certificate there");
    let seen = tokio::task::spawn_blocking(move || {
        // Connected to where the match was, pinning that server's certificate.
        let o = options(&old_addr, &old_fp, None, &token);
        let mut client: CohortHandle = 0;
        assert_eq!(
            unsafe { cohort_client_connect(&o, &mut client) },
            CohortStatus::Ok
        );
        assert_eq!(cohort_client_reconnect_for(client, 120), CohortStatus::Ok);
        let mut seen = Vec::new();
        until(client, CohortEventKind::ConnectionLost, &mut seen);
        until(client, CohortEventKind::Joined, &mut seen);
        for _ in 0..5 {
            let t = until(client, CohortEventKind::TurnRun, &mut seen);
            assert_ne!(t.agrees, 0, "every turn agrees with the server");
        }
        assert_eq!(cohort_client_free(client), CohortStatus::Ok);
        seen
    })
    .await
    .unwrap();
    assert!(!seen.contains(&(CohortEventKind::ServerNotTrusted as i32)));
    server.stop().await.unwrap();
    cohort_tests::outcome(steady).await;
}
