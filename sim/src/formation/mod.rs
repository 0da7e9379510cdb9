//! Formations (spec: "Formations"; devlog: the shape-keeping group move).
//!
//! A person's group sent somewhere marches in the formation chosen: the group is laid out about
//! the point facing the way it marches ([`layout`]), places are dealt by where the units stand
//! (furthest forward to the front rank, each rank from one side to the other), a layout that
//! would leave the map is shifted inward whole (`inside_the_map`, Cohort's choice), every
//! member's route is capped at the slowest member's speed, and villagers take no part (placed
//! side by side about the point, at their own pace). Choosing a formation locks it ([`lock`]):
//! wherever any member is sent, the whole formation goes, until disbanded or another is chosen;
//! a unit that changes sides leaves, and one left alone is in none ([`tidy`]). On the march,
//! members whose ways to their places cross let each other through
//! ([`crate::walk::Stepper::lets_through`], Cohort's choice), so fighters that start behind the
//! shooters still reach the front in time.

pub mod layout;
pub mod shape;

pub use layout::{layout, Place, K_SPACING};

use crate::command::FormationKind;
use crate::id::{EntityId, PlayerId};
use crate::nav::{marching, route_beside, toward_clear_of, Ask, Tick, View};
use crate::position::{fx, fx_ratio, mul_div, Fx, Vec2};
use crate::state::{Formation, Order, Route, State, UnitState};
use crate::walk::speed_of;

/// Locks `units` into a new formation of `kind` (leaving any they were in). A group of fewer
/// than two is in none.
pub fn lock(state: &mut State, owner: PlayerId, units: &[EntityId], kind: FormationKind) {
    disband(state, units);
    let mut members: Vec<EntityId> = units.to_vec();
    members.sort_unstable();
    members.dedup();
    if members.len() < 2 {
        return;
    }
    let id = state.next_formation;
    state.next_formation += 1;
    for &m in &members {
        if let Some(u) = state.unit_mut(m) {
            u.formation = Some(id);
        }
    }
    state.formations.push(Formation {
        id,
        owner,
        kind,
        members,
    });
}

/// Takes `units` out of their formations.
pub fn disband(state: &mut State, units: &[EntityId]) {
    for &m in units {
        if let Some(u) = state.unit_mut(m) {
            u.formation = None;
        }
    }
    tidy(state);
}

/// Drops from each formation the members that are gone, dead, changed sides or left it, and
/// ends formations left with fewer than two members. Runs in the aftermath of every tick.
pub fn tidy(state: &mut State) {
    let mut formations = std::mem::take(&mut state.formations);
    for f in &mut formations {
        f.members.retain(|&m| {
            state.unit(m).is_some_and(|u| {
                u.hit_points > 0 && u.owner == f.owner && u.formation == Some(f.id)
            })
        });
        if f.members.len() < 2 {
            for &m in &f.members {
                if let Some(u) = state.unit_mut(m) {
                    u.formation = None;
                }
            }
            f.members.clear();
        }
    }
    formations.retain(|f| !f.members.is_empty());
    state.formations = formations;
}

/// The locked formation to move when `units` are sent: every member of every formation any of
/// them is in joins the group; the kind is the formation's own when exactly one is involved and
/// all sent belong to it. Returns the whole group (sorted) and that kind.
pub fn locked_group(view: View<'_>, units: &[EntityId]) -> (Vec<EntityId>, Option<FormationKind>) {
    let mut group: Vec<EntityId> = units.to_vec();
    let mut ids: Vec<u32> = units
        .iter()
        .filter_map(|&m| view.unit(m).and_then(|u| u.formation))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    for f in view.state.formations.iter().filter(|f| ids.contains(&f.id)) {
        group.extend(f.members.iter().copied());
    }
    group.sort_unstable();
    group.dedup();
    let kind = match ids.as_slice() {
        [one]
            if units
                .iter()
                .all(|&m| view.unit(m).is_some_and(|u| u.formation == Some(*one))) =>
        {
            view.state
                .formations
                .iter()
                .find(|f| f.id == *one)
                .map(|f| f.kind)
        }
        _ => None,
    };
    (group, kind)
}

/// Sends `units` to `to` in formation `kind` (the spec's `MarchInFormation`), marching. Every
/// soldier's walk is capped at the slowest member's speed, and then at its share of it by how long
/// its own walk is against the longest ([`together`]), so the formation arrives together.
pub fn march_in_formation(tick: &mut Tick<'_>, units: &[EntityId], to: Vec2, kind: FormationKind) {
    let places = goals(tick.view(), &deal(tick.view(), units, to, kind));
    marching(tick, units, |tick| {
        for (id, goal, cap) in places {
            let route =
                Ask::to_point(tick.view(), id, goal).and_then(|ask| route_beside(tick, &ask));
            if let Some(u) = tick.state.unit_mut(id) {
                u.order = Order::Move { to: goal };
                u.fight = None;
                u.ring_tries = 0;
                u.work_spot = None;
                match route {
                    Some(mut r) => {
                        r.speed_cap = cap;
                        u.route = Some(r);
                        u.state = UnitState::Moving;
                    }
                    None => {
                        u.route = None;
                        u.order = Order::Idle;
                        u.state = UnitState::Idle;
                    }
                }
            }
        }
    });
    together(tick, units);
}

/// Each dealt place turned into the point its unit walks to (spec: "Sent where it cannot stand",
/// `toward`): a place the unit's whole body can stand on is kept; every other is turned into the
/// nearest point it can stand on whose body overlaps none of the goals already settled (the
/// places kept first, then the turned ones in id order), so neighbours whose places are on ground
/// they cannot stand on are not all sent to the one nearest tile (Cohort's choice, after the
/// standing-spot rule of passing over "the spots already spoken for").
fn goals(
    view: View<'_>,
    places: &[(EntityId, Vec2, Option<Fx>)],
) -> Vec<(EntityId, Vec2, Option<Fx>)> {
    let radius = |id: EntityId| {
        view.unit(id)
            .map_or(Fx::ZERO, |u| view.rules.radius_of(u.kind))
    };
    let kept: Vec<bool> = places
        .iter()
        .map(|&(id, place, _)| toward_clear_of(view, id, place, &[]).is_none_or(|p| p == place))
        .collect();
    let mut taken: Vec<(Vec2, Fx)> = places
        .iter()
        .zip(&kept)
        .filter(|(_, &k)| k)
        .map(|(&(id, place, _), _)| (place, radius(id)))
        .collect();
    let mut out = Vec::with_capacity(places.len());
    for (&(id, place, cap), &k) in places.iter().zip(&kept) {
        if k {
            out.push((id, place, cap));
            continue;
        }
        let goal = toward_clear_of(view, id, place, &taken).unwrap_or(place);
        taken.push((goal, radius(id)));
        out.push((id, goal, cap));
    }
    out
}

/// How far a unit walks along its route from where it stands.
fn walk_length(at: Vec2, route: &Route) -> Fx {
    let mut from = at;
    let mut length = Fx::ZERO;
    for &p in &route.waypoints {
        length += from.distance(p);
        from = p;
    }
    length
}

/// Every capped walk of `units` (the soldiers of a formation just sent) is capped again at the
/// slowest speed times its length over the longest walk's, so each arrives when the longest
/// does: a member whose place is nearer, or who starts nearer it, walks slower rather than
/// arriving first. (The spec caps every route at the slowest member's speed "so the group stays
/// together"; with walks of different lengths that alone leaves the group arriving over several
/// seconds.)
fn together(tick: &mut Tick<'_>, units: &[EntityId]) {
    let walks: Vec<(usize, Fx)> = tick
        .state
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| units.contains(&u.id))
        .filter_map(|(k, u)| {
            let r = u.route.as_ref().filter(|r| r.speed_cap.is_some())?;
            Some((k, walk_length(u.position, r)))
        })
        .collect();
    let Some(longest) = walks.iter().map(|w| w.1).max().filter(|&l| l > Fx::ZERO) else {
        return;
    };
    for (k, length) in walks {
        if let Some(r) = tick.state.units[k].route.as_mut() {
            r.speed_cap = r
                .speed_cap
                .map(|cap| mul_div(cap, length, longest).max(Fx::from_bits(1)));
        }
    }
}

/// Neighbours' places are at least this much further apart, box to box, than their two bodies
/// reach (a 256th of a tile): laid out along a slant, places land a few fixed-point bits short.
pub const K_PLACE_MARGIN: Fx = Fx::from_bits(1 << 8);

/// How far apart neighbours in a formation stand: the spec's [`K_SPACING`], or, for soldiers
/// wider than that leaves room for (knights, siege), far enough that two of the widest standing
/// on neighbouring places do not touch, box to box, along the way the formation faces. Without
/// it, a knight finds its place taken by the knight beside it and is sent round (Cohort's
/// choice; the spec gives one spacing for every body).
fn spacing_for(view: View<'_>, soldiers: &[&(EntityId, Vec2, bool, bool)], facing: Vec2) -> Fx {
    let widest = soldiers
        .iter()
        .filter_map(|m| view.unit(m.0))
        .map(|u| view.rules.radius_of(u.kind))
        .max()
        .unwrap_or(Fx::ZERO);
    // A step of `s` along `facing` or across it moves `s` times the larger of its parts, box to
    // box (at least 0.7 of it: along a diagonal).
    let larger = facing.x.abs().max(facing.y.abs()).max(fx_ratio(7, 10));
    K_SPACING.max(mul_div(widest * 2, fx(1), larger) + K_PLACE_MARGIN)
}

/// Each unit's place and speed cap, in id order.
pub fn deal(
    view: View<'_>,
    units: &[EntityId],
    to: Vec2,
    kind: FormationKind,
) -> Vec<(EntityId, Vec2, Option<Fx>)> {
    let rules = view.rules;
    let mut ids: Vec<EntityId> = units.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let members: Vec<(EntityId, Vec2, bool, bool)> = ids
        .iter()
        .filter_map(|&id| view.unit(id))
        .map(|u| {
            let k = &rules.unit(u.kind);
            (u.id, u.position, k.worker, k.melee)
        })
        .collect();
    let soldiers: Vec<&(EntityId, Vec2, bool, bool)> = members.iter().filter(|m| !m.2).collect();
    let villagers: Vec<&(EntityId, Vec2, bool, bool)> = members.iter().filter(|m| m.2).collect();
    let cap = soldiers
        .iter()
        .filter_map(|m| view.unit(m.0).map(|u| speed_of(view, u)))
        .min();
    let mut out: Vec<(EntityId, Vec2, Option<Fx>)> = Vec::new();

    let all: Vec<Vec2> = members.iter().map(|m| m.1).collect();
    let n = Fx::from_num(all.len().max(1) as i64);
    let sum = all.iter().fold(Vec2::ZERO, |s, &p| s + p);
    let middle = Vec2::new(sum.x / n, sum.y / n);
    let facing = {
        let d = (to - middle).with_length(fx(1));
        if d == Vec2::ZERO {
            Vec2::new(Fx::ZERO, fx(1))
        } else {
            d
        }
    };
    let right = facing.perp();
    let spacing = spacing_for(view, &soldiers, facing);
    let at = |across: Fx, forward: Fx| {
        let (across, forward) = (
            mul_div(across, spacing, K_SPACING),
            mul_div(forward, spacing, K_SPACING),
        );
        to + right * across + facing * forward
    };

    if kind == FormationKind::Shape {
        let pos: Vec<Vec2> = soldiers.iter().map(|m| m.1).collect();
        for (m, p) in soldiers.iter().zip(shape::places(&pos, to)) {
            out.push((m.0, p, cap));
        }
    } else {
        let fighters: Vec<_> = soldiers.iter().filter(|m| m.3).copied().collect();
        let shooters: Vec<_> = soldiers.iter().filter(|m| !m.3).copied().collect();
        let places = layout(kind, fighters.len(), shooters.len());
        for (group, fighter) in [(fighters, true), (shooters, false)] {
            let mut slots: Vec<Place> = places
                .iter()
                .filter(|p| p.fighter == fighter)
                .copied()
                .collect();
            slots.sort_by(|a, b| (b.forward, a.across).cmp(&(a.forward, b.across)));
            // Furthest forward first.
            let mut units: Vec<(Fx, Fx, EntityId)> = group
                .iter()
                .map(|m| ((m.1 - middle).dot(facing), (m.1 - middle).dot(right), m.0))
                .collect();
            units.sort_by(|a, b| (b.0, a.2).cmp(&(a.0, b.2)));
            let mut k = 0;
            while k < slots.len() && k < units.len() {
                let rank = slots[k].forward;
                let end = slots[k..].iter().take_while(|p| p.forward == rank).count() + k;
                let end = end.min(units.len());
                let mut row: Vec<(Fx, Fx, EntityId)> = units[k..end].to_vec();
                row.sort_by_key(|a| (a.1, a.2));
                for (slot, u) in slots[k..end].iter().zip(row) {
                    out.push((u.2, at(slot.across, slot.forward), cap));
                }
                k = end;
            }
        }
    }
    // Villagers: side by side about the point, behind the rest, at their own pace.
    let back = out
        .iter()
        .map(|(_, p, _)| (*p - to).dot(facing))
        .min()
        .unwrap_or(Fx::ZERO)
        .min(Fx::ZERO)
        - if out.is_empty() { Fx::ZERO } else { K_SPACING };
    let v = villagers.len() as i64;
    let mut vs: Vec<(Fx, EntityId)> = villagers
        .iter()
        .map(|m| ((m.1 - middle).dot(right), m.0))
        .collect();
    vs.sort();
    for (k, (_, id)) in vs.into_iter().enumerate() {
        let across = K_SPACING * (2 * k as i64 - (v - 1)) / 2;
        out.push((id, at(across, back), None));
    }
    inside_the_map(view, &mut out);
    out.sort_by_key(|o| o.0);
    out
}

/// Shifts the whole layout `out` (every place by the same amount) inward, along each axis, just
/// far enough that every member's body stands on the map when its place is at the map's edge.
/// The spec lays a formation out "about the point" and says nothing of its edge; turning each
/// place off the map into the nearest point the unit can stand on (`toward`) would stack
/// neighbours on one tile, where a shifted layout keeps every neighbour a spacing apart and
/// arrives whole (Cohort's choice). A layout wider than the map is centred on it instead, and
/// `toward` then takes what is still off it.
fn inside_the_map(view: View<'_>, out: &mut [(EntityId, Vec2, Option<Fx>)]) {
    let grid = view.grid();
    let half = fx_ratio(1, 2);
    let radius = |id: EntityId| {
        view.unit(id)
            .map_or(Fx::ZERO, |u| view.rules.radius_of(u.kind))
            .min(half)
    };
    // The shift each axis needs: at least `lo` (the most any place is short of the low edge), at
    // most `hi` (the least room any place has before the high edge).
    let shift = |along: fn(Vec2) -> Fx, size: i32| {
        let top = Fx::from_num(size) - half;
        let mut lo = Fx::MIN;
        let mut hi = Fx::MAX;
        for &(id, p, _) in out.iter() {
            let r = radius(id);
            lo = lo.max(r - half - along(p));
            hi = hi.min(top - r - along(p));
        }
        if lo > hi {
            (lo + hi) / 2
        } else {
            Fx::ZERO.clamp(lo, hi)
        }
    };
    if out.is_empty() {
        return;
    }
    let by = Vec2::new(shift(|p| p.x, grid.width()), shift(|p| p.y, grid.height()));
    if by != Vec2::ZERO {
        for o in out.iter_mut() {
            o.1 = o.1 + by;
        }
    }
}
