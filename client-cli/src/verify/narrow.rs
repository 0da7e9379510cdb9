//! Narrowing a desync report to the first tick whose state differs, and at that tick to the
//! parts, the entries and every field that differ (docs/FILES.md, "Desync report").
//!
//! The report's records are re-simulated up to the failing turn T (each turn's hash checked
//! against the server's), then T is run tick by tick, each tick hash checked against the
//! server's. The client's tick hashes name the first tick t whose state differs. The states
//! compared are, in this order of preference: the two states at T's start, if they already
//! differ there; the server's state after t (re-simulated) and the client's (run again by the
//! client, checked against its live tick hash); else the two states after T, as each held them.

use super::diff::{differences, FieldDifference};
use super::{resimulate, Divergence, Verdict, VerifyError};
use cohort_protocol::report::{DesyncReport, StateView};
use cohort_protocol::setup::run_bundle_ticks;
use cohort_sim::hash::{Entry, TickHash};
use cohort_sim::world::Snapshot;
use cohort_sim::{PlayerId, Ruleset, StateHash, World};
use serde::Serialize;
use std::sync::Arc;

/// Which two states a narrowing compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// At the start of the failing turn: they already differed there.
    Start,
    /// After the first tick whose tick hash differs.
    FirstTick,
    /// After the failing turn (the client's run again was not to be had).
    AfterTurn,
}

/// The states compared: at which tick, and which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Compared {
    pub tick: u64,
    pub stage: Stage,
}

/// A desync report, narrowed down.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Narrowing {
    /// The turn after which the client's hash first differed from the server's.
    pub turn: u64,
    /// The players whose hashes differed.
    pub players: Vec<PlayerId>,
    /// The first recorded turn whose re-simulated hash differs from the server's, through
    /// `turn` (none: the records re-simulate).
    pub records_verify: Option<Divergence>,
    /// The failing turn's first and last ticks.
    pub ticks: (u64, u64),
    /// Whether re-simulating the failing turn gave the server's tick hashes of it (none: the
    /// report holds none).
    pub server_ticks_reproduced: Option<bool>,
    /// The first tick whose state differs, when the client's tick hashes name it (or the
    /// turn's start, when the states differ there already).
    pub first_tick: Option<u64>,
    /// The two states compared below, when the client sent its side.
    pub compared: Option<Compared>,
    /// The parts of the state that differ there (`units`, `formations`, …).
    pub parts: Vec<String>,
    /// The entries that differ there (or that one side lacks).
    pub entities: Vec<Entry>,
    /// Every field that differs there, with both values.
    pub fields: Vec<FieldDifference>,
    /// What the client (or the server) said it could not send, and what could not be done here.
    pub notes: Vec<String>,
}

/// The two worlds a narrowing compared, for pictures: the server's and the client's.
pub struct ComparedWorlds {
    pub server: World,
    pub client: World,
}

/// Re-simulates a report's records and narrows the desync to its tick and fields.
pub fn narrow_report(
    report: &DesyncReport,
    rules: Arc<Ruleset>,
    progress: impl FnMut(u64),
) -> Result<Narrowing, VerifyError> {
    narrow(report, rules, progress).map(|(n, _)| n)
}

fn load(rules: &Arc<Ruleset>, snapshot: &Snapshot, what: &str) -> Result<World, VerifyError> {
    World::from_snapshot(rules.clone(), snapshot.clone())
        .map_err(|e| VerifyError::Snapshot(format!("{what}: {e}")))
}

/// A view's snapshot, loaded and checked to hash as the view says.
fn load_view(rules: &Arc<Ruleset>, view: &StateView, whose: &str) -> Result<World, VerifyError> {
    let w = load(rules, &view.snapshot, whose)?;
    if w.hash() != view.hash {
        return Err(VerifyError::Snapshot(format!(
            "{whose} state after turn {} hashes to {}, not the {} recorded with it",
            view.turn,
            w.hash(),
            view.hash
        )));
    }
    Ok(w)
}

/// [`narrow_report`], also returning the two worlds compared.
pub fn narrow(
    report: &DesyncReport,
    rules: Arc<Ruleset>,
    mut progress: impl FnMut(u64),
) -> Result<(Narrowing, Option<ComparedWorlds>), VerifyError> {
    let config = &report.header.config;
    let turn = report.turn;
    let through = report
        .records
        .iter()
        .position(|r| r.bundle.turn == turn)
        .ok_or(VerifyError::MissingTurn(turn))?;
    // The turns before the failing one, then the failing one tick by tick.
    let (verdict, mut world) = resimulate(
        config,
        rules.clone(),
        &report.records[..through],
        &mut progress,
    )?;
    let mut records_verify = match verdict {
        Verdict::Differs(d) => Some(d),
        Verdict::Verified { .. } => None,
    };
    let start = world.clone();
    let record = &report.records[through];
    // The state after each tick, kept only to compare with the client's.
    let mut ticks: Vec<(TickHash, Option<World>)> = Vec::new();
    let keep_states = report.client.is_some();
    run_bundle_ticks(&mut world, &record.bundle, config.turn_ticks, |w| {
        ticks.push((w.tick_hash(), keep_states.then(|| w.clone())));
    });
    progress(turn + 1);
    if records_verify.is_none() && world.hash() != record.hash {
        records_verify = Some(Divergence {
            turn,
            recorded: record.hash,
            computed: world.hash(),
        });
    }
    let resimulated: Vec<TickHash> = ticks.iter().map(|(h, _)| *h).collect();
    let server_ticks = if report.server_tick_hashes.is_empty() {
        &resimulated
    } else {
        &report.server_tick_hashes
    };
    let mut n = Narrowing {
        turn,
        players: report.diverged.clone(),
        records_verify,
        ticks: (start.tick() + 1, world.tick()),
        server_ticks_reproduced: (!report.server_tick_hashes.is_empty())
            .then(|| report.server_tick_hashes == resimulated),
        first_tick: None,
        compared: None,
        parts: Vec::new(),
        entities: Vec::new(),
        fields: Vec::new(),
        notes: Vec::new(),
    };
    let Some(client) = &report.client else {
        n.notes
            .push("the client sent no state: parts, entries and fields unknown".into());
        return Ok((n, None));
    };
    n.notes.extend(client.notes.iter().cloned());
    if client.view.turn != turn {
        return Err(VerifyError::ClientTurn {
            client: client.view.turn,
            failing: turn,
        });
    }
    let server_end = load_view(&rules, &report.server, "the server's")?;
    let client_end = load_view(&rules, &client.view, "the client's")?;
    let first = client
        .tick_hashes
        .iter()
        .zip(server_ticks)
        .position(|(a, b)| a != b);
    n.first_tick = first.map(|i| n.ticks.0 + i as u64);
    if client.tick_hashes.is_empty() {
        n.notes
            .push("the client sent no tick hashes: the tick is not known".into());
    }
    let client_start = match &client.start {
        Some(s) => Some(load(&rules, s, "the client's state at the turn's start")?),
        None => None,
    };
    let client_at = match &client.at_tick {
        Some(s) => Some(load(
            &rules,
            s,
            "the client's state at its first differing tick",
        )?),
        None => None,
    };
    let (stage, server_w, client_w) = match (client_start, client_at, first) {
        (Some(cs), _, _) if cs.hash() != start.hash() => {
            n.first_tick = Some(start.tick());
            (Stage::Start, start.clone(), cs)
        }
        (_, Some(ca), Some(i)) if ca.tick() == n.ticks.0 + i as u64 => {
            if ca.tick_hash() != client.tick_hashes[i] {
                n.notes.push(format!(
                    "the client's state at tick {} does not give the tick hash it sent for it",
                    ca.tick()
                ));
            }
            let server_at = ticks[i].1.take().unwrap_or_else(|| world.clone());
            (Stage::FirstTick, server_at, ca)
        }
        (_, ca, _) => {
            if ca.is_some() {
                n.notes.push(
                    "the client's state at its first differing tick is not at the tick its \
                     hashes name: compared after the turn instead"
                        .into(),
                );
            }
            (Stage::AfterTurn, server_end, client_end)
        }
    };
    n.compared = Some(Compared {
        tick: server_w.tick(),
        stage,
    });
    let (sv, cv) = (
        StateView::of(&server_w, turn),
        StateView::of(&client_w, turn),
    );
    let (parts, entities) = sv.differences(&cv);
    n.parts = parts;
    n.entities = entities;
    n.fields = differences(server_w.state(), client_w.state());
    Ok((
        n,
        Some(ComparedWorlds {
            server: server_w,
            client: client_w,
        }),
    ))
}

/// At most this many fields are listed in prose (`--json` lists them all).
pub const FIELDS_TOLD: usize = 40;

fn hash_line(label: &str, h: &StateHash) -> String {
    format!("{label} {h}")
}

/// What `cohort replay` prints about a narrowed report, line by line.
pub fn narration(n: &Narrowing) -> Vec<String> {
    let mut lines = vec![format!(
        "desync: turn {} first differs (players {:?})",
        n.turn, n.players
    )];
    lines.push(match &n.records_verify {
        Some(d) => format!(
            "the recorded turns themselves differ first at turn {}: {}, {}",
            d.turn,
            hash_line("recorded", &d.recorded),
            hash_line("re-simulated", &d.computed)
        ),
        None => format!(
            "the recorded turns re-simulate to the server's hashes through turn {}",
            n.turn
        ),
    });
    match n.server_ticks_reproduced {
        Some(true) => lines.push(format!(
            "the server's tick hashes of turn {} re-simulate too",
            n.turn
        )),
        Some(false) => lines.push(format!(
            "the server's tick hashes of turn {} do not re-simulate: this program's sim differs \
             from the server's",
            n.turn
        )),
        None => {}
    }
    let (a, b) = n.ticks;
    lines.push(match (n.first_tick, n.compared.map(|c| c.stage)) {
        (Some(t), Some(Stage::Start)) => {
            format!("first tick that differs: none of turn {}: the states differ at its start (tick {t})", n.turn)
        }
        (Some(t), _) => format!(
            "first tick that differs: {t} (turn {} is ticks {a} to {b}; the states agreed {})",
            n.turn,
            if t == a {
                "at its start".to_string()
            } else {
                format!("after tick {}", t - 1)
            }
        ),
        (None, _) => format!(
            "ticks: the states agreed before tick {a} and differ after tick {b} (no tick hashes \
             name the tick)"
        ),
    });
    if let Some(c) = n.compared {
        lines.push(match c.stage {
            Stage::Start => format!("states compared: at the turn's start, tick {}", c.tick),
            Stage::FirstTick => format!(
                "states compared: after tick {} (the client's state there rebuilt by the client \
                 from its checkpoint, its tick hash checked)",
                c.tick
            ),
            Stage::AfterTurn => format!(
                "states compared: after turn {}, tick {} (as each side held it)",
                n.turn, c.tick
            ),
        });
        lines.push(format!("parts that differ: {}", n.parts.join(", ")));
        let ids: Vec<String> = n.entities.iter().map(Entry::to_string).collect();
        lines.push(format!("entities that differ: {}", ids.join(", ")));
        lines.push(format!("fields that differ ({}):", n.fields.len()));
        for f in n.fields.iter().take(FIELDS_TOLD) {
            lines.push(format!(
                "  {}: server {}, client {}",
                f.path, f.server, f.client
            ));
        }
        if n.fields.len() > FIELDS_TOLD {
            lines.push(format!(
                "  … and {} more (--json lists them all)",
                n.fields.len() - FIELDS_TOLD
            ));
        }
    }
    for note in &n.notes {
        lines.push(format!("note: {note}"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::super::tests::{config, recorded, rules};
    use super::*;
    use cohort_protocol::replay::ReplayHeader;
    use cohort_protocol::report::{ClientSide, PeerHash};
    use cohort_protocol::setup::run_bundle_hashed;
    use cohort_sim::command::FormationKind;
    use cohort_sim::world::Formation;
    use cohort_sim::Fx;

    /// A report of a client whose `perturb` changes its state after tick `tick` of the last of
    /// `turns` recorded turns (1-based within the turn), and which sends the evidence a client
    /// sends: its tick hashes, its start, its state at the first differing tick, its end.
    fn report_of(turns: u64, tick: usize, perturb: impl Fn(&mut World)) -> DesyncReport {
        let records = recorded(turns);
        let last = records.len() - 1;
        let (_, start) = resimulate(&config(), rules(), &records[..last], |_| {}).unwrap();
        let mut server = start.clone();
        let server_ticks = run_bundle_hashed(&mut server, &records[last].bundle, 2);
        let mut client = start.clone();
        let mut client_ticks = Vec::new();
        let mut at_tick = None;
        let mut i = 0;
        run_bundle_ticks(&mut client, &records[last].bundle, 2, |w| {
            i += 1;
            if i == tick {
                perturb(w);
            }
            client_ticks.push(w.tick_hash());
            if i == tick {
                at_tick = Some(w.snapshot());
            }
        });
        DesyncReport {
            header: ReplayHeader {
                config: config(),
                writer: "test".into(),
            },
            turn: last as u64,
            diverged: vec![1],
            peer_hashes: vec![PeerHash {
                player: 1,
                name: "b".into(),
                hash: Some(client.hash()),
            }],
            records,
            server: StateView::of(&server, last as u64),
            server_tick_hashes: server_ticks,
            client: Some(ClientSide {
                player: 1,
                name: "b".into(),
                view: StateView::of(&client, last as u64),
                tick_hashes: client_ticks,
                start: Some(start.snapshot()),
                at_tick,
                notes: vec![],
            }),
        }
    }

    #[test]
    fn a_client_perturbed_mid_turn_is_pinned_to_its_tick_and_every_field() {
        // Four turns of two ticks: turn 3 is ticks 7 and 8; the client goes wrong after 7.
        let report = report_of(4, 1, |w| {
            w.state_mut().units[1].position.x += Fx::from_bits(1);
            w.state_mut().units[1].hit_points -= 1;
        });
        let id = report.server.snapshot.state.units[1].id;
        let n = narrow_report(&report, rules(), |_| {}).unwrap();
        assert_eq!(n.records_verify, None);
        assert_eq!(n.server_ticks_reproduced, Some(true));
        assert_eq!(n.ticks, (7, 8));
        assert_eq!(n.first_tick, Some(7));
        assert_eq!(
            n.compared,
            Some(Compared {
                tick: 7,
                stage: Stage::FirstTick
            })
        );
        assert_eq!(n.parts, vec!["units".to_string()]);
        assert_eq!(n.entities, vec![Entry::Unit(id)]);
        let paths: Vec<&str> = n.fields.iter().map(|f| f.path.as_str()).collect();
        let (x, hp) = (
            format!("units[id {}].position.x", id.0),
            format!("units[id {}].hit_points", id.0),
        );
        assert_eq!(
            paths,
            vec![x.as_str(), hp.as_str()],
            "every field, not only the first"
        );
        let hp_field = &n.fields[1];
        let before = report.server.snapshot.state.units[1].hit_points;
        assert_eq!(
            (hp_field.server.as_str(), hp_field.client.as_str()),
            (
                before.to_string().as_str(),
                (before - 1).to_string().as_str()
            )
        );
        let told = narration(&n).join("\n");
        for line in [
            "first tick that differs: 7 (turn 3 is ticks 7 to 8; the states agreed at its start)",
            "states compared: after tick 7",
            &format!("  {x}: server "),
        ] {
            assert!(told.contains(line), "{told}");
        }
    }

    #[test]
    fn a_perturbed_formation_is_named() {
        let report = report_of(3, 2, |w| {
            let members = vec![w.state().units[0].id];
            w.state_mut().formations.push(Formation {
                id: 1,
                owner: 0,
                kind: FormationKind::Box,
                members,
            });
        });
        let n = narrow_report(&report, rules(), |_| {}).unwrap();
        assert_eq!(n.first_tick, Some(6));
        assert_eq!(n.parts, vec!["formations".to_string()]);
        assert_eq!(n.entities, vec![Entry::Formation(1)]);
        assert_eq!(n.fields[0].path, "formations[id 1]");
        assert_eq!(
            (n.fields[0].server.as_str(), n.fields[0].client.as_str()),
            ("absent", "present")
        );
    }

    #[test]
    fn without_the_clients_run_again_the_states_after_the_turn_are_compared() {
        let mut report = report_of(4, 1, |w| {
            w.state_mut().units[1].position.y += Fx::from_bits(1)
        });
        if let Some(c) = report.client.as_mut() {
            c.at_tick = None;
            c.notes.push("it kept no checkpoint".into());
        }
        let n = narrow_report(&report, rules(), |_| {}).unwrap();
        assert_eq!(n.first_tick, Some(7), "the tick hashes still name the tick");
        assert_eq!(
            n.compared.map(|c| (c.tick, c.stage)),
            Some((8, Stage::AfterTurn))
        );
        assert!(n.fields[0].path.ends_with("position.y"), "{:?}", n.fields);
        assert!(narration(&n)
            .join("\n")
            .contains("note: it kept no checkpoint"));
    }
}
