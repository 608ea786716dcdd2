//! The requests on the wire (`Effect::Send`) and a reconciliation's status queries
//! (`Effect::Query`), each with an `AbortController` of its own: what comes back is read (its head,
//! then its body when the machine says) and fed to the machine. When one ends — its timeout, a lost
//! race, the caller — is the machine's to say (`Effect::Abort`).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use web_sys::{AbortController, AbortSignal};

use crate::call::{Event, Head as Seen};
use crate::classify::Observed;
use crate::reconcile::Evidence;
use crate::web::platform::abort;
use crate::web::platform::fetch::{Attempt, Came, NO_CONTROLLER};
use crate::web::platform::request::RequestTemplate;
use crate::web::platform::response::{Head, Received, Waits};

/// A status query's answer to come.
type Found = Pin<Box<dyn Future<Output = Result<Evidence, String>>>>;

/// The caller's status query: attempt (from 1) and a signal that fires when it is aborted in,
/// what it found (or why it failed) out.
pub type Query = Rc<dyn Fn(u32, AbortSignal) -> Found>;

/// One request (or query) out.
struct Flight {
    attempt: u32,
    out: Out,
}

enum Out {
    Wire(Attempt),
    /// The caller's status query runs; its controller's signal fires when it is aborted.
    Asked(AbortController, Found),
}

/// The requests and queries out.
#[derive(Default)]
pub(super) struct Flights {
    out: Vec<Flight>,
}

impl Flights {
    /// Sends request `attempt` of `request` (a hedge skips a browser's HTTP cache); a request that
    /// could not be made is answered at once (counted as sent: an order is safer called unknown
    /// than repeated).
    pub(super) fn send(
        &mut self,
        request: &RequestTemplate,
        attempt: u32,
        hedge: bool,
        read_body: bool,
    ) -> Option<Event> {
        match Attempt::send(request, hedge, read_body) {
            Ok(wire) => self.out.push(Flight { attempt, out: Out::Wire(wire) }),
            Err(words) => return Some(failed(attempt, words)),
        }
        None
    }

    /// Runs the caller's status query `attempt`, with a signal that fires when it is aborted.
    pub(super) fn query(&mut self, query: &Query, attempt: u32) -> Option<Event> {
        let Ok(controller) = AbortController::new() else {
            return Some(Event::QueryAnswer(attempt, Err(NO_CONTROLLER.to_owned())));
        };
        let found = query(attempt, controller.signal());
        self.out.push(Flight { attempt, out: Out::Asked(controller, found) });
        None
    }

    /// Aborts request `attempt`, if it is still out: what it answers later is dropped.
    pub(super) fn abort(&mut self, attempt: u32, timed_out: bool) {
        if let Some(at) = self.out.iter().position(|f| f.attempt == attempt) {
            self.out.remove(at).abort(timed_out);
        }
    }

    /// The call is over: every request still out is aborted.
    pub(super) fn abandon(&mut self) {
        for flight in self.out.drain(..) {
            flight.abort(false);
        }
    }

    /// What came back of each request and query (read for `header`, the used-weight header, and
    /// `waits`), queued in `events`; a response becomes the latest (`last`: an earlier one is discarded).
    pub(super) fn poll(
        &mut self,
        cx: &mut Context<'_>,
        header: Option<&str>,
        waits: &Waits,
        last: &mut Option<(u32, Received)>,
        events: &mut VecDeque<Event>,
    ) {
        let mut at = 0;
        while let Some(flight) = self.out.get_mut(at) {
            let attempt = flight.attempt;
            let event = match &mut flight.out {
                Out::Wire(wire) => match wire.poll(cx, header, waits) {
                    Poll::Pending => None,
                    // Still out: its body is read next.
                    Poll::Ready(Came::Headed) => {
                        events.push_back(Event::Headed(attempt));
                        continue;
                    }
                    Poll::Ready(Came::Answered(head, received)) => Some(answered(attempt, head, received, last)),
                    Poll::Ready(Came::Failed(words)) => Some(failed(attempt, words)),
                },
                Out::Asked(_, found) => match found.as_mut().poll(cx) {
                    Poll::Pending => None,
                    Poll::Ready(answer) => Some(Event::QueryAnswer(attempt, answer)),
                },
            };
            let Some(event) = event else {
                at += 1;
                continue;
            };
            self.out.remove(at);
            events.push_back(event);
        }
    }
}

impl Flight {
    fn abort(&self, timed_out: bool) {
        match &self.out {
            Out::Wire(wire) => wire.abort(timed_out),
            Out::Asked(controller, _) => abort::abort(controller, timed_out),
        }
    }
}

fn failed(attempt: u32, words: String) -> Event {
    Event::Failed(attempt, Observed::NetworkError, Some(words))
}

/// A response came: it is the latest (an earlier one is discarded) and the machine hears of it.
fn answered(attempt: u32, head: Head, received: Received, last: &mut Option<(u32, Received)>) -> Event {
    // A fetch that hands back one object for every attempt keeps its body.
    if let Some((_, earlier)) = last.take().filter(|(_, earlier)| !earlier.is(&received)) {
        earlier.discard();
    }
    *last = Some((attempt, received));
    let seen = Seen {
        status: f64::from(head.status),
        retry_after: head.retry_after,
        hidden: head.retry_after_unreadable,
        date: head.date,
        reset: head.reset,
        used: head.used_weight,
    };
    Event::Response(attempt, seen)
}
