//! The boundary's memory. JavaScript writes UTF-8 into the input area (and numbers into the numbers
//! area), calls an export with the byte length of each string, and reads what comes back from the
//! result slot: up to sixteen numbers, and a UTF-8 string in the output area. No export calls back.

use std::cell::UnsafeCell;

use super::cell::Local;
use crate::input::{Invalid, Loose};

/// What an export hands back beside its return value; JavaScript reads it at [`rl_slot`].
#[repr(C)]
pub struct Slot {
    out_ptr: u32,
    out_len: u32,
    numbers: [f64; SLOT_NUMBERS],
}

/// How many numbers the slot holds.
pub const SLOT_NUMBERS: usize = 16;

struct Shared(UnsafeCell<Slot>);

// SAFETY: wasm32 without the atomics feature runs one thread, and no export re-enters another.
unsafe impl Sync for Shared {}

static SLOT: Shared = Shared(UnsafeCell::new(Slot { out_ptr: 0, out_len: 0, numbers: [0.0; SLOT_NUMBERS] }));

static INPUT: Local<Vec<u8>> = Local::new(Vec::new());
static NUMBERS: Local<Vec<f64>> = Local::new(Vec::new());
/// The last string handed out; kept until the next one replaces it.
static OUTPUT: Local<String> = Local::new(String::new());

/// Where the result slot lives (fixed for the instance's life).
#[no_mangle]
pub extern "C" fn rl_slot() -> *const Slot {
    SLOT.0.get()
}

/// The input area with room for `len` bytes (it may move: call again for a larger one).
#[no_mangle]
pub extern "C" fn rl_input(len: u32) -> *mut u8 {
    INPUT.with(|input| {
        if input.len() < len as usize {
            input.resize(len as usize, 0);
        }
        input.as_mut_ptr()
    })
}

/// The numbers area with room for `count` numbers (it may move, as the input area).
#[no_mangle]
pub extern "C" fn rl_numbers(count: u32) -> *mut f64 {
    NUMBERS.with(|numbers| {
        if numbers.len() < count as usize {
            numbers.resize(count as usize, 0.0);
        }
        numbers.as_mut_ptr()
    })
}

/// The strings of one call, taken in the order JavaScript wrote them, and the numbers of its
/// option values.
pub struct Input<'a> {
    bytes: &'a [u8],
    at: usize,
    numbers: &'a [f64],
    next_number: usize,
}

impl<'a> Input<'a> {
    /// The next string of `len` bytes; what is not UTF-8 (never written by our glue) reads as empty.
    pub fn text(&mut self, len: u32) -> &'a str {
        let end = self.at.saturating_add(len as usize);
        let bytes = self.bytes.get(self.at..end).unwrap_or_default();
        self.at = end.min(self.bytes.len());
        std::str::from_utf8(bytes).unwrap_or_default()
    }

    /// The next string, or `None` for a length of [`ABSENT`].
    pub fn optional(&mut self, len: u32) -> Option<&'a str> {
        (len != ABSENT).then(|| self.text(len))
    }

    /// The next option value (`len` bytes of wire form, or absent), with its numbers.
    pub fn wire(&mut self, len: u32) -> Result<Loose, Invalid> {
        match self.optional(len) {
            None => Ok(Loose::Absent),
            Some(text) => super::wire::read(text, self.numbers, &mut self.next_number),
        }
    }
}

/// The length that says a string was not given.
pub const ABSENT: u32 = u32::MAX;

/// Runs `f` on this call's `N` numeric arguments (the first numbers of the numbers area) and its
/// input, whose option values' numbers follow them.
pub fn with_args<const N: usize, R>(f: impl FnOnce([f64; N], &mut Input) -> R) -> R {
    INPUT.with(|input| {
        NUMBERS.with(|numbers| {
            let mut args = [0.0; N];
            for (to, from) in args.iter_mut().zip(numbers.iter()) {
                *to = *from;
            }
            f(args, &mut Input { bytes: input, at: 0, numbers, next_number: N })
        })
    })
}

/// A string's length as an argument carries it (anything out of range: absent).
pub fn len(x: f64) -> u32 {
    if x.is_finite() && x >= 0.0 && x < f64::from(ABSENT) {
        x as u32
    } else {
        ABSENT
    }
}

/// Runs `f` on this call's input.
pub fn with_input<R>(f: impl FnOnce(&mut Input) -> R) -> R {
    INPUT.with(|input| NUMBERS.with(|numbers| f(&mut Input { bytes: input, at: 0, numbers, next_number: 0 })))
}

/// Hands `text` out through the slot.
pub fn output(text: String) {
    OUTPUT.with(|out| {
        *out = text;
        // SAFETY: single-threaded, and nothing holds a reference into the slot.
        let slot = unsafe { &mut *SLOT.0.get() };
        slot.out_ptr = out.as_ptr() as u32;
        slot.out_len = out.len() as u32;
    })
}

/// Hands out `bytes` (UTF-8 that lives as long as the instance) through the slot.
pub fn output_static(bytes: &'static [u8]) {
    // SAFETY: as in `output`.
    let slot = unsafe { &mut *SLOT.0.get() };
    slot.out_ptr = bytes.as_ptr() as u32;
    slot.out_len = bytes.len() as u32;
}

/// Sets the slot's numbers (the rest keep their values).
pub fn numbers(values: &[f64]) {
    // SAFETY: as in `output`.
    let slot = unsafe { &mut *SLOT.0.get() };
    for (to, from) in slot.numbers.iter_mut().zip(values) {
        *to = *from;
    }
}

/// Sets one of the slot's numbers.
pub fn number(index: usize, value: f64) {
    // SAFETY: as in `output`.
    let slot = unsafe { &mut *SLOT.0.get() };
    if let Some(to) = slot.numbers.get_mut(index) {
        *to = value;
    }
}
