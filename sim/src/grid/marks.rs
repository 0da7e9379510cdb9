//! A set of tiles marked during one look over the ground (a flood over a crowd's tiles).
//!
//! Only membership is asked of it, never its order, so it may be a table hashed by tile index:
//! open addressing, a fixed multiplier, no seed, the same on every machine. It holds as many
//! tiles as a look visits (up to a whole crowd's) in a few kilobytes, where a tree of tiles
//! searched on every step of a flood cost a walk in a battle a twentieth of its tick.

/// Tiles (grid indices) marked so far.
#[derive(Clone, Debug)]
pub struct TileMarks {
    /// Each slot holds a tile index plus one, or 0 for an empty slot.
    slots: Vec<u32>,
    len: usize,
}

/// The table starts with this many slots (a power of two), room for half as many tiles.
const FIRST_SLOTS: usize = 256;

impl Default for TileMarks {
    fn default() -> Self {
        TileMarks::new()
    }
}

impl TileMarks {
    /// No tile marked.
    pub fn new() -> TileMarks {
        TileMarks {
            slots: vec![0; FIRST_SLOTS],
            len: 0,
        }
    }

    /// How many tiles are marked.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no tile is marked.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether tile index `i` is marked.
    pub fn contains(&self, i: u32) -> bool {
        let mask = self.slots.len() - 1;
        let mut k = slot_of(i, mask);
        loop {
            match self.slots[k] {
                0 => return false,
                s if s == i + 1 => return true,
                _ => k = (k + 1) & mask,
            }
        }
    }

    /// Marks tile index `i`; `true` when it was not marked before.
    pub fn insert(&mut self, i: u32) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut k = slot_of(i, mask);
        loop {
            match self.slots[k] {
                0 => {
                    self.slots[k] = i + 1;
                    self.len += 1;
                    return true;
                }
                s if s == i + 1 => return false,
                _ => k = (k + 1) & mask,
            }
        }
    }

    /// Twice the slots, every mark kept.
    fn grow(&mut self) {
        let wider = vec![0; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, wider);
        self.len = 0;
        for s in old.into_iter().filter(|&s| s != 0) {
            self.insert(s - 1);
        }
    }
}

/// The slot a tile index hashes to: Fibonacci hashing, the top bits of the product.
fn slot_of(i: u32, mask: usize) -> usize {
    let h = i.wrapping_mul(0x9E37_79B9);
    let bits = (mask + 1).trailing_zeros();
    (h >> (32 - bits)) as usize & mask
}

#[cfg(test)]
mod tests {
    use super::TileMarks;
    use std::collections::BTreeSet;

    #[test]
    fn marks_as_a_set_does() {
        let mut marks = TileMarks::new();
        let mut set = BTreeSet::new();
        // Tiles of a 2048-wide grid, clustered and scattered, many repeated.
        let mut x: u32 = 12345;
        for n in 0..5000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let i = if n % 3 == 0 {
                x % 4_000_000
            } else {
                2048 * (n % 40) + x % 60
            };
            assert_eq!(marks.insert(i), set.insert(i), "insert {i}");
            assert_eq!(marks.len(), set.len());
        }
        for i in 0..200_000u32 {
            assert_eq!(marks.contains(i), set.contains(&i), "contains {i}");
        }
        assert!(set.iter().all(|&i| marks.contains(i)));
        assert!(!TileMarks::new().contains(0));
        assert!(TileMarks::new().is_empty());
    }
}
