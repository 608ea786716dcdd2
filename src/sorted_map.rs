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
                self.entries.insert(at, (key, value));
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
        Some(self.entries.remove(at).1)
    }

    /// The value under `key`, made by `value` (and the key owned) only when it is absent.
    pub fn get_or_insert_with<Q>(&mut self, key: &Q, value: impl FnOnce() -> V) -> &mut V
    where
        K: Borrow<Q>,
        Q: Ord + ToOwned<Owned = K> + ?Sized,
    {
        let at = self.find(key).unwrap_or_else(|at| {
            self.entries.insert(at, (key.to_owned(), value()));
            at
        });
        &mut self.entries[at].1
    }
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
