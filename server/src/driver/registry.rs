//! The matches one process hosts: each live match's inbox and view, and the views of the
//! most recently ended ones (for the admin API). Connections find their match here; the admin
//! API and Agones add matches here ([`super::Host::create_match`]).

use super::{CreateError, MatchInput, MatchState, MatchView};
use cohort_protocol::close::MovedTo;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::{Mutex, RwLock};
use tokio::sync::{mpsc, watch};

/// Ended matches kept for the admin API; the oldest is forgotten past this many.
pub const ENDED_KEPT: usize = 1024;

struct Entry {
    inbox: mpsc::Sender<MatchInput>,
    view: watch::Receiver<MatchView>,
    /// Where the match went, once suspended here and an operator said.
    moved: Option<Arc<MovedTo>>,
}

impl Entry {
    fn ended(&self) -> bool {
        self.view.borrow().state == MatchState::Ended
    }

    fn suspended(&self) -> bool {
        let view = self.view.borrow();
        view.summary
            .as_ref()
            .is_some_and(|s| s.reason == SUSPENDED_REASON)
    }
}

/// The end summary's reason of a match suspended by an operator.
pub const SUSPENDED_REASON: &str = "suspended";

/// Where a match stands for a connection.
pub enum Lookup {
    Live(mpsc::Sender<MatchInput>),
    Ended,
    /// Suspended here (its files kept): it goes on after a restart or on another server; where,
    /// when an operator said.
    Suspended(Option<Arc<MovedTo>>),
    Unknown,
}

/// Every match, by id.
#[derive(Default)]
pub struct Matches {
    entries: RwLock<BTreeMap<String, Entry>>,
    /// Ended matches' ids, oldest first.
    ended: Mutex<VecDeque<String>>,
}

impl Matches {
    /// Adds a match, unless its id is taken or `max` matches are live.
    pub(super) fn insert(
        &self,
        id: &str,
        inbox: mpsc::Sender<MatchInput>,
        view: watch::Receiver<MatchView>,
        max: usize,
    ) -> Result<(), CreateError> {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        if entries.contains_key(id) {
            return Err(CreateError::Exists(id.to_string()));
        }
        let live = entries.values().filter(|e| !e.ended()).count();
        if live >= max {
            return Err(CreateError::Full(live));
        }
        entries.insert(
            id.to_string(),
            Entry {
                inbox,
                view,
                moved: None,
            },
        );
        Ok(())
    }

    /// Notes that a match has ended (its view says so): the oldest ended ones past
    /// [`ENDED_KEPT`] are forgotten.
    pub(super) fn ended(&self, id: &str) {
        let mut ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        ended.push_back(id.to_string());
        if ended.len() > ENDED_KEPT {
            let oldest = ended.pop_front().expect("more than ENDED_KEPT");
            self.entries
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&oldest);
        }
    }

    /// Forgets a match that was suspended here, so that it may be taken up again here.
    pub(super) fn forget_suspended(&self, id: &str) {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        if entries.get(id).is_some_and(Entry::suspended) {
            entries.remove(id);
        }
    }

    /// Notes where a match (suspended, or being suspended) went; false for an unknown id.
    pub(super) fn set_moved(&self, id: &str, to: Arc<MovedTo>) -> bool {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        match entries.get_mut(id) {
            Some(e) => {
                e.moved = Some(to);
                true
            }
            None => false,
        }
    }

    pub fn lookup(&self, id: &str) -> Lookup {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        match entries.get(id) {
            Some(e) if e.suspended() => Lookup::Suspended(e.moved.clone()),
            Some(e) if e.ended() => Lookup::Ended,
            Some(e) => Lookup::Live(e.inbox.clone()),
            None => Lookup::Unknown,
        }
    }

    /// A match's view as it stands now.
    pub fn view(&self, id: &str) -> Option<MatchView> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries.get(id).map(|e| e.view.borrow().clone())
    }

    /// A receiver of a match's views (to wait for its end).
    pub fn watch(&self, id: &str) -> Option<watch::Receiver<MatchView>> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries.get(id).map(|e| e.view.clone())
    }

    /// Every match's view, by id.
    pub fn views(&self) -> Vec<MatchView> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries.values().map(|e| e.view.borrow().clone()).collect()
    }

    /// Matches not yet ended.
    pub fn live(&self) -> usize {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries.values().filter(|e| !e.ended()).count()
    }
}
