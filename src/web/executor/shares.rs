//! A machine's steps on a budget shared across tabs, as it brackets them (a call's or a stream's
//! `Share`), carried out with the share's locks ([`Locks`]): `Enter` answered `Entered(seq, state)`
//! once the lock is held, `Leave` storing the state. A budget of the Rust API is never leased from
//! a coordinator: a visit the machine waits for is answered at once.

use crate::budget::shared::SharedState;
use crate::budget::sharing::Share;
use crate::web::platform::tabs::Locks;

/// The machine's answer `Entered(seq, state)`.
pub(super) type Entered = (u32, Option<SharedState>);

/// Carries out `share`; its answer, when it has one at once.
pub(super) fn step(locks: &mut Locks, share: Share) -> Option<Entered> {
    match share {
        Share::Enter { seq, within_ms } => (!locks.enter(seq, within_ms)).then_some((seq, None)),
        Share::Leave { state, news } => {
            locks.leave(state.as_deref(), news);
            None
        }
        Share::Visit { seq, waits: true, .. } => Some((seq, None)),
        Share::Visit { .. } => None,
    }
}
