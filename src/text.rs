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

/// `text` split around the first `byte` (ASCII, so both sides are whole UTF-8): `split_once`
/// bytewise, as `str`'s char searcher brings slice-index panics, whose messages bring `fmt`.
pub fn split_once_byte(text: &str, byte: u8) -> Option<(&str, &str)> {
    let at = text.bytes().position(|b| b == byte)?;
    Some((text.get(..at)?, text.get(at + 1..)?))
}

/// `text` without the ASCII bytes `trim` picks at either end: `trim_matches` with ASCII
/// characters, bytewise (a UTF-8 sequence holds no ASCII byte, so no character is split).
pub fn trim_ascii_with(text: &str, trim: fn(u8) -> bool) -> &str {
    let bytes = text.as_bytes();
    let start = bytes.iter().position(|&b| !trim(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|&b| !trim(b)).map_or(start, |last| last + 1);
    text.get(start..end).unwrap_or_default()
}

/// `text` split around the last `byte` (ASCII): `rsplit_once`, as [`split_once_byte`].
pub fn rsplit_once_byte(text: &str, byte: u8) -> Option<(&str, &str)> {
    let at = text.bytes().rposition(|b| b == byte)?;
    Some((text.get(..at)?, text.get(at + 1..)?))
}

/// `bytes` as text, each invalid sequence replaced by U+FFFD: `String::from_utf8_lossy`, from
/// `str::from_utf8`'s errors (which the module has anyway) instead of a decoder of its own.
pub fn lossy(bytes: Vec<u8>) -> String {
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => return text,
        Err(error) => error.into_bytes(),
    };
    let mut out = String::with_capacity(bytes.len() + 2);
    let mut rest = bytes.as_slice();
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(error) => {
                let (valid, after) = rest.split_at_checked(error.valid_up_to()).unwrap_or((rest, &[]));
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{FFFD}');
                // The invalid sequence's length; none: it is cut short by the end.
                rest = after.get(error.error_len().unwrap_or(after.len())..).unwrap_or_default();
            }
        }
    }
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

#[cfg(test)]
mod tests {
    #[test]
    fn trim_ascii_with_is_trim_matches() {
        for text in ["", " ", "\t a b \t", "é ", " é", "  x", "x  ", "\t\t", " \u{a0}x\u{a0} "] {
            assert_eq!(super::trim_ascii_with(text, |b| b == b' ' || b == b'\t'), text.trim_matches([' ', '\t']));
        }
    }

    #[test]
    fn lossy_is_from_utf8_lossy() {
        let mut cases: Vec<Vec<u8>> = vec![
            b"plain".to_vec(),
            vec![],
            vec![0xff],
            vec![b'a', 0xe2, 0x82],
            vec![0xe2, 0x82, b'a', 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0x80, 0xc0, 0xaf, 0xf4, 0x90, 0x80, 0x80],
            "é€😀".as_bytes().to_vec(),
        ];
        // Pseudo-random bytes, biased towards UTF-8's lead and continuation bytes.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for len in 0..400 {
            let bytes = (0..len % 23)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    [b'a', 0x80, 0xbf, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff][(x % 10) as usize]
                        ^ ((x >> 8) as u8 & 0x0f)
                })
                .collect();
            cases.push(bytes);
        }
        for bytes in cases {
            assert_eq!(super::lossy(bytes.clone()), String::from_utf8_lossy(&bytes), "{bytes:?}");
        }
    }
}
