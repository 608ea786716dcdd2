//! Messages built by joining parts: what `format!` did, without `core::fmt`, whose
//! machinery (padding, integer and debug formatting) costs the wasm build kilobytes.

/// The parts, one after another.
pub fn join(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

/// `n` in decimal.
pub fn number(n: u64) -> String {
    let mut out = String::new();
    crate::json::push_u64(&mut out, n);
    out
}

/// `n` in decimal, with its sign.
pub fn signed(n: i64) -> String {
    match n < 0 {
        true => join(&["-", &number(n.unsigned_abs())]),
        false => number(n.unsigned_abs()),
    }
}

/// `n` as 16 lowercase hex digits.
pub fn hex16(n: u64) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    (0..16).rev().map(|i| char::from(DIGITS[((n >> (i * 4)) & 15) as usize])).collect()
}
