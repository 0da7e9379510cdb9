//! Browsers watching the match (`/watch/<match>`): not peers of the lockstep — they send
//! nothing and run no sim — but spectators all the same, counted with them against
//! [`MAX_SPECTATORS`] and kept as far behind: each is sent a view of every turn spectators
//! are released (`crate::watch::frame`), derived from the world spectators are at (the delayed
//! world, or the match's own without a delay) once the server's sim has run it. A watcher whose
//! outbox fills is closed at once: it holds no seat and has nothing to catch up.

use super::{Action, Match, PeerId, Phase};
use crate::watch::frame;
use cohort_protocol::limits::MAX_SPECTATORS;
use cohort_sim::World;
use std::sync::Arc;

impl Match {
    /// The world spectators are at, and the last turn run in it (none before turn 0); none
    /// while a sim job has it.
    fn shown(&self) -> Option<(&World, Option<u64>)> {
        match &self.delayed {
            Some(d) => Some((d.world.as_ref()?, d.run_to().checked_sub(1))),
            None => Some((self.world.as_ref()?, self.turns_run.checked_sub(1))),
        }
    }

    /// A browser asks to watch: it gets the intro, the resources and the turn spectators are
    /// at, then every turn as it is released; or a notice and the close.
    pub(super) fn watch(&mut self, peer: PeerId) {
        let spectators = self.spectator_ids().len() + self.watchers.len();
        let refused = if self.phase == Phase::Ended || self.phase == Phase::Stopping {
            Some("the match is over".to_string())
        } else if spectators >= MAX_SPECTATORS {
            Some(format!("the match has {MAX_SPECTATORS} spectators already"))
        } else {
            None
        };
        if let Some(text) = refused {
            self.view_to(vec![peer], frame::notice(&text));
            self.actions.push_back(Action::Close { peer });
            return;
        }
        let delay = self.settings.spectator_delay_secs;
        // Events wait for the world while a sim job has it (`sim_job`): it is home here.
        let Some((world, turn)) = self.shown() else {
            tracing::error!(match_id = %self.id(), peer, "a watch handled without its world");
            self.actions.push_back(Action::Close { peer });
            return;
        };
        let mut frames = vec![frame::intro(
            &self.settings.config,
            world,
            &self.rules,
            delay,
        )];
        frames.push(frame::resources(world, turn.unwrap_or(0)));
        if let Some(t) = turn {
            frames.push(frame::turn(world, self.slots.len(), t));
        }
        for f in frames {
            self.view_to(vec![peer], f);
        }
        self.watchers.insert(peer);
        tracing::info!(match_id = %self.id(), peer, turn = ?turn, "watching in a browser");
    }

    /// Every watcher is sent the views of a turn the world spectators are at has run (made by
    /// the sim job from the world after it: the turn, and the resources every
    /// [`frame::RESOURCES_EVERY_TURNS`] turns).
    pub(super) fn show_watchers(&mut self, views: Vec<Vec<u8>>) {
        if self.watchers.is_empty() {
            return;
        }
        let to: Vec<PeerId> = self.watchers.iter().copied().collect();
        for v in views {
            self.view_to(to.clone(), v);
        }
    }

    /// A watcher's outbox is full or its session gone: it is closed and forgotten.
    pub(super) fn unwatch(&mut self, peer: PeerId, close: bool) -> bool {
        if !self.watchers.remove(&peer) {
            return false;
        }
        if close {
            self.actions.push_back(Action::Close { peer });
        }
        true
    }

    /// Tells every watcher why the stream ends, and closes them.
    pub(super) fn close_watchers(&mut self, text: &str) {
        if self.watchers.is_empty() {
            return;
        }
        let to: Vec<PeerId> = std::mem::take(&mut self.watchers).into_iter().collect();
        self.view_to(to.clone(), frame::notice(text));
        for peer in to {
            self.actions.push_back(Action::Close { peer });
        }
    }

    fn view_to(&mut self, to: Vec<PeerId>, frame: Vec<u8>) {
        self.actions.push_back(Action::View {
            to,
            frame: Arc::new(frame),
        });
    }
}
