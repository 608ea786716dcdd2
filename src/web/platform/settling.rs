//! A JavaScript value's settling, watched through [`super::wake`] (no closure of its own): what an
//! executor waits on — a `fetch`, a body, a store call, a lock. It bounds nothing: the core's one
//! timer decides how long anything is waited for, and dropping a `Settling` forgets the value (a
//! late settling then finds no waiter).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use wasm_bindgen::JsValue;

use super::waits;
use super::wake::{Kind, Waiter, Woken};

/// What a call into JavaScript came to, once it has.
pub struct Settling {
    woken: Woken,
    _waiter: Option<Waiter>,
}

impl Settling {
    /// What a call returned (itself, or what it settles to if it is a promise or a thenable), or
    /// what it threw.
    pub fn of(called: Result<JsValue, JsValue>) -> Settling {
        let woken = Woken::new();
        let waiter = match called {
            Ok(value) if value.is_object() || value.is_function() => {
                let waiter = Waiter::new(&woken);
                waits::follow(&value, waiter.id(), Kind::Fulfilled.code(), Kind::Rejected.code());
                Some(waiter)
            }
            Ok(value) => {
                woken.set((Kind::Fulfilled, value));
                None
            }
            Err(thrown) => {
                woken.set((Kind::Rejected, thrown));
                None
            }
        };
        Settling { woken, _waiter: waiter }
    }
}

impl Future for Settling {
    /// Fulfilled with the value, or rejected with the reason (what was thrown).
    type Output = Result<JsValue, JsValue>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.woken).poll(cx).map(|(kind, value)| match kind {
            Kind::Rejected => Err(value),
            _ => Ok(value),
        })
    }
}

/// Handles whatever `value` settles to, keeping nothing: a rejection the caller left unhandled
/// (a cancelled body's) is not reported as ours.
pub fn swallow(value: &JsValue) {
    waits::follow(value, -1.0, Kind::Fulfilled.code(), Kind::Rejected.code());
}
