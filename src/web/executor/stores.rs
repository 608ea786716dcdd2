//! The store calls the machine asks for (`Effect::Get`, `Set`, `Delete`), each named by its answer
//! (`seq`): made on the client's store, and what each came to fed back as `Event::Stored`. How long
//! one is waited for is the machine's to say (its deadline).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::call::Event;
use crate::web::platform::settling::Settling;
use crate::web::platform::store::{self, Begun, Op, Store};

/// A store call out.
struct StoreCall {
    seq: u32,
    op: Op,
    key: String,
    settling: Settling,
}

/// The store calls out.
#[derive(Default)]
pub(super) struct StoreCalls {
    out: Vec<StoreCall>,
}

impl StoreCalls {
    /// Makes `op` on `key` (`value`: what `Set` stores); a store of memory answers at once.
    pub(super) fn start(&mut self, store: &Store, seq: u32, op: Op, key: String, value: &str) -> Option<Event> {
        match store.start(op, &key, value) {
            Begun::Now(answer) => Some(Event::Stored(seq, answer)),
            Begun::Later(settling) => {
                self.out.push(StoreCall { seq, op, key, settling });
                None
            }
        }
    }

    /// What the calls that settled came to, queued in `events`.
    pub(super) fn poll(&mut self, cx: &mut Context<'_>, events: &mut VecDeque<Event>) {
        let mut at = 0;
        while let Some(call) = self.out.get_mut(at) {
            match Pin::new(&mut call.settling).poll(cx) {
                Poll::Pending => at += 1,
                Poll::Ready(settled) => {
                    let call = self.out.remove(at);
                    events.push_back(Event::Stored(call.seq, store::answer(call.op, &call.key, settled)));
                }
            }
        }
    }

    /// Forgets the calls out: what they answer later finds no one.
    pub(super) fn clear(&mut self) {
        self.out.clear();
    }
}
