//! The allocator of the wasm builds: blocks in power-of-two size classes, each class a free list,
//! so that allocating and freeing are O(1) — far less code than dlmalloc or talc (which it
//! replaced: 2.2 KB of wasm), for a module whose allocations are small and short-lived.
//!
//! A block of class `k` is `2^k` bytes, aligned to `2^k` (so any alignment up to its size is
//! met). A freed block goes back to its class's list; when a list is empty, a block of a larger
//! class is split in halves (one of each smaller size down to `k` goes to its list), and only then
//! is fresh memory carved. Blocks are never merged again: what one class once needed stays in
//! it, which keeps memory flat when the same work is repeated (freed memory is reused by the same
//! sizes), and bounds the waste to one power of two per allocation.
//!
//! Memory grows by at least an eighth of its size, not by the page or two an allocation needs:
//! growing a page at a time while a burst of calls fills the JS heap makes V8 collect over and
//! over (100 000 pending calls took 9.1 s to issue the first time, 2.3 s once memory had grown).

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr::null_mut;

const PAGE: usize = 64 * 1024;
/// The smallest class: 16 bytes, room for the free list's link and the largest common alignment.
const MIN_CLASS: u32 = 4;
/// One list per class up to 2^31 bytes (wasm32's memory is at most 4 GiB).
const CLASSES: usize = 32;

/// The free lists (the address of each class's first free block, 0 for none; a free block holds
/// the address of the next), and the span of grown memory not yet carved into blocks.
struct Heap {
    free: [usize; CLASSES],
    next: usize,
    end: usize,
}

struct Allocator(UnsafeCell<Heap>);

// SAFETY: wasm32 without the atomics feature runs one thread, and the allocator calls nothing
// that allocates, so no two calls of it ever overlap.
unsafe impl Sync for Allocator {}

#[global_allocator]
static ALLOCATOR: Allocator = Allocator(UnsafeCell::new(Heap { free: [0; CLASSES], next: 0, end: 0 }));

/// The class of blocks that `layout` needs: the power of two that holds its size and alignment.
fn class(layout: Layout) -> u32 {
    let bytes = layout.size().max(layout.align()).max(1 << MIN_CLASS);
    usize::BITS - (bytes - 1).leading_zeros()
}

impl Heap {
    /// Puts the block at `at` on the list of class `k`.
    ///
    /// # Safety
    /// `[at, at + 2^k)` is memory of this heap that nothing else uses, aligned to 16 bytes.
    unsafe fn push(&mut self, k: u32, at: usize) {
        // `get_mut`, not indexing: every class is below CLASSES, and a bounds panic's message
        // would bring `fmt` in.
        if let Some(head) = self.free.get_mut(k as usize) {
            (at as *mut usize).write(*head);
            *head = at;
        }
    }

    /// Takes the first block off the list of class `k` (0 if it is empty).
    ///
    /// # Safety
    /// The list is as `push` leaves it.
    unsafe fn pop(&mut self, k: u32) -> usize {
        match self.free.get_mut(k as usize) {
            Some(head) if *head != 0 => {
                let block = *head;
                *head = (block as *const usize).read();
                block
            }
            _ => 0,
        }
    }

    /// A block of class `k` (`k` < [`CLASSES`]), or 0 if memory cannot grow.
    ///
    /// # Safety
    /// The free lists and `[next, end)` are as `push` and `carve` leave them.
    unsafe fn take(&mut self, k: u32) -> usize {
        // Its own list.
        let block = self.pop(k);
        if block != 0 {
            return block;
        }
        // A larger free block, split: its upper halves go to the lists of classes j-1 down to k.
        for j in k + 1..CLASSES as u32 {
            let block = self.pop(j);
            if block != 0 {
                for i in k..j {
                    self.push(i, block + (1 << i));
                }
                return block;
            }
        }
        self.carve(k)
    }

    /// A fresh block of class `k`, aligned to its size, from memory not yet carved (grown as
    /// needed); the space skipped to align it goes to the lists of smaller classes. 0 if memory
    /// cannot grow.
    ///
    /// # Safety
    /// `[next, end)` is memory of this heap that nothing else uses.
    unsafe fn carve(&mut self, k: u32) -> usize {
        let size = 1usize << k;
        let start = loop {
            let Some(start) = self.next.checked_next_multiple_of(size) else { return 0 };
            let Some(stop) = start.checked_add(size) else { return 0 };
            if stop <= self.end {
                break start;
            }
            if !self.grow(stop - self.end) {
                return 0;
            }
        };
        // `next` is 16-aligned; each step takes the largest block its alignment allows.
        while self.next < start {
            let step = self.next.trailing_zeros();
            self.push(step, self.next);
            self.next += 1 << step;
        }
        self.next = start + size;
        start
    }

    /// Grows wasm memory by at least `bytes`, and by an eighth of its size if the host allows.
    /// Whether it grew.
    fn grow(&mut self, bytes: usize) -> bool {
        let required = bytes.div_ceil(PAGE);
        let mut pages = required.max(wasm32::memory_size::<0>() / 8);
        // The host may refuse a large step: ask for less, down to what this allocation needs.
        let first_new_page = loop {
            match wasm32::memory_grow::<0>(pages) {
                usize::MAX if pages > required => pages = (pages / 2).max(required),
                usize::MAX => return false,
                previous => break previous,
            }
        };
        let start = first_new_page * PAGE;
        if start != self.end {
            // The first growth (or memory grown by someone else in between): a span of its own.
            // What was left of the old one stays unused.
            self.next = start;
        }
        self.end = start + pages * PAGE;
        true
    }
}

// SAFETY: every block handed out is `2^k` bytes aligned to `2^k` for `k = class(layout)`, which
// holds `layout`; it is on no list until `dealloc` puts it back on the list of that same class.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let k = class(layout);
        if k as usize >= CLASSES {
            return null_mut();
        }
        // SAFETY: one thread, and no call of the allocator overlaps another (see `Sync`).
        let heap = &mut *self.0.get();
        heap.take(k) as *mut u8
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as in `alloc`; `ptr` came from `alloc` with this layout, so it is a block of
        // this class.
        let heap = &mut *self.0.get();
        heap.push(class(layout), ptr as usize);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `GlobalAlloc::realloc`'s contract: `new_size` rounded up to `layout.align()`
        // does not overflow.
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        if class(new_layout) == class(layout) {
            return ptr;
        }
        let new = self.alloc(new_layout);
        if !new.is_null() {
            core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
            self.dealloc(ptr, layout);
        }
        new
    }
}
