//! Step 4: combat — targets, chases, strikes (devlog states: attacking, attack-moving,
//! following, hold).
//!
//! Each fighter, in id order: an attack fights its target; an attack-move fights the nearest
//! enemy it meets within sight (looking on one tick in [`K_LOOK_EVERY_TICKS`]), then goes on to
//! its point; a hold never moves and fights what comes in range; a follow keeps within
//! [`K_FOLLOW_RANGE`] of its target; an idle unit struck by an enemy fights back (it attacks the
//! striker, then stands idle again where the fight ended) — the devlog's idle state, with AoE
//! II's answer to being hit. In range it stops and strikes whenever its reload allows (melee or
//! ranged alike: a strike lands at once); out of range it chases (`nav::chase`): planning at
//! once, then after the chase's `replan_wait`, or when its walk has run out — standing at a
//! waiting place round a crowded target is not that: it waits out its `replan_wait` like the
//! rest. A strike takes hit points; at none, a unit dies and a building falls (in the
//! aftermath).

use crate::id::{find, EntityId};
use crate::nav::chase::still_stands;
use crate::nav::chase::{K_CLAIM_HELD_TICKS, K_SAME_PLACE};
use crate::nav::survey::{Owned, K_OWNER_BUCKETS, K_OWNER_PATCH};
use crate::nav::{box_of, in_range, reach_gap, Tick, View};
use crate::nav::{plan_chase, replan_wait, route_beside, Ask, SetOn};
use crate::position::{fx, Bounds, Fx, Vec2};
use crate::ruleset::Ruleset;
use crate::state::{Order, State, UnitState, TICK_MS};
use crate::walk::held::{held_on_a_new_walk, held_ticks};
use crate::walk::{give_up, widest};

/// A follower keeps within this many tiles of its target. The devlog's `XYZFollowTarget` takes an
/// `AcceptanceRadius` defaulting to 1.0 (in its engine's units, not tiles): reading it as one
/// tile is Cohort's choice; the spec names no follow distance.
pub const K_FOLLOW_RANGE: Fx = fx(1);

/// An attack-mover with no enemy to fight, or held up on its way to the one it fights, looks for
/// the nearest enemy in sight on one tick in this many, its id's (Cohort's choice, for speed
/// alone: 1,632 soldiers in `crowd_tick`'s `fights` looked about 930 times a tick, a quarter of
/// the tick's work). In between it fights on the enemy it has, or walks on as though none were
/// in sight: an enemy coming into sight is met at most 48 ms later. One whose enemy has fallen
/// looks at once.
pub const K_LOOK_EVERY_TICKS: u64 = 4;

pub fn run(tick: &mut Tick<'_>) {
    tick.nav.shared_chases.clear();
    for u in &mut tick.state.units {
        u.reload_ticks = u.reload_ticks.saturating_sub(1);
    }
    // Only unit `i` changes what it is set on while it fights: its entry is filed again after.
    let mut set_on = std::mem::take(&mut tick.nav.set_on);
    set_on.clear();
    set_on.extend(tick.state.units.iter().map(SetOn::of));
    tick.nav.set_on = set_on;
    for i in 0..tick.state.units.len() {
        fight(tick, i);
        tick.nav.set_on[i] = SetOn::of(&tick.state.units[i]);
    }
}

/// What unit `i` fights this tick, if anything, and how near it must be.
fn fight(tick: &mut Tick<'_>, i: usize) {
    let u = &tick.state.units[i];
    if u.hit_points == 0 {
        return;
    }
    if let Some(striker) = tick.state.units[i].hit_by.take() {
        fight_back(tick.rules, tick.state, i, striker);
    }
    let u = &tick.state.units[i];
    let kind = &tick.rules.unit(u.kind);
    let (range, sight) = (kind.range, kind.sight);
    let (target, reach, strikes) = match u.order {
        Order::Attack { target } => (Some(target), range, true),
        Order::Follow { target } => (Some(target), K_FOLLOW_RANGE, false),
        Order::AttackMove { .. } => {
            // Held up on its way to the enemy it fights for K_CLAIM_HELD_TICKS, it fights the
            // nearest instead (Cohort's choice: an enemy standing in the way is nearer); so does
            // one waiting for a place round it, every place taken (Cohort's choice: scouts
            // waiting on an archer inside its own clump waited for good beside archers shooting
            // them: `attack_movers_at_a_clump`).
            let held = u.chase_waits
                || u.route
                    .as_ref()
                    .is_some_and(|r| held_ticks(r, tick.state.tick) >= K_CLAIM_HELD_TICKS);
            let fighting = u.fight.filter(|&t| box_of(tick.view(), t).is_some());
            let fallen = u.fight.is_some() && fighting.is_none();
            let looks =
                fallen || (tick.state.tick.wrapping_add(u.id.0)).is_multiple_of(K_LOOK_EVERY_TICKS);
            let keep = fighting.filter(|_| !(held && looks));
            let nearest = || {
                looks
                    .then(|| nearest_enemy(tick.view(), i, sight, widest(tick.view())))
                    .flatten()
            };
            (keep.or_else(nearest), range, true)
        }
        Order::Hold => (
            nearest_enemy(tick.view(), i, range, widest(tick.view())),
            range,
            true,
        ),
        _ => return,
    };
    let alive = target.filter(|&t| box_of(tick.view(), t).is_some() && t != u.id);
    let Some(target) = alive else {
        lost_target(tick, i);
        return;
    };
    let now_ms = tick.state.tick * u64::from(TICK_MS);
    let u = &mut tick.state.units[i];
    if strikes {
        u.fight = Some(target);
    }
    u.state = match u.order {
        Order::Follow { .. } => UnitState::Following,
        Order::Hold => UnitState::Hold,
        Order::AttackMove { .. } => UnitState::AttackMoving,
        _ => UnitState::Attacking,
    };
    let radius = tick.rules.radius_of(tick.state.units[i].kind);
    let at = tick.state.units[i].position;
    if in_range(tick.view(), at, radius, target, reach) {
        let u = &mut tick.state.units[i];
        // In range, its walk is over, but for a step out of another body (`walk::settle`).
        if u.route.as_ref().is_none_or(|r| !r.settle) {
            u.route = None;
        }
        u.chase_waits = false;
        if strikes && u.reload_ticks == 0 {
            strike(tick.rules, tick.state, i, target);
        }
        return;
    }
    if tick.state.units[i].order == Order::Hold {
        return;
    }
    let u = &tick.state.units[i];
    // Standing at its waiting place round a crowded target is not a walk run out.
    let walk_ran_out = u.route.is_none() && !u.chase_waits;
    if !walk_ran_out && now_ms < u.replan_at_ms {
        return;
    }
    let now = tick.state.tick;
    let held_long = tick.state.units[i]
        .route
        .as_ref()
        .is_some_and(|r| held_ticks(r, now) >= K_CLAIM_HELD_TICKS);
    let follows = matches!(tick.state.units[i].order, Order::Follow { .. });
    // A walk to a place whose ground has closed since is never the same walk again.
    let old_place_stands = tick.state.units[i]
        .route
        .as_ref()
        .is_none_or(|r| still_stands(tick.view(), i, r.goal));
    let mut plan = plan_chase(tick, i, target, reach);
    tick.counters.replans += u64::from(plan.planned);
    let u = &mut tick.state.units[i];
    // A chase planned again is held up as long as before: the same walk (to the same place, or
    // one within K_SAME_PLACE of it) keeps how it was getting on whole; one that
    // made a detour round the bodies about it keeps the detour (Cohort's choice: a chase's
    // search prices those standing, the detour's closes them, and planning the chase again
    // every half second would walk it back into the crowd it went round). A walk to another
    // place is new, but held as long as before (`walk::held::held_on_a_new_walk`).
    if let (Some(new), Some(old)) = (plan.route.as_mut(), u.route.as_ref()) {
        let same_place = old_place_stands && new.goal.chebyshev(old.goal) <= K_SAME_PLACE;
        if same_place && old.progress.detoured.is_some() {
            *new = old.clone();
        } else if same_place {
            new.progress = old.progress;
        } else {
            new.progress = held_on_a_new_walk(&old.progress, new, at);
        }
    }
    // Sent to a waiting place when its walk has been held up by the crowd round the target for
    // K_CLAIM_HELD_TICKS, it is in that crowd already: it waits where it stands (Cohort's
    // choice: walking round the crowd to the waiting place the planner found, a body's width
    // further out, it would be held up by the crowd it walks round for as long as the wait
    // lasts). A follower whose friend has every place round it taken stops where it is.
    if plan.waits && (held_long || follows) {
        plan.route = None;
    }
    u.replan_at_ms = now_ms + replan_wait(at);
    // A chase that found no walk (every place round the target spoken for, or no way there
    // through the crowd) waits out its replan wait where it stands, as one at a waiting place
    // does, rather than planning again every tick (Cohort's choice).
    u.chase_waits = plan.waits || plan.route.is_none();
    u.route = plan.route;
}

/// Unit `i` was struck by `striker`: when it stands idle, has an attack, and the striker is a
/// living enemy unit, it attacks the striker (state attacking).
fn fight_back(rules: &Ruleset, state: &mut State, i: usize, striker: EntityId) {
    let u = &state.units[i];
    if u.order != Order::Idle || rules.unit(u.kind).attack == 0 {
        return;
    }
    let enemy = find(&state.units, striker, |v| v.id).is_some_and(|k| {
        let s = &state.units[k];
        s.hit_points > 0 && !state.allied(u.owner, s.owner)
    });
    if !enemy {
        return;
    }
    let u = &mut state.units[i];
    u.order = Order::Attack { target: striker };
    u.state = UnitState::Attacking;
    u.fight = Some(striker);
    u.route = None;
    u.replan_at_ms = 0;
}

/// The target of unit `i`'s fight is gone: an attack is over, an attack-move goes on to its
/// point, a hold waits for the next.
fn lost_target(tick: &mut Tick<'_>, i: usize) {
    let u = &tick.state.units[i];
    match u.order {
        Order::Attack { .. } | Order::Follow { .. } => give_up(&mut tick.state.units[i]),
        Order::AttackMove { to } if u.fight.is_some() || u.route.is_none() => {
            let (id, at) = (u.id, u.position);
            tick.state.units[i].fight = None;
            let route = Ask::to_point(tick.view(), id, to).and_then(|ask| route_beside(tick, &ask));
            let u = &mut tick.state.units[i];
            match route {
                Some(mut r) => {
                    // Held as long as before (Cohort's choice): an attack-mover held in a
                    // melee whose fight ended there had its squeeze and press begun
                    // afresh on its way on, in the same crowd.
                    if let Some(old) = &u.route {
                        r.progress = held_on_a_new_walk(&old.progress, &r, at);
                    }
                    u.route = Some(r);
                    u.state = UnitState::AttackMoving;
                }
                None => give_up(u),
            }
        }
        Order::Hold => tick.state.units[i].fight = None,
        _ => {}
    }
}

/// Tiles a body filed on a ring of the survey may stand nearer its fighter, along either axis,
/// than the ring's distance in tiles: one for where in its tile each middle lies, one for a
/// body walked on this tick (the survey keeps it filed on its tile; a step is far less than a
/// tile).
const K_RING_SLACK: i32 = 2;

/// The nearest living enemy unit within `reach` of unit `i`'s box (ties to the lower id), of
/// the bodies filed on the tiles within `reach`, a body's width and a tile of its middle (and
/// lying within that box, less the tile). The survey files them by owner and patch
/// ([`crate::nav::Survey::owned_in_patch`]): only enemies' are looked through (the owners a
/// patch holds say which), ring of patches by ring outward from the fighter's, skipping a patch
/// too far to hold one nearer than the nearest found ([`K_RING_SLACK`]; off the map, where the
/// survey files bodies on the edge, none is skipped); the answer is the same as a look through
/// all of them, as nothing but the least (gap, id) is kept. Of each body the wider of its axis
/// gaps is asked first, which [`reach_gap`] is never below (an integer square root of a sum of
/// squares is at least either side), then the sum of squares against the square of one past
/// the nearest so far: only a body that may be the nearest is measured exactly, asked where it
/// is filed and whether it is alive.
fn nearest_enemy(view: View<'_>, i: usize, reach: Fx, widest: Fx) -> Option<EntityId> {
    let u = &view.state.units[i];
    let radius = view.rules.radius_of(u.kind);
    let body = Bounds::around(u.position, radius);
    let friends = view.state.friends(u.owner);
    let (me, p) = (u.id, u.position);
    let look = radius + reach + fx(1);
    let lo = Vec2::new(p.x - look, p.y - look).tile().offset(-1, -1);
    let hi = Vec2::new(p.x + look, p.y + look).tile().offset(1, 1);
    // No enemy filed anywhere about: nothing to measure (the same answer, asked of patches).
    let survey = &view.nav.survey;
    if survey.owners_in(lo, hi).0 & !friends.0 == 0 {
        return None;
    }
    let grid = view.grid();
    let width = grid.width();
    let (x0, x1) = (lo.x.max(0), hi.x.min(width - 1));
    let (y0, y1) = (lo.y.max(0), hi.y.min(grid.height() - 1));
    let c = p.tile();
    let on_map = grid.contains(c);
    // Whether every body filed `d` tiles or more from the fighter's (Chebyshev) lies further
    // than the nearest found.
    let beyond = |best: Option<(Fx, EntityId)>, d: i32| {
        on_map && best.is_some_and(|(bg, _)| fx(d - K_RING_SLACK) - radius - widest > bg)
    };
    let patch = |v: i32| v.div_euclid(K_OWNER_PATCH);
    let (px0, px1, py0, py1) = (patch(x0), patch(x1), patch(y0), patch(y1));
    let (pcx, pcy) = (patch(c.x.clamp(x0, x1)), patch(c.y.clamp(y0, y1)));
    let rings = (pcx - px0).max(px1 - pcx).max(pcy - py0).max(py1 - pcy);
    let span = |q: i32, from: i32, to: i32| {
        (
            (q * K_OWNER_PATCH).max(from),
            (q * K_OWNER_PATCH + K_OWNER_PATCH - 1).min(to),
        )
    };
    let mut best: Option<(Fx, EntityId)> = None;
    // The nearest so far of one patch's bodies of one owner bucket.
    let look_through = |best: &mut Option<(Fx, EntityId)>, run: &[Owned], tiles: [i32; 4]| {
        for b in run {
            let near = (b.middle.x - p.x).abs() <= look && (b.middle.y - p.y).abs() <= look;
            if !near || b.entity == me || friends.contains(b.owner) {
                continue;
            }
            let other = Bounds::around(b.middle, b.radius);
            let axis_x = (other.min.x - body.max.x).max(body.min.x - other.max.x);
            let axis_y = (other.min.y - body.max.y).max(body.min.y - other.max.y);
            let least = axis_x.max(axis_y);
            let most = best.map_or(reach, |(bg, _)| bg.min(reach));
            if least > most {
                continue;
            }
            // Apart along both axes, the gap is the root of a sum of squares: one too far for
            // its root to reach `most` is passed over without taking the root.
            if axis_x > Fx::ZERO && axis_y > Fx::ZERO {
                let (ax, ay) = (i128::from(axis_x.to_bits()), i128::from(axis_y.to_bits()));
                let past = i128::from(most.to_bits()) + 1;
                if ax * ax + ay * ay >= past * past {
                    continue;
                }
            }
            let gap = reach_gap(&body, &other);
            if gap > reach || best.is_some_and(|(bg, bid)| (gap, b.entity) >= (bg, bid)) {
                continue;
            }
            // Asked last, of a body that may be the nearest: two divisions.
            let (bx, by) = (b.tile as i32 % width, b.tile as i32 / width);
            let [tx0, tx1, ty0, ty1] = tiles;
            if !(tx0..=tx1).contains(&bx) || !(ty0..=ty1).contains(&by) {
                continue;
            }
            let alive = find(&view.state.units, b.entity, |v| v.id)
                .is_some_and(|k| view.state.units[k].hit_points > 0);
            if alive {
                *best = Some((gap, b.entity));
            }
        }
    };
    for ring in 0..=rings {
        // Every tile of a patch `ring` patches away lies this far from the fighter's or more.
        if ring > 0 && beyond(best, (ring - 1) * K_OWNER_PATCH + 1) {
            break;
        }
        for qy in (pcy - ring).max(py0)..=(pcy + ring).min(py1) {
            // The ring's patches of this row: all of its top and bottom rows, the two ends of
            // the others.
            let whole = (qy - pcy).abs() == ring;
            let ends = [pcx - ring, pcx + ring];
            let row = (pcx - ring).max(px0)..=(pcx + ring).min(px1);
            for qx in row.filter(|&qx| whole || ends.contains(&qx)) {
                let ((tx0, tx1), (ty0, ty1)) = (span(qx, x0, x1), span(qy, y0, y1));
                let d = (tx0 - c.x).max(c.x - tx1).max(ty0 - c.y).max(c.y - ty1);
                if beyond(best, d.max(0)) {
                    continue;
                }
                let owners = survey.patch_owners(qx, qy);
                let mut enemies = owners.0 & !friends.0;
                while enemies != 0 {
                    let o = enemies.trailing_zeros() as usize;
                    enemies &= enemies - 1;
                    let run = survey.owned_in_patch(o, qx, qy);
                    look_through(&mut best, run, [tx0, tx1, ty0, ty1]);
                }
                // Owners past the eighth count as every player: their bucket may hold bodies
                // only where every bit is set.
                if owners.0 == u8::MAX {
                    let run = survey.owned_in_patch(K_OWNER_BUCKETS - 1, qx, qy);
                    look_through(&mut best, run, [tx0, tx1, ty0, ty1]);
                }
            }
        }
    }
    best.map(|(_, id)| id)
}

/// Unit `i` strikes `target`: its attack in hit points, then it reloads.
fn strike(rules: &Ruleset, state: &mut State, i: usize, target: EntityId) {
    let kind = rules.unit(state.units[i].kind);
    let (attack, reload) = (kind.attack, kind.reload_ms.div_ceil(TICK_MS));
    state.units[i].reload_ticks = reload;
    let (striker, owner) = (state.units[i].id, state.units[i].owner);
    if let Some(k) = find(&state.units, target, |u| u.id) {
        let enemy = !state.allied(owner, state.units[k].owner);
        let t = &mut state.units[k];
        t.hit_points = t.hit_points.saturating_sub(attack);
        if enemy {
            t.hit_by = Some(striker);
        }
        return;
    }
    if let Some(k) = find(&state.buildings, target, |b| b.id) {
        let b = &mut state.buildings[k];
        b.hit_points = b.hit_points.saturating_sub(attack);
    }
}
