//! Writes the files a server killed late in a long full-army match leaves — its replay and its
//! match snapshot, as `cohort-server --state-dir` writes them — so that the time to take such a
//! match up again can be measured by starting the real binary on them (BENCHMARKS.md,
//! "Resuming a match"):
//!
//! ```sh
//! cargo run --release -p cohort-server --example resume_files -- OUT_DIR [TURNS] [PLAYERS] [ARMY]
//! time target/release/cohort-server --state-dir OUT_DIR/state --replay-dir OUT_DIR/replays \
//!     --listen 127.0.0.1:0 --admin 127.0.0.1:0 ...   # prints its address once listening
//! ```
//!
//! The match: `PLAYERS` (8) players with `ARMY` (200) soldiers each, all on one team so that
//! no army is lost in a fight, 8 ticks a turn, every player ordering up to 50 of its units
//! about at random every 4 turns, `TURNS` (9,375: 20 minutes) turns.
//! The snapshot is the last one the server would have written (every `SNAPSHOT_TURNS`), so the
//! turns after it are re-simulated at start.

use cohort_client::brain::{Brain, RandomBrain};
use cohort_protocol::message::{Membership, MembershipEvent, TurnBundle};
use cohort_protocol::replay::{ReplayHeader, ReplayWriter, TurnRecord};
use cohort_protocol::resume::{encode_match_snapshot, MatchSnapshot, ResumeSettings};
use cohort_protocol::setup::run_bundle;
use cohort_protocol::{MapSpec, MatchConfig};
use cohort_server::lockstep::SNAPSHOT_TURNS;
use cohort_sim::{PlayerCommand, Ruleset};
use std::sync::Arc;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = std::path::PathBuf::from(args.first().map_or("resume-files", String::as_str));
    let number = |i: usize, default: u64| -> anyhow::Result<u64> {
        Ok(args
            .get(i)
            .map(|a| a.parse())
            .transpose()?
            .unwrap_or(default))
    };
    let turns = number(1, 9_375)?;
    let players = u8::try_from(number(2, 8)?)?;
    let army = u32::try_from(number(3, 200)?)?;
    let rules = Arc::new(Ruleset::default_rules());
    let mut config = MatchConfig::standard("long", &rules, players);
    let (seed, size) = config.map.seed_and_size();
    config.map = MapSpec::Armies { seed, size, army };
    // One team: the armies never fight, so all of them live and walk to the match's end (the
    // most state to save and to re-simulate).
    for p in &mut config.players {
        p.team = 0;
    }
    let mut world = config.world(rules.clone())?;
    let replays = out.join("replays");
    std::fs::create_dir_all(&replays)?;
    let replay_name = "long-1767139200.cohort-replay";
    let header = ReplayHeader {
        config: config.clone(),
        writer: format!("cohort-server {}", env!("CARGO_PKG_VERSION")),
    };
    let mut replay =
        ReplayWriter::start(std::fs::File::create(replays.join(replay_name))?, &header)?;
    let mut brains: Vec<RandomBrain> = (0..players)
        .map(|p| RandomBrain::with(u64::from(p), 4, 50))
        .collect();
    let mut saved = None;
    let begun = std::time::Instant::now();
    let mut previous_hash = None;
    for turn in 0..turns {
        let mut commands = Vec::new();
        for (p, brain) in (0..players).zip(&mut brains) {
            for command in brain.orders(turn, &world, p) {
                commands.push(PlayerCommand { player: p, command });
            }
        }
        let events = if turn == 0 {
            (0..players)
                .map(|player| MembershipEvent {
                    player,
                    change: Membership::Joined,
                })
                .collect()
        } else {
            Vec::new()
        };
        let bundle = TurnBundle {
            turn,
            input_delay: (turn == 0).then_some(config.input_delay),
            events,
            commands,
            previous_hash,
        };
        run_bundle(&mut world, &bundle, config.turn_ticks);
        let hash = world.hash();
        previous_hash = Some(hash);
        replay.append(&TurnRecord { bundle, hash })?;
        if (turn + 1).is_multiple_of(SNAPSHOT_TURNS) {
            saved = Some((turn + 1, world.snapshot()));
        }
        if (turn + 1).is_multiple_of(500) {
            eprintln!(
                "{} turns in {:.0} s",
                turn + 1,
                begun.elapsed().as_secs_f64()
            );
        }
    }
    let (turns_run, snap) = match saved {
        Some((t, s)) => (t, Some(s)),
        None => (0, None),
    };
    let snapshot = MatchSnapshot {
        settings: ResumeSettings {
            config,
            adaptive_delay: true,
            max_turns: None,
            stop_on_desync: false,
            require_hashes: false,
            created_at: 1_767_139_200,
        },
        replay: replay_name.into(),
        turns_run,
        world: snap,
    };
    let path = replays.join("long-1767139200.cohort-snapshot");
    std::fs::write(&path, encode_match_snapshot(&snapshot)?)?;
    println!(
        "{turns} turns written to {}; snapshot after {turns_run} turns ({} bytes); units {}",
        out.display(),
        std::fs::metadata(&path)?.len(),
        world.state().units.len()
    );
    Ok(())
}
