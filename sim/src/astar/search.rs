//! The A* itself (spec: "Finding a route", "The budget", `Pathfinding::AStar::FindRoute`).
//!
//! Tiles, eight ways round, never cutting the corner of a closed tile; integer step costs, so the
//! search is exactly reproducible on every machine. Each open node is one `u64` key — its
//! estimated total above its estimate above its tile index — so one integer comparison orders the
//! heap and ties break the same way everywhere. Neighbours are visited straights first, in one
//! fixed order. The scratch (scores, parents, closed flags) is one array reused between searches
//! and cleared by a generation stamp rather than wiped; nothing is allocated per search once the
//! scratch has grown to the map.

use super::board::{Board, NARROW, STEPS};
use super::landmarks::{Chosen, LayerLandmarks, K_FAR, K_LANDMARKS};
use crate::grid::{Grid, Keyed, LayerId};
use crate::position::Tile;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A step along an axis.
pub const K_STRAIGHT: u32 = 10;
/// A diagonal step.
pub const K_DIAGONAL: u32 = 14;
/// Added for a tile beside closed ground, so routes keep a little off walls and trees.
pub const K_BESIDE_CLOSED: u32 = 4;
/// Added for each unit standing on the tile, so a route goes round a standing crowd when the way
/// round is short and through it when it is not.
pub const K_PAST_STANDING: u32 = 40;
/// A route shorter than this many tiles (the larger of the two axes) gets the short budget.
pub const K_SHORT_ROUTE: i32 = 16;
/// A short route's expansions, before its length is counted.
pub const K_SHORT_BUDGET: u32 = 256;
/// A short route's further expansions for each tile of its length.
pub const K_SHORT_BUDGET_PER_TILE: u32 = 64;
/// Any other route's expansions.
pub const K_MAX_EXPANSIONS: u32 = 20_000;

/// Bits of a heap key given to the tile index (padded maps up to 2050 × 2050 tiles).
const INDEX_BITS: u32 = 23;
/// Bits given to the estimate (saturating: it only breaks ties).
const ESTIMATE_BITS: u32 = 17;
/// Bits given to the estimated total (saturating far beyond any route a budget allows).
const TOTAL_BITS: u32 = 64 - INDEX_BITS - ESTIMATE_BITS;
const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;
const ESTIMATE_MAX: u64 = (1 << ESTIMATE_BITS) - 1;
const TOTAL_MAX: u64 = (1 << TOTAL_BITS) - 1;

/// Node flag: expanded.
const CLOSED: u16 = 1;
/// Node flags: the step the node was reached by (an index into the steps), in these bits.
const PARENT_SHIFT: u16 = 1;
const PARENT_MASK: u16 = 0xF << PARENT_SHIFT;
/// No parent (the start, or not reached yet).
const NO_PARENT: u16 = 8 << PARENT_SHIFT;
/// Node flags above this shift count the units standing on the tile.
const STANDING_SHIFT: u16 = 5;
/// The most units counted standing on one tile (far more than fit on it).
const MOST_STANDING: u16 = u16::MAX >> STANDING_SHIFT;

/// How many expansions a search may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// The spec's budget: [`K_SHORT_BUDGET`] plus [`K_SHORT_BUDGET_PER_TILE`] per tile for a
    /// route shorter than [`K_SHORT_ROUTE`], else [`K_MAX_EXPANSIONS`].
    Spec,
    /// No limit (benchmarks and proofs).
    Unlimited,
}

impl Budget {
    /// The expansions allowed between two tiles.
    pub fn expansions(self, from: Tile, to: Tile) -> u32 {
        match self {
            Budget::Unlimited => u32::MAX,
            Budget::Spec => {
                let length = (to.x - from.x).abs().max((to.y - from.y).abs());
                if length < K_SHORT_ROUTE {
                    K_SHORT_BUDGET + K_SHORT_BUDGET_PER_TILE * length as u32
                } else {
                    K_MAX_EXPANSIONS
                }
            }
        }
    }
}

/// One search's question.
#[derive(Clone, Copy)]
pub struct Search<'a> {
    /// The mover's layer and the gates open to it.
    pub key: Keyed,
    pub from: Tile,
    pub to: Tile,
    /// The tiles of the units standing in the way, one entry per unit: each costs
    /// [`K_PAST_STANDING`] on a tile the search steps onto.
    pub standing: &'a [Tile],
    /// Tiles the search must not step onto, as though closed (a detour round the bodies holding
    /// a walker up: Cohort's choice, `crate::walk::held`). The start is never blocked.
    pub blocked: &'a [Tile],
    /// And tiles this says are closed, asked as the search comes to them (the same detour: every
    /// tile someone stands on).
    pub closed_by: Option<&'a dyn Fn(Tile) -> bool>,
    /// Whether a tile beside closed ground costs [`K_BESIDE_CLOSED`] more.
    pub beside_closed: bool,
    /// Whether the mover's body is wider than a tile ([`crate::astar::wider_than_a_tile`]): it
    /// steps onto no tile of a gap one tile wide but the goal's (Cohort's choice: a trebuchet
    /// sent through such a gap between two trees stood at it for good).
    pub wide: bool,
    pub budget: Budget,
    /// The layer's landmarks, or `None` for the octile estimate alone.
    pub landmarks: Option<&'a LayerLandmarks>,
}

impl<'a> Search<'a> {
    /// A search with the spec's costs and budget, nobody standing, octile estimate.
    pub fn new(key: Keyed, from: Tile, to: Tile) -> Search<'a> {
        Search {
            key,
            from,
            to,
            standing: &[],
            blocked: &[],
            closed_by: None,
            beside_closed: true,
            wide: false,
            budget: Budget::Spec,
            landmarks: None,
        }
    }
}

/// What a search found. The tiles walked are in [`Scratch::path`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The goal was reached; otherwise the route ends at the tile found nearest the goal by the
    /// estimate.
    pub reached: bool,
    /// The route's last tile.
    pub end: Tile,
    /// The cost of the route to `end`, at the search's step costs.
    pub cost: u32,
    /// Nodes expanded.
    pub expansions: u32,
}

impl Found {
    /// Whether there is a route at all: the goal was reached, or the search got somewhere other
    /// than the start.
    pub fn is_route(&self, from: Tile) -> bool {
        self.reached || self.end != from
    }
}

/// One node of the scratch.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    /// The search this node was last touched by; any other value means untouched.
    generation: u16,
    /// The best cost found from the start.
    g: u32,
    /// [`CLOSED`], the step it was reached by (or [`NO_PARENT`]) and the count of units
    /// standing on it above [`STANDING_SHIFT`]. Eight bytes a node keep the array small: the
    /// search's time goes mostly to fetching neighbours' nodes.
    flags: u16,
}

/// The search's scratch, kept between searches (one per world, in its caches): the node array
/// cleared by a generation stamp, the heap, the path, and each layer's board.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    nodes: Vec<Node>,
    generation: u16,
    heap: BinaryHeap<Reverse<u64>>,
    path: Vec<Tile>,
    boards: Vec<Option<Board>>,
}

impl Scratch {
    /// The tiles of the last search's route, start to end.
    pub fn path(&self) -> &[Tile] {
        &self.path
    }

    /// The board of a layer, read again from the grid when its walk revision has changed.
    fn board(&mut self, grid: &Grid, layer: LayerId) -> &Board {
        let l = layer as usize;
        if self.boards.len() <= l {
            self.boards.resize(l + 1, None);
        }
        let fresh = self.boards[l]
            .as_ref()
            .is_some_and(|b| b.fresh(grid, layer));
        if !fresh {
            self.boards[l] = Some(Board::build(grid, layer));
        }
        self.boards[l].as_ref().expect("just built")
    }

    /// Starts a new search over `len` padded tiles: a new generation, wiping only on wrap-around.
    fn begin(&mut self, len: usize) -> u16 {
        if self.nodes.len() != len {
            self.nodes.clear();
            self.nodes.resize(len, Node::default());
            self.generation = 0;
        }
        if self.generation == u16::MAX {
            self.nodes.fill(Node::default());
            self.generation = 0;
        }
        self.generation += 1;
        self.heap.clear();
        self.path.clear();
        self.generation
    }
}

#[inline]
fn key_of(total: u32, estimate: u32, index: usize) -> u64 {
    (u64::from(total).min(TOTAL_MAX) << (INDEX_BITS + ESTIMATE_BITS))
        | (u64::from(estimate).min(ESTIMATE_MAX) << INDEX_BITS)
        | index as u64
}

/// The octile distance at the search's step costs: the exact cost of an unobstructed walk.
#[inline]
pub fn octile(dx: i32, dy: i32) -> u32 {
    let (a, b) = (dx.unsigned_abs(), dy.unsigned_abs());
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    K_STRAIGHT * hi + (K_DIAGONAL - K_STRAIGHT) * lo
}

/// The estimate: the larger of the octile distance and the chosen landmarks' bounds.
struct Estimate<'a> {
    goal: Tile,
    table: &'a [u16],
    chosen: Chosen,
}

impl Estimate<'_> {
    #[inline]
    fn at(&self, x: i32, y: i32, p: usize) -> u32 {
        let mut best = octile(x - self.goal.x, y - self.goal.y);
        if self.chosen.count == 0 {
            return best;
        }
        let here = &self.table[p * K_LANDMARKS..(p + 1) * K_LANDMARKS];
        for c in 0..self.chosen.count {
            let d = here[self.chosen.landmark[c]];
            if d != K_FAR {
                best = best.max(u32::from(d.abs_diff(self.chosen.goal_from[c])));
            }
        }
        best
    }
}

/// Searches for a route from `search.from` to `search.to`. Same grid and question, same route,
/// on every machine. The route's tiles are left in [`Scratch::path`].
pub fn find_route(grid: &Grid, scratch: &mut Scratch, search: &Search) -> Found {
    let (from, to) = (search.from, search.to);
    let nothing = Found {
        reached: false,
        end: from,
        cost: 0,
        expansions: 0,
    };
    if !grid.contains(from) || !grid.contains(to) {
        scratch.path.clear();
        return nothing;
    }
    let layer = search.key.layer();
    let key = search.key;
    scratch.board(grid, layer);
    let len = scratch.boards[layer as usize]
        .as_ref()
        .map_or(0, |b| b.cells.len());
    let generation = scratch.begin(len);
    let Scratch {
        nodes,
        heap,
        path,
        boards,
        ..
    } = scratch;
    let board = boards[layer as usize].as_ref().expect("built above");
    let pitch = board.pitch;
    let offsets = board.offsets;
    let start = board.padded(from.x, from.y);
    let goal = board.padded(to.x, to.y);

    for t in search.standing {
        if grid.contains(*t) {
            let n = &mut nodes[board.padded(t.x, t.y)];
            if n.generation != generation {
                *n = Node {
                    generation,
                    g: u32::MAX,
                    flags: NO_PARENT,
                };
            }
            if n.flags >> STANDING_SHIFT < MOST_STANDING {
                n.flags += 1 << STANDING_SHIFT;
            }
        }
    }

    for t in search.blocked {
        if grid.contains(*t) && *t != from {
            nodes[board.padded(t.x, t.y)] = Node {
                generation,
                g: u32::MAX,
                flags: NO_PARENT | CLOSED,
            };
        }
    }

    let estimate = match search.landmarks {
        Some(m) => Estimate {
            goal: to,
            table: m.table(),
            chosen: m.choose(start, goal),
        },
        None => Estimate {
            goal: to,
            table: &[],
            chosen: Chosen::default(),
        },
    };

    let budget = search.budget.expansions(from, to);
    let start_node = &mut nodes[start];
    if start_node.generation != generation {
        start_node.flags = 0;
    }
    start_node.generation = generation;
    start_node.g = 0;
    start_node.flags = (start_node.flags & !PARENT_MASK) | NO_PARENT;
    let h0 = estimate.at(from.x, from.y, start);
    heap.push(Reverse(key_of(h0, h0, start)));

    let mut expansions = 0u32;
    let mut reached = false;
    let (mut best, mut best_h) = (start, h0);
    while let Some(Reverse(k)) = heap.pop() {
        let p = (k & INDEX_MASK) as usize;
        let node = nodes[p];
        if node.flags & CLOSED != 0 {
            continue;
        }
        if p == goal {
            reached = true;
            break;
        }
        if expansions >= budget {
            break;
        }
        nodes[p].flags |= CLOSED;
        expansions += 1;
        let h = ((k >> INDEX_BITS) & ESTIMATE_MAX) as u32;
        if h < best_h {
            best_h = h;
            best = p;
        }
        let (x, y) = ((p % pitch) as i32 - 1, (p / pitch) as i32 - 1);
        let g = node.g;
        // The legal steps, straights first in the one fixed order (bit s is STEPS[s]).
        let mut moves = board.moves_for(grid, key, p);
        while moves != 0 {
            let s = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let n = (p as isize + offsets[s]) as usize;
            if search.wide && n != goal && board.cells[n] & NARROW != 0 {
                continue;
            }
            if let Some(closed) = search.closed_by {
                let (dx, dy) = STEPS[s];
                if closed(Tile::new(x + dx, y + dy)) {
                    continue;
                }
            }
            let nb = &mut nodes[n];
            if nb.generation != generation {
                *nb = Node {
                    generation,
                    g: u32::MAX,
                    flags: NO_PARENT,
                };
            } else if nb.flags & CLOSED != 0 {
                continue;
            }
            let mut step = if s < 4 { K_STRAIGHT } else { K_DIAGONAL };
            if search.beside_closed && board.beside_closed(grid, key, n) {
                step += K_BESIDE_CLOSED;
            }
            step += K_PAST_STANDING * u32::from(nb.flags >> STANDING_SHIFT);
            let ng = g + step;
            if ng < nb.g {
                nb.g = ng;
                nb.flags = (nb.flags & !PARENT_MASK) | ((s as u16) << PARENT_SHIFT);
                let (dx, dy) = STEPS[s];
                let hn = estimate.at(x + dx, y + dy, n);
                heap.push(Reverse(key_of(ng + hn, hn, n)));
            }
        }
    }

    let end = if reached { goal } else { best };
    let mut p = end;
    loop {
        path.push(Tile::new((p % pitch) as i32 - 1, (p / pitch) as i32 - 1));
        let step = nodes[p].flags & PARENT_MASK;
        if step == NO_PARENT {
            break;
        }
        p = (p as isize - offsets[(step >> PARENT_SHIFT) as usize]) as usize;
    }
    path.reverse();
    Found {
        reached,
        end: Tile::new((end % pitch) as i32 - 1, (end / pitch) as i32 - 1),
        cost: nodes[end].g,
        expansions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field 12 × 9 with a tree line down x = 6: a gap one tile wide at y = 2, one two tiles
    /// wide at y = 6 and 7; searched from (1, 2) to (10, 2) by a body wider than a tile or not.
    fn through_the_tree_line(wide: bool) -> Vec<Tile> {
        use crate::grid::Occupant;
        use crate::id::EntityId;
        use crate::ruleset::Ruleset;
        let rules = Ruleset::default_rules();
        let mut g = Grid::new(&rules, 12, 9, rules.terrain("grass").unwrap());
        for y in [0, 1, 3, 4, 5, 8] {
            g.set_occupant(Tile::new(6, y), Occupant::Building(EntityId(1)));
        }
        let mut scratch = Scratch::default();
        let search = Search {
            wide,
            ..Search::new(Keyed::unkeyed(0), Tile::new(1, 2), Tile::new(10, 2))
        };
        let found = find_route(&g, &mut scratch, &search);
        assert!(found.reached);
        scratch.path().to_vec()
    }

    #[test]
    fn a_body_wider_than_a_tile_goes_round_a_gap_a_tile_wide() {
        let narrow = Tile::new(6, 2);
        assert!(through_the_tree_line(false).contains(&narrow));
        let wide = through_the_tree_line(true);
        assert!(!wide.contains(&narrow), "{wide:?}");
        assert!(
            wide.iter().any(|t| t.x == 6 && (t.y == 6 || t.y == 7)),
            "{wide:?}"
        );
    }

    #[test]
    fn a_node_is_eight_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 8);
    }

    #[test]
    fn a_heap_key_orders_by_total_then_estimate_then_index() {
        assert!(key_of(10, 9, 5) < key_of(11, 0, 0));
        assert!(key_of(10, 3, 9) < key_of(10, 4, 0));
        assert!(key_of(10, 3, 1) < key_of(10, 3, 2));
    }
}
