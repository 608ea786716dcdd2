//! A map kept as a `Vec` sorted by key: `BTreeMap`'s ordered iteration without its code.
//!
//! Why not `BTreeMap`? Every key and value type instantiates its node-handling code again,
//! several KiB of wasm each; the maps here hold a few scopes, grants or live budgets, where a
//! binary search over one `Vec` is as quick (new grant and budget ids go on the end).

use std::borrow::Borrow;
use std::fmt;

/// Entries in ascending key order, each key once.
#[derive(Clone)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> SortedMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        SortedMap { entries: Vec::new() }
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter().map(|(key, value)| (key, value))
    }

    /// Values in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, value)| value)
    }

    /// Entries in key order, their values to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|(key, value)| (&*key, value))
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    /// `Ok(index)` of `key`, or `Err(index)` where it would go.
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value under `key`, if any.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.entries.get(self.find(key).ok()?).map(|(_, value)| value)
    }

    /// Sets `key` to `value`; returns the value it replaces (the key stays), as `BTreeMap` does.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(at) => self.entries.get_mut(at).map(|(_, old)| std::mem::replace(old, value)),
            Err(at) => {
                insert_at(&mut self.entries, at, (key, value));
                None
            }
        }
    }

    /// Removes `key`; returns its value, if it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        remove_at(&mut self.entries, at).map(|(_, value)| value)
    }

    /// The value under `key`, made by `value` (and the key owned) only when it is absent.
    pub fn get_or_insert_with<Q>(&mut self, key: &Q, value: impl FnOnce() -> V) -> &mut V
    where
        K: Borrow<Q>,
        Q: Ord + ToOwned<Owned = K> + ?Sized,
    {
        let at = self.find(key).unwrap_or_else(|at| {
            insert_at(&mut self.entries, at, (key.to_owned(), value()));
            at
        });
        match self.entries.get_mut(at) {
            Some((_, value)) => value,
            // `at` is the key's index, found or just filled.
            None => std::process::abort(),
        }
    }
}

/// `Vec::insert` (at the end if `at` is past it) without its panic, whose message formats the
/// index: in the wasm build that formatting machinery costs kilobytes, for a case that cannot occur.
pub(crate) fn insert_at<T>(items: &mut Vec<T>, at: usize, item: T) {
    items.push(item);
    // Rotated into place by swapping the new last item with each one after `at`, in turn
    // (`slice::rotate_right` and `reverse` carry panics of their own).
    if let Some((last, rest)) = items.get_mut(at..).and_then(|tail| tail.split_last_mut()) {
        for later in rest {
            std::mem::swap(later, last);
        }
    }
}

/// `Vec::remove` without its panic (see [`insert_at`]): `None` if `at` is past the end.
pub(crate) fn remove_at<T>(items: &mut Vec<T>, at: usize) -> Option<T> {
    // The item is rotated to the end, the others back one place each, and taken.
    let (first, rest) = items.get_mut(at..)?.split_first_mut()?;
    for later in rest.iter_mut().rev() {
        std::mem::swap(first, later);
    }
    items.pop()
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap::new()
    }
}

/// Printed as `BTreeMap` prints: `{k: v, …}`.
impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::{insert_at, remove_at};

    #[test]
    fn insert_at_and_remove_at_do_what_vec_does() {
        for len in 0..6 {
            let items: Vec<u32> = (0..len).collect();
            for at in 0..=len as usize {
                let (mut mine, mut std) = (items.clone(), items.clone());
                insert_at(&mut mine, at, 99);
                std.insert(at, 99);
                assert_eq!(mine, std);
                let (mut mine, mut std) = (items.clone(), items.clone());
                match at < items.len() {
                    true => assert_eq!(remove_at(&mut mine, at), Some(std.remove(at))),
                    false => assert_eq!(remove_at(&mut mine, at), None),
                }
                assert_eq!(mine, std);
            }
        }
        let mut past = vec![1, 2];
        insert_at(&mut past, 5, 3);
        assert_eq!(past, [1, 2, 3]);
    }
}
