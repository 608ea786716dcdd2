//! The executor of the core's machines — a call's ([`crate::call::Call`]) and a stream's session
//! ([`crate::stream::session::Session`]) — as js/executor/ is for the npm package: one driver loop
//! for both feeds the machine what happened, hands each effect it gives out to the machine's
//! carrier, and arms the one timer it asks for. It decides nothing: no delay, count, order or
//! state is computed here; what the caller gives is read by the API, the JavaScript it touches is
//! the platform's.
//!
//! ```text
//! drive.rs    Driven: the loop — events in, effects out, one timer, the share's locks; Carrier (the machine: crate::sequencer::Sequencer)
//! call.rs     Running: a call's effects — requests, status queries, store calls, shouldRetry, reports
//! stream.rs   Streaming: a session's effects — sockets, callbacks, the pace's writes, what is told
//! ```

mod call;
mod drive;
mod join_slot;
mod joined;
mod kept;
mod stream;
mod traced;

use std::cell::RefCell;
use std::rc::Rc;

use crate::budget::Budget;
use crate::draw::Draws;
use crate::record::AttemptRecord;
use crate::web::platform::store::Store;

pub use call::{Ended, Predicate, Query, Running, With};
pub use joined::{join, JoinOutcome, Joined};
pub use stream::{Event as StreamEvent, Given, Listener, OnOpen, Ping, ProtocolsFn, Resync, Sender, Streaming, UrlFn};

/// Called with every record, sent or refused, as it is made.
pub type Observer = Rc<dyn Fn(&AttemptRecord)>;

/// Called with each retry that stands, before its sleep.
pub type RetryObserver = Rc<dyn Fn(&crate::web::api::RetryInfo)>;

/// What a client's calls and streams share.
pub struct Executor {
    pub budget: Rc<RefCell<Budget>>,
    /// The name the budget is shared under across tabs (`None`: this realm's alone).
    pub share: Option<Rc<str>>,
    pub draws: RefCell<Draws>,
    pub store: Store,
    pub observer: Option<Observer>,
    pub on_retry: Option<RetryObserver>,
    /// The last good response of each read (`staleIfErrorMs`).
    pub kept: RefCell<kept::Kept>,
    /// Its coalescing reads running, which a new read of the same request may join.
    pub joinable: joined::Joinable,
}

impl Executor {
    /// Someone hears of records or retries: the machine hands them out.
    pub fn observed(&self) -> bool {
        cfg!(feature = "tracing") || self.observer.is_some() || self.on_retry.is_some()
    }

    /// Hands a retry that stands to the client's `on_retry`.
    fn retrying(&self, record: AttemptRecord, after: Option<&'static str>) {
        if let Some(hear) = &self.on_retry {
            hear(&crate::web::api::RetryInfo::new(record, after));
        }
    }

    /// Hands `records` on to the client's observer.
    fn report(&self, records: &[AttemptRecord]) {
        let Some(observer) = &self.observer else { return };
        for record in records {
            observer(record);
        }
    }
}
