//! The mixer of the tick hash (`crate::hash`'s fold): words folded into four multiply-rotate
//! lanes, finished by blake3 into 128 bits, and the [`Fold`] of the plain values every state is
//! made of. Same words, same digest, on every machine (wrapping integer arithmetic only).

use crate::id::EntityId;
use crate::position::{Fx, Tile, Vec2};

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

/// Folds each of the types as one word: a whole number, a `bool`, or an enum without data (its
/// variant as declared, the index serde gives it).
macro_rules! fold_as_word {
    ($($t:ty),*) => {$(
        impl $crate::canon::Fold for $t {
            #[inline(always)]
            fn fold(&self, m: &mut $crate::canon::Mixer) {
                m.word(*self as u64);
            }
        }
    )*};
}
pub(crate) use fold_as_word;

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
