//! Waiting on user code — a fetch's promise, a body read, a store call, a thenable — on our
//! own terms: an attempt timeout, the operation's deadline and the caller's abort are timers
//! and listeners of ours that win the race whether or not the platform honours its signal.
//!
//! Settled values come back through callbacks that JavaScript owns (`Closure::into_js_value`):
//! a promise that never settles holds nothing of ours once JavaScript collects it.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::abort::{AbortWatch, Listener};
use super::guard;
use super::latch::Latch;
use super::timer::Timeout;

/// Why a wait ended before the value settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The attempt's own timeout.
    Timeout,
    /// The operation's deadline.
    Deadline,
    /// The caller aborted.
    Aborted,
}

/// How a wait ended.
pub enum Ended {
    /// The value settled: fulfilled, or rejected with what was thrown.
    Settled(Result<JsValue, JsValue>),
    Cut(Cut),
}

/// One wait at a time on user values, cut short by timers and the caller's abort. The cuts
/// stay armed across waits: a timer that fires between two waits ends the next one at once.
pub struct Race {
    ended: Latch<Ended>,
    _timers: Vec<Timeout>,
    _listener: Option<Listener>,
}

impl Race {
    pub fn new() -> Race {
        Race { ended: Latch::new(), _timers: Vec::new(), _listener: None }
    }

    /// Ends the wait with `cut` after `ms` milliseconds.
    pub fn cut_after(mut self, ms: u64, cut: Cut) -> Race {
        let ended = self.ended.clone();
        self._timers.push(Timeout::after(ms, move || ended.set(Ended::Cut(cut))));
        self
    }

    /// Ends the wait when the caller aborts (at once if it already has).
    pub fn cut_on_abort(mut self, abort: &AbortWatch) -> Race {
        if abort.is_aborted() {
            self.ended.set(Ended::Cut(Cut::Aborted));
        }
        let ended = self.ended.clone();
        self._listener = Some(abort.on_abort(move || ended.set(Ended::Cut(Cut::Aborted))));
        self
    }

    /// Waits for `value` (itself, or what it settles to if it is a promise or thenable).
    pub async fn wait(&self, value: &JsValue) -> Ended {
        follow(value, &self.ended);
        self.ended.clone().await
    }

    /// Waits for a value that a call produced, or for what the call threw.
    pub async fn wait_call(&self, called: Result<JsValue, JsValue>) -> Ended {
        match called {
            Ok(value) => self.wait(&value).await,
            Err(thrown) => {
                self.ended.set(Ended::Settled(Err(thrown)));
                self.ended.clone().await
            }
        }
    }
}

impl Race {
    /// Sleeps `ms`, unless the race is cut first.
    pub async fn sleep(&self, ms: u64) -> Result<(), Cut> {
        let ended = self.ended.clone();
        let _timer = Timeout::after(ms, move || ended.set(Ended::Settled(Ok(JsValue::UNDEFINED))));
        match self.ended.clone().await {
            Ended::Cut(cut) => Err(cut),
            Ended::Settled(_) => Ok(()),
        }
    }
}

/// A callback for JavaScript to own: the one of a pair that is never called is freed when
/// JavaScript collects it (`once_into_js` would leak it for good).
fn settler(ended: &Latch<Ended>, outcome: fn(JsValue) -> Result<JsValue, JsValue>) -> JsValue {
    let ended = ended.clone();
    Closure::<dyn FnMut(JsValue)>::new(move |v: JsValue| ended.set(Ended::Settled(outcome(v)))).into_js_value()
}

/// Handles whatever `value` settles to, keeping nothing: a rejection the caller left
/// unhandled (an async callback's) is not reported as ours.
pub fn swallow(value: &JsValue) {
    follow(value, &Latch::new());
}

/// Sets `ended` when `value` settles. A thenable's `then` runs in a job of our own promise,
/// so whatever it throws rejects that promise instead of reaching wasm.
fn follow(value: &JsValue, ended: &Latch<Ended>) {
    if !value.is_object() && !value.is_function() {
        ended.set(Ended::Settled(Ok(value.clone())));
        return;
    }
    let ours = Promise::new(&mut |resolve, _reject| {
        let _ = resolve.call1(&JsValue::UNDEFINED, value);
    });
    let on_fulfilled = settler(ended, Ok);
    let on_rejected = settler(ended, Err);
    if let Err(thrown) = guard::invoke(&ours, "then", &[&on_fulfilled, &on_rejected]) {
        ended.set(Ended::Settled(Err(thrown)));
    }
}
