//! A call's steps on a budget shared across tabs, as the machine brackets them (`Effect::Share`):
//! the share's lock taken and its stored state read (`Enter`, answered `Event::Entered`), the
//! state stored and the lock let go (`Leave`), through js/platform/tab-locks.js. A budget of the
//! Rust API is never leased from a coordinator: a visit the machine waits for is answered at once.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use crate::budget::shared::SharedState;
use crate::budget::sharing::Share;
use crate::call::Event;
use crate::json::FromLoose;
use crate::web::platform::loose::plain;
use crate::web::platform::settling::Settling;
use crate::web::platform::{tabs, values};

/// The share's lock asked for, for bracket `seq`.
struct Entering {
    seq: u32,
    /// What `shareEnter` returned: a lock granted once the call has ended is let go through it.
    promise: js_sys::Promise,
    settling: Settling,
}

/// One call's part in a share.
pub(super) struct Shares {
    /// The share's name (`None`: the budget is this realm's alone).
    name: Option<Rc<str>>,
    entering: Vec<Entering>,
    /// This call holds the share's lock: `shareLeave` lets go of whatever lock this realm holds
    /// under the name, so only its holder may call it.
    held: bool,
}

impl Shares {
    pub(super) fn new(name: Option<Rc<str>>) -> Shares {
        Shares { name, entering: Vec::new(), held: false }
    }

    /// Carries out `share`; its answer, when it has one at once.
    pub(super) fn step(&mut self, share: Share) -> Option<Event> {
        let name = self.name.as_deref();
        match share {
            Share::Enter { seq, within_ms } => match name.map(|name| tabs::enter(name, within_ms)) {
                Some(Ok(promise)) => {
                    let settling = Settling::of(Ok(promise.clone().into()));
                    self.entering.push(Entering { seq, promise, settling });
                    None
                }
                _ => Some(Event::Entered(seq, None)),
            },
            Share::Leave { state, news } => {
                if let (Some(name), true) = (name, self.held) {
                    self.held = false;
                    tabs::leave(name, state.as_deref(), news);
                }
                None
            }
            Share::Visit { seq, waits: true, .. } => Some(Event::Entered(seq, None)),
            Share::Visit { .. } => None,
        }
    }

    /// Each lock held (with the state stored, if it could be read) or given up on, queued in `events`.
    pub(super) fn poll(&mut self, cx: &mut Context<'_>, events: &mut VecDeque<Event>) {
        let mut at = 0;
        while let Some(entering) = self.entering.get_mut(at) {
            let Poll::Ready(text) = Pin::new(&mut entering.settling).poll(cx) else {
                at += 1;
                continue;
            };
            let seq = self.entering.remove(at).seq;
            // Text (empty: nothing stored yet) once the lock is held; null when it could not be had.
            let text = text.ok().and_then(|t| t.as_string());
            self.held |= text.is_some();
            let text = text.filter(|t| !t.is_empty());
            let state = text.and_then(|t| values::parse_json(&t).ok()).and_then(|v| plain(&v).ok());
            events.push_back(Event::Entered(seq, state.and_then(|s| SharedState::from_loose(&s).ok())));
        }
    }

    /// The call is over: a lock it holds (its answer not fed yet) is let go, and one still to be
    /// granted once it is.
    pub(super) fn abandon(&mut self) {
        let Some(name) = self.name.as_deref() else { return };
        if std::mem::take(&mut self.held) {
            tabs::leave(name, None, false);
        }
        for entering in self.entering.drain(..) {
            tabs::leave_once_entered(name, entering.promise);
        }
    }
}
