//! The network of the published model: each message takes |N(mean, sd)| ms.

use crate::draw::Rng;

pub struct Network {
    mean_ms: f64,
    sd_ms: f64,
}

impl Network {
    pub fn new(mean_ms: f64, sd_ms: f64) -> Network {
        Network { mean_ms, sd_ms }
    }

    /// One message's delay, ms.
    pub fn delay(&self, rng: &mut Rng) -> f64 {
        (self.mean_ms + self.sd_ms * standard_normal(rng)).abs()
    }
}

/// A uniform draw in (0, 1]: 53 random bits.
fn unit(rng: &mut Rng) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64
}

/// Box–Muller: one standard normal from two uniforms.
fn standard_normal(rng: &mut Rng) -> f64 {
    let (u, v) = (unit(rng), unit(rng));
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}
