//! The admin API over real HTTP, with real QUIC bots on 127.0.0.1: it refuses a missing or
//! wrong admin token and bad bodies; a match it creates is joined with the tokens it answers
//! and played to its end, and the match's summary reaches a real webhook listener (after one
//! refused attempt: the retry); list and end work on a running match; every end answer and
//! every read after it carries the summary; every error is JSON naming its field. Every answer
//! any of these tests receives is validated against docs/admin-openapi.yaml
//! (`cohort_tests::openapi`): a change to the answers the file does not make too fails here.

use axum::http::StatusCode;
use cohort_client::brain::RandomBrain;
use cohort_client::net::ServerAuth;
use cohort_client::session::{run_bot, BotOutcome, Connect};
use cohort_protocol::message::EndReason;
use cohort_protocol::replay::read_replay;
use cohort_sim::Ruleset;
use cohort_tests::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

const ADMIN_TOKEN: &str = "an-admin-token-for-the-tests";

/// Starts a server with the admin API on a free port (its token read from a file).
async fn admin_server(name: &str, flags: &[&str]) -> (TestServer, Api) {
    let dir = std::env::temp_dir().join(format!("cohort-admin-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let token_file = dir.join("admin-token");
    std::fs::write(&token_file, format!("{ADMIN_TOKEN}\n")).unwrap();
    let mut all = vec![
        "--admin",
        "127.0.0.1:0",
        "--admin-token-file",
        token_file.to_str().unwrap(),
    ];
    all.extend_from_slice(flags);
    let server = TestServer::start(name, &all).await.unwrap();
    let api = Api {
        base: format!("http://{}", server.admin.expect("the admin address")),
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap(),
    };
    (server, api)
}

#[derive(Clone)]
struct Api {
    base: String,
    http: reqwest::Client,
}

/// An answer: its status, its body (JSON, or the text as a JSON string), its headers (names
/// in lower case).
struct Answer {
    status: StatusCode,
    body: Value,
    headers: BTreeMap<String, String>,
}

impl Api {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<String>,
    ) -> (StatusCode, Value) {
        let auth = token.map(|t| format!("Bearer {t}"));
        let a = self
            .raw(method, path, auth.as_deref(), body.map(String::into_bytes))
            .await;
        (a.status, a.body)
    }

    /// Sends a request with `Authorization: <auth>` as given and `body` as bytes; the answer,
    /// checked against docs/admin-openapi.yaml (its status, headers and body documented for
    /// the path and method) — any answer that is not fails the test.
    async fn raw(
        &self,
        method: reqwest::Method,
        path: &str,
        auth: Option<&str>,
        body: Option<Vec<u8>>,
    ) -> Answer {
        let mut r = self
            .http
            .request(method.clone(), format!("{}{path}", self.base));
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        if let Some(b) = body {
            r = r.header("content-type", "application/json").body(b);
        }
        let answer = r.send().await.expect("the admin API answers");
        let status = StatusCode::from_u16(answer.status().as_u16()).unwrap();
        let headers: BTreeMap<String, String> = answer
            .headers()
            .iter()
            .map(|(k, v)| {
                let v = String::from_utf8_lossy(v.as_bytes()).into_owned();
                (k.as_str().to_string(), v)
            })
            .collect();
        let bytes = answer.bytes().await.unwrap();
        if let Err(e) = openapi::contract().check_answer(
            method.as_str(),
            path,
            status.as_u16(),
            &headers,
            &bytes,
        ) {
            panic!("the answer is not as docs/admin-openapi.yaml says: {e}");
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Answer {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
            headers,
        }
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call(reqwest::Method::GET, path, Some(ADMIN_TOKEN), None)
            .await
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(
            reqwest::Method::POST,
            path,
            Some(ADMIN_TOKEN),
            Some(body.to_string()),
        )
        .await
    }
}

/// Bots for every slot of a created match, connecting where and as the API said.
fn bots_for(created: &Value) -> Vec<JoinHandle<BotOutcome>> {
    let connect = Connect {
        server: created["address"].as_str().unwrap().to_string(),
        auth: ServerAuth::fingerprint(created["fingerprint"].as_str().unwrap()).unwrap(),
        server_name: "localhost".into(),
    };
    created["tokens"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let plan = plan(
                t.as_str().unwrap().to_string(),
                &format!("bot{i}"),
                Box::new(RandomBrain::new(i as u64 + 7)),
            );
            let connect = connect.clone();
            tokio::spawn(async move {
                run_bot(&connect, plan, Arc::new(Ruleset::default_rules())).await
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_wrong_token_and_bad_bodies_are_refused() {
    let (server, api) = admin_server("refusals", &[]).await;
    let (status, body) = api
        .call(reqwest::Method::GET, "/v1/matches", None, None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    let (status, body) = api
        .call(
            reqwest::Method::GET,
            "/v1/matches",
            Some("not-the-token"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let wrong_token_create = api
        .call(
            reqwest::Method::POST,
            "/v1/matches",
            Some("not-the-token"),
            Some(json!({"id": "x"}).to_string()),
        )
        .await;
    assert_eq!(wrong_token_create.0, StatusCode::FORBIDDEN);
    for (body, field) in [
        (json!({"id": "a", "players": "four"}), "players"),
        (json!({"id": "a", "players": 9}), "players"),
        (json!({"id": "no spaces"}), "id"),
        (json!({"id": "a", "colour": "red"}), "colour"),
        (json!({"players": 2}), "id"),
        (json!({"id": "a", "map_size": 8}), "map_size"),
        (json!({"id": "a", "input_delay": 99}), "input_delay"),
        (json!({"id": "a", "names": ["A", "B", "C"]}), "names"),
    ] {
        let (status, answer) = api.post("/v1/matches", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body} → {answer}");
        assert_eq!(answer["field"], field, "{body} → {answer}");
        assert_eq!(answer["error"], "bad_request");
    }
    let (status, answer) = api
        .call(
            reqwest::Method::POST,
            "/v1/matches",
            Some(ADMIN_TOKEN),
            Some("{not json".into()),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    let huge = json!({"id": "a", "names": ["x".repeat(20_000)]});
    let (status, answer) = api.post("/v1/matches", huge).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{answer}");
    let (status, _) = api.get("/v1/matches/none-such").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, about) = api.get("/v1/server").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(about["public"]["fingerprint"], server.fingerprint);
    assert_eq!(about["max_matches"], 64);
    // Nothing was created by any of it.
    let (status, list) = api.get("/v1/matches").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["matches"], json!([]));
    server.stop().await.unwrap();
}

/// The secret the webhook's posts are signed with.
const WEBHOOK_SECRET: &str = "a-webhook-signing-secret";

/// A webhook receiver: refuses the first delivery (503), takes the later ones; sends each
/// body it took, with its attempt header, down the channel — once its signature checks out.
async fn webhook_listener() -> (String, mpsc::UnboundedReceiver<(String, Value)>) {
    use axum::routing::post;
    let (tx, rx) = mpsc::unbounded_channel();
    let refused_once = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let app = axum::Router::new().route(
        "/hook",
        post(move |headers: axum::http::HeaderMap, body: String| {
            let tx = tx.clone();
            let refused_once = refused_once.clone();
            async move {
                if !refused_once.swap(true, std::sync::atomic::Ordering::SeqCst) {
                    return StatusCode::SERVICE_UNAVAILABLE;
                }
                let header = |name: &str| {
                    headers
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string()
                };
                let signed = cohort_server::driver::webhook::signature(
                    WEBHOOK_SECRET.as_bytes(),
                    body.as_bytes(),
                );
                if header("cohort-signature") != signed {
                    return StatusCode::UNAUTHORIZED;
                }
                let attempt = header("cohort-delivery-attempt");
                let _ = tx.send((attempt, serde_json::from_str(&body).unwrap_or_default()));
                StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, rx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_created_through_the_api_is_played_and_its_summary_posted() {
    let (hook, mut delivered) = webhook_listener().await;
    let secret_file =
        std::env::temp_dir().join(format!("cohort-webhook-secret-{}", std::process::id()));
    std::fs::write(&secret_file, WEBHOOK_SECRET).unwrap();
    let (server, api) = admin_server(
        "played",
        &[
            "--webhook",
            &hook,
            "--webhook-secret-file",
            secret_file.to_str().unwrap(),
        ],
    )
    .await;
    let spec = json!({
        "id": "duel", "players": 2, "names": ["Ana", "Bo"], "turn_ticks": 2, "max_turns": 40
    });
    let (status, created) = api.post("/v1/matches", spec.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["fingerprint"], server.fingerprint);
    assert_eq!(created["address"], server.addr);
    assert_eq!(created["view"]["state"], "waiting");
    assert_eq!(created["tokens"]["players"].as_array().unwrap().len(), 2);
    assert!(created["tokens"]["spectator"].is_string());
    let (status, again) = api.post("/v1/matches", spec).await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    for bot in bots_for(&created) {
        let o = outcome(bot).await;
        assert_eq!(o.ended.map(|e| e.reason), Some(EndReason::TurnLimit));
        assert_eq!(o.tally.turns_run, 40);
        assert_eq!(o.tally.hashes_disagreed, 0);
    }
    let (attempt, summary) = tokio::time::timeout(TEST_LIMIT, delivered.recv())
        .await
        .expect("the webhook was called in time")
        .unwrap();
    assert_eq!(
        attempt, "2",
        "the first attempt was refused, the second taken"
    );
    assert_eq!(summary["match_id"], "duel");
    assert_eq!(summary["reason"], "turn_limit");
    assert_eq!(summary["turns"], 40);
    assert_eq!(summary["desyncs"], 0);
    assert_eq!(summary["sim_panicked"], false);
    assert_eq!(summary["reports"], json!([]));
    let players = summary["players"].as_array().unwrap();
    assert_eq!(players.len(), 2);
    assert_eq!(players[1]["name"], "Bo");
    assert!(
        players.iter().all(|p| p["leave_reason"].is_null()),
        "{summary}"
    );
    let replay = read_replay(&std::fs::read(summary["replay"].as_str().unwrap()).unwrap()).unwrap();
    assert_eq!(replay.records.len(), 40);
    // The same summary is in the API.
    let (status, view) = api.get("/v1/matches/duel").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(view["state"], "ended");
    assert_eq!(view["summary"], summary);
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_and_end_work_on_a_running_match() {
    let (server, api) = admin_server("end", &["--max-matches", "1"]).await;
    let (status, created) = api
        .post("/v1/matches", json!({"id": "long", "turn_ticks": 2}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (status, full) = api.post("/v1/matches", json!({"id": "more"})).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{full}");
    assert_eq!(full["error"], "too_many_matches");
    let bots = bots_for(&created);
    // Wait until it runs with both players, some turns in.
    let deadline = tokio::time::Instant::now() + TEST_LIMIT;
    let listed = loop {
        let (_, list) = api.get("/v1/matches").await;
        let m = list["matches"][0].clone();
        if m["state"] == "running" && m["players_connected"] == 2 && m["turn"].as_u64() > Some(10) {
            break m;
        }
        assert!(tokio::time::Instant::now() < deadline, "{list}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(listed["match_id"], "long");
    assert_eq!(listed["desyncs"], 0);
    let (status, ended) = api
        .call(
            reqwest::Method::POST,
            "/v1/matches/long/end",
            Some(ADMIN_TOKEN),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{ended}");
    assert_eq!(ended["state"], "ended");
    let summary = &ended["summary"];
    assert_eq!(summary["reason"], "operator");
    let turns = summary["turns"].as_u64().unwrap();
    assert!(turns > 10, "{summary}");
    for bot in bots {
        let o = outcome(bot).await;
        let end = o.ended.expect("the bot was told");
        assert_eq!(end.reason, EndReason::Operator);
        assert_eq!(end.last_turn + 1, turns, "the open turn was played");
    }
    let replay = read_replay(&std::fs::read(summary["replay"].as_str().unwrap()).unwrap()).unwrap();
    assert_eq!(
        replay.records.len() as u64,
        turns,
        "every turn played is in the replay"
    );
    // Ending it again answers the same; a new match fits now that it has ended.
    let (status, again) = api
        .call(
            reqwest::Method::POST,
            "/v1/matches/long/end",
            Some(ADMIN_TOKEN),
            None,
        )
        .await;
    assert_eq!((status, &again["summary"]), (StatusCode::OK, summary));
    let (status, _) = api.post("/v1/matches", json!({"id": "more"})).await;
    assert_eq!(status, StatusCode::CREATED);
    server.stop().await.unwrap();
}

/// A webhook receiver that takes every post at once (204); how many it took.
async fn webhook_taker() -> (String, Arc<std::sync::atomic::AtomicU64>) {
    use axum::routing::post;
    let taken = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = taken.clone();
    let app = axum::Router::new().route(
        "/hook",
        post(move || {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, taken)
}

/// Matches created and ended, one after the other, in the test below.
const ENDS: usize = 60;

/// The most reads of one match while it is being ended (each a loopback HTTP request).
const READS: usize = 5_000;

/// Reads the match at `path` until it has ended with its summary (at most [`READS`] times);
/// how many reads saw it ended without its summary.
fn reader(api: &Api, path: String) -> JoinHandle<usize> {
    let api = api.clone();
    tokio::spawn(async move {
        let mut unsummed = 0;
        for _ in 0..READS {
            let (status, m) = api.get(&path).await;
            assert_eq!(status, StatusCode::OK, "{m}");
            if m["state"] == "ended" {
                if !m["summary"].is_null() {
                    break;
                }
                unsummed += 1;
            }
        }
        unsummed
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_end_answer_and_every_read_after_it_carry_the_summary() {
    let (hook, taken) = webhook_taker().await;
    // The server runs on a runtime of its own, as in its own process (two worker threads, as
    // on a two-core machine): its match tasks and its HTTP handlers run beside each other and
    // beside the test's reads, not queued behind one another on the test's threads.
    let apart = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (server, api) = apart
        .spawn(async move { admin_server("ends", &["--webhook", &hook]).await })
        .await
        .unwrap();
    let (mut missing, mut unsummed_reads) = (Vec::new(), 0);
    for i in 0..ENDS {
        let id = format!("e{i}");
        let (status, created) = api.post("/v1/matches", json!({ "id": id })).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        // Reads of the match while it ends: each one that finds it ended finds its summary.
        // (`Api::raw` holds every answer to the contract as well: an end's 200 is an
        // EndedMatch, and a Match has its summary exactly when it has ended.)
        let reads = reader(&api, format!("/v1/matches/{id}"));
        let (status, ended) = api
            .call(
                reqwest::Method::POST,
                &format!("/v1/matches/{id}/end"),
                Some(ADMIN_TOKEN),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{ended}");
        assert_eq!(ended["state"], "ended", "{ended}");
        unsummed_reads += reads.await.unwrap();
        if ended["summary"].is_null() {
            missing.push(i);
            continue;
        }
        assert_eq!(ended["summary"]["reason"], "operator", "{ended}");
        assert_eq!(ended["summary"]["match_id"], id.as_str(), "{ended}");
        let (status, read) = api.get(&format!("/v1/matches/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{read}");
        assert_eq!(read["summary"], ended["summary"], "{read}");
    }
    assert_eq!(
        (missing, unsummed_reads),
        (Vec::new(), 0),
        "end answers without their summary, and reads that found a match ended without it"
    );
    // An ended match's id stays taken while the match is kept (ENDED_KEPT).
    let (status, again) = api.post("/v1/matches", json!({"id": "e0"})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    assert_eq!(again["error"], "match_exists");
    let (_, list) = api.get("/v1/matches").await;
    assert_eq!(list["matches"].as_array().unwrap().len(), ENDS);
    server.stop().await.unwrap();
    apart.shutdown_background();
    assert_eq!(
        taken.load(std::sync::atomic::Ordering::SeqCst),
        ENDS as u64,
        "every summary was posted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_is_json_and_names_its_field() {
    let (server, api) = admin_server("errors", &[]).await;
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let auth = Some(bearer.as_str());
    let long = "x".repeat(33);
    for (body, field) in [
        (
            json!({"id": "a", "names": ["Ana", long]})
                .to_string()
                .into_bytes(),
            "names[1]",
        ),
        (
            json!({"id": "a", "names": ["Ana", ""]})
                .to_string()
                .into_bytes(),
            "names[1]",
        ),
        (
            b"{\"id\":\"a\",\"names\":[\"Ana\",\"\xff\"]}".to_vec(),
            "names[1]",
        ),
        (
            br#"{"id":"a","names":["Ana","\ud800"]}"#.to_vec(),
            "names[1]",
        ),
        (
            json!({"id": "a", "teams": [1, 300]})
                .to_string()
                .into_bytes(),
            "teams[1]",
        ),
        (b"42".to_vec(), "(body)"),
        (br#"["a", 2]"#.to_vec(), "(body)"),
        (b"null".to_vec(), "(body)"),
        (Vec::new(), "(body)"),
        (br#"{"id": "a","#.to_vec(), "(body)"),
        (br#"{"id": "a", "names": ["Ana""#.to_vec(), "(body)"),
        (b"{\xff\xfe}".to_vec(), "(body)"),
        (b"{not json".to_vec(), "(body)"),
    ] {
        let shown = String::from_utf8_lossy(&body).into_owned();
        let a = api
            .raw(reqwest::Method::POST, "/v1/matches", auth, Some(body))
            .await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{shown} → {}", a.body);
        assert_eq!(a.body["error"], "bad_request", "{shown} → {}", a.body);
        assert_eq!(a.body["field"], field, "{shown} → {}", a.body);
        let message = a.body["message"].as_str().unwrap();
        assert!(
            !message.contains("FileMatch") && !message.contains("struct"),
            "{shown} → {message}"
        );
    }
    // A method a path does not have: 405, JSON, the methods it has in `Allow`.
    for (method, path, allowed) in [
        (reqwest::Method::DELETE, "/v1/matches", "POST"),
        (reqwest::Method::GET, "/v1/matches/a/end", "POST"),
        (reqwest::Method::PUT, "/v1/server", "GET"),
        (reqwest::Method::POST, "/v1/matches/a", "GET"),
    ] {
        let a = api.raw(method.clone(), path, auth, None).await;
        assert_eq!(a.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert_eq!(a.body["error"], "method_not_allowed", "{}", a.body);
        assert!(a.headers["allow"].contains(allowed), "{:?}", a.headers);
    }
    // An id that is not UTF-8 once percent-decoded: 400 naming it, in JSON.
    for (method, path) in [
        (reqwest::Method::GET, "/v1/matches/%FF"),
        (reqwest::Method::POST, "/v1/matches/%C3%28/end"),
    ] {
        let a = api.raw(method, path, auth, None).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{path} → {}", a.body);
        assert_eq!(a.body["field"], "id", "{path} → {}", a.body);
        assert_eq!(a.headers["content-type"], "application/json");
    }
    // A path the API does not have; an id that names no match.
    let a = api
        .raw(reqwest::Method::GET, "/v2/matches", auth, None)
        .await;
    assert_eq!(
        (a.status, &a.body["error"]),
        (StatusCode::NOT_FOUND, &json!("not_found"))
    );
    let a = api
        .raw(reqwest::Method::GET, "/v1/matches/%20", auth, None)
        .await;
    assert_eq!(a.body["error"], "unknown_match", "{}", a.body);
    // The scheme's name in any case (RFC 9110: case-insensitive); another scheme is none.
    for scheme in ["bearer", "BEARER", "bEaReR"] {
        let header = format!("{scheme} {ADMIN_TOKEN}");
        let a = api
            .raw(reqwest::Method::GET, "/v1/server", Some(&header), None)
            .await;
        assert_eq!(a.status, StatusCode::OK, "{header} → {}", a.body);
    }
    for header in [
        format!("Basic {ADMIN_TOKEN}"),
        "Bearer".into(),
        ADMIN_TOKEN.into(),
    ] {
        let a = api
            .raw(reqwest::Method::GET, "/v1/server", Some(&header), None)
            .await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{header} → {}", a.body);
        assert_eq!(a.headers["www-authenticate"], "Bearer");
    }
    // A wrong token is refused before the method or the path is looked at.
    let a = api
        .raw(
            reqwest::Method::DELETE,
            "/v2/x",
            Some("Bearer not-the-token"),
            None,
        )
        .await;
    assert_eq!(a.status, StatusCode::FORBIDDEN, "{}", a.body);
    // A request that is not HTTP/1.1 is the HTTP library's to answer (docs/OPERATIONS.md says
    // so): a bare 400, and the connection closed.
    let raw = {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(server.admin.unwrap())
            .await
            .unwrap();
        s.write_all(b"NOT HTTP AT ALL\r\n\r\n").await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut answer))
            .await
            .expect("the connection is closed")
            .unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    };
    assert!(raw.starts_with("HTTP/1.1 400 "), "{raw}");
    assert!(raw.contains("content-length: 0\r\n"), "{raw}");
    // Nothing was created by any of it.
    let (_, list) = api.get("/v1/matches").await;
    assert_eq!(list["matches"], json!([]));
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspended_match_is_taken_up_again_and_its_players_come_back() {
    let (server, api) = admin_server("suspend", &[]).await;
    let (status, created) = api
        .post("/v1/matches", json!({"id": "kept", "turn_ticks": 2}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let bots = bots_for(&created);
    let deadline = tokio::time::Instant::now() + TEST_LIMIT;
    while api.get("/v1/matches/kept").await.1["turn"].as_u64() < Some(20) {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let post = |path: &'static str| {
        let api = api.clone();
        async move {
            api.call(reqwest::Method::POST, path, Some(ADMIN_TOKEN), None)
                .await
        }
    };
    let (status, suspended) = post("/v1/matches/kept/suspend").await;
    assert_eq!(status, StatusCode::OK, "{suspended}");
    assert_eq!(suspended["summary"]["reason"], "suspended");
    let (status, again) = post("/v1/matches/kept/suspend").await;
    assert_eq!(
        (status, &again["error"]),
        (StatusCode::CONFLICT, &json!("match_ended"))
    );
    // Where it went: a bad address or fingerprint is refused naming its key; a good one, for a
    // match suspended already, is only noted (here the same server: its clients come back).
    let here = created["address"].as_str().unwrap();
    for (body, field) in [
        (json!({"fingerprint": "ab".repeat(32)}), "address"),
        (json!({"address": "no-port"}), "address"),
        (
            json!({"address": here, "fingerprint": "xyz"}),
            "fingerprint",
        ),
        (json!({"address": here, "to": 1}), "(body)"),
    ] {
        let (status, refused) = api.post("/v1/matches/kept/suspend", body).await;
        assert_eq!(
            (status, refused["field"].as_str()),
            (StatusCode::BAD_REQUEST, Some(field)),
            "{refused}"
        );
    }
    let (status, told) = api
        .post("/v1/matches/kept/suspend", json!({"address": here}))
        .await;
    assert_eq!(status, StatusCode::OK, "{told}");
    assert_eq!(told["summary"]["reason"], "suspended");
    let replay = std::path::PathBuf::from(suspended["summary"]["replay"].as_str().unwrap());
    let name = replay.file_name().unwrap().to_str().unwrap().to_string();
    let put = |name: String, bytes: Vec<u8>| {
        let api = api.clone();
        async move {
            let path = format!("/v1/replays/{name}");
            let auth = format!("Bearer {ADMIN_TOKEN}");
            let a = api
                .raw(reqwest::Method::PUT, &path, Some(&auth), Some(bytes))
                .await;
            (a.status, a.body)
        }
    };
    let (status, bad) = put("x.txt".into(), vec![1]).await;
    assert_eq!(
        (status, &bad["field"]),
        (StatusCode::BAD_REQUEST, &json!("name"))
    );
    let (status, there) = put(name.clone(), std::fs::read(&replay).unwrap()).await;
    assert_eq!(
        (status, &there["error"]),
        (StatusCode::CONFLICT, &json!("file_exists"))
    );
    let (status, copied) = put("copy-1.cohort-replay".into(), vec![0; 40_000]).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "{copied}: over the 16 KiB of other bodies"
    );
    let (status, refused) = api
        .post("/v1/resume", json!({"replay": "copy-1.cohort-replay"}))
        .await;
    assert_eq!(
        (status, &refused["error"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!("replay_refused"))
    );
    let (status, none) = api
        .post("/v1/resume", json!({"replay": "none.cohort-replay"}))
        .await;
    assert_eq!(
        (status, &none["error"]),
        (StatusCode::NOT_FOUND, &json!("unknown_file"))
    );
    let (status, resumed) = api.post("/v1/resume", json!({"replay": name})).await;
    assert_eq!(status, StatusCode::CREATED, "{resumed}");
    assert_eq!(resumed["view"]["state"], "resuming");
    // The bots, closed at the suspension, come back by themselves and the match goes on.
    let back = loop {
        let (_, m) = api.get("/v1/matches/kept").await;
        if m["state"] == "running"
            && m["turn"].as_u64() > suspended["turn"].as_u64().map(|t| t + 10)
        {
            break m;
        }
        assert!(tokio::time::Instant::now() < deadline, "{m}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(back["players_connected"], 2);
    let (status, ended) = post("/v1/matches/kept/end").await;
    assert_eq!(status, StatusCode::OK, "{ended}");
    for bot in bots {
        let o = outcome(bot).await;
        assert_eq!(o.ended.map(|e| e.reason), Some(EndReason::Operator));
        assert!(o.reconnects >= 1 && o.tally.hashes_disagreed == 0, "{o:?}");
    }
    let whole = read_replay(&std::fs::read(&replay).unwrap()).unwrap();
    assert_eq!(
        whole.records.len() as u64,
        ended["summary"]["turns"].as_u64().unwrap()
    );
    server.stop().await.unwrap();
}
