//! Every field of the state is in the state hash, the tick hash, exactly one part hash and (for
//! what a part lists) exactly one entry hash (STYLE.md: "perturb each field of a snapshot in turn
//! and check the hash changes").
//!
//! The state is taken as a serde tree, so the fields are found by walking it, not listed by
//! hand: a field added to any type of the state is perturbed here the moment it exists. Each
//! leaf in turn is changed (a number by one, a flag flipped, a text lengthened, an enum to
//! another variant), the tree is read back into a `State`, and the hashes are compared with the
//! untouched state's. Every field path must be perturbed at least once: a field the fixture
//! leaves empty everywhere (an `Option` always `None`) fails the test until the fixture fills it.

use cohort_sim::command::FormationKind;
use cohort_sim::hash::{Entry, Part};
use cohort_sim::map::{generate, MapOptions};
use cohort_sim::ruleset::Good;
use cohort_sim::world::{Formation, Order, Progress, Push, Route, State, UnitState};
use cohort_sim::{fx, EntityId, Ruleset, StateHash, World};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Lists longer than this are perturbed at their first, middle and last item only (the grid's
/// tiles); shorter ones at every item.
const WHOLE_LIST_UP_TO: usize = 64;

/// A world whose state has every optional field filled somewhere and every order kind.
fn fixture() -> World {
    let rules = Arc::new(Ruleset::default_rules());
    let mut w = generate(
        rules.clone(),
        MapOptions {
            players: 2,
            ..MapOptions::default()
        },
    );
    let militia = rules.unit_kind("militia").unwrap_or(0);
    let ids: Vec<EntityId> = (0..8)
        .map(|i| {
            w.spawn_unit(
                militia,
                (i % 2) as u8,
                cohort_sim::Vec2::new(fx(30 + i), fx(30)),
            )
        })
        .collect();
    let target = w.state().resources[0].id;
    let building = w.state().buildings[0].id;
    let orders = [
        Order::Move {
            to: cohort_sim::Vec2::new(fx(40), fx(41)),
        },
        Order::AttackMove {
            to: cohort_sim::Vec2::new(fx(42), fx(43)),
        },
        Order::Attack { target: ids[1] },
        Order::Follow { target: ids[2] },
        Order::Gather { target },
        Order::Build { target: building },
        Order::Hold,
        Order::Idle,
    ];
    for (i, order) in orders.into_iter().enumerate() {
        let u = w.unit_mut(ids[i]).unwrap();
        u.order = order;
        u.state = UnitState::Moving;
    }
    let u = w.unit_mut(ids[0]).unwrap();
    u.route = Some(Route {
        waypoints: vec![
            cohort_sim::Vec2::new(fx(31), fx(32)),
            cohort_sim::Vec2::new(fx(33), fx(34)),
        ],
        goal: cohort_sim::Vec2::new(fx(40), fx(41)),
        has_goal: true,
        speed_cap: Some(fx(1)),
        target: Some(ids[3]),
        range: fx(2),
        replans: 1,
        progress: Progress {
            nearest: fx(3),
            corners: 2,
            since: 7,
            detoured: Some(5),
            squeeze_from: Some(cohort_sim::Vec2::new(fx(2), fx(3))),
            anchor: cohort_sim::Vec2::new(fx(37), fx(38)),
            strode_from: cohort_sim::Vec2::new(fx(39), fx(40)),
            strode: 6,
        },
        fine: 1,
        legs: 2,
        settle: true,
    });
    u.reload_ticks = 3;
    u.carrying = Some((Good::Wood, 4));
    u.gather_progress = fx(1);
    u.formation = Some(1);
    u.fight = Some(ids[1]);
    u.ring_tries = 1;
    u.replan_at_ms = 500;
    u.chase_waits = true;
    u.work_spot = Some(cohort_sim::Vec2::new(fx(35), fx(36)));
    u.pushed = Some(Push {
        by: ids[1],
        nudge: cohort_sim::Vec2::new(fx(1), fx(0)),
    });
    u.hit_by = Some(ids[1]);
    w.state_mut().formations.push(Formation {
        id: 1,
        owner: 0,
        kind: FormationKind::Box,
        members: vec![ids[0], ids[2]],
    });
    w.state_mut().next_formation = 2;
    w.state_mut().players[0].technologies = vec![1, 4];
    w
}

/// One perturbation: where, and the tree after it.
struct Perturbed {
    path: Vec<Step>,
    tree: Value,
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// `units[].route.waypoints[].x`: the field, whichever item it is in.
fn field_path(path: &[Step]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            Step::Key(k) if s.is_empty() => s.push_str(k),
            Step::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Step::Index(_) => s.push_str("[]"),
        }
    }
    s
}

fn at<'a>(tree: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(tree, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

/// The variants an enum has, from serde's "unknown variant" error.
fn variants_of(err: &str) -> Vec<String> {
    let Some((_, list)) = err.split_once("expected one of ") else {
        return err
            .split_once("expected `")
            .and_then(|(_, r)| r.split('`').next())
            .map(|v| vec![v.to_string()])
            .unwrap_or_default();
    };
    list.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, v)| v.to_string())
        .collect()
}

fn reads_back(tree: &Value) -> Result<State, String> {
    serde_json::from_value::<State>(tree.clone()).map_err(|e| e.to_string())
}

/// Every way of perturbing the leaf (or enum variant) at `path` that still reads back.
fn perturb(tree: &Value, path: &[Step]) -> Option<Perturbed> {
    let mut t = tree.clone();
    let leaf = at(&mut t, path).clone();
    let candidates: Vec<Value> = match &leaf {
        Value::Bool(b) => vec![Value::Bool(!b)],
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                vec![Value::from(u + 1), Value::from(u.saturating_sub(1))]
            } else if let Some(i) = n.as_i64() {
                vec![Value::from(i + 1), Value::from(i - 1)]
            } else {
                vec![]
            }
        }
        Value::String(s) => {
            // A variant name: another variant; a text: a longer one.
            *at(&mut t, path) = Value::String(format!("{s}~"));
            let mut c = vec![Value::String(format!("{s}~"))];
            if let Err(e) = reads_back(&t) {
                c = variants_of(&e)
                    .into_iter()
                    .filter(|v| v != s)
                    .map(Value::String)
                    .collect();
            }
            c
        }
        _ => vec![],
    };
    for c in candidates {
        if c == leaf {
            continue;
        }
        *at(&mut t, path) = c;
        if reads_back(&t).is_ok() {
            return Some(Perturbed {
                path: path.to_vec(),
                tree: t,
            });
        }
    }
    None
}

/// An enum with data (`{"Move": {...}}`) turned into another variant of the same shape.
fn rename_variant(tree: &Value, path: &[Step]) -> Option<Perturbed> {
    let mut t = tree.clone();
    let obj = at(&mut t, path).as_object()?.clone();
    let (name, inner) = obj.iter().next()?;
    if obj.len() != 1 || !name.starts_with(char::is_uppercase) {
        return None;
    }
    let mut probe = serde_json::Map::new();
    probe.insert(format!("{name}~"), inner.clone());
    *at(&mut t, path) = Value::Object(probe);
    let err = reads_back(&t).err()?;
    for v in variants_of(&err).into_iter().filter(|v| v != name) {
        let mut m = serde_json::Map::new();
        m.insert(v, inner.clone());
        *at(&mut t, path) = Value::Object(m);
        if reads_back(&t).is_ok() {
            let mut p = path.to_vec();
            p.push(Step::Key("(variant)".into()));
            return Some(Perturbed { path: p, tree: t });
        }
    }
    None
}

/// Every leaf path of the tree (lists sampled past [`WHOLE_LIST_UP_TO`]), and every object
/// that may be an enum with data.
fn walk(v: &Value, path: &mut Vec<Step>, leaves: &mut Vec<Vec<Step>>, enums: &mut Vec<Vec<Step>>) {
    match v {
        Value::Object(m) => {
            if m.len() == 1 {
                enums.push(path.clone());
            }
            for (k, x) in m {
                path.push(Step::Key(k.clone()));
                walk(x, path, leaves, enums);
                path.pop();
            }
        }
        Value::Array(a) => {
            let picks: BTreeSet<usize> = if a.len() <= WHOLE_LIST_UP_TO {
                (0..a.len()).collect()
            } else {
                // The ends, the middle, and the first item unlike the first (a tile with
                // something on it).
                let unlike = a.iter().position(|x| *x != a[0]).unwrap_or(0);
                [0, unlike, a.len() / 2, a.len() - 1].into()
            };
            for i in picks {
                path.push(Step::Index(i));
                walk(&a[i], path, leaves, enums);
                path.pop();
            }
        }
        _ => leaves.push(path.clone()),
    }
}

/// The part a top-level field belongs to.
fn part_of(field: &str) -> Part {
    match field {
        "next_formation" => Part::Formations,
        other => Part::named(other).unwrap_or_else(|| panic!("state field {other} has no part")),
    }
}

/// The entry a path lies in, if in a listed thing, read from the untouched tree.
fn entry_of(tree: &Value, path: &[Step]) -> Option<Entry> {
    let (Some(Step::Key(list)), Some(Step::Index(i))) = (path.first(), path.get(1)) else {
        return None;
    };
    let id = tree[list.as_str()][*i]["id"].as_u64()?;
    Some(match list.as_str() {
        "players" => Entry::Player(u8::try_from(id).ok()?),
        "units" => Entry::Unit(EntityId(id)),
        "buildings" => Entry::Building(EntityId(id)),
        "resources" => Entry::Resource(EntityId(id)),
        "formations" => Entry::Formation(u32::try_from(id).ok()?),
        _ => return None,
    })
}

fn differing_entries(a: &[(Entry, StateHash)], b: &[(Entry, StateHash)]) -> BTreeSet<Entry> {
    let a: BTreeMap<Entry, StateHash> = a.iter().copied().collect();
    let b: BTreeMap<Entry, StateHash> = b.iter().copied().collect();
    a.keys()
        .chain(b.keys())
        .filter(|e| a.get(e) != b.get(e))
        .copied()
        .collect()
}

#[test]
fn every_field_is_in_the_hashes_and_in_exactly_its_part_and_entry() {
    let base = fixture();
    let (hash, tick_hash) = (base.hash(), base.tick_hash());
    let parts = base.part_hashes();
    let entries = base.entity_hashes();
    assert_eq!(parts.len(), Part::ALL.len());
    let tree = serde_json::to_value(base.state()).unwrap();
    assert_eq!(
        base.hash(),
        {
            let mut w = base.clone();
            *w.state_mut() = reads_back(&tree).unwrap();
            w.hash()
        },
        "the tree reads back to the same state"
    );

    let (mut leaves, mut enums) = (Vec::new(), Vec::new());
    walk(&tree, &mut Vec::new(), &mut leaves, &mut enums);
    let all_fields: BTreeSet<String> = leaves.iter().map(|p| field_path(p)).collect();
    let mut perturbed_fields = BTreeSet::new();
    let mut checked = 0;
    let cases = leaves
        .iter()
        .map(|p| perturb(&tree, p))
        .chain(enums.iter().map(|p| rename_variant(&tree, p)));
    for case in cases.flatten() {
        let field = field_path(&case.path);
        let mut w = base.clone();
        *w.state_mut() = reads_back(&case.tree).unwrap();
        assert_ne!(w.hash(), hash, "{field}: the state hash did not change");
        assert_ne!(
            w.tick_hash(),
            tick_hash,
            "{field}: the tick hash did not change"
        );
        assert_eq!(w.hash(), w.hash_uncached(), "{field}");

        let Step::Key(top) = &case.path[0] else {
            unreachable!()
        };
        let want = part_of(top).name();
        let changed: Vec<&str> = parts
            .iter()
            .zip(w.part_hashes())
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, _)| a.0)
            .collect();
        assert_eq!(changed, vec![want], "{field}: the parts that changed");

        let changed = differing_entries(&entries, &w.entity_hashes());
        match entry_of(&tree, &case.path) {
            None => assert!(changed.is_empty(), "{field}: entries {changed:?} changed"),
            // A changed id moves the thing to another entry: the old one is gone, and the new
            // one is new (or, where that id was taken, two things share it).
            Some(e) if field.ends_with("[].id") => {
                assert!(
                    changed.contains(&e) && changed.len() <= 2,
                    "{field}: {changed:?}"
                )
            }
            Some(e) => assert_eq!(changed, [e].into(), "{field}: the entries that changed"),
        }
        perturbed_fields.insert(field);
        checked += 1;
    }
    // A leaf is missed unless it, or something inside it where another item holds more (an
    // `Option` that is `Some` elsewhere, an enum variant with data), was perturbed.
    let missed: Vec<&String> = all_fields
        .iter()
        .filter(|f| {
            !perturbed_fields.iter().any(|p| {
                p == *f || p.starts_with(&format!("{f}.")) || p.starts_with(&format!("{f}[]"))
            })
        })
        .collect();
    assert!(
        missed.is_empty(),
        "fields never perturbed (fill them in the fixture): {missed:?}"
    );
    // Every kind of thing the issue names was reached.
    for f in [
        "units[].route.waypoints[].x.bits",
        "units[].pushed.nudge.y.bits",
        "buildings[].footprint.origin.x",
        "resources[].amount",
        "players[].technologies[]",
        "formations[].members[]",
        "formations[].kind",
        "next_formation",
        "grid.occupant[]",
        "rng.state",
    ] {
        assert!(
            perturbed_fields.iter().any(|p| p.starts_with(f)),
            "{f} was not perturbed: {perturbed_fields:?}"
        );
    }
    assert!(checked > 300, "only {checked} perturbations");
}
