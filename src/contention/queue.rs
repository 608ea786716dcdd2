//! The simulation's clock: events in time order (ties in the order they were queued).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at_ms: f64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: the heap is a max-heap, the earliest event must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.at_ms.total_cmp(&self.at_ms).then(other.seq.cmp(&self.seq))
    }
}

pub struct Queue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
}

impl<E> Queue<E> {
    pub fn new() -> Queue<E> {
        Queue { heap: BinaryHeap::new(), seq: 0 }
    }

    pub fn push(&mut self, at_ms: f64, event: E) {
        self.seq += 1;
        self.heap.push(Entry { at_ms, seq: self.seq, event });
    }

    /// The next event and its time.
    pub fn pop(&mut self) -> Option<(f64, E)> {
        self.heap.pop().map(|e| (e.at_ms, e.event))
    }
}
