//! Waiting on user code — a fetch's promise, a body read, a store call, a thenable — on our
//! own terms: an attempt timeout, the operation's deadline and the caller's abort are timers
//! and listeners of ours that win the race whether or not the platform honours its signal.
//!
//! Wake-ups come through [`super::wake`]: nothing of ours is held by a promise that never
//! settles, and a late wake-up after the race is over finds nothing.

use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::abort::AbortWatch;
use super::waits;
use super::wake::{Kind, Waiter, Woken};
use crate::failure::Cut;

/// The wake-up that ends a wait with `cut`.
fn kind_of(cut: Cut) -> Kind {
    match cut {
        Cut::Timeout => Kind::Timeout,
        Cut::Deadline => Kind::Deadline,
        Cut::Aborted => Kind::Aborted,
    }
}

/// How a wait ended.
pub enum Ended {
    /// The value settled: fulfilled, or rejected with what was thrown.
    Settled(Result<JsValue, JsValue>),
    Cut(Cut),
}

impl Ended {
    fn of(kind: Kind, value: JsValue) -> Ended {
        match kind {
            Kind::Timeout => Ended::Cut(Cut::Timeout),
            Kind::Deadline => Ended::Cut(Cut::Deadline),
            Kind::Aborted => Ended::Cut(Cut::Aborted),
            Kind::Fulfilled | Kind::Slept => Ended::Settled(Ok(value)),
            Kind::Rejected => Ended::Settled(Err(value)),
        }
    }
}

/// One wait at a time on user values, cut short by timers and the caller's abort. The cuts
/// stay armed across waits: a timer that fires between two waits ends the next one at once.
pub struct Race {
    woken: Woken,
    cuts: Waiter,
    timers: Vec<JsValue>,
    listeners: Vec<(AbortSignal, JsValue)>,
}

impl Race {
    pub fn new() -> Race {
        let woken = Woken::new();
        Race { cuts: Waiter::new(&woken), woken, timers: Vec::new(), listeners: Vec::new() }
    }

    /// Ends the wait with `cut` after `ms` milliseconds (at once if no timer can be set: a
    /// wait we cannot bound is not waited).
    pub fn cut_after(mut self, ms: u64, cut: Cut) -> Race {
        match waits::timer(ms, self.cuts.id(), kind_of(cut).code()) {
            Some(handle) => self.timers.push(handle),
            None => self.woken.set((kind_of(cut), JsValue::UNDEFINED)),
        }
        self
    }

    /// Ends the wait when the caller aborts (at once if it already has).
    pub fn cut_on_abort(mut self, abort: &AbortWatch) -> Race {
        if abort.is_aborted() {
            self.woken.set((Kind::Aborted, JsValue::UNDEFINED));
        }
        for signal in abort.signals() {
            if let Some(listener) = waits::listen(signal, self.cuts.id(), Kind::Aborted.code()) {
                self.listeners.push((signal.clone(), listener));
            }
        }
        self
    }

    /// Waits for a value that a call produced (itself, or what it settles to if it is a
    /// promise or thenable), or for what the call threw.
    pub async fn wait_call(&self, called: Result<JsValue, JsValue>) -> Ended {
        // One await for every case: each is inlined into its callers' state machines.
        let mut follower = None;
        match called {
            Ok(value) if value.is_object() || value.is_function() => {
                // Its own slot: should the race move on, a late settling finds nothing.
                let waiter = Waiter::new(&self.woken);
                follow(&value, waiter.id());
                follower = Some(waiter);
            }
            Ok(value) => self.woken.set((Kind::Fulfilled, value)),
            Err(thrown) => self.woken.set((Kind::Rejected, thrown)),
        }
        let (kind, value) = self.woken.clone().await;
        drop(follower);
        Ended::of(kind, value)
    }

    /// Sleeps `ms`, unless the race is cut first.
    pub async fn sleep(&self, ms: u64) -> Result<(), Cut> {
        self.sleep_or(ms, None).await
    }

    /// Sleeps `ms`, or until `early` (a promise) settles: either way `Ok`.
    pub async fn sleep_or(&self, ms: u64, early: Option<&JsValue>) -> Result<(), Cut> {
        let sleeper = Waiter::new(&self.woken);
        let timer = waits::timer(ms, sleeper.id(), Kind::Slept.code());
        if timer.is_none() {
            self.woken.set((Kind::Slept, JsValue::UNDEFINED));
        }
        let follower = early.map(|promise| {
            let waiter = Waiter::new(&self.woken);
            follow(promise, waiter.id());
            waiter
        });
        let (kind, value) = self.woken.clone().await;
        if let Some(handle) = timer {
            waits::clear_timer(&handle);
        }
        drop(follower);
        drop(sleeper);
        match Ended::of(kind, value) {
            Ended::Cut(cut) => Err(cut),
            Ended::Settled(_) => Ok(()),
        }
    }
}

impl Drop for Race {
    fn drop(&mut self) {
        for handle in &self.timers {
            waits::clear_timer(handle);
        }
        for (signal, listener) in &self.listeners {
            waits::unlisten(signal, listener);
        }
    }
}

/// Handles whatever `value` settles to, keeping nothing: a rejection the caller left
/// unhandled (an async callback's) is not reported as ours.
pub fn swallow(value: &JsValue) {
    follow(value, -1.0);
}

/// Wakes waiter `id` when `value` settles (fulfilled or rejected).
fn follow(value: &JsValue, id: f64) {
    waits::follow(value, id, Kind::Fulfilled.code(), Kind::Rejected.code());
}
