//! The npm package's boundary: the core behind plain `extern "C"` exports, driven by the
//! JavaScript executor in `js/` (which owns every request, timer, store call and lock) through the
//! typed facade of `js/core/`.
//!
//! Numbers cross as numbers (an export's arguments in the numbers area, [`io::with_args`]);
//! strings as UTF-8 in linear memory ([`io`]); option values in a small text form whose numbers
//! travel apart ([`wire`]); what the core says back as an effect's code, its numbers in the slot
//! and its text (JSON where it is structured). The module imports nothing, so no JavaScript runs
//! while wasm is on the stack: a throwing getter, `Proxy` or thenable is the glue's to catch, and
//! can never unwind through a wasm frame.
//!
//! Values JavaScript holds (clients, budgets, calls, streams) are handles into [`slab`]s. Each build
//! carries the exports its entry runs (Cargo features `abi-fetch`, `abi-tabs`, `abi-keyed`,
//! `abi-hedge`, `abi-stream`, `abi-authority`…).

mod cell;
mod io;
mod slab;
mod wire;

#[cfg(feature = "abi-fetch")]
mod budget;
#[cfg(feature = "abi-fetch")]
mod call;
#[cfg(feature = "abi-fetch")]
mod call_out;
#[cfg(feature = "abi-fetch")]
mod client;
#[cfg(feature = "abi-fetch")]
mod names;
#[cfg(feature = "abi-replay")]
mod replay;
#[cfg(feature = "abi-fetch")]
mod share;
#[cfg(feature = "abi-fetch")]
mod state;
#[cfg(feature = "abi-stream")]
mod stream;
#[cfg(feature = "abi-worksheet")]
mod worksheet;

#[cfg(feature = "abi-authority")]
mod authority;

use crate::input::{ErrorClass, InvalidOption};

/// Hands an invalid option out: its message in the output, its class in the first number.
/// Returns the handle 0, which no value has.
fn invalid(error: &InvalidOption) -> u32 {
    io::numbers(&[match error.class() {
        ErrorClass::TypeError => 0.0,
        ErrorClass::RangeError => 1.0,
    }]);
    io::output(error.message());
    0
}

/// A millisecond reading from JavaScript (already whole and non-negative; anything else is 0).
fn ms(x: f64) -> u64 {
    if x.is_finite() && x > 0.0 {
        x as u64
    } else {
        0
    }
}

/// A length of the `Retry-After` string that says the response hid it (CORS).
pub const UNREADABLE: u32 = u32::MAX - 1;

/// The item of `all` that code `code` names (its index), if any.
pub fn code<T: Copy>(all: &[T], code: i32) -> Option<T> {
    usize::try_from(code).ok().and_then(|i| all.get(i).copied())
}
