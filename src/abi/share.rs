//! A machine's steps on a shared budget, as the shell sees them ([`crate::budget::sharing`]):
//!
//! | code | effect | numbers | text |
//! |---|---|---|---|
//! | 11 | enter: take the share's lock and stored state | seq, within ms | |
//! | 12 | leave: store the state and let the lock go | news (1: wake the share's sleepers), 1 if there is a state | the state (JSON) |
//! | 13 | visit the scope's coordinator | seq, waits, weight, priority code, earliest, latest, returned, hold, ban (wall ms), within ms, breaker (wall ms), probe | the scope |

use super::io;
use crate::budget::shared::SharedState;
use crate::budget::sharing::Share;

/// The stored state an `Entered` event carries (`len` bytes of wire form; absent: none read). Only a
/// budget shared across tabs takes one up: a build without them reads none.
pub fn entered_state(input: &mut io::Input, len: u32) -> Option<SharedState> {
    if !cfg!(feature = "tabs") {
        return None;
    }
    input.wire(len).ok().and_then(|s| crate::json::FromLoose::read_loose(&s).ok())
}

/// Hands a step on the shared budget out: its code, numbers and text.
pub fn hand_out(share: Share) -> u32 {
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    match share {
        Share::Enter { seq, within_ms } => {
            io::numbers(&[f64::from(seq), within_ms as f64]);
            11
        }
        Share::Leave { state, news } => {
            io::numbers(&[flag(news), flag(state.is_some())]);
            io::output(state.unwrap_or_default());
            12
        }
        #[cfg(not(feature = "leases"))]
        Share::Visit { .. } => 0,
        #[cfg(feature = "leases")]
        Share::Visit { seq, scope, visit: v, waits } => {
            let priority = crate::budget::Priority::ALL.iter().position(|&p| p == v.priority).unwrap_or(0) as f64;
            io::numbers(&[
                f64::from(seq),
                flag(waits),
                f64::from(v.weight),
                priority,
                v.earliest_wall as f64,
                v.latest_wall as f64,
                v.returned as f64,
                v.hold_wall as f64,
                v.ban_wall as f64,
                v.within as f64,
                v.breaker_wall as f64,
                v.probe as f64,
                v.spent as f64,
            ]);
            io::output(scope);
            13
        }
    }
}
