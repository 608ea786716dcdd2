//! The allocator: talc instead of Rust's default dlmalloc on wasm32 — about 4.7 KB less code
//! (1.7 KB gzip) and faster allocation; the shell is single-threaded, as talc's wasm mode assumes.
//!
//! Memory grows by at least an eighth of its size, not by the page or two an allocation needs:
//! growing a page at a time while a burst of calls fills the JS heap makes V8 collect over and
//! over (100 000 pending calls took 9.1 s to issue the first time, 2.3 s once memory had grown).

use core::alloc::Layout;
use core::arch::wasm32;

use talc::locking::AssumeUnlockable;
use talc::{OomHandler, Span, Talc, Talck};

const PAGE: usize = 64 * 1024;

#[global_allocator]
static ALLOCATOR: Talck<AssumeUnlockable, Geometric> = Talc::new(Geometric { heap: Span::empty() }).lock();

/// Grows wasm memory geometrically; `heap` is the span talc manages (one, extended in place).
pub struct Geometric {
    heap: Span,
}

// SAFETY: wasm32 without the atomics feature runs one thread.
unsafe impl Send for Geometric {}

impl OomHandler for Geometric {
    fn handle_oom(talc: &mut Talc<Self>, layout: Layout) -> Result<(), ()> {
        let required = (layout.size() + 8).max(layout.align() * 2).div_ceil(PAGE);
        let mut pages = required.max(wasm32::memory_size::<0>() / 8);
        // The host may refuse a large step: ask for less, down to what this allocation needs
        // (talc asks again if a smaller step was not enough).
        let first_new_page = loop {
            if pages == 0 {
                return Err(());
            }
            match wasm32::memory_grow::<0>(pages) {
                usize::MAX => pages >>= 1,
                previous => break previous,
            }
        };
        let start = (first_new_page * PAGE) as *mut u8;
        let end = start.wrapping_add(pages * PAGE);
        // SAFETY: [start, end) was just added to wasm memory and nothing else uses it.
        unsafe {
            match talc.oom_handler.heap.get_base_acme() {
                Some((base, acme)) if acme == start => {
                    talc.oom_handler.heap = talc.extend(talc.oom_handler.heap, Span::new(base, end));
                }
                _ => talc.oom_handler.heap = talc.claim(Span::new(start, end))?,
            }
        }
        Ok(())
    }
}
