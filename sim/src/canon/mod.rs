//! The canonical encoder (DESIGN.md, "Hashing"): every value of the sim in one byte order,
//! the same on every machine, and the two digests built on it — blake3 of the canonical bytes
//! ([`hash_of`]) and the tick hash's mixer ([`Mixer`]). The bottom of the sim with `position`
//! and `id`: the ruleset and the grid hash themselves with it, the state hash (`crate::hash`)
//! is built from it.

mod encoder;
mod mixer;

pub use encoder::{encode, CanonError, Sink};
pub(crate) use mixer::fold_as_word;
pub use mixer::{Fold, Mixer, TickHash};

use serde::Serialize;

/// `Display` and `Debug` as lowercase hex, for a hash newtype over a byte array.
macro_rules! shown_as_hex {
    ($t:ty) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                for b in self.0 {
                    write!(f, "{b:02x}")?;
                }
                Ok(())
            }
        }

        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(self, f)
            }
        }
    };
}
pub(crate) use shown_as_hex;

/// blake3 of a value's canonical encoding.
///
/// Panics only if the value holds a float, which no sim type does.
pub fn hash_of<T: Serialize + ?Sized>(value: &T) -> [u8; 32] {
    let mut h = Buffered::new();
    put(&mut h, value);
    h.finish()
}

/// Feeds a value's canonical encoding to a sink.
pub(crate) fn put<T: Serialize + ?Sized, S: Sink>(sink: &mut S, value: &T) {
    encode(value, sink).expect("sim state holds no floats");
}

/// The canonical bytes of a value.
pub fn canonical_bytes<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut v = Vec::new();
    encode(value, &mut v).expect("sim state holds no floats");
    v
}

/// How many canonical bytes are gathered before blake3 takes them: one `update` of many
/// chunks is several times faster than an `update` a field (BENCHMARKS.md, "Tick hashes").
const HASH_BUFFER_BYTES: usize = 64 * 1024;

/// A blake3 hasher fed through a buffer. The hash is that of the bytes put, however they are
/// cut.
pub(crate) struct Buffered {
    hasher: blake3::Hasher,
    buffer: Vec<u8>,
}

impl Buffered {
    pub(crate) fn new() -> Buffered {
        Buffered {
            hasher: blake3::Hasher::new(),
            buffer: Vec::with_capacity(HASH_BUFFER_BYTES),
        }
    }

    pub(crate) fn finish(mut self) -> [u8; 32] {
        self.hasher.update(&self.buffer);
        *self.hasher.finalize().as_bytes()
    }
}

impl Sink for Buffered {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        if self.buffer.len() + bytes.len() > HASH_BUFFER_BYTES {
            self.hasher.update(&self.buffer);
            self.buffer.clear();
            if bytes.len() >= HASH_BUFFER_BYTES {
                self.hasher.update(bytes);
                return;
            }
        }
        self.buffer.extend_from_slice(bytes);
    }
}
