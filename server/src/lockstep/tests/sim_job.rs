//! The server's sim as a job (`sim_job`): the lockstep never waits for it. The harness holds a
//! job out as long as a test likes, on the simulated clock, with no thread.

use super::*;

/// A client's world: the configuration's, run through every bundle it was sent.
struct ClientWorld {
    world: World,
    turn_ticks: u32,
    hashes: Vec<StateHash>,
}

impl ClientWorld {
    fn of(h: &Harness) -> ClientWorld {
        ClientWorld {
            world: h.m.config().world(h.rules.clone()).unwrap(),
            turn_ticks: h.m.config().turn_ticks,
            hashes: Vec::new(),
        }
    }

    fn run(&mut self, bundles: &[TurnBundle]) {
        for b in bundles {
            assert_eq!(b.turn, self.hashes.len() as u64, "bundles in order");
            run_bundle(&mut self.world, b, self.turn_ticks);
            self.hashes.push(self.world.hash());
        }
    }
}

/// A match whose first turn closed and whose sim job (turn 0) is out, held by the test.
fn with_a_job_out() -> (Harness, SimJob) {
    let mut h = Harness::started(2);
    h.auto_sim = false;
    h.turns(1);
    let job = h.m.sim_job().expect("turn 0 closed");
    assert!(h.m.sim_out());
    assert!(h.m.sim_job().is_none(), "one job at a time");
    (h, job)
}

#[test]
fn turns_close_on_time_while_a_sim_job_is_out() {
    let (mut h, job) = with_a_job_out();
    h.turns(6);
    let turns: Vec<u64> = h.bundles(1).iter().map(|b| b.turn).collect();
    assert_eq!(turns, (0..7).collect::<Vec<_>>(), "every turn closed");
    assert!(
        h.m.stats().close_lateness_us.iter().all(|&l| l == 0),
        "each on its deadline"
    );
    assert_eq!(h.m.turns_run(), 0);
    assert_eq!(h.m.sim_behind(), 7);
    assert!(h.m.world().is_none(), "the world is with the job");
    assert!(h.replay.is_empty(), "a turn is recorded once run");
    h.m.sim_done(h.now, job.run());
    h.drain();
    assert_eq!(h.m.turns_run(), 1);
    // The turns closed meanwhile go out in the next job, all at once.
    let next = h.m.sim_job().expect("turns 1 to 6");
    assert_eq!(next.turns(), 6);
    h.m.sim_done(h.now, next.run());
    h.drain();
    assert_eq!(h.m.turns_run(), 7);
    assert!(resimulates(&h));
}

#[test]
fn hashes_are_compared_when_the_job_comes_back() {
    let (mut h, job) = with_a_job_out();
    h.turns(2);
    let mut client = ClientWorld::of(&h);
    client.run(&h.bundles(1));
    for t in 0..3 {
        let hash = client.hashes[t as usize];
        h.send(1, ClientMessage::TurnHash(TurnHash { turn: t, hash }));
    }
    assert_eq!(h.m.stats().hashes_compared, 0, "no server hash yet");
    h.m.sim_done(h.now, job.run());
    h.drain();
    assert_eq!(h.m.stats().hashes_compared, 1, "turn 0's");
    h.m.simulate();
    h.drain();
    assert_eq!(h.m.stats().hashes_compared, 3);
    assert_eq!(h.m.stats().desyncs, 0);
}

#[test]
fn a_desync_is_still_caught_on_its_turn_when_the_job_comes_back() {
    let (mut h, job) = with_a_job_out();
    h.turns(3);
    let mut client = ClientWorld::of(&h);
    client.run(&h.bundles(1));
    let good = client.hashes[2];
    let mut bad = good;
    bad.0[0] ^= 1;
    h.send(2, ClientMessage::TurnHash(TurnHash { turn: 2, hash: bad }));
    h.send(
        1,
        ClientMessage::TurnHash(TurnHash {
            turn: 2,
            hash: good,
        }),
    );
    assert_eq!(h.m.stats().desyncs, 0);
    h.m.sim_done(h.now, job.run());
    h.m.simulate();
    h.drain();
    assert_eq!(h.m.stats().desyncs, 1);
    let notice = h
        .take(1)
        .into_iter()
        .find_map(|m| match m {
            ServerMessage::DesyncNotice(n) => Some(n),
            _ => None,
        })
        .expect("everyone is told");
    assert_eq!((notice.turn, notice.players), (2, vec![1]));
    assert_eq!(notice.server_hash, good);
    // The diverging client is asked for its evidence of that turn, with the tick hashes.
    assert!(h.take(2).iter().any(|m| matches!(
        m,
        ServerMessage::SnapshotRequest { turn: 2, tick_hashes } if !tick_hashes.is_empty()
    )));
}

#[test]
fn a_sim_that_falls_behind_is_measured_and_warned_once() {
    let (mut h, job) = with_a_job_out();
    h.turns(SIM_BEHIND_WARN_TURNS + 3);
    assert_eq!(h.m.stats().sim_behind_max, SIM_BEHIND_WARN_TURNS + 4);
    assert_eq!(h.m.stats().sim_behind_warnings, 1);
    assert_eq!(
        h.bundles(1).len() as u64,
        SIM_BEHIND_WARN_TURNS + 4,
        "no bundle waited"
    );
    h.m.sim_done(h.now, job.run());
    h.m.simulate();
    h.drain();
    assert_eq!(h.m.sim_behind(), 0);
    // Caught up, then behind again: warned again.
    let job = h.m.sim_job();
    assert!(job.is_none());
    h.turns(1);
    let job = h.m.sim_job().unwrap();
    h.turns(SIM_BEHIND_WARN_TURNS + 1);
    assert_eq!(h.m.stats().sim_behind_warnings, 2);
    h.m.sim_done(h.now, job.run());
}

#[test]
fn a_join_waits_for_the_world_then_gets_the_turns_not_yet_run() {
    let (mut h, job) = with_a_job_out();
    h.event(Event::Disconnected { peer: 2 });
    h.turns(2);
    let hello = h.hello();
    h.event(Event::Join {
        peer: 3,
        role: Role::Player(1),
        hello,
    });
    h.send(3, ClientMessage::Ping(Ping { nonce: 9 }));
    assert!(h.take(3).is_empty(), "waits for the world");
    h.m.sim_done(h.now, job.run());
    h.drain();
    let got = h.take(3);
    let ServerMessage::JoinAccepted(accepted) = &got[0] else {
        panic!("{got:?}")
    };
    assert_eq!(accepted.next_turn, 1, "from the turns run");
    assert!(accepted.snapshot_follows);
    let mut bytes = Vec::new();
    let mut bundles = Vec::new();
    for m in &got[1..] {
        match m {
            ServerMessage::Snapshot(c) => {
                assert_eq!(c.turn, 0);
                bytes.extend_from_slice(&c.bytes);
            }
            ServerMessage::TurnBundle(b) => bundles.push(b.clone()),
            ServerMessage::Pong(p) => assert_eq!(p.nonce, 9, "what it said meanwhile, after"),
            other => panic!("{other:?}"),
        }
    }
    let turns: Vec<u64> = bundles.iter().map(|b| b.turn).collect();
    assert_eq!(turns, vec![1, 2], "the closed turns the sim has not run");
    let mut w = World::from_snapshot(h.rules.clone(), decode_snapshot(&bytes).unwrap()).unwrap();
    for b in &bundles {
        run_bundle(&mut w, b, h.m.config().turn_ticks);
    }
    h.m.simulate();
    h.drain();
    assert_eq!(Some(w.hash()), h.m.hash_after(2), "the joiner is in step");
}

#[test]
fn the_end_waits_for_every_closed_turn_to_be_run_and_recorded() {
    let (s, _) = settings(2);
    let mut s = s;
    s.max_turns = Some(4);
    let mut h = Harness::with(s);
    h.join(1, Role::Player(0));
    h.join(2, Role::Player(1));
    h.auto_sim = false;
    h.turns(1);
    let job = h.m.sim_job().unwrap();
    h.turns(5);
    assert_eq!(h.m.phase(), Phase::Ended);
    assert_eq!(h.ended, None, "turns 0 to 3 not all run");
    h.m.sim_done(h.now, job.run());
    h.drain();
    assert_eq!(h.ended, None);
    h.m.simulate();
    h.drain();
    assert_eq!(h.ended, Some(EndReason::TurnLimit));
    assert_eq!(h.replay.len(), 4);
    assert!(resimulates(&h));
}

#[test]
fn a_failed_sim_ends_its_match_saying_at_which_turn_and_another_plays_on() {
    let (mut h, _lost) = with_a_job_out();
    let mut other = Harness::started(2);
    h.turns(2);
    h.m.sim_failed(h.now);
    h.drain();
    assert_eq!(h.sim_failed, Some(0), "the job was to run turn 0");
    assert_eq!(h.m.sim_failed_at(), Some(0));
    assert_eq!(h.m.phase(), Phase::Ended);
    let said: Vec<String> = h
        .take(1)
        .into_iter()
        .filter_map(|m| match m {
            ServerMessage::Error(e) if e.code == ErrorCode::Internal => Some(e.text),
            _ => None,
        })
        .collect();
    assert_eq!(
        said,
        vec!["the server's sim failed at turn 0; the match cannot go on".to_string()]
    );
    assert!(h.closed.contains(&1) && h.closed.contains(&2));
    assert_eq!(h.m.poll_timeout(), None, "nothing more to do");
    assert_eq!(h.m.stats().turns_closed, 3, "figures as measured");
    // Another match on the same clock plays on.
    other.turns(5);
    assert_eq!(other.bundles(1).len(), 5);
    assert_eq!(other.m.turns_run(), 5);
    assert!(other.m.stats().close_lateness_us.iter().all(|&l| l == 0));
}

#[test]
fn a_desync_report_is_made_in_a_job_while_turns_close() {
    let mut h = Harness::started(2);
    h.turns(3);
    let good = h.m.hash_after(1).unwrap();
    let mut bad = good;
    bad.0[0] ^= 1;
    h.send(2, ClientMessage::TurnHash(TurnHash { turn: 1, hash: bad }));
    h.auto_sim = false;
    h.send(
        2,
        ClientMessage::SnapshotUnavailable {
            turn: 1,
            reason: "kept nothing".into(),
        },
    );
    let job = h.m.report_job().expect("the report is a job");
    h.bundles(1);
    h.turns(4);
    assert_eq!(h.bundles(1).len(), 4, "turns close while it is made");
    assert!(h.m.stats().close_lateness_us.iter().all(|&l| l == 0));
    assert!(h.reports.is_empty());
    h.m.report_done(h.now, job.run());
    h.drain();
    assert_eq!(h.reports.len(), 1);
    let r = &h.reports[0];
    assert_eq!((r.turn, r.server.hash), (1, good));
    assert!(r.client.is_none());
}
