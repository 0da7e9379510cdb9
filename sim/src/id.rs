//! Ids: the stable integer ids of entities and players, and the search of lists kept in id order.
//!
//! The bottom of the sim with `position` and `canon`: every layer names things by these ids.

use serde::{Deserialize, Serialize};

/// A stable entity id. Lists of entities are kept in id order.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct EntityId(pub u64);

/// A player's index, 0 to 7.
pub type PlayerId = u8;

/// Finds an entity by id in a list kept in id order.
///
/// Ids in the list are distinct whole numbers in increasing order, so the entry at place `k`
/// has an id at least `k` above the first's and at least `len - 1 - k` below the last's: `id`
/// can only lie in the window those bounds leave, which is as wide as the ids missing between
/// the first and the last (few, where entities come and go slowly). The search is a binary
/// search of that window (the same answer as one of the whole list, in fewer probes).
pub fn find<T>(list: &[T], id: EntityId, id_of: impl Fn(&T) -> EntityId) -> Option<usize> {
    let (first, last) = (id_of(list.first()?).0, id_of(list.last()?).0);
    if id.0 < first || id.0 > last {
        return None;
    }
    let end = list.len() - 1;
    // Places at or below `id - first` (by the first bound), at or above `end - (last - id)`
    // (by the second).
    let below = usize::try_from(id.0 - first).map_or(end, |d| d.min(end));
    let above = usize::try_from(last - id.0).map_or(0, |d| end.saturating_sub(d));
    let window = &list[above.min(below)..=below];
    window
        .binary_search_by_key(&id, id_of)
        .ok()
        .map(|k| k + above.min(below))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `find`'s window gives the answer a binary search of the whole list gives, for any
        /// list of distinct ids in order (dense, sparse, with gaps) and any id asked.
        #[test]
        fn find_agrees_with_a_search_of_the_whole_list(
            steps in proptest::collection::vec(1u64..6, 0..200),
            start in 0u64..50,
            asked in 0u64..1200,
        ) {
            let mut ids = Vec::new();
            let mut id = start;
            for s in steps {
                ids.push(EntityId(id));
                id += s;
            }
            let whole = ids.binary_search(&EntityId(asked)).ok();
            prop_assert_eq!(find(&ids, EntityId(asked), |&e| e), whole);
            for (k, &e) in ids.iter().enumerate() {
                prop_assert_eq!(find(&ids, e, |&e| e), Some(k));
            }
        }
    }
}
