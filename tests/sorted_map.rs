//! `SortedMap` behaves as the `BTreeMap` it replaced: same answers, same order, same `Debug`.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use proptest::prelude::*;
use retryline::sorted_map::SortedMap;

#[test]
fn iterates_in_key_order_whatever_the_insertion_order() {
    let mut map = SortedMap::new();
    for (key, value) in [("origin-b", 2), ("origin-c", 3), ("origin-a", 1)] {
        assert_eq!(map.insert(key.to_owned(), value), None);
    }
    let keys: Vec<&str> = map.iter().map(|(key, _)| key.as_str()).collect();
    assert_eq!(keys, ["origin-a", "origin-b", "origin-c"]);
    assert_eq!(map.values().copied().collect::<Vec<_>>(), [1, 2, 3]);
}

#[test]
fn insert_replaces_and_returns_the_old_value() {
    let mut map = SortedMap::new();
    assert_eq!(map.insert(7u64, "first"), None);
    assert_eq!(map.insert(7, "second"), Some("first"));
    assert_eq!(map.get(&7), Some(&"second"));
    assert_eq!(map.iter().count(), 1);
}

#[test]
fn string_keys_are_looked_up_by_str() {
    let mut map: SortedMap<String, u32> = SortedMap::new();
    *map.get_or_insert_with("api.example", || 1) += 10;
    let mut made = false;
    *map.get_or_insert_with("api.example", || {
        made = true;
        0
    }) += 100;
    assert!(!made, "an existing entry is not made again");
    assert_eq!(map.get("api.example"), Some(&111));
    assert_eq!(map.remove("api.example"), Some(111));
    assert_eq!(map.remove("api.example"), None);
    assert_eq!(map.get("api.example"), None);
}

#[test]
fn prints_like_a_btree_map() {
    let pairs = [(3u32, "c"), (1, "a"), (2, "b")];
    let mut map = SortedMap::new();
    for (key, value) in pairs {
        map.insert(key, value);
    }
    assert_eq!(format!("{map:?}"), format!("{:?}", BTreeMap::from(pairs)));
    assert_eq!(format!("{:?}", SortedMap::<u8, u8>::default()), "{}");
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u8, u16),
    Remove(u8),
    Get(u8),
    GetOrInsertWith(u8, u16),
}

fn ops() -> impl Strategy<Value = Op> {
    // Few distinct keys, so replacing, re-inserting and removing present keys all happen often.
    let key = 0u8..24;
    prop_oneof![
        3 => (key.clone(), any::<u16>()).prop_map(|(k, v)| Op::Insert(k, v)),
        2 => key.clone().prop_map(Op::Remove),
        1 => key.clone().prop_map(Op::Get),
        2 => (key, any::<u16>()).prop_map(|(k, v)| Op::GetOrInsertWith(k, v)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any sequence of operations gives the answers and the entries a `BTreeMap` gives.
    #[test]
    fn matches_a_btree_map(ops in prop::collection::vec(ops(), 0..64)) {
        let (mut ours, mut model) = (SortedMap::new(), BTreeMap::new());
        for op in ops {
            match op {
                Op::Insert(k, v) => prop_assert_eq!(ours.insert(k, v), model.insert(k, v)),
                Op::Remove(k) => prop_assert_eq!(ours.remove(&k), model.remove(&k)),
                Op::Get(k) => prop_assert_eq!(ours.get(&k), model.get(&k)),
                Op::GetOrInsertWith(k, v) => {
                    let (a, b) = (ours.get_or_insert_with(&k, || v), model.entry(k).or_insert_with(|| v));
                    prop_assert_eq!(*a, *b);
                    *a = a.wrapping_add(1);
                    *b = b.wrapping_add(1);
                }
            }
            prop_assert!(ours.iter().eq(model.iter()));
            prop_assert!(ours.values().eq(model.values()));
        }
        prop_assert_eq!(format!("{ours:?}"), format!("{model:?}"));
    }
}
