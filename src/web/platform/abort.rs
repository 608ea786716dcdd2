//! The caller's abort signals, watched for the whole call.
//!
//! A caller may pass `options.signal`, `init.signal`, or a `Request` that carries one; any of
//! them aborting is one event for the call's machine ([`Listening`]), which then cancels what is
//! pending. Our own controllers are aborted here too, with the reason a timeout gives.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::values;
use super::waits;
use super::wake::{Kind, Waiter, Woken};

/// Whether `signal` has aborted; `Err` if it is no working signal (a look-alike such as
/// `Object.create(AbortSignal.prototype)` throws "Illegal invocation").
pub fn aborted(signal: &AbortSignal) -> Result<bool, JsValue> {
    Ok(values::get(signal, "aborted")?.is_truthy())
}

thread_local! {
    /// One reason for every attempt our timers cut (a new `DOMException` each time was a tenth
    /// of the work of expiring 20 000 calls at once).
    static TIMED_OUT: JsValue = values::construct("DOMException", &[&"retryline: the attempt's time ran out".into(), &"TimeoutError".into()])
        .unwrap_or_else(|_| JsValue::from_str("TimeoutError"));
}

/// Aborts a controller of ours (its listeners are the platform's and the caller's fetch's):
/// `timed_out` gives it our shared `TimeoutError`, otherwise the platform's own `AbortError`.
pub fn abort(controller: &web_sys::AbortController, timed_out: bool) {
    let _ = match timed_out {
        true => TIMED_OUT.with(|reason| values::invoke(controller, "abort", &[reason])),
        false => values::invoke(controller, "abort", &[]),
    };
}

/// The caller's signals.
pub struct AbortWatch {
    signals: Vec<AbortSignal>,
}

impl AbortWatch {
    pub fn new(signals: Vec<AbortSignal>) -> Self {
        AbortWatch { signals }
    }

    pub fn is_aborted(&self) -> bool {
        self.signals.iter().any(|s| aborted(s).unwrap_or(false))
    }

    pub fn signals(&self) -> &[AbortSignal] {
        &self.signals
    }

    /// Listens to every signal until dropped (`None`: there is none to listen to).
    pub fn listen(&self) -> Option<Listening> {
        if self.signals.is_empty() {
            return None;
        }
        let woken = Woken::new();
        let waiter = Waiter::new(&woken);
        let listeners = self
            .signals
            .iter()
            .filter_map(|signal| Some((signal.clone(), waits::listen(signal, waiter.id(), Kind::Aborted.code())?)))
            .collect();
        Some(Listening { woken, _waiter: waiter, listeners })
    }
}

/// Listeners on the caller's signals, removed when dropped.
pub struct Listening {
    woken: Woken,
    _waiter: Waiter,
    listeners: Vec<(AbortSignal, JsValue)>,
}

impl Listening {
    /// Ready once a signal has aborted.
    pub fn poll_aborted(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.woken).poll(cx).map(|_| ())
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        for (signal, listener) in &self.listeners {
            waits::unlisten(signal, listener);
        }
    }
}
