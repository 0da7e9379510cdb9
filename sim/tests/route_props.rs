//! Property tests of the route search on random grids with random standing units and crowds
//! (issue 3, "Proof"):
//!
//! - A*'s cost equals a plain Dijkstra's over the same step costs (straight 10, diagonal 14,
//!   +4 beside closed ground, +40 per unit standing on the tile), with and without landmarks:
//!   the estimate never overestimates.
//! - A straightened route never takes the body through closed ground: along every leg, sampled
//!   far finer than `body_clear` samples, the middle stays on open tiles (but at the leg's ends)
//!   and the body's box touches closed ground only where it touches it at the leg's start or end.
//! - Identical inputs give identical routes, whatever the scratch held before.
//!
//! The grids mix closed terrain (cliff: the landmarks know it) with trees (occupants: the
//! landmarks do not), so the landmark bounds are exercised where they are loosest.

use cohort_sim::astar::{
    find_route, straighten, Budget, LayerLandmarks, Scratch, Search, StandingBody, Walker,
    K_BESIDE_CLOSED, K_DIAGONAL, K_MIN_BODY_RADIUS, K_PAST_STANDING, K_STRAIGHT,
};
use cohort_sim::grid::{Grid, Keyed, Occupant};
use cohort_sim::nav::route;
use cohort_sim::world::{EntityId, Player, World};
use cohort_sim::{fx_ratio, Bounds, Fx, Ruleset, Tile, Vec2};
use proptest::prelude::*;
use std::sync::Arc;

const LAND: Keyed = Keyed::unkeyed(0);

/// What a random case is made of.
#[derive(Clone, Debug)]
struct Case {
    w: i32,
    h: i32,
    /// Per tile: 0 open, 1 cliff, 2 tree.
    cells: Vec<u8>,
    /// Tiles with a unit standing on them (repeats stack).
    standing: Vec<(i32, i32)>,
    /// A crowd round the goal: this many tiles of a square spiral out from it.
    crowd: usize,
    from: (i32, i32),
    to: (i32, i32),
    /// The walker's radius in hundredths of a tile.
    radius: i64,
}

fn case() -> impl Strategy<Value = Case> {
    (6i32..22, 6i32..22).prop_flat_map(|(w, h)| {
        let n = (w * h) as usize;
        (
            proptest::collection::vec(
                prop_oneof![6 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)],
                n,
            ),
            proptest::collection::vec((0..w, 0..h), 0..12),
            0usize..40,
            (0..w, 0..h),
            (0..w, 0..h),
            prop_oneof![Just(0i64), Just(20), Just(35), Just(45)],
        )
            .prop_map(move |(cells, standing, crowd, from, to, radius)| Case {
                w,
                h,
                cells,
                standing,
                crowd,
                from,
                to,
                radius,
            })
    })
}

impl Case {
    fn grid(&self, rules: &Ruleset) -> Grid {
        let mut g = Grid::new(rules, self.w, self.h, rules.terrain("grass").unwrap());
        let cliff = rules.terrain("cliff").unwrap();
        for y in 0..self.h {
            for x in 0..self.w {
                match self.cells[(y * self.w + x) as usize] {
                    1 => g.set_terrain(Tile::new(x, y), cliff),
                    2 => g.set_occupant(Tile::new(x, y), Occupant::Resource(EntityId(1))),
                    _ => {}
                }
            }
        }
        // Both ends open.
        for (x, y) in [self.from, self.to] {
            g.set_terrain(Tile::new(x, y), rules.terrain("grass").unwrap());
            g.set_occupant(Tile::new(x, y), Occupant::Nothing);
        }
        g
    }

    /// The standing units' tiles: the random ones and the crowd spiralling out from the goal.
    fn standing_tiles(&self) -> Vec<Tile> {
        let mut out: Vec<Tile> = self
            .standing
            .iter()
            .map(|&(x, y)| Tile::new(x, y))
            .collect();
        let (gx, gy) = self.to;
        let mut added = 0;
        'rings: for r in 1..self.w.max(self.h) {
            for y in gy - r..=gy + r {
                for x in gx - r..=gx + r {
                    if (x - gx).abs().max((y - gy).abs()) != r {
                        continue;
                    }
                    if added == self.crowd {
                        break 'rings;
                    }
                    if x >= 0 && y >= 0 && x < self.w && y < self.h {
                        out.push(Tile::new(x, y));
                        added += 1;
                    }
                }
            }
        }
        out
    }

    fn radius(&self) -> Fx {
        fx_ratio(self.radius, 100)
    }
}

/// The reference: a plain Dijkstra over the same costs, written apart from the search.
fn dijkstra(g: &Grid, standing: &[Tile], from: Tile, to: Tile) -> Option<u32> {
    let open = |x: i32, y: i32| g.passable(LAND, Tile::new(x, y));
    let beside_closed = |x: i32, y: i32| {
        (-1..=1).any(|dy| (-1..=1).any(|dx| (dx, dy) != (0, 0) && !open(x + dx, y + dy)))
    };
    let on = |x: i32, y: i32| standing.iter().filter(|t| (t.x, t.y) == (x, y)).count() as u32;
    let successors = |&(x, y): &(i32, i32)| {
        let mut out = Vec::new();
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (nx, ny) = (x + dx, y + dy);
                if (dx, dy) == (0, 0) || !open(nx, ny) {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                if diagonal && !(open(x + dx, y) && open(x, y + dy)) {
                    continue;
                }
                let mut step = if diagonal { K_DIAGONAL } else { K_STRAIGHT };
                if beside_closed(nx, ny) {
                    step += K_BESIDE_CLOSED;
                }
                step += K_PAST_STANDING * on(nx, ny);
                out.push(((nx, ny), step));
            }
        }
        out
    };
    pathfinding::directed::dijkstra::dijkstra(&(from.x, from.y), successors, |&p| p == (to.x, to.y))
        .map(|(_, c)| c)
}

/// The tiles a box reaching `r` bits from `p` overlaps (touching an edge is not overlapping).
fn overlapped(p: Vec2, r: i64) -> Vec<(i32, i32)> {
    let span = |c: i64| {
        let lo = ((c - r - (1 << 15)) >> 16) + 1;
        let hi = -((-(c + r + (1 << 15))) >> 16) - 1;
        (lo as i32, hi as i32)
    };
    let ((x0, x1), (y0, y1)) = (span(p.x.to_bits()), span(p.y.to_bits()));
    (y0..=y1)
        .flat_map(|y| (x0..=x1).map(move |x| (x, y)))
        .collect()
}

/// Whether a body of `radius` walking from `a` to `b` stays off closed ground, sampled every
/// sixteenth of a tile: the middle's tile is open (but at either end's tile) and the box touches
/// closed ground only where it touches it at `a` or at `b`.
fn walk_stays_open(g: &Grid, a: Vec2, b: Vec2, radius: Fx) -> Result<(), String> {
    let r = radius.max(K_MIN_BODY_RADIUS).to_bits();
    let (ends_a, ends_b) = (overlapped(a, r), overlapped(b, r));
    let steps = (((b - a).length().to_bits() * 16) >> 16).max(1);
    for k in 0..=steps {
        let p = a.lerp(b, Fx::from_num(k), Fx::from_num(steps));
        let t = p.tile();
        if t != a.tile() && t != b.tile() && !g.passable(LAND, t) {
            return Err(format!("the middle crosses closed {t:?} at {p:?}"));
        }
        for (x, y) in overlapped(p, r) {
            if g.passable(LAND, Tile::new(x, y))
                || ends_a.contains(&(x, y))
                || ends_b.contains(&(x, y))
            {
                continue;
            }
            return Err(format!("the body touches closed ({x}, {y}) at {p:?}"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_star_costs_what_dijkstra_costs(c in case()) {
        let rules = Ruleset::default_rules();
        let g = c.grid(&rules);
        let standing = c.standing_tiles();
        let (from, to) = (Tile::new(c.from.0, c.from.1), Tile::new(c.to.0, c.to.1));
        let marks = LayerLandmarks::measure(&g, 0);
        let reference = dijkstra(&g, &standing, from, to);
        let mut scratch = Scratch::default();
        for landmarks in [None, Some(&marks)] {
            let search = Search {
                standing: &standing,
                budget: Budget::Unlimited,
                landmarks,
                ..Search::new(LAND, from, to)
            };
            let found = find_route(&g, &mut scratch, &search);
            prop_assert_eq!(found.reached, reference.is_some());
            if let Some(cost) = reference {
                prop_assert_eq!(found.cost, cost, "landmarks: {}", landmarks.is_some());
            }
        }
    }

    #[test]
    fn a_straightened_route_never_takes_the_body_through_closed_ground(c in case()) {
        let rules = Ruleset::default_rules();
        let g = c.grid(&rules);
        let standing = c.standing_tiles();
        let (from, to) = (Tile::new(c.from.0, c.from.1), Tile::new(c.to.0, c.to.1));
        let mut scratch = Scratch::default();
        let search = Search { standing: &standing, ..Search::new(LAND, from, to) };
        let found = find_route(&g, &mut scratch, &search);
        let bodies: Vec<StandingBody> = standing
            .iter()
            .map(|&t| StandingBody { tile: t, bounds: Bounds::around(Vec2::of_tile(t), fx_ratio(1, 5)) })
            .collect();
        let walker = Walker { key: LAND, radius: c.radius(), standing: &bodies };
        // Start off the tile's middle, as a unit does.
        let start = Vec2::of_tile(from) + Vec2::new(fx_ratio(1, 10), -fx_ratio(3, 20));
        let goal = Vec2::of_tile(to) - Vec2::new(fx_ratio(1, 7), fx_ratio(1, 9));
        let legs = straighten(&g, &walker, start, scratch.path(), found.reached.then_some(goal));
        if found.reached {
            prop_assert_eq!(legs.last(), Some(&goal));
        }
        let mut at = start;
        for &leg in &legs {
            if let Err(e) = walk_stays_open(&g, at, leg, c.radius()) {
                return Err(TestCaseError::fail(format!("{at:?} -> {leg:?}: {e}")));
            }
            at = leg;
        }
    }

    #[test]
    fn identical_inputs_give_identical_routes(c in case(), other in (0i32..6, 0i32..6)) {
        let rules = Ruleset::default_rules();
        let g = c.grid(&rules);
        let standing = c.standing_tiles();
        let (from, to) = (Tile::new(c.from.0, c.from.1), Tile::new(c.to.0, c.to.1));
        let marks = LayerLandmarks::measure(&g, 0);
        let search = Search { standing: &standing, landmarks: Some(&marks), ..Search::new(LAND, from, to) };
        let mut fresh = Scratch::default();
        let a = find_route(&g, &mut fresh, &search);
        // A scratch that has searched something else first.
        let mut used = Scratch::default();
        find_route(&g, &mut used, &Search::new(LAND, Tile::new(other.0, other.1), from));
        let b = find_route(&g, &mut used, &search);
        prop_assert_eq!(a, b);
        prop_assert_eq!(fresh.path(), used.path());

        // Through a whole world: the walker, standing units and the crowd, twice over.
        let world = || {
            let rules = Arc::new(Ruleset::default_rules());
            let mut w = World::new(rules.clone(), c.grid(&rules), vec![Player::new(0, 0), Player::new(1, 1)], 3);
            let kind = rules.unit_kind("villager").unwrap();
            let walker = w.spawn_unit(kind, 0, Vec2::of_tile(from));
            for t in &standing {
                w.spawn_unit(kind, 1, Vec2::of_tile(*t));
            }
            w.file_survey();
            (w, walker)
        };
        let (mut w1, u1) = world();
        let (mut w2, u2) = world();
        let _ = route(&mut w2.parts(), u2, Vec2::of_tile(Tile::new(other.0, other.1)));
        let r1 = route(&mut w1.parts(), u1, Vec2::of_tile(to));
        let r2 = route(&mut w2.parts(), u2, Vec2::of_tile(to));
        prop_assert_eq!(r1, r2);
    }
}
