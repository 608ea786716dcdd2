//! Values the boundary keeps between calls (the slabs, the input and output areas), in plain
//! statics: `thread_local!` and `RefCell` would do, at the price of their lazy-initialisation and
//! borrow panics, whose messages pull `fmt` into the module.

use core::cell::{Cell, UnsafeCell};

// The one thread below is what makes `Local` sound.
#[cfg(target_feature = "atomics")]
compile_error!("src/abi keeps its state in statics that assume one thread: build without the atomics feature");

/// A value that one call uses at a time.
pub struct Local<T> {
    busy: Cell<bool>,
    value: UnsafeCell<T>,
}

// SAFETY: wasm32 without the atomics feature (checked above) runs one thread, so a `Local` is
// never reached from two threads; `with` keeps a second use from overlapping the first.
unsafe impl<T> Sync for Local<T> {}

impl<T> Local<T> {
    /// A cell holding `value`.
    pub const fn new(value: T) -> Self {
        Local { busy: Cell::new(false), value: UnsafeCell::new(value) }
    }

    /// Runs `f` on the value. A `with` inside another on the same cell (which no export does)
    /// traps instead of handing out a second reference.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        enter(&self.busy);
        // SAFETY: one thread, and `busy` was clear: no other reference to the value exists until
        // `f` returns (a panic aborts the instance, so it never comes back here).
        let result = f(unsafe { &mut *self.value.get() });
        self.busy.set(false);
        result
    }
}

/// Marks a cell busy; traps if it already was.
#[inline(never)]
fn enter(busy: &Cell<bool>) {
    if busy.replace(true) {
        core::arch::wasm32::unreachable();
    }
}
