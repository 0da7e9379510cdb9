//! The survey's tests.

use super::*;
use crate::position::fx;
use crate::ruleset::Ruleset;
use crate::state::Player;
use crate::world::World;
use std::sync::Arc;

/// A `width` × `height` world of grass with `players` (ids 0 up, each its own team) and a
/// militia of `owner` at each of `at`, spawned in order; their ids.
fn militia_world(
    width: i32,
    height: i32,
    players: u8,
    at: &[(u8, i32, i32)],
) -> (World, Vec<EntityId>) {
    let rules = Arc::new(Ruleset::default_rules());
    let grid = Grid::new(&rules, width, height, rules.terrain("grass").unwrap());
    let players = (0..players).map(|p| Player::new(p, p)).collect();
    let mut w = World::new(rules.clone(), grid, players, 1);
    let militia = rules.unit_kind("militia").unwrap();
    let ids = at
        .iter()
        .map(|&(owner, x, y)| w.spawn_unit(militia, owner, Vec2::new(fx(x), fx(y))))
        .collect();
    (w, ids)
}

#[test]
fn owners_are_filed_by_patch() {
    let (w, _) = militia_world(40, 20, 3, &[(0, 2, 2), (1, 20, 3), (2, 39, 19)]);
    let mut s = Survey::default();
    s.file(w.view());
    let t = Tile::new;
    assert_eq!(s.owners_in(t(0, 0), t(7, 7)), PlayerMask::of(0));
    assert_eq!(s.owners_in(t(0, 0), t(15, 7)), PlayerMask::of(0));
    assert_eq!(s.owners_in(t(0, 0), t(16, 7)).0, 0b11);
    assert_eq!(s.owners_in(t(9, 0), t(23, 7)), PlayerMask::of(1));
    assert_eq!(s.owners_in(t(-5, -5), t(99, 99)).0, 0b111);
    assert_eq!(s.owners_in(t(0, 8), t(31, 19)), PlayerMask::NONE);
    assert_eq!(s.owners_in(t(50, 50), t(60, 60)), PlayerMask::NONE);
    let ids = |o: usize, px: i32, py: i32| -> Vec<u8> {
        s.owned_in_patch(o, px, py)
            .iter()
            .map(|b| b.owner)
            .collect()
    };
    assert_eq!(ids(0, 0, 0), vec![0]);
    assert_eq!(ids(1, 0, 0), Vec::<u8>::new());
    assert_eq!(ids(1, 2, 0), vec![1]);
    assert_eq!(ids(2, 4, 2), vec![2]);
    assert_eq!(ids(2, 5, 2), Vec::<u8>::new(), "off the map");
    assert_eq!(ids(K_OWNER_BUCKETS, 0, 0), Vec::<u8>::new());
}

#[test]
fn a_body_walked_during_the_tick_is_moved_in_its_owners_filing_too() {
    let (w, ids) = militia_world(40, 20, 2, &[(0, 2, 2), (1, 3, 3)]);
    let walker = ids[1];
    let mut s = Survey::default();
    s.file(w.view());
    let to = Vec2::new(fx_ratio(13, 4), fx(3));
    s.move_body(1, to);
    let filed: Vec<(EntityId, Vec2)> = s
        .owned_in_patch(1, 0, 0)
        .iter()
        .map(|b| (b.entity, b.middle))
        .collect();
    assert_eq!(filed, vec![(walker, to)]);
    let body = s.bodies().iter().find(|b| b.entity == walker).unwrap();
    assert_eq!(body.middle, to);
}

#[test]
fn only_the_box_bodies_stand_in_is_filed() {
    let (w, ids) = militia_world(100, 90, 2, &[(0, 41, 50), (1, 57, 52), (1, 41, 50)]);
    let (a, b, c) = (ids[0], ids[1], ids[2]);
    let mut s = Survey::default();
    s.file(w.view());
    let t = Tile::new;
    let everyone: Vec<EntityId> = s.in_tiles(t(0, 0), t(99, 89)).map(|x| x.entity).collect();
    assert_eq!(everyone, vec![a, c, b], "by tile, then entity");
    assert_eq!(s.in_tiles(t(0, 0), t(40, 89)).count(), 0);
    assert_eq!(s.in_tiles(t(42, 0), t(56, 89)).count(), 0);
    assert_eq!(s.in_tiles(t(57, 52), t(57, 52)).count(), 1);
    let tile = |x: u32, y: u32| y * 100 + x;
    assert_eq!(s.on_tile(tile(41, 50)).len(), 2);
    assert!(s.on_tile(tile(0, 0)).is_empty());
    assert!(s.on_tile(tile(99, 89)).is_empty());
    assert!(s.on_tile(u32::MAX).is_empty());
    assert_eq!(s.near(Vec2::new(fx(57), fx(52)), fx(1)).count(), 1);
    assert_eq!(s.widest(), fx_ratio(1, 5), "a militiaman's radius");
    assert_eq!(s.owners_in(t(0, 0), t(99, 89)).0, 0b11);
    assert_eq!(s.owners_in(t(0, 0), t(39, 89)), PlayerMask::NONE);
    assert_eq!(s.owners_in(t(56, 0), t(99, 89)), PlayerMask::of(1));
    let owned = |o: usize, px: i32, py: i32| s.owned_in_patch(o, px, py).len();
    assert_eq!(owned(0, 5, 6), 1);
    assert_eq!(owned(1, 5, 6), 1);
    assert_eq!(owned(1, 7, 6), 1);
    assert_eq!(owned(1, 0, 0), 0);
    assert_eq!(owned(1, 12, 11), 0);
    let (nobody, _) = militia_world(30, 30, 0, &[]);
    s.file(nobody.view());
    assert_eq!(s.in_tiles(t(0, 0), t(29, 29)).count(), 0);
    assert!(s.on_tile(0).is_empty());
    assert_eq!(s.owners_in(t(0, 0), t(29, 29)), PlayerMask::NONE);
    assert_eq!(s.owned_in_patch(0, 0, 0).len(), 0);
    assert_eq!(s.widest(), Fx::ZERO);
}

#[test]
fn near_finds_every_body_within_reach_and_no_other() {
    // A scatter of militia (some on one tile, some at the map's edges) and points all over.
    let mut at = Vec::new();
    for k in 0..60i32 {
        at.push((0, (k * 7) % 23, (k * 11) % 17));
    }
    at.extend([(0, 0, 0), (0, 22, 16), (0, 5, 5)]);
    let (w, _) = militia_world(23, 17, 1, &at);
    let mut s = Survey::default();
    s.file(w.view());
    for k in 0..200i64 {
        let p = Vec2::new(
            fx_ratio(k * 37 % 260 - 15, 10),
            fx_ratio(k * 53 % 200 - 15, 10),
        );
        let reach = fx_ratio(k % 30, 10);
        let within =
            |b: &&Body| (b.middle.x - p.x).abs() <= reach && (b.middle.y - p.y).abs() <= reach;
        let all: Vec<EntityId> = s.bodies().iter().filter(within).map(|b| b.entity).collect();
        let found: Vec<EntityId> = s.near(p, reach).map(|b| b.entity).collect();
        assert_eq!(found, all, "round {p:?} within {reach}");
        let among: Vec<EntityId> = Near::among(s.bodies(), p, reach)
            .map(|b| b.entity)
            .collect();
        assert_eq!(among, all);
    }
}
