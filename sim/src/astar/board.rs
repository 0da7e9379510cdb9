//! The search's own copy of one layer's ground: a flag byte per tile with a one-tile closed
//! border, so a tile's eight neighbours are fixed offsets and the hot loop never checks bounds.
//!
//! Derived from the grid (never hashed), rebuilt only when the layer's walk revision changes.

use crate::grid::{Grid, Keyed, LayerId, Occupant};

/// Open to every mover of the layer.
pub(crate) const OPEN: u8 = 1;
/// A gate's tile on the layer's terrain: open only to a key naming a friend of its owner while
/// unlocked.
pub(crate) const GATE: u8 = 2;
/// Some tile of the eight round it is not [`OPEN`] (off the map counts).
pub(crate) const BESIDE_CLOSED: u8 = 4;
/// Some tile of the eight round it is a [`GATE`]: whether it is beside closed ground depends on
/// the key.
pub(crate) const BESIDE_GATE: u8 = 8;
/// An [`OPEN`] tile whose two neighbours across from it are both not open — east and west,
/// north and south, or two corners across (north-east and south-west, north-west and
/// south-east): a gap a tile wide, which no body wider than a tile can pass (Cohort's choice,
/// [`crate::astar::wider_than_a_tile`]: its box is wider than the gap along an axis, and its
/// diagonal wider than the √2 between two corners across).
pub(crate) const NARROW: u8 = 16;

/// One layer's tiles, padded by a closed border.
#[derive(Clone, Debug, Default)]
pub(crate) struct Board {
    pub layer: LayerId,
    /// The walk revision the flags were read at.
    pub revision: u32,
    pub width: i32,
    pub height: i32,
    /// Padded row length: `width + 2`.
    pub pitch: usize,
    pub cells: Vec<u8>,
    /// Per padded tile, the steps a search may take from it with every gate shut: bit `s` for
    /// [`STEPS`]`[s]` when that tile is open and, for a diagonal, both tiles beside the corner
    /// too. A tile [`BESIDE_GATE`] works its steps out per key instead.
    pub moves: Vec<u8>,
    /// The eight neighbour offsets, straights first: N, E, S, W, then NE, SE, SW, NW.
    pub offsets: [isize; 8],
}

/// The eight steps, straights first, in the one fixed order every search uses.
pub(crate) const STEPS: [(i32, i32); 8] = crate::position::EIGHT_WAYS;

/// For each diagonal step (index 4 to 7), the two straight steps whose tiles must be open.
pub(crate) const DIAGONAL_SIDES: [(usize, usize); 4] = [(0, 1), (1, 2), (2, 3), (3, 0)];

impl Board {
    /// Reads the layer's ground from the grid.
    pub fn build(grid: &Grid, layer: LayerId) -> Board {
        let (w, h) = (grid.width(), grid.height());
        let pitch = (w + 2) as usize;
        let mut cells = vec![0u8; pitch * (h + 2) as usize];
        for y in 0..h {
            for x in 0..w {
                let i = (y * w + x) as usize;
                let p = (y as usize + 1) * pitch + x as usize + 1;
                cells[p] = if grid.open_at(layer, i) {
                    OPEN
                } else if matches!(grid.occupant_at(i), Occupant::Gate { .. })
                    && grid.terrain_allows(layer, i)
                {
                    GATE
                } else {
                    0
                };
            }
        }
        let offsets = STEPS.map(|(dx, dy)| dy as isize * pitch as isize + dx as isize);
        let mut board = Board {
            layer,
            revision: grid.walk_revision(layer),
            width: w,
            height: h,
            pitch,
            cells,
            moves: Vec::new(),
            offsets,
        };
        board.mark_beside();
        board.mark_moves();
        board
    }

    /// Whether this board still shows the grid's layer.
    pub fn fresh(&self, grid: &Grid, layer: LayerId) -> bool {
        self.layer == layer
            && self.revision == grid.walk_revision(layer)
            && self.width == grid.width()
            && self.height == grid.height()
    }

    fn mark_beside(&mut self) {
        for y in 0..self.height as usize {
            for x in 0..self.width as usize {
                let p = (y + 1) * self.pitch + x + 1;
                let mut flags = 0;
                let shut = |o: isize| self.cells[(p as isize + o) as usize] & OPEN == 0;
                let o = self.offsets;
                // N, E, S, W, NE, SE, SW, NW: each with the one across from it.
                let across = [(0, 2), (1, 3), (4, 6), (5, 7)]
                    .iter()
                    .any(|&(a, b)| shut(o[a]) && shut(o[b]));
                if self.cells[p] & OPEN != 0 && across {
                    flags |= NARROW;
                }
                for o in self.offsets {
                    let c = self.cells[(p as isize + o) as usize];
                    if c & OPEN == 0 {
                        flags |= BESIDE_CLOSED;
                    }
                    if c & GATE != 0 {
                        flags |= BESIDE_GATE;
                    }
                }
                self.cells[p] |= flags;
            }
        }
    }

    fn mark_moves(&mut self) {
        let mut moves = vec![0u8; self.cells.len()];
        for y in 0..self.height as usize {
            for x in 0..self.width as usize {
                let p = (y + 1) * self.pitch + x + 1;
                moves[p] = self.steps_from(p, |n| self.cells[n] & OPEN != 0);
            }
        }
        self.moves = moves;
    }

    /// The steps from padded tile `p` onto padded tiles `open` says are open, never cutting a
    /// corner.
    #[inline]
    fn steps_from(&self, p: usize, open: impl Fn(usize) -> bool) -> u8 {
        let mut mask = 0u8;
        for s in 0..4 {
            if open((p as isize + self.offsets[s]) as usize) {
                mask |= 1 << s;
            }
        }
        for (d, &(a, b)) in DIAGONAL_SIDES.iter().enumerate() {
            if mask & (1 << a) != 0
                && mask & (1 << b) != 0
                && open((p as isize + self.offsets[4 + d]) as usize)
            {
                mask |= 1 << (4 + d);
            }
        }
        mask
    }

    /// The steps a search with `key` may take from padded tile `p` (bit `s` for [`STEPS`]`[s]`).
    #[inline]
    pub fn moves_for(&self, grid: &Grid, key: Keyed, p: usize) -> u8 {
        if self.cells[p] & BESIDE_GATE == 0 {
            return self.moves[p];
        }
        self.steps_from(p, |n| self.open(grid, key, n))
    }

    /// The padded index of a tile on the map.
    #[inline]
    pub fn padded(&self, x: i32, y: i32) -> usize {
        (y as usize + 1) * self.pitch + x as usize + 1
    }

    /// The grid index of a padded index inside the border.
    #[inline]
    pub fn grid_index(&self, p: usize) -> usize {
        let (py, px) = (p / self.pitch, p % self.pitch);
        (py - 1) * self.width as usize + (px - 1)
    }

    /// Whether the padded tile `p` is open for `key`.
    #[inline]
    pub fn open(&self, grid: &Grid, key: Keyed, p: usize) -> bool {
        let c = self.cells[p];
        c & OPEN != 0 || (c & GATE != 0 && grid.passable_at(key, self.grid_index(p)))
    }

    /// Whether the padded tile `p` is beside closed ground for `key`.
    #[inline]
    pub fn beside_closed(&self, grid: &Grid, key: Keyed, p: usize) -> bool {
        let c = self.cells[p];
        if c & BESIDE_CLOSED == 0 {
            return false;
        }
        if c & BESIDE_GATE == 0 {
            return true;
        }
        self.offsets
            .iter()
            .any(|&o| !self.open(grid, key, (p as isize + o) as usize))
    }
}
