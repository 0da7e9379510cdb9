//! The tick hash: a fast digest of the whole state, cheap enough to take after every tick.
//!
//! The state hash (blake3 over the canonical encoding) is the authority every peer compares
//! after every turn; at 1,600 units it costs more than a tick (BENCHMARKS.md, "Tick hashes").
//! Narrowing a desync to its tick needs a digest after every tick, so Cohort adds a second,
//! non-cryptographic one (Cohort's choice): every field of the state folded as 64-bit words
//! into four multiply-rotate lanes, finished by blake3 into 128 bits. It is built by hand from
//! destructurings — of `State` (in `parts.rs`, shared with the state hash) and of every type
//! in it (here) — so a field added anywhere fails to compile until it is folded. Same state,
//! same tick hash, on every machine (wrapping integer arithmetic only).
//!
//! The grid is folded as the tick hash of its canonical encoding, cached with that encoding
//! (both taken again only after the grid changes).

use crate::canon::{Fold, Mixer, TickHash};
use crate::command::FormationKind;
use crate::grid::{Footprint, Grid};
use crate::ruleset::Good;
use crate::state::{
    Building, Formation, Order, Player, PlayerStatus, Progress, Push, Resource, Rng, Route, Unit,
    UnitState,
};

impl Fold for Grid {
    fn fold(&self, m: &mut Mixer) {
        let TickHash(digest) = self.canonical_tick_hash();
        m.bytes(&digest);
    }
}

impl Fold for Footprint {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        let Footprint { origin, min, max } = self;
        origin.fold(m);
        min.fold(m);
        max.fold(m);
    }
}

// The enums without data: their variant, as declared (the same index serde gives it).
crate::canon::fold_as_word!(UnitState, PlayerStatus, Good, FormationKind);

impl Order {
    /// Its variant, as declared (the index serde gives it).
    fn variant(&self) -> u64 {
        match self {
            Order::Idle => 0,
            Order::Move { .. } => 1,
            Order::AttackMove { .. } => 2,
            Order::Attack { .. } => 3,
            Order::Follow { .. } => 4,
            Order::Gather { .. } => 5,
            Order::Build { .. } => 6,
            Order::Hold => 7,
        }
    }

    /// What its variant holds (the variant itself is folded by whoever holds the order).
    #[inline]
    fn fold_data(&self, m: &mut Mixer) {
        match self {
            Order::Idle | Order::Hold => {}
            Order::Move { to } | Order::AttackMove { to } => to.fold(m),
            Order::Attack { target }
            | Order::Follow { target }
            | Order::Gather { target }
            | Order::Build { target } => target.fold(m),
        }
    }
}

impl Fold for Order {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        m.word(self.variant());
        self.fold_data(m);
    }
}

/// `Some`'s data, or nothing for `None` (the tag is folded in the holder's layout word).
#[inline(always)]
fn fold_some<T: Fold>(v: &Option<T>, m: &mut Mixer) {
    if let Some(v) = v {
        v.fold(m);
    }
}

/// An `Option`'s tag, as one bit of a layout word.
#[inline(always)]
fn some_bit<T>(v: &Option<T>, bit: u32) -> u64 {
    u64::from(v.is_some()) << bit
}

impl Fold for Route {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        let Route {
            waypoints,
            goal,
            has_goal,
            speed_cap,
            target,
            range,
            replans,
            progress,
            fine,
            legs,
            settle,
        } = self;
        // One layout word: the waypoints' count, the flags, the tags, the replans, the fine
        // corners and the legs.
        m.word(
            waypoints.len() as u64
                | u64::from(*has_goal) << 32
                | some_bit(speed_cap, 33)
                | some_bit(target, 34)
                | u64::from(*settle) << 35
                | u64::from(*replans) << 40
                | u64::from(*fine) << 48
                | u64::from(*legs) << 56,
        );
        for w in waypoints {
            w.fold(m);
        }
        goal.fold(m);
        fold_some(speed_cap, m);
        fold_some(target, m);
        range.fold(m);
        progress.fold(m);
    }
}

impl Fold for Progress {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        let Progress {
            nearest,
            corners,
            since,
            detoured,
            squeeze_from,
            anchor,
            strode_from,
            strode,
        } = self;
        m.word(u64::from(*corners) | some_bit(detoured, 32) | some_bit(squeeze_from, 33));
        nearest.fold(m);
        since.fold(m);
        fold_some(detoured, m);
        fold_some(squeeze_from, m);
        anchor.fold(m);
        strode_from.fold(m);
        strode.fold(m);
    }
}

impl Fold for Push {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        let Push { by, nudge } = self;
        by.fold(m);
        nudge.fold(m);
    }
}

impl Fold for Unit {
    /// The hottest fold (every unit, every tick): the small fields, the order's variant and
    /// every `Option`'s tag share one layout word, then each field's data follows.
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        let Unit {
            id,
            kind,
            owner,
            position,
            previous_position,
            hit_points,
            order,
            state,
            route,
            reload_ticks,
            carrying,
            gather_progress,
            formation,
            fight,
            ring_tries,
            replan_at_ms,
            chase_waits,
            work_spot,
            pushed,
            hit_by,
        } = self;
        id.fold(m);
        m.word(
            u64::from(*kind)
                | u64::from(*owner) << 16
                | (*state as u64) << 24
                | u64::from(*ring_tries) << 32
                | u64::from(*chase_waits) << 40
                | order.variant() << 41
                | some_bit(route, 48)
                | some_bit(carrying, 49)
                | some_bit(formation, 50)
                | some_bit(fight, 51)
                | some_bit(work_spot, 52)
                | some_bit(pushed, 53)
                | some_bit(hit_by, 54),
        );
        position.fold(m);
        previous_position.fold(m);
        m.word(u64::from(*hit_points) | u64::from(*reload_ticks) << 32);
        order.fold_data(m);
        fold_some(route, m);
        if let Some((good, amount)) = carrying {
            m.word(*good as u64 | u64::from(*amount) << 32);
        }
        gather_progress.fold(m);
        fold_some(formation, m);
        fold_some(fight, m);
        replan_at_ms.fold(m);
        fold_some(work_spot, m);
        fold_some(pushed, m);
        fold_some(hit_by, m);
    }
}

impl Fold for Building {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        let Building {
            id,
            kind,
            owner,
            footprint,
            turned,
            hit_points,
            built_ms,
            complete,
            locked,
        } = self;
        id.fold(m);
        kind.fold(m);
        owner.fold(m);
        footprint.fold(m);
        turned.fold(m);
        hit_points.fold(m);
        built_ms.fold(m);
        complete.fold(m);
        locked.fold(m);
    }
}

impl Fold for Resource {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        let Resource {
            id,
            kind,
            tile,
            amount,
        } = self;
        id.fold(m);
        m.word(u64::from(*kind) | u64::from(*amount) << 32);
        tile.fold(m);
    }
}

impl Fold for Player {
    fn fold(&self, m: &mut Mixer) {
        let Player {
            id,
            name,
            team,
            stock,
            technologies,
            status,
        } = self;
        id.fold(m);
        name.fold(m);
        team.fold(m);
        stock.fold(m);
        technologies.fold(m);
        status.fold(m);
    }
}

impl Fold for Formation {
    fn fold(&self, m: &mut Mixer) {
        let Formation {
            id,
            owner,
            kind,
            members,
        } = self;
        id.fold(m);
        owner.fold(m);
        kind.fold(m);
        members.fold(m);
    }
}

impl Fold for Rng {
    fn fold(&self, m: &mut Mixer) {
        m.word(self.raw_state());
    }
}
