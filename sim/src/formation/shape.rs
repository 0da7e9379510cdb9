//! The devlog's shape-keeping group move: the group is cut into clusters (units within a tile of
//! another, one grid square away, joined), and each unit goes to the point plus its offset from
//! its cluster's middle. Units more than a tile from any other form their own clusters, which
//! close up on arrival.

use crate::position::{Fx, Vec2};

/// The clusters of `at` (positions), each a list of indices into it, in index order.
pub fn clusters(at: &[Vec2]) -> Vec<Vec<usize>> {
    let mut cluster_of: Vec<Option<usize>> = vec![None; at.len()];
    let mut out: Vec<Vec<usize>> = Vec::new();
    for start in 0..at.len() {
        if cluster_of[start].is_some() {
            continue;
        }
        let c = out.len();
        cluster_of[start] = Some(c);
        let mut members = vec![start];
        let mut k = 0;
        while k < members.len() {
            let t = at[members[k]].tile();
            for (j, p) in at.iter().enumerate() {
                let o = p.tile();
                if cluster_of[j].is_none() && (o.x - t.x).abs() <= 1 && (o.y - t.y).abs() <= 1 {
                    cluster_of[j] = Some(c);
                    members.push(j);
                }
            }
            k += 1;
        }
        members.sort_unstable();
        out.push(members);
    }
    out
}

/// Each unit's place: `to` plus its offset from its cluster's middle.
pub fn places(at: &[Vec2], to: Vec2) -> Vec<Vec2> {
    let mut out = vec![to; at.len()];
    for members in clusters(at) {
        let n = Fx::from_num(members.len() as i64);
        let sum = members.iter().fold(Vec2::ZERO, |s, &i| s + at[i]);
        let middle = Vec2::new(sum.x / n, sum.y / n);
        for &i in &members {
            out[i] = to + (at[i] - middle);
        }
    }
    out
}
