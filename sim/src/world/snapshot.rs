//! Snapshots: the whole state, saved and loaded. A loaded snapshot hashes identically and runs on
//! identically; the caches are rebuilt from it. How rejoining clients and desync reports carry
//! state (the bytes on the wire are the protocol crate's business).

use super::{Caches, Counters, State, World};
use crate::ruleset::Ruleset;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The state, the counters and the ruleset it plays by.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Snapshot {
    pub ruleset_hash: [u8; 32],
    pub state: State,
    pub counters: Counters,
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("the snapshot was taken under another ruleset")]
    OtherRuleset,
    #[error("the snapshot is inconsistent: {0}")]
    Inconsistent(String),
}

impl World {
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            ruleset_hash: self.rules.hash(),
            state: self.state.clone(),
            counters: self.counters.clone(),
        }
    }

    /// A world from a snapshot, under the ruleset it was taken with.
    pub fn from_snapshot(rules: Arc<Ruleset>, snap: Snapshot) -> Result<World, SnapshotError> {
        if snap.ruleset_hash != rules.hash() {
            return Err(SnapshotError::OtherRuleset);
        }
        let mut state = snap.state;
        state
            .grid
            .check(rules.terrains.len())
            .map_err(SnapshotError::Inconsistent)?;
        if state.grid.layers() != rules.layers.len() {
            return Err(SnapshotError::Inconsistent(
                "layer count differs from the ruleset".into(),
            ));
        }
        let sorted = |ids: Vec<u64>| ids.windows(2).all(|w| w[0] < w[1]);
        if !sorted(state.units.iter().map(|u| u.id.0).collect())
            || !sorted(state.buildings.iter().map(|b| b.id.0).collect())
            || !sorted(state.resources.iter().map(|r| r.id.0).collect())
        {
            return Err(SnapshotError::Inconsistent(
                "entities out of id order".into(),
            ));
        }
        if state
            .units
            .iter()
            .any(|u| u.kind as usize >= rules.units.len())
            || state
                .buildings
                .iter()
                .any(|b| b.kind as usize >= rules.buildings.len())
            || state
                .resources
                .iter()
                .any(|r| r.kind as usize >= rules.resources.len())
        {
            return Err(SnapshotError::Inconsistent(
                "an entity of a kind the ruleset lacks".into(),
            ));
        }
        state.grid.rebuild_open();
        let mut w = World {
            rules,
            state,
            caches: Caches::default(),
            counters: snap.counters,
        };
        w.prepare();
        Ok(w)
    }
}
