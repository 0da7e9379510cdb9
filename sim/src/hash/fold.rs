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

use crate::command::FormationKind;
use crate::grid::{Footprint, Grid};
use crate::position::{Fx, Tile, Vec2};
use crate::ruleset::Good;
use crate::world::{
    Building, EntityId, Formation, Order, Player, PlayerStatus, Progress, Push, Resource, Rng,
    Route, Unit, UnitState,
};

/// A tick hash: 128 bits, shown as hex.
#[derive(
    Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct TickHash(pub [u8; 16]);

super::shown_as_hex!(TickHash);

/// The multiplier of every lane step (odd, so each step is a bijection of the lane).
const LANE_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;
/// The lanes' starting values (non-zero, so that zero words move them too).
const LANE_SEEDS: [u64; 4] = [
    0x243F_6A88_85A3_08D3,
    0x1319_8A2E_0370_7344,
    0xA409_3822_299F_31D0,
    0x082E_FA98_EC4E_6C89,
];

/// Four lanes that words are folded into in turn: word `i` goes to lane `i mod 4`, so the
/// lanes' multiply chains run side by side.
#[derive(Clone, Debug)]
///
/// No count of words is kept: what is folded delimits itself (every list folds its length
/// first, every `Option` and enum its variant), as the canonical encoding does.
pub struct Mixer {
    lanes: [u64; 4],
}

impl Default for Mixer {
    fn default() -> Mixer {
        Mixer { lanes: LANE_SEEDS }
    }
}

impl Mixer {
    /// Folds one word. The lane taking it is always the first; the lanes turn round after it.
    #[inline(always)]
    pub fn word(&mut self, v: u64) {
        let [a, b, c, d] = self.lanes;
        let t = (a ^ v).wrapping_mul(LANE_MULTIPLIER).rotate_left(29);
        self.lanes = [b, c, d, t];
    }

    /// Folds bytes, eight to a word (the last word zero-filled), after their length.
    #[inline]
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.word(bytes.len() as u64);
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            self.word(u64::from_le_bytes(b));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(b));
        }
    }

    /// The digest: blake3 over the four lanes, cut to 128 bits.
    pub fn finish(&self) -> TickHash {
        let mut h = blake3::Hasher::new();
        for l in self.lanes {
            h.update(&l.to_le_bytes());
        }
        let mut out = [0u8; 16];
        out.copy_from_slice(&h.finalize().as_bytes()[..16]);
        TickHash(out)
    }
}

/// A value folded into a [`Mixer`], every field of it.
pub trait Fold {
    fn fold(&self, m: &mut Mixer);
}

macro_rules! fold_as_word {
    ($($t:ty),*) => {$(
        impl Fold for $t {
            #[inline(always)]
            fn fold(&self, m: &mut Mixer) {
                m.word(*self as u64);
            }
        }
    )*};
}

fold_as_word!(u8, u16, u32, u64, i8, i32, i64, bool);

impl Fold for Fx {
    #[inline(always)]
    fn fold(&self, m: &mut Mixer) {
        m.word(self.to_bits() as u64);
    }
}

impl<T: Fold> Fold for Option<T> {
    #[inline(always)]
    fn fold(&self, m: &mut Mixer) {
        match self {
            None => m.word(0),
            Some(v) => {
                m.word(1);
                v.fold(m);
            }
        }
    }
}

impl<T: Fold> Fold for [T] {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        m.word(self.len() as u64);
        for v in self {
            v.fold(m);
        }
    }
}

impl<T: Fold> Fold for Vec<T> {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        self.as_slice().fold(m);
    }
}

impl<T: Fold, const N: usize> Fold for [T; N] {
    #[inline]
    fn fold(&self, m: &mut Mixer) {
        for v in self {
            v.fold(m);
        }
    }
}

impl<A: Fold, B: Fold> Fold for (A, B) {
    #[inline(always)]
    fn fold(&self, m: &mut Mixer) {
        self.0.fold(m);
        self.1.fold(m);
    }
}

impl Fold for String {
    fn fold(&self, m: &mut Mixer) {
        m.bytes(self.as_bytes());
    }
}

impl Fold for Grid {
    fn fold(&self, m: &mut Mixer) {
        let TickHash(digest) = self.canonical_tick_hash();
        m.bytes(&digest);
    }
}

impl Fold for EntityId {
    #[inline(always)]
    fn fold(&self, m: &mut Mixer) {
        m.word(self.0);
    }
}

impl Fold for Vec2 {
    #[inline(always)]
    fn fold(&self, m: &mut Mixer) {
        let Vec2 { x, y } = self;
        x.fold(m);
        y.fold(m);
    }
}

impl Fold for Tile {
    #[inline(always)]
    fn fold(&self, m: &mut Mixer) {
        let Tile { x, y } = self;
        x.fold(m);
        y.fold(m);
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

/// An enum without data: its variant, as declared (the same index serde gives it).
macro_rules! fold_variant {
    ($($t:ty),*) => {$(
        impl Fold for $t {
            #[inline(always)]
            fn fold(&self, m: &mut Mixer) {
                m.word(*self as u64);
            }
        }
    )*};
}

fold_variant!(UnitState, PlayerStatus, Good, FormationKind);

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
            through,
            anchor,
            strode_from,
            strode,
        } = self;
        m.word(
            u64::from(*corners)
                | some_bit(detoured, 32)
                | some_bit(squeeze_from, 33)
                | u64::from(*through) << 34,
        );
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

#[cfg(test)]
mod tests {
    use super::*;

    fn digest<T: Fold + ?Sized>(v: &T) -> TickHash {
        let mut m = Mixer::default();
        v.fold(&mut m);
        m.finish()
    }

    #[test]
    fn words_in_another_order_or_count_digest_apart() {
        assert_ne!(digest(&[1u64, 2]), digest(&[2u64, 1]));
        assert_ne!(digest(&vec![0u64]), digest(&vec![0u64, 0]));
        assert_ne!(digest(&Some(0u64)), digest(&None::<u64>));
        assert_eq!(digest(&[7u64, 9][..]), digest(&vec![7u64, 9]));
        assert_ne!(digest(&"ab".to_string()), digest(&[0u8; 0]));
    }
}
