//! Where delays come from: scripted draws first (replays, tests), then a seeded source.
//!
//! The core never reads entropy itself; the shell seeds [`Rng`] (from `crypto.getRandomValues`
//! unless the caller gives a seed), so every schedule can be reproduced.

/// SplitMix64: tiny, fast, and good enough to spread retries (not for secrets).
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator whose whole sequence is fixed by `seed`.
    pub fn seeded(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// Where the sequence stands: `Rng::seeded(state)` goes on from here.
    pub fn state(&self) -> u64 {
        self.state
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform over `lo..=hi` (inclusive); `lo` when the range is empty.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        // Multiply-shift maps 64 random bits onto the span without division.
        lo + ((u128::from(self.next_u64()) * (u128::from(span) + 1)) >> 64) as u64
    }
}

/// The delays of one operation: scripted draws in order, then draws from the seeded source.
#[derive(Clone, Debug)]
pub struct Draws {
    scripted: Vec<u64>,
    used: usize,
    rng: Rng,
}

impl Draws {
    /// No scripted delays: every delay is drawn from a generator seeded with `seed`.
    pub fn seeded(seed: u64) -> Self {
        Draws { scripted: Vec::new(), used: 0, rng: Rng::seeded(seed) }
    }

    /// Scripted delays (ms) are used as given, one per retry proposal, before any random draw.
    pub fn scripted(delays: Vec<u64>, seed: u64) -> Self {
        Draws { scripted: delays, used: 0, rng: Rng::seeded(seed) }
    }

    /// The next scripted delay, if any are left.
    pub fn next_scripted(&mut self) -> Option<u64> {
        let next = self.scripted.get(self.used).copied();
        if next.is_some() {
            self.used += 1;
        }
        next
    }

    /// The seeded generator, for draws beyond the scripted ones (delays, the `Retry-After` spread).
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }
}
