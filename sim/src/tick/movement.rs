//! Step 6: movement — walk every route, once a tick.

use crate::position::{fx, Fx};
use crate::world::{Order, UnitState, World, TICK_MS};

/// How far a unit of `speed` tiles per second walks in one tick.
pub fn speed_per_tick(speed: Fx) -> Fx {
    speed * Fx::from_num(TICK_MS) / fx(1000)
}

pub fn run(world: &mut World) {
    let rules = world.rules_arc();
    for u in &mut world.state.units {
        let Some(route) = u.route.as_mut() else {
            continue;
        };
        let kind = &rules.units[u.kind as usize];
        let mut speed = kind.speed;
        if let Some(cap) = route.speed_cap {
            speed = speed.min(cap);
        }
        let mut left = speed_per_tick(speed);
        while left > Fx::ZERO {
            let Some(&next) = route.waypoints.first() else {
                break;
            };
            let to_next = next - u.position;
            let d = to_next.length();
            if d <= left {
                u.position = next;
                left -= d;
                route.waypoints.remove(0);
            } else {
                u.position = u.position + to_next.with_length(left);
                left = Fx::ZERO;
            }
        }
        if route.waypoints.is_empty() {
            u.route = None;
            if matches!(u.order, Order::Move { .. } | Order::AttackMove { .. }) {
                u.order = Order::Idle;
                u.state = UnitState::Idle;
            }
        }
    }
}
