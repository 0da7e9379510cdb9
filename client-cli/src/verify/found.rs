//! What `cohort replay` found in a file, and the one JSON object `--json` prints of it
//! (docs/CLIENT.md, "cohort replay --json").

use super::{Divergence, Narrowing, Verdict};
use cohort_protocol::replay::Tail;

/// What re-simulating a file found.
pub enum Found {
    Report(Narrowing),
    Replay {
        replay: Box<cohort_protocol::replay::Replay>,
        verdict: Verdict,
    },
}

impl Found {
    /// Whether a replay re-simulated to every recorded hash (`cohort replay` exits 0).
    pub fn verified(&self) -> bool {
        matches!(
            self,
            Found::Replay {
                verdict: Verdict::Verified { .. },
                ..
            }
        )
    }

    /// The one JSON object `cohort replay --json` prints (docs/CLIENT.md, "cohort replay
    /// --json").
    pub fn json(&self) -> serde_json::Value {
        json_of(self)
    }
}

fn json_of(found: &Found) -> serde_json::Value {
    use serde_json::json;
    let divergence = |d: &Divergence| {
        json!({
            "turn": d.turn,
            "recorded": d.recorded.to_string(),
            "recomputed": d.computed.to_string(),
        })
    };
    match found {
        Found::Replay { replay, verdict } => {
            let config = &replay.header.config;
            let mut v = json!({
                "file": "replay",
                "match_id": config.match_id,
                "players": config.players.len(),
                "turn_ticks": config.turn_ticks,
                "turns_recorded": replay.records.len(),
                "cut_short": match replay.tail {
                    Tail::CutShort { .. } => Some(replay.tail.to_string()),
                    _ => None,
                },
            });
            let rest = match verdict {
                Verdict::Verified { turns, last_hash } => json!({
                    "verdict": "verified",
                    "turns": turns,
                    "last_hash": last_hash.to_string(),
                }),
                Verdict::Differs(d) => json!({
                    "verdict": "differs",
                    "first_turn": d.turn,
                    "divergence": divergence(d),
                }),
            };
            merge(&mut v, rest);
            v
        }
        Found::Report(n) => json!({
            "file": "report",
            "verdict": "desync",
            "first_turn": n.turn,
            "players": n.players,
            "turn_ticks": { "first": n.ticks.0, "last": n.ticks.1 },
            "records_differ": n.records_verify.as_ref().map(divergence),
            "server_ticks_reproduced": n.server_ticks_reproduced,
            "first_tick": n.first_tick,
            "compared": n.compared,
            "parts": n.parts,
            "entities": n.entities.iter().map(|e| json!({
                "part": e.part().name(),
                "id": e.id(),
                "name": e.to_string(),
            })).collect::<Vec<_>>(),
            "fields": n.fields,
            "notes": n.notes,
        }),
    }
}

/// `into`'s fields, and then `from`'s.
fn merge(into: &mut serde_json::Value, from: serde_json::Value) {
    if let (Some(a), serde_json::Value::Object(b)) = (into.as_object_mut(), from) {
        a.extend(b);
    }
}

/// What `cohort replay --json` prints when the file could not be re-simulated: `error`, why.
pub fn error_json(error: &str) -> serde_json::Value {
    serde_json::json!({ "verdict": "error", "error": error })
}
