//! What an operator sees of a match: its state while it lives ([`MatchView`]) and, once it
//! has ended, its summary ([`EndSummary`]) — answered by the admin API and posted to the
//! webhook. Built from the `Match`'s own accessors; no rule here.

use crate::lockstep::{Match, Phase, SlotView};
use cohort_protocol::message::EndReason;
use cohort_sim::world::PlayerStatus;
use serde::Serialize;
use std::path::PathBuf;

/// A match's state as the admin API names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchState {
    /// In its lobby, waiting for every player slot.
    Waiting,
    /// Playing turns (a desync stopping it counts as running until it has ended).
    Running,
    /// A player paused it.
    Paused,
    /// Taken up again after a restart, waiting for its players to come back (at most
    /// `RESUME_GRACE_MS`).
    Resuming,
    Ended,
}

/// One player slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerView {
    pub slot: u8,
    pub name: String,
    pub team: u8,
    pub connected: bool,
    /// Why it is not playing: `left`, `resigned`, `dropped`, `never_joined`; none while it
    /// plays (or played to the end).
    pub leave_reason: Option<&'static str>,
}

impl From<&SlotView> for PlayerView {
    fn from(s: &SlotView) -> PlayerView {
        let leave_reason = match s.status {
            _ if !s.joined && s.status == PlayerStatus::Playing => Some("never_joined"),
            PlayerStatus::Playing => None,
            PlayerStatus::Left => Some("left"),
            PlayerStatus::Resigned => Some("resigned"),
            PlayerStatus::Dropped => Some("dropped"),
        };
        PlayerView {
            slot: s.slot,
            name: s.name.clone(),
            team: s.team,
            connected: s.connected,
            leave_reason,
        }
    }
}

/// A match as it stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchView {
    pub match_id: String,
    pub state: MatchState,
    /// The open turn (the next to close).
    pub turn: u64,
    pub players_connected: usize,
    pub spectators: usize,
    pub desyncs: u64,
    /// Unix seconds.
    pub created_at: u64,
    pub players: Vec<PlayerView>,
    /// Once it has ended.
    pub summary: Option<EndSummary>,
}

impl MatchView {
    pub fn of(m: &Match, created_at: u64) -> MatchView {
        let state = match m.phase() {
            Phase::Lobby => MatchState::Waiting,
            Phase::Running if m.waiting_for_players() => MatchState::Resuming,
            Phase::Running | Phase::Stopping if m.is_paused() => MatchState::Paused,
            Phase::Running | Phase::Stopping => MatchState::Running,
            Phase::Ended => MatchState::Ended,
        };
        let (players_connected, spectators) = m.connected();
        MatchView {
            match_id: m.id().to_string(),
            state,
            turn: m.next_turn(),
            players_connected,
            spectators,
            desyncs: m.stats().desyncs,
            created_at,
            players: m.roster().iter().map(PlayerView::from).collect(),
            summary: None,
        }
    }
}

/// How a match ended: posted to the webhook, kept in the admin API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EndSummary {
    pub match_id: String,
    /// `turn_limit`, `no_players`, `desync`, `server_shutdown`, `operator`, `abandoned` (the
    /// server's sim failed), or `lost` (it could not be taken up again after a restart).
    pub reason: &'static str,
    /// Turns played (and recorded in the replay).
    pub turns: u64,
    /// Unix seconds.
    pub created_at: u64,
    pub ended_at: u64,
    pub players: Vec<PlayerView>,
    pub desyncs: u64,
    /// The server's sim panicked (reason `abandoned`): the match could not go on; the figures
    /// above are as measured up to then.
    pub sim_panicked: bool,
    /// The turn the server's sim failed at (reason `abandoned`), when it did.
    pub sim_failed_turn: Option<u64>,
    pub replay: Option<PathBuf>,
    pub reports: Vec<PathBuf>,
    /// Why it could not be taken up again (reason `lost`): the damaged record's turn and what
    /// is wrong with it, or the turn whose recorded hash does not re-simulate.
    pub lost: Option<String>,
}

/// An end reason's name in the API and the webhook.
pub fn reason_name(reason: Option<EndReason>) -> &'static str {
    match reason {
        Some(EndReason::TurnLimit) => "turn_limit",
        Some(EndReason::NoPlayers) => "no_players",
        Some(EndReason::Desync) => "desync",
        Some(EndReason::ServerShutdown) => "server_shutdown",
        Some(EndReason::Operator) => "operator",
        None => "abandoned",
    }
}
