//! Formation layouts (spec: "Formations", `Formations::Layout`): places about the point in the
//! formation's own frame — `across` to the right of the march, `forward` toward its front.
//! Hand-to-hand fighters take the front ranks, shooters the ranks behind, never sharing one.

use crate::command::FormationKind;
use crate::position::{fx_ratio, Fx};

/// Neighbours in a formation stand this far apart (tiles): the spacing units keep standing.
pub const K_SPACING: Fx = fx_ratio(7, 10);
/// The gap between a Flank formation's two halves, in spacings. Cohort's choice, not the spec's:
/// the spec says only "a gap between them" and names no figure.
pub const K_FLANK_GAP_SPACINGS: i64 = 3;

/// One place of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub across: Fx,
    pub forward: Fx,
    /// A place for a hand-to-hand fighter (else for a shooter).
    pub fighter: bool,
}

/// The places of a formation of `fighters` hand-to-hand units and `shooters`, front ranks first.
pub fn layout(kind: FormationKind, fighters: usize, shooters: usize) -> Vec<Place> {
    match kind {
        FormationKind::Staggered => ranks(fighters, shooters, K_SPACING * 2, true),
        FormationKind::Box => square(fighters, shooters),
        FormationKind::Flank => flank(fighters, shooters),
        FormationKind::Line | FormationKind::Shape => ranks(fighters, shooters, K_SPACING, false),
    }
}

/// How many stand across a rank: the square root of twice the group, rounded up.
pub fn rank_width(n: usize) -> usize {
    let twice = 2 * n;
    let mut w = 1;
    while w * w < twice {
        w += 1;
    }
    w
}

/// Ranks a little wider than deep, fighters in front; `gap` apart; every other rank shifted half
/// a gap when `staggered`.
fn ranks(fighters: usize, shooters: usize, gap: Fx, staggered: bool) -> Vec<Place> {
    let width = rank_width(fighters + shooters).max(1);
    let mut rows: Vec<(usize, bool)> = Vec::new();
    for (count, fighter) in [(fighters, true), (shooters, false)] {
        let mut left = count;
        while left > 0 {
            let m = left.min(width);
            rows.push((m, fighter));
            left -= m;
        }
    }
    let depth = rows.len() as i64;
    let mut places = Vec::new();
    for (r, &(m, fighter)) in rows.iter().enumerate() {
        // Front rank first: forward = ((depth - 1) / 2 - r) * gap.
        let forward = gap * (depth - 1 - 2 * r as i64) / 2;
        let shift = if staggered && r % 2 == 1 {
            gap / 2
        } else {
            Fx::ZERO
        };
        for k in 0..m {
            let across = gap * (2 * k as i64 - (m as i64 - 1)) / 2 + shift;
            places.push(Place {
                across,
                forward,
                fighter,
            });
        }
    }
    places
}

/// A square, the fighters round the outside and the rest within.
fn square(fighters: usize, shooters: usize) -> Vec<Place> {
    let n = fighters + shooters;
    let mut side = 1usize;
    while side * side < n {
        side += 1;
    }
    let mut outer = Vec::new();
    let mut inner = Vec::new();
    for j in 0..side {
        for i in 0..side {
            let edge = i == 0 || j == 0 || i == side - 1 || j == side - 1;
            let across = K_SPACING * (2 * i as i64 - (side as i64 - 1)) / 2;
            let forward = K_SPACING * (side as i64 - 1 - 2 * j as i64) / 2;
            let p = Place {
                across,
                forward,
                fighter: true,
            };
            if edge {
                outer.push(p);
            } else {
                inner.push(p);
            }
        }
    }
    // Fighters take the outside first, then the middle; shooters the middle first.
    let mut cells: Vec<Place> = outer.iter().chain(inner.iter()).copied().collect();
    let mut places: Vec<Place> = cells.drain(..fighters.min(cells.len())).collect();
    cells.sort_by_key(|p| !inner.contains(p));
    for mut p in cells.into_iter().take(shooters) {
        p.fighter = false;
        places.push(p);
    }
    places
}

/// Two halves either side of the line of march, a gap between them.
fn flank(fighters: usize, shooters: usize) -> Vec<Place> {
    let (lf, ls) = (fighters.div_ceil(2), shooters.div_ceil(2));
    let (rf, rs) = (fighters - lf, shooters - ls);
    let mut places = Vec::new();
    for (f, s, sign) in [(lf, ls, -1i64), (rf, rs, 1i64)] {
        let half = ranks(f, s, K_SPACING, false);
        let width = half.iter().map(|p| p.across).max().unwrap_or(Fx::ZERO);
        let shift = (width + K_SPACING * K_FLANK_GAP_SPACINGS / 2) * sign;
        places.extend(half.into_iter().map(|p| Place {
            across: p.across + shift,
            ..p
        }));
    }
    places
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_is_a_little_wider_than_deep_with_fighters_in_front() {
        let places = layout(FormationKind::Line, 12, 6);
        assert_eq!(places.len(), 18);
        assert_eq!(rank_width(18), 6);
        let front = places.iter().map(|p| p.forward).max().unwrap();
        assert!(places
            .iter()
            .filter(|p| p.forward == front)
            .all(|p| p.fighter));
        // No rank holds both.
        for p in &places {
            assert!(places
                .iter()
                .filter(|q| q.forward == p.forward)
                .all(|q| q.fighter == p.fighter));
        }
    }

    #[test]
    fn box_puts_fighters_round_the_outside() {
        let places = layout(FormationKind::Box, 8, 1);
        let shooter = places.iter().find(|p| !p.fighter).unwrap();
        assert_eq!((shooter.across, shooter.forward), (Fx::ZERO, Fx::ZERO));
    }
}
