//! Values that JavaScript holds by number: a client, a budget, an operation. A handle is an index
//! plus one (0 is never one), so a stale or forged number finds nothing rather than memory.

/// Values by handle; freed slots are reused.
///
/// Each value is boxed: the list holds pointers, so growing it moves (and, while the old copy is
/// freed, doubles) 4 bytes a value instead of the value itself (an operation is ~480 bytes).
pub struct Slab<T> {
    items: Vec<Option<Box<T>>>,
    free: Vec<u32>,
}

impl<T> Slab<T> {
    /// An empty slab.
    pub const fn new() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }

    /// Keeps `value`; its handle.
    pub fn insert(&mut self, value: T) -> u32 {
        let value = Some(Box::new(value));
        match self.free.pop() {
            Some(index) => {
                if let Some(slot) = self.items.get_mut(index as usize) {
                    *slot = value;
                }
                index + 1
            }
            None => {
                self.items.push(value);
                self.items.len() as u32
            }
        }
    }

    /// The value under `handle`.
    pub fn get(&self, handle: u32) -> Option<&T> {
        self.items.get(handle.checked_sub(1)? as usize)?.as_deref()
    }

    /// The value under `handle`, to change.
    pub fn get_mut(&mut self, handle: u32) -> Option<&mut T> {
        self.items.get_mut(handle.checked_sub(1)? as usize)?.as_deref_mut()
    }

    /// Forgets the value under `handle`.
    pub fn remove(&mut self, handle: u32) -> Option<T> {
        let index = handle.checked_sub(1)?;
        let taken = self.items.get_mut(index as usize)?.take();
        if taken.is_some() {
            self.free.push(index);
        }
        taken.map(|value| *value)
    }

    /// Every value with its handle, to change.
    pub fn each_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        self.items.iter_mut().enumerate().filter_map(|(i, v)| Some((i as u32 + 1, v.as_deref_mut()?)))
    }
}
