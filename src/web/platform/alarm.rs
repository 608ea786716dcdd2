//! One timer set for a monotonic instant on the global `setTimeout` (never `window.…`), cleared
//! when dropped: the one timer of an executor, armed where its machine asks.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use wasm_bindgen::JsValue;

use super::clock;
use super::waits;
use super::wake::{Kind, Waiter, Woken};

/// A timer for instant `at` (monotonic ms).
pub struct Alarm {
    at: u64,
    woken: Woken,
    _waiter: Waiter,
    handle: Option<JsValue>,
}

impl Alarm {
    /// Sets a timer for `at` (at once if it has passed).
    pub fn at(at: u64) -> Alarm {
        let woken = Woken::new();
        let waiter = Waiter::new(&woken);
        let handle = waits::timer(at.saturating_sub(clock::now()), waiter.id(), Kind::Slept.code());
        Alarm { at, woken, _waiter: waiter, handle }
    }

    /// The instant it was set for.
    pub fn instant(&self) -> u64 {
        self.at
    }

    /// Whether the platform set the timer (fake timers that throw do not): a wait it was to bound
    /// has no bound.
    pub fn is_set(&self) -> bool {
        self.handle.is_some()
    }

    /// Ready once its instant has come.
    pub fn poll_due(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.woken).poll(cx).map(|_| ())
    }
}

impl Drop for Alarm {
    fn drop(&mut self) {
        if let Some(handle) = &self.handle {
            waits::clear_timer(handle);
        }
    }
}
