//! Division of the bucket's and meter's 128-bit quantities (µs, milli- and µ-tokens) by 64-bit
//! divisors, without the general 128-bit division of compiler_builtins (`__udivti3`, about a
//! kilobyte of wasm): one 64-bit division when the dividend fits in 64 bits, as it nearly always
//! does, else a 64-bit division of its upper half and a shift-and-subtract of its lower half.
//! Exact either way.

/// `n / d` and `n % d`; a divisor of 0 (which no caller passes) gives `u128::MAX` and 0.
pub fn div_rem(n: u128, d: u64) -> (u128, u64) {
    if d == 0 {
        return (u128::MAX, 0);
    }
    let (hi, lo) = ((n >> 64) as u64, n as u64);
    if hi == 0 {
        return (u128::from(lo / d), lo % d);
    }
    // The upper half's remainder, then the lower half's 64 bits one by one (the running
    // remainder stays below `2 × d`, so it never overflows 128 bits).
    let (q_hi, mut rem) = (hi / d, u128::from(hi % d));
    let mut q_lo = 0u64;
    for bit in (0..64).rev() {
        rem = (rem << 1) | u128::from((lo >> bit) & 1);
        if rem >= u128::from(d) {
            rem -= u128::from(d);
            q_lo |= 1 << bit;
        }
    }
    ((u128::from(q_hi) << 64) | u128::from(q_lo), rem as u64)
}

/// `n / d`, rounded down.
pub fn div(n: u128, d: u64) -> u128 {
    div_rem(n, d).0
}

/// `n / d`, rounded up.
pub fn div_ceil(n: u128, d: u64) -> u128 {
    match div_rem(n, d) {
        (q, 0) => q,
        (q, _) => q + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divides_exactly_as_u128_does() {
        let values = [
            0u128,
            1,
            999,
            1_000_000,
            u128::from(u64::MAX) - 1,
            u128::from(u64::MAX),
            u128::from(u64::MAX) + 1,
            1_000_000_000_000 * 1000 * 1_000_000,
            (1 << 100) + 12_345,
            u128::MAX / 3,
            u128::MAX,
        ];
        let divisors = [1u64, 2, 3, 7, 1000, 1_000_000, 999_999_937, 1 << 32, (1 << 63) + 5, u64::MAX];
        for &n in &values {
            for &d in &divisors {
                assert_eq!(div_rem(n, d), (n / u128::from(d), (n % u128::from(d)) as u64), "{n} / {d}");
                assert_eq!(div_ceil(n, d), n.div_ceil(u128::from(d)), "{n} / {d} rounded up");
            }
        }
        assert_eq!(div_rem(5, 0), (u128::MAX, 0));
    }
}
