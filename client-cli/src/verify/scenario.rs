//! A bug report anyone can run: the state after a turn of a replay (or a report) as a scenario
//! (`cohort replay FILE --at TURN --scenario OUT.toml`, docs/CLIENT.md).
//!
//! The state goes whole into a snapshot file beside the scenario (the scenario's `state`): map,
//! players, units with their orders and routes, buildings, resources, formations, the random
//! generator and the entity ids, everything the hash covers, so nothing is lost in a
//! translation. The turns after it are written out as the scenario's `[[statuses]]` (a turn's
//! membership events: a player leaving, resigning, dropping, joining) and `[[commands]]`, each
//! at its turn's first tick, by entity id. `cohort sim OUT.toml` then runs them; its hash after
//! each turn is the replay's.
//!
//! What a scenario cannot carry: a tick past [`MAX_SCENARIO_TICKS`] (counted from the match's
//! start, as the state's are) or more than [`MAX_SCENARIO_BYTES`] of text. Such a scenario is
//! refused, naming `--until`, which ends it sooner. (A turn's input delay and previous hash are
//! the network's, not the sim's: nothing of them reaches the state.)

use super::{resimulate, Verdict, VerifyError};
use cohort_protocol::replay::TurnRecord;
use cohort_protocol::setup::status_after;
use cohort_protocol::MatchConfig;
use cohort_sim::scenario::{MAX_SCENARIO_BYTES, MAX_SCENARIO_TICKS};
use cohort_sim::world::{PlayerStatus, Snapshot};
use cohort_sim::{Command, Fx, PlayerCommand, Ruleset, StateHash};
use std::fmt::Write;
use std::sync::Arc;

/// Why no scenario could be written at that turn.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioAtError {
    #[error(transparent)]
    Verify(#[from] VerifyError),
    #[error("the file holds no turns")]
    NoTurns,
    #[error("turn {at} is not among the file's records (turns 0 to {last})")]
    NoSuchTurn { at: u64, last: u64 },
    #[error("--until {until} is before --at {at}")]
    UntilBeforeAt { at: u64, until: u64 },
    #[error(
        "the recorded turns differ from the server's hashes at turn {0}, not after turn {1}: the \
         state re-simulated there is not the one the match had"
    )]
    Differs(u64, u64),
    #[error(
        "turns {first} to {last} end at tick {end}; a scenario's ticks are at most \
         {MAX_SCENARIO_TICKS} (MAX_SCENARIO_TICKS): end it sooner with --until"
    )]
    TooLong { first: u64, last: u64, end: u64 },
    #[error(
        "the scenario of turns {first} to {last} is {bytes} bytes; a scenario file is at most \
         {MAX_SCENARIO_BYTES} (MAX_SCENARIO_BYTES): end it sooner with --until"
    )]
    TooBig { first: u64, last: u64, bytes: usize },
}

/// A scenario at a turn, ready to write.
#[derive(Clone, Debug)]
pub struct ScenarioAt {
    /// The scenario file's text.
    pub toml: String,
    /// The state after the turn, for the snapshot file the scenario names.
    pub state: Snapshot,
    /// The turns it carries (`at + 1` to `until`; empty when `until == at`).
    pub turns: std::ops::RangeInclusive<u64>,
    /// The server's hash after each of those turns, in order: what `cohort sim` must give.
    pub hashes: Vec<StateHash>,
    /// How many commands and status changes it carries.
    pub commands: usize,
    pub statuses: usize,
}

/// What the scenario names: the file holding the state, and the ruleset file (none for the
/// embedded default), both as written into it.
pub struct Names<'a> {
    pub state: &'a str,
    pub rules: Option<&'a str>,
    /// The file it came from, for its description.
    pub from: &'a str,
}

/// The state after turn `at` of `records` (re-simulated, every recorded hash checked), and the
/// turns after it through `until` (the last record when none), as a scenario.
pub fn scenario_at(
    config: &MatchConfig,
    rules: Arc<Ruleset>,
    records: &[TurnRecord],
    at: u64,
    until: Option<u64>,
    names: &Names,
    progress: impl FnMut(u64),
) -> Result<ScenarioAt, ScenarioAtError> {
    let last_record = records
        .len()
        .checked_sub(1)
        .ok_or(ScenarioAtError::NoTurns)?;
    let index = |turn: u64| {
        usize::try_from(turn)
            .ok()
            .filter(|&i| i <= last_record)
            .ok_or(ScenarioAtError::NoSuchTurn {
                at: turn,
                last: last_record as u64,
            })
    };
    let upto = index(at)?;
    let until = match until {
        Some(u) if u < at => return Err(ScenarioAtError::UntilBeforeAt { at, until: u }),
        Some(u) => index(u)?,
        None => last_record,
    };
    let (verdict, world) = resimulate(config, rules, &records[..=upto], progress)?;
    if let Verdict::Differs(d) = verdict {
        return Err(ScenarioAtError::Differs(d.turn, at));
    }
    let carried = &records[upto + 1..=until];
    let tt = u64::from(config.turn_ticks);
    let last = at + carried.len() as u64;
    let ticks = carried.len() as u64 * tt;
    // The scenario's ticks count from the state's, so its last tick is the match's.
    let end = (last + 1).saturating_mul(tt);
    if end > MAX_SCENARIO_TICKS {
        return Err(ScenarioAtError::TooLong {
            first: at + 1,
            last,
            end,
        });
    }
    let mut toml = String::new();
    let w = &mut toml;
    // Writing to a String cannot fail.
    let _ = writeln!(
        w,
        "# Written by `cohort replay {} --at {at} --scenario`: the state after turn {at} of match \
         `{}` (tick {}),\n# then the turns {} to {last} as the server ran them. `cohort sim` on \
         this file gives\n# the match's hash after each of those turns (`--json`: \
         `turn_hashes`, the first for turn {}).",
        names.from,
        config.match_id,
        world.tick(),
        at + 1,
        at + 1
    );
    let _ = writeln!(
        w,
        "name = {}",
        quoted(&format!("{}-turn-{at}", config.match_id))
    );
    let last_hash = carried.last().map_or_else(|| world.hash(), |r| r.hash);
    let _ = writeln!(
        w,
        "description = {}",
        quoted(&format!(
            "match {} after turn {at}, from {}; the hash after turn {last} is {last_hash}",
            config.match_id, names.from
        ))
    );
    let _ = writeln!(w, "turn_ticks = {}", config.turn_ticks);
    let _ = writeln!(w, "ticks = {ticks}");
    if let Some(r) = names.rules {
        let _ = writeln!(w, "rules = {}", quoted(r));
    }
    let _ = writeln!(w, "state = {}", quoted(names.state));
    let (mut commands, mut statuses) = (0, 0);
    for (k, r) in carried.iter().enumerate() {
        let index = upto + 1 + k;
        if r.bundle.turn != index as u64 {
            return Err(VerifyError::OutOfOrder {
                index,
                turn: r.bundle.turn,
            }
            .into());
        }
        // Turn N's events and commands come at its first tick, N × turn_ticks (within
        // MAX_SCENARIO_TICKS, checked above).
        let tick = r.bundle.turn * tt;
        for e in &r.bundle.events {
            let _ = writeln!(w);
            write_status(w, tick, e.player, status_after(e.change));
            statuses += 1;
        }
        for c in &r.bundle.commands {
            let _ = writeln!(w);
            write_command(w, tick, c);
            commands += 1;
        }
    }
    if toml.len() > MAX_SCENARIO_BYTES {
        return Err(ScenarioAtError::TooBig {
            first: at + 1,
            last,
            bytes: toml.len(),
        });
    }
    Ok(ScenarioAt {
        toml,
        state: world.snapshot(),
        turns: at + 1..=last,
        hashes: carried.iter().map(|r| r.hash).collect(),
        commands,
        statuses,
    })
}

/// One `[[statuses]]` table.
fn write_status(w: &mut String, tick: u64, player: u8, status: PlayerStatus) {
    let name = match status {
        PlayerStatus::Playing => "playing",
        PlayerStatus::Left => "left",
        PlayerStatus::Resigned => "resigned",
        PlayerStatus::Dropped => "dropped",
    };
    let _ = writeln!(w, "[[statuses]]");
    let _ = writeln!(w, "tick = {tick}");
    let _ = writeln!(w, "player = {player}");
    let _ = writeln!(w, "status = \"{name}\"");
}

/// One `[[commands]]` table.
fn write_command(w: &mut String, tick: u64, pc: &PlayerCommand) {
    let (action, units) = match &pc.command {
        Command::Move { units, .. } => ("move", units),
        Command::FormationMove { units, .. } => ("formation_move", units),
        Command::Attack { units, .. } => ("attack", units),
        Command::AttackMove { units, .. } => ("attack_move", units),
        Command::Follow { units, .. } => ("follow", units),
        Command::Gather { units, .. } => ("gather", units),
        Command::Build { units, .. } => ("build", units),
        Command::PlaceBuilding { builders, .. } => ("place_building", builders),
        Command::Stop { units } => ("stop", units),
        Command::Hold { units } => ("hold", units),
        Command::SetFormation { units, .. } => ("set_formation", units),
        Command::Disband { units } => ("disband", units),
        Command::Delete { units } => ("delete", units),
    };
    let ids: Vec<String> = units.iter().map(|u| u.0.to_string()).collect();
    let _ = writeln!(w, "[[commands]]");
    let _ = writeln!(w, "tick = {tick}");
    let _ = writeln!(w, "player = {}", pc.player);
    let _ = writeln!(w, "do = \"{action}\"");
    let _ = writeln!(w, "units = [{}]", ids.join(", "));
    match &pc.command {
        Command::Move { to, .. }
        | Command::FormationMove { to, .. }
        | Command::AttackMove { to, .. } => {
            let _ = writeln!(w, "to = [{}, {}]", exact(to.x), exact(to.y));
        }
        Command::Attack { target, .. }
        | Command::Follow { target, .. }
        | Command::Gather { target, .. }
        | Command::Build { target, .. } => {
            let _ = writeln!(w, "target = {}", target.0);
        }
        Command::PlaceBuilding {
            kind, at, turned, ..
        } => {
            let _ = writeln!(w, "kind = {}", quoted(kind));
            let _ = writeln!(w, "at = [{}, {}]", at.x, at.y);
            let _ = writeln!(w, "turned = {turned}");
        }
        Command::SetFormation { formation, .. } => {
            let name = match formation {
                cohort_sim::FormationKind::Line => "line",
                cohort_sim::FormationKind::Staggered => "staggered",
                cohort_sim::FormationKind::Box => "box",
                cohort_sim::FormationKind::Flank => "flank",
                cohort_sim::FormationKind::Shape => "shape",
            };
            let _ = writeln!(w, "formation = \"{name}\"");
        }
        Command::Stop { .. }
        | Command::Hold { .. }
        | Command::Disband { .. }
        | Command::Delete { .. } => {}
    }
}

/// A fixed-point number as a decimal string the scenario reads back to the same bits.
fn exact(v: Fx) -> String {
    format!("\"{v}\"")
}

/// A TOML basic string.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
