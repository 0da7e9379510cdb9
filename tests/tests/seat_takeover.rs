//! A client process killed mid-match (SIGKILL: no goodbye, the server still holds its
//! connection) and started again takes its seat back: the server replaces the dead connection
//! (or, should the new process come after the server dropped the silent seat for lag, lets it
//! rejoin), the new process loads the snapshot and agrees on every later hash, and the other
//! player runs every turn. That a takeover is at once and the match never waits for it is the
//! lockstep core's rule, tested on its simulated clock
//! (`a_join_for_a_connected_seat_takes_it_over_at_once_and_the_match_never_waits`); here
//! nothing is timed: the match is stopped once the new process has run [`BACK_FOR`] turns.
//!
//! The clients are real processes: this test binary runs itself again as a client (the
//! `COHORT_SEAT_CHILD` variable says which seat), playing through `cohort_client::session`'s
//! `play_seat` — what `cohort bot` and `cohort play` run — and printing one JSON line per turn
//! as it runs it. Hence `harness = false`: `main` is either the test or a client.

use cohort_client::brain::{Brain, RandomBrain};
use cohort_client::core::{ClientCore, ClientOptions, Event};
use cohort_client::session::{play_seat, Pace};
use cohort_protocol::message::Role;
use cohort_sim::Ruleset;
use cohort_tests::*;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc};
use std::time::Duration;

const CHILD: &str = "COHORT_SEAT_CHILD";

/// Turns the new process runs before the match is stopped.
const BACK_FOR: usize = 60;

/// The doomed client is killed after running this many turns.
const KILL_AFTER_TURNS: usize = 80;

/// How long the killed client stays dead before it is started again.
const DEAD_FOR: Duration = Duration::from_millis(300);

/// The one test's name, as `cargo test` filters and lists it.
const NAME: &str = "a_killed_client_process_takes_its_seat_back";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        println!("{NAME}: test");
        return;
    }
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if !filters.is_empty() && !filters.iter().any(|f| NAME.contains(f.as_str())) {
        return;
    }
    match std::env::var(CHILD) {
        Ok(spec) => client(&spec),
        Err(_) => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async {
                tokio::time::timeout(TEST_LIMIT, a_killed_client_process_takes_its_seat_back())
                    .await
                    .expect("the test finished in time")
            });
            println!("test {NAME} ... ok");
        }
    }
}

/// A client process: plays the seat `ADDR FINGERPRINT TOKEN NAME SEED` names, printing
/// `{"turn":T,"hash":H}` after each turn and a last `{"done":…}` line.
fn client(spec: &str) {
    let [addr, fingerprint, token, name, seed]: [&str; 5] = spec
        .split(' ')
        .collect::<Vec<_>>()
        .try_into()
        .expect("ADDR FINGERPRINT TOKEN NAME SEED");
    let connect = cohort_client::session::Connect {
        server: addr.into(),
        auth: cohort_client::net::ServerAuth::fingerprint(fingerprint).unwrap(),
        server_name: "localhost".into(),
    };
    let options = ClientOptions {
        token: token.into(),
        name: name.into(),
        simulate: true,
        perturb_at_turn: None,
        perturb_at_tick: None,
    };
    let mut brain = RandomBrain::new(seed.parse().unwrap());
    let mut snapshot_agreed = None;
    let mut errors = Vec::new();
    let mut on_event = |core: &mut ClientCore, e: &Event| match e {
        Event::Turn(t) => {
            let line = serde_json::json!({
                "turn": t.turn,
                "hash": t.hash.map(|h| h.to_string()),
            });
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
            if let (Some(me), Some(world)) = (core.player(), core.world()) {
                let orders = brain.orders(t.turn, world, me);
                core.order(orders);
            }
        }
        Event::SnapshotChecked { agrees, .. } => snapshot_agreed = Some(*agrees),
        Event::ServerError { error, .. } => errors.push(format!("{:?}", error.code)),
        _ => {}
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let seat = runtime.block_on(play_seat(
        &connect,
        options,
        Arc::new(Ruleset::default_rules()),
        &Pace::default(),
        &mut None,
        &mut on_event,
    ));
    let done = serde_json::json!({
        "done": true,
        "error": seat.error,
        "hashes_disagreed": seat.tally.hashes_disagreed,
        "turns_run": seat.tally.turns_run,
        "snapshot_agreed": snapshot_agreed,
        "server_errors": errors,
    });
    println!("{done}");
}

/// What the test hears from its client processes: (which, the line).
type Heard = (usize, serde_json::Value);

fn start_client(
    server: &TestServer,
    which: usize,
    token: &str,
    seed: u64,
    heard: &mpsc::Sender<Heard>,
) -> Child {
    let spec = format!(
        "{} {} {token} client{which} {seed}",
        server.addr, server.fingerprint
    );
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, spec)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("a client process");
    let stdout = child.stdout.take().unwrap();
    let heard = heard.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let value = serde_json::from_str(&line).expect("a JSON line");
            if heard.send((which, value)).is_err() {
                break;
            }
        }
    });
    child
}

/// Every turn a client ran, with its hash.
#[derive(Default)]
struct Heards {
    turns: BTreeMap<usize, Vec<(u64, String)>>,
    done: BTreeMap<usize, serde_json::Value>,
}

impl Heards {
    fn take(&mut self, (which, v): Heard) {
        if let Some(turn) = v["turn"].as_u64() {
            let hash = v["hash"].as_str().unwrap().to_string();
            self.turns.entry(which).or_default().push((turn, hash));
        } else {
            self.done.insert(which, v);
        }
    }
}

async fn a_killed_client_process_takes_its_seat_back() {
    // No turn limit: the match runs until the test has seen what it needs, then is stopped.
    let server = TestServer::start("seat-takeover", &["--turn-ticks", "2"])
        .await
        .unwrap();
    let (tx, rx) = mpsc::channel::<Heard>();
    let (steady, doomed, reborn) = (0, 1, 2);
    let token = server.token("default", Role::Player(1));
    let mut steady_child = start_client(
        &server,
        steady,
        &server.token("default", Role::Player(0)),
        1,
        &tx,
    );
    let mut doomed_child = start_client(&server, doomed, &token, 2, &tx);

    // Let the doomed client play a while, then kill it: SIGKILL, no goodbye to the server.
    let mut heard = Heards::default();
    let rx = Arc::new(std::sync::Mutex::new(rx));
    let next = |rx: &Arc<std::sync::Mutex<mpsc::Receiver<Heard>>>| {
        let rx = rx.clone();
        async move {
            tokio::task::spawn_blocking(move || rx.lock().unwrap().recv_timeout(TEST_LIMIT))
                .await
                .unwrap()
                .expect("a client speaks")
        }
    };
    while heard.turns.get(&doomed).map_or(0, Vec::len) < KILL_AFTER_TURNS {
        heard.take(next(&rx).await);
    }
    doomed_child.kill().expect("the client is killed");
    let _ = doomed_child.wait();
    tokio::time::sleep(DEAD_FOR).await;
    let mut reborn_child = start_client(&server, reborn, &token, 3, &tx);
    drop(tx);
    while heard.turns.get(&reborn).map_or(0, Vec::len) < BACK_FOR {
        heard.take(next(&rx).await);
    }
    let summary = server.stop().await.unwrap();
    loop {
        heard.take(next(&rx).await);
        if heard.done.contains_key(&steady) && heard.done.contains_key(&reborn) {
            break;
        }
    }
    assert!(steady_child.wait().unwrap().success());
    assert!(reborn_child.wait().unwrap().success());
    let replay = the_replay(&summary);
    let recorded = replay.records.len() as u64;

    let reborn_turns = &heard.turns[&reborn];
    let first_back = reborn_turns[0].0;
    let done = &heard.done[&reborn];
    assert_eq!(done["error"], serde_json::Value::Null, "{done}");
    assert_eq!(done["snapshot_agreed"], true, "{done}");
    assert_eq!(done["hashes_disagreed"], 0, "{done}");
    assert_eq!(done["server_errors"], serde_json::json!([]), "{done}");
    let stats = &summary.matches[0].stats;
    assert_eq!(stats.desyncs, 0);
    // The seat came back once: taken over (the seat never changed hands in the sim: no
    // membership event after turn 0), or, had the server dropped it first, rejoined.
    let events: Vec<_> = replay.records[1..]
        .iter()
        .flat_map(|r| r.bundle.events.clone())
        .collect();
    match (stats.taken_over, stats.dropped, stats.rejoins) {
        (1, 0, 0) => assert_eq!(events, vec![], "a takeover changes no membership"),
        (0, 1, 1) => assert_eq!(events.len(), 2, "dropped, then joined: {events:?}"),
        other => panic!("the seat came back once (taken over, dropped, rejoined): {other:?}"),
    }
    println!(
        "the seat came back at turn {first_back} ({})",
        if stats.taken_over == 1 {
            "taken over"
        } else {
            "dropped for lag first, then rejoined"
        }
    );

    // Every turn any process ran agrees with the server's hash; the new one plays to the end.
    for (which, turns) in &heard.turns {
        for (turn, hash) in turns {
            let record = &replay.records[*turn as usize];
            assert_eq!(
                *hash,
                record.hash.to_string(),
                "client {which}, turn {turn}"
            );
        }
    }
    let turns: Vec<u64> = reborn_turns.iter().map(|t| t.0).collect();
    assert_eq!(
        turns,
        (first_back..first_back + turns.len() as u64).collect::<Vec<_>>()
    );
    assert!(turns.len() >= BACK_FOR && first_back + turns.len() as u64 <= recorded);

    // The other player ran every turn from the first, in order, through the kill and the
    // return.
    let steady_turns: Vec<u64> = heard.turns[&steady].iter().map(|t| t.0).collect();
    assert_eq!(
        steady_turns,
        (0..steady_turns.len() as u64).collect::<Vec<_>>()
    );
    assert!(steady_turns.len() as u64 > first_back);
}
