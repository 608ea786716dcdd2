//! Wake-ups from JavaScript without a closure per wait.
//!
//! Every wait (a timer, an abort listener, a value settling) is a slot in a table here; the
//! JavaScript side (`waits.js`) calls one callback of ours with the slot's id and what
//! happened. A wasm-bindgen closure per wait cost two JavaScript objects, a finalization
//! registry cell and an externref each: with 100 000 calls pending, the collector's work
//! ruled the event loop. An id carries a generation, so a timer or a promise that fires after
//! its wait ended finds nothing.

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;

use super::latch::Latch;
use super::waits::set_waker;

/// What a wake-up says; it becomes the waiter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Timeout = 0,
    Deadline = 1,
    Aborted = 2,
    Fulfilled = 3,
    Rejected = 4,
    Slept = 5,
}

impl Kind {
    fn from_code(code: u32) -> Option<Kind> {
        [Kind::Timeout, Kind::Deadline, Kind::Aborted, Kind::Fulfilled, Kind::Rejected, Kind::Slept]
            .into_iter()
            .find(|k| *k as u32 == code)
    }

    pub fn code(self) -> u32 {
        self as u32
    }
}

/// The latch a wake-up sets: the kind, and the value that came with it.
pub type Woken = Latch<(Kind, JsValue)>;

struct Slot {
    generation: u32,
    latch: Option<Woken>,
}

/// Bits of an id that name the slot: 8 million waits at once, far beyond any memory here.
const INDEX_BITS: u32 = 23;
/// Generations wrap within the 30 bits left of a double's 53.
const GENERATION_MASK: u32 = (1 << 30) - 1;

/// The slots, and the indices of those free for reuse.
struct Table {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

thread_local! {
    // One thread-local for both: each `with` is its own instantiation.
    static TABLE: RefCell<Table> = const { RefCell::new(Table { slots: Vec::new(), free: Vec::new() }) };
    static READY: Cell<bool> = const { Cell::new(false) };
}

/// A slot in the table; freed (and its id made stale) when dropped.
pub struct Waiter {
    index: u32,
    generation: u32,
}

impl Waiter {
    /// A new slot whose wake-ups set `latch`.
    pub fn new(latch: &Woken) -> Waiter {
        ensure_waker();
        TABLE.with(|table| {
            let Table { slots, free } = &mut *table.borrow_mut();
            let index = free.pop();
            // 2^23 waits at once would need far more than wasm32's 4 GiB: ids never collide.
            let index = index.unwrap_or_else(|| {
                slots.push(Slot { generation: 0, latch: None });
                (slots.len() - 1) as u32
            });
            match slots.get_mut(index as usize) {
                Some(slot) => {
                    slot.latch = Some(latch.clone());
                    Waiter { index, generation: slot.generation }
                }
                None => Waiter { index, generation: GENERATION_MASK },
            }
        })
    }

    /// The id JavaScript passes back: generation and index in one number a double holds
    /// exactly (30 + 23 bits).
    pub fn id(&self) -> f64 {
        (u64::from(self.generation) << INDEX_BITS | u64::from(self.index)) as f64
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        TABLE.with(|table| {
            let Table { slots, free } = &mut *table.borrow_mut();
            if let Some(slot) = slots.get_mut(self.index as usize) {
                slot.generation = slot.generation.wrapping_add(1) & GENERATION_MASK;
                slot.latch = None;
            }
            free.push(self.index);
        });
    }
}

/// The callback JavaScript calls: `(id, kind, value)`.
fn on_wake(id: f64, code: u32, value: JsValue) {
    let (Some(kind), true) = (Kind::from_code(code), id.is_finite() && id >= 0.0) else { return };
    let id = id as u64;
    let (generation, index) = ((id >> INDEX_BITS) as u32, (id & ((1 << INDEX_BITS) - 1)) as u32);
    let latch = TABLE.with(|table| {
        let table = table.try_borrow().ok()?;
        let slot = table.slots.get(index as usize)?;
        (slot.generation == generation).then(|| slot.latch.clone()).flatten()
    });
    // Set outside the table's borrow: waking a task may run code that makes waiters.
    if let Some(latch) = latch {
        latch.set((kind, value));
    }
}

fn ensure_waker() {
    if READY.with(Cell::get) {
        return;
    }
    READY.with(|r| r.set(true));
    let callback = Closure::<dyn FnMut(f64, u32, JsValue)>::new(on_wake);
    set_waker(callback.as_ref());
    // One for the life of the module.
    callback.forget();
}
