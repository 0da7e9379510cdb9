//! Matches that outlive their server (docs/OPERATIONS.md, "Restart and go on"), the files'
//! side (each match's snapshot is written beside its replay by the disk thread, `disk.rs`, and
//! removed when the match ends, `match_task.rs`): at start, every match of the replay folder
//! that has a snapshot (it had not ended) read back, its replay checked and its cut tail
//! dropped, its state rebuilt ([`crate::lockstep::rebuild`]) — or the match reported lost, with
//! the turn and the reason, and never half taken up.

use crate::lockstep::{rebuild, Match, Settings, SNAPSHOT_TURNS};
use crate::state::write_atomically;
use cohort_protocol::file::{read_limited, FileLimit};
use cohort_protocol::limits::{MAX_SNAPSHOT_BYTES, REPLAY_FILE};
use cohort_protocol::replay::{read_replay, ReplayWriter, Tail};
use cohort_protocol::resume::{
    decode_match_snapshot, encode_match_snapshot, MatchSnapshot, MATCH_SNAPSHOT_EXTENSION,
};
use cohort_sim::Ruleset;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The largest match snapshot file read back, in bytes: one state ([`MAX_SNAPSHOT_BYTES`]) and
/// the match's settings, with room to spare.
pub const MAX_MATCH_SNAPSHOT_FILE_BYTES: usize = MAX_SNAPSHOT_BYTES + (1 << 20);

const MATCH_SNAPSHOT_FILE: FileLimit = FileLimit {
    bytes: MAX_MATCH_SNAPSHOT_FILE_BYTES,
    what: "match snapshot",
    name: "MAX_MATCH_SNAPSHOT_FILE_BYTES",
};

/// The ending of a match snapshot that could not be taken up: the file renamed, kept for the
/// operator, and never tried again by itself.
pub const LOST_EXTENSION: &str = "lost";

/// The snapshot file beside a replay.
pub fn snapshot_path(replay: &Path) -> PathBuf {
    replay.with_extension(MATCH_SNAPSHOT_EXTENSION)
}

/// A match read back from its files, ready to go on.
pub(super) struct TakenUp {
    pub m: Match,
    pub writer: ReplayWriter<File>,
    pub replay_path: PathBuf,
    pub created_at: u64,
    /// What to log: turns, re-simulated, the snapshot's use, the cut dropped.
    pub note: String,
}

/// A match that cannot be taken up again.
#[derive(Debug)]
pub(super) struct Lost {
    pub match_id: String,
    pub created_at: u64,
    pub replay_path: Option<PathBuf>,
    /// Turns whole in its replay (0 when unknown).
    pub turns: u64,
    pub config: Option<cohort_protocol::MatchConfig>,
    pub why: String,
}

/// The match snapshots in `dir` (the replay folder), in name order.
pub(super) fn snapshots_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == MATCH_SNAPSHOT_EXTENSION))
        .collect();
    found.sort();
    found
}

/// Reads back the match whose snapshot is `path`: the snapshot, its replay (a cut tail is
/// dropped from the file; damage refuses the match), its state rebuilt and every recorded
/// hash after the snapshot checked.
pub(super) fn take_up(path: &Path, rules: Arc<Ruleset>) -> Result<TakenUp, Box<Lost>> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let guessed_id = stem.rsplit_once('-').map_or(stem.as_str(), |(id, _)| id);
    let mut lost = Lost {
        match_id: guessed_id.to_string(),
        created_at: 0,
        replay_path: None,
        turns: 0,
        config: None,
        why: String::new(),
    };
    let fail = |mut lost: Lost, why: String| {
        lost.why = why;
        Box::new(lost)
    };
    let snapshot = match read_limited(path, MATCH_SNAPSHOT_FILE)
        .map_err(|e| e.to_string())
        .and_then(|b| decode_match_snapshot(&b).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => return Err(fail(lost, format!("its snapshot {}: {e}", path.display()))),
    };
    lost.match_id = snapshot.settings.config.match_id.clone();
    lost.created_at = snapshot.settings.created_at;
    lost.config = Some(snapshot.settings.config.clone());
    if Path::new(&snapshot.replay).file_name() != Some(std::ffi::OsStr::new(&snapshot.replay)) {
        let why = format!("its snapshot names `{}`, not a file name", snapshot.replay);
        return Err(fail(lost, why));
    }
    let replay_path = path.with_file_name(&snapshot.replay);
    lost.replay_path = Some(replay_path.clone());
    let bytes = match read_limited(&replay_path, REPLAY_FILE) {
        Ok(b) => b,
        Err(e) => return Err(fail(lost, e.to_string())),
    };
    let replay = match read_replay(&bytes) {
        Ok(r) => r,
        Err(e) => return Err(fail(lost, format!("its replay: {e}"))),
    };
    lost.turns = replay.records.len() as u64;
    let cut = match &replay.tail {
        Tail::Whole => None,
        Tail::CutShort { bytes, .. } => Some(*bytes),
        damaged @ Tail::Damaged { .. } => {
            return Err(fail(lost, format!("its replay is damaged: {damaged}")))
        }
    };
    if replay.header.config != snapshot.settings.config {
        let why = "its snapshot's configuration is not its replay's".to_string();
        return Err(fail(lost, why));
    }
    let turns = replay.records.len() as u64;
    let snapshot_turn = snapshot.turns_run;
    let world = snapshot.world.map(|w| (snapshot.turns_run, w));
    let begun = std::time::Instant::now();
    let rebuilt = match rebuild(&replay.header.config, replay.records, world, rules.clone()) {
        Ok(r) => r,
        Err(e) => return Err(fail(lost, e.to_string())),
    };
    let took = begun.elapsed();
    let valid = bytes.len() - replay.ignored_bytes;
    let writer = match continue_replay(&replay_path, valid, turns) {
        Ok(w) => w,
        Err(e) => return Err(fail(lost, format!("its replay cannot be written: {e}"))),
    };
    let mut note = format!(
        "{turns} turns; {} re-simulated in {} ms",
        rebuilt.resimulated,
        took.as_millis()
    );
    match &rebuilt.snapshot_refused {
        Some(why) => note += &format!(", the snapshot (turn {snapshot_turn}) not used: {why}"),
        None if snapshot_turn > 0 => note += &format!(", from the snapshot after {snapshot_turn}"),
        None => {}
    }
    if let Some(bytes) = cut {
        note += &format!("; the replay's cut last record ({bytes} bytes) dropped");
    }
    let mut settings = Settings::from_resume(&snapshot.settings);
    settings.snapshot_every = Some(SNAPSHOT_TURNS);
    let m = match Match::from_replay(settings, rules, rebuilt, std::time::Instant::now()) {
        Ok(m) => m,
        Err(e) => return Err(fail(lost, e.to_string())),
    };
    Ok(TakenUp {
        m,
        writer,
        replay_path,
        created_at: snapshot.settings.created_at,
        note,
    })
}

/// The replay file opened to go on after its first `valid` bytes (a cut tail removed and the
/// removal flushed to disk), for turn `turns` next.
fn continue_replay(path: &Path, valid: usize, turns: u64) -> std::io::Result<ReplayWriter<File>> {
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    file.set_len(u64::try_from(valid).unwrap_or(u64::MAX))?;
    file.seek(SeekFrom::End(0))?;
    file.sync_all()?;
    Ok(ReplayWriter::resume(file, turns))
}

/// Writes the snapshot a match taken up from its replay alone starts from: its settings the
/// defaults (adaptive delay, no desync stop, hashes not required) and `max_turns`, its state the
/// configuration's (every turn re-simulated and checked).
pub(super) fn snapshot_of_replay(
    replay: &Path,
    snapshot: &Path,
    max_turns: Option<u64>,
) -> Result<(), String> {
    let bytes = read_limited(replay, REPLAY_FILE).map_err(|e| e.to_string())?;
    let r = read_replay(&bytes).map_err(|e| format!("its replay: {e}"))?;
    let s = MatchSnapshot {
        settings: cohort_protocol::resume::ResumeSettings {
            config: r.header.config,
            adaptive_delay: true,
            max_turns,
            stop_on_desync: false,
            require_hashes: false,
            created_at: super::unix_now(),
        },
        replay: replay
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        turns_run: 0,
        world: None,
    };
    let bytes = encode_match_snapshot(&s).map_err(|e| e.to_string())?;
    write_atomically(snapshot, &bytes, false).map_err(|e| format!("{e:#}"))
}

/// Sets a lost match's snapshot aside (`<name>.lost`): kept for the operator, never tried
/// again by itself.
pub(super) fn set_aside(path: &Path) {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(LOST_EXTENSION);
    if let Err(e) = std::fs::rename(path, path.with_file_name(name)) {
        tracing::error!(path = %path.display(), error = %e, "cannot set the lost match's snapshot aside");
    }
}
