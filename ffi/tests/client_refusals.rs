//! What a client refuses itself, against a real server on loopback: an address without a port
//! and a missing CA file at connect (`INVALID_ARGUMENT`, at once), a certificate that is not
//! the pinned one (`SERVER_NOT_TRUSTED`, never "reconnect": `may_rejoin` 0), zero orders, 33
//! orders and an order naming no units (`INVALID_ARGUMENT`), a spectator's pause
//! (`REFUSED`, before anything is sent).

mod common;

use cohort_ffi::client::*;
use cohort_ffi::orders::{CohortCommand, CohortOrder};
use cohort_ffi::{CohortHandle, CohortStatus};
use cohort_protocol::message::Role;
use cohort_tests::TestServer;
use common::{last_error, options};

fn connect(o: &CohortConnectOptions) -> (CohortStatus, CohortHandle) {
    let mut h = 0;
    let s = unsafe { cohort_client_connect(o, &mut h) };
    (s, h)
}

/// Polls until an event other than `NONE` (at most 30 s).
fn next_event(client: CohortHandle) -> CohortEvent {
    let mut event = std::mem::MaybeUninit::<CohortEvent>::uninit();
    for _ in 0..300 {
        assert_eq!(cohort_client_wait(client, 100), CohortStatus::Ok);
        assert_eq!(
            unsafe { cohort_client_poll(client, event.as_mut_ptr()) },
            CohortStatus::Ok
        );
        let e = unsafe { event.assume_init() };
        if e.kind != CohortEventKind::None as i32 {
            return e;
        }
    }
    panic!("no event within 30 s");
}

fn text(e: &CohortEvent) -> String {
    String::from_utf8_lossy(&e.text[..e.text_len as usize]).to_string()
}

fn status(client: CohortHandle) -> CohortClientStatus {
    let mut s = CohortClientStatus::default();
    assert_eq!(
        unsafe { cohort_client_status(client, &mut s) },
        CohortStatus::Ok
    );
    s
}

fn stop(units: &[u64]) -> CohortOrder {
    common::order(CohortCommand::Stop, units)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permanent_failures_and_bad_orders_are_refused_not_retried() {
    let server = TestServer::start("ffi-refusals", &["--players", "2"])
        .await
        .expect("the server starts");
    let (addr, fp) = (server.addr.clone(), server.fingerprint.clone());
    let player = server.token("default", Role::Player(0));
    let spectator = server.token("default", Role::Spectator);
    tokio::task::spawn_blocking(move || {
        // HOST:PORT is checked at once.
        for bad in [
            "127.0.0.1",
            "127.0.0.1:",
            ":7676",
            "::1:7676",
            "[::1]:0",
            "host:99999",
        ] {
            let o = options(bad, &fp, None, &player);
            let (s, h) = connect(&o);
            assert_eq!(s, CohortStatus::InvalidArgument, "{bad}");
            assert!(
                last_error().contains("is not HOST:PORT"),
                "{bad}: {}",
                last_error()
            );
            assert_eq!(h, 0);
        }
        // Null with a length is refused everywhere, optional fields too.
        let mut o = options(&addr, &fp, None, &player);
        o.server_name_len = 9;
        assert_eq!(connect(&o).0, CohortStatus::NullPointer);
        assert!(
            last_error().contains("server_name is null with a length of 9"),
            "{}",
            last_error()
        );
        // A CA file that is missing is the caller's mistake, said at once.
        let o = options(&addr, &fp, Some("/nonexistent/ca.pem"), &player);
        assert_eq!(connect(&o).0, CohortStatus::InvalidArgument);
        assert!(last_error().contains("ca_file"), "{}", last_error());

        // Another certificate than the pinned one: its own kind, and never "reconnect".
        let wrong = "ab".repeat(32);
        let o = options(&addr, &wrong, None, &player);
        let (s, client) = connect(&o);
        assert_eq!(s, CohortStatus::Ok);
        let e = next_event(client);
        assert_eq!(
            e.kind,
            CohortEventKind::ServerNotTrusted as i32,
            "{}",
            text(&e)
        );
        let st = status(client);
        assert_eq!((st.phase, st.may_rejoin), (CohortPhase::Over as i32, 0));
        assert_eq!(cohort_client_free(client), CohortStatus::Ok);

        // A player: zero orders, 33 orders and an order naming no units are refused.
        let o = options(&addr, &fp, None, &player);
        let (s, client) = connect(&o);
        assert_eq!(s, CohortStatus::Ok, "{}", last_error());
        let e = next_event(client);
        assert_eq!(e.kind, CohortEventKind::Joined as i32, "{}", text(&e));
        let mine = [406u64];
        let one = stop(&mine);
        assert_eq!(
            unsafe { cohort_client_order(client, &one, 1) },
            CohortStatus::Ok,
            "{}",
            last_error()
        );
        assert_eq!(
            unsafe { cohort_client_order(client, &one, 0) },
            CohortStatus::InvalidArgument
        );
        assert!(
            last_error().contains("1 to 32 orders, not 0"),
            "{}",
            last_error()
        );
        let many = vec![one; 33];
        assert_eq!(
            unsafe { cohort_client_order(client, many.as_ptr(), 33) },
            CohortStatus::InvalidArgument
        );
        assert!(
            last_error().contains("1 to 32 orders, not 33"),
            "{}",
            last_error()
        );
        let none = stop(&[]);
        assert_eq!(
            unsafe { cohort_client_order(client, &none, 1) },
            CohortStatus::InvalidArgument
        );
        assert!(last_error().contains("not none"), "{}", last_error());
        let before = status(client).commands_sent;

        // A spectator's pause is refused here; the player's goes out.
        let o = options(&addr, &fp, None, &spectator);
        let (s, watcher) = connect(&o);
        assert_eq!(s, CohortStatus::Ok);
        let e = next_event(watcher);
        assert_eq!(e.kind, CohortEventKind::Joined as i32, "{}", text(&e));
        assert_eq!(e.player, -1);
        assert_eq!(cohort_client_pause(watcher), CohortStatus::Refused);
        assert!(last_error().contains("spectator"), "{}", last_error());
        assert_eq!(cohort_client_resume(watcher), CohortStatus::Refused);
        let line = "pause";
        assert_eq!(
            unsafe { cohort_client_line(watcher, line.as_ptr(), line.len()) },
            CohortStatus::Refused
        );
        assert_eq!(cohort_client_pause(client), CohortStatus::Ok);
        assert_eq!(
            status(client).commands_sent,
            before,
            "the refused orders sent nothing"
        );
        assert_eq!(cohort_client_free(watcher), CohortStatus::Ok);
        assert_eq!(cohort_client_free(client), CohortStatus::Ok);
    })
    .await
    .expect("the client half");
    let _ = server.stop().await;
}
