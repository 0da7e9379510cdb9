//! Walks to something (spec: "Walking a route", "Walks to something"): how far a body is from
//! what it walks to, measured box to box (`Combat::BoxOf`).

use super::View;
use crate::id::{find, EntityId};
use crate::position::{fx_ratio, Bounds, Fx, Vec2};

/// A walk to something ends this far inside its range, so whoever measures the range next finds
/// the walker within it: a fiftieth of a tile.
pub const K_INSIDE: Fx = fx_ratio(1, 50);

/// The box of a unit's body, a building's footprint, or a resource's tile (`Combat::BoxOf`);
/// `None` when nothing has that id any more.
pub fn box_of(view: View<'_>, id: EntityId) -> Option<Bounds> {
    let s = &view.state;
    if let Some(i) = find(&s.units, id, |u| u.id) {
        let u = &s.units[i];
        if u.hit_points == 0 {
            return None;
        }
        return Some(u.body(view.rules.radius_of(u.kind)));
    }
    if let Some(i) = find(&s.buildings, id, |b| b.id) {
        return Some(s.buildings[i].footprint.bounds());
    }
    find(&s.resources, id, |r| r.id).map(|i| Bounds::of_tile(s.resources[i].tile))
}

/// How far apart two boxes are: the distance between them when they are apart on both axes, the
/// larger axis gap otherwise — negative when they overlap. Same inputs, same answer everywhere.
pub fn reach_gap(a: &Bounds, b: &Bounds) -> Fx {
    let dx = (b.min.x - a.max.x).max(a.min.x - b.max.x);
    let dy = (b.min.y - a.max.y).max(a.min.y - b.max.y);
    if dx > Fx::ZERO && dy > Fx::ZERO {
        Vec2::new(dx, dy).length()
    } else {
        dx.max(dy)
    }
}

/// Whether a body of `radius` at `at` is within `range` of `target`'s box.
pub fn in_range(view: View<'_>, at: Vec2, radius: Fx, target: EntityId, range: Fx) -> bool {
    box_of(view, target).is_some_and(|b| reach_gap(&Bounds::around(at, radius), &b) <= range)
}

/// Whether a walk to a target whose box is `target` may end here: within `range` less
/// [`K_INSIDE`] of the box.
pub fn may_end_by(at: Vec2, radius: Fx, target: &Bounds, range: Fx) -> bool {
    reach_gap(&Bounds::around(at, radius), target) <= range - K_INSIDE
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::fx;

    #[test]
    fn overlapping_boxes_have_a_negative_gap() {
        let a = Bounds::around(Vec2::new(fx(0), fx(0)), fx_ratio(1, 2));
        let b = Bounds::around(Vec2::new(fx(1), fx(0)), fx_ratio(3, 4));
        assert_eq!(reach_gap(&a, &b), -fx_ratio(1, 4));
        let c = Bounds::around(Vec2::new(fx(3), fx(4)), fx(0));
        assert_eq!(reach_gap(&Bounds::around(Vec2::ZERO, fx(0)), &c), fx(5));
    }
}
