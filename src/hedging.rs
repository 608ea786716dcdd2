//! Hedged reads: when a read's response is late, a second request of it goes out; the first
//! usable answer wins and the others are aborted ("The Tail at Scale", Dean and Barroso, 2013;
//! gRPC's hedging policy, A6). The policy says when (`hedgeAfterMs`) and how many (`maxHedges`).

use serde::{Serialize, Serializer};

use crate::input::read::{millis, whole};
use crate::input::{Invalid, InvalidOption, Loose, Problem};

/// Whether this build hedges: one without (the lean entry's) refuses `maxHedges` at a call's
/// start, and carries none of the race's code.
pub const HEDGES: bool = cfg!(feature = "hedge");

/// The most hedges of one attempt: each is a whole request more on the wire.
pub const MAX_HEDGES: u64 = 4;

/// Observations of a scope's response time before its 95th percentile decides a hedge's delay.
pub const P95_MIN_SAMPLES: u32 = 20;

/// How long a read waits for its response before a hedge goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HedgeAfter {
    /// A fixed delay, ms.
    Fixed(u64),
    /// The scope's observed 95th-percentile time to a response ([`P95_MIN_SAMPLES`] first).
    #[default]
    P95,
}

impl HedgeAfter {
    /// `hedgeAfterMs`: a whole number of ms (at least 1), or `"p95"`.
    pub(crate) fn read(field: &str, value: &Loose) -> Result<HedgeAfter, Invalid> {
        match value {
            Loose::Text(name) if name == "p95" => Ok(HedgeAfter::P95),
            Loose::Text(_) => Err(InvalidOption::boxed(field, Problem::UnknownName { allowed: "\"p95\"" })),
            _ => match millis(field, value)? {
                0 => Err(InvalidOption::boxed(field, Problem::TooSmall { min: 1 })),
                ms => Ok(HedgeAfter::Fixed(ms)),
            },
        }
    }
}

/// `maxHedges`: 0 (off) to [`MAX_HEDGES`].
pub(crate) fn read_max_hedges(field: &str, value: &Loose) -> Result<u32, Invalid> {
    whole(field, value, 0, MAX_HEDGES).map(|n| n as u32)
}

/// Serialized as the option it was read from, so that a saved policy reads back the same.
impl Serialize for HedgeAfter {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            HedgeAfter::Fixed(ms) => serializer.serialize_u64(*ms),
            HedgeAfter::P95 => serializer.serialize_str("p95"),
        }
    }
}
