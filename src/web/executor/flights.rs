//! The requests on the wire (`Effect::Send`) and a reconciliation's status queries
//! (`Effect::Query`), each with an `AbortController` of its own: what comes back is read (its head,
//! then its body when the machine says) and fed to the machine. When one ends — its timeout, a lost
//! race, the caller — is the machine's to say (`Effect::Abort`).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use wasm_bindgen::JsValue;
use web_sys::{AbortController, AbortSignal};

use crate::call::{Event, Head as Seen};
use crate::classify::Observed;
use crate::reconcile::Evidence;
use crate::text;
use crate::web::platform::abort;
use crate::web::platform::errors::describe;
use crate::web::platform::fetch;
use crate::web::platform::request::RequestTemplate;
use crate::web::platform::response::{self, face, Head, Received, Waits};
use crate::web::platform::settling::Settling;
use crate::web::platform::values;

/// A status query's answer to come.
type Found = Pin<Box<dyn Future<Output = Result<Evidence, String>>>>;

/// The caller's status query: attempt (from 1) and a signal that fires when it is aborted in,
/// what it found (or why it failed) out.
pub type Query = Rc<dyn Fn(u32, AbortSignal) -> Found>;

/// One request (or query) out.
struct Flight {
    attempt: u32,
    controller: AbortController,
    stage: Stage,
}

enum Stage {
    /// `fetch` has not settled; `read_body`: its body is read before its answer is fed.
    Sent { fetching: Settling, read_body: bool },
    /// Its head came (the machine has been told); its body is being read.
    Reading { response: JsValue, head: Head, body: Settling },
    /// The caller's status query runs.
    Asked(Found),
    /// Nothing more comes of it.
    Over,
}

/// What came of a flight.
enum Came {
    Headed,
    Answered(Head, Received),
    Failed(String),
    Queried(Result<Evidence, String>),
}

impl Flight {
    fn poll(&mut self, cx: &mut Context<'_>, header: Option<&str>, waits: &Waits) -> Poll<Came> {
        let came = match &mut self.stage {
            Stage::Sent { fetching, read_body } => {
                let read_body = *read_body;
                match Pin::new(fetching).poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Err(thrown)) => Came::Failed(describe(&thrown)),
                    Poll::Ready(Ok(value)) => match response::head(&value, header, waits) {
                        Err(why) => Came::Failed(why),
                        Ok(head) if !read_body => {
                            Came::Answered(head, Received::passed_on(value, self.controller.clone()))
                        }
                        Ok(head) => match response::read_body(&value) {
                            Err(why) => Came::Failed(why),
                            Ok(reading) => {
                                let body = Settling::of(Ok(reading));
                                self.stage = Stage::Reading { response: value, head, body };
                                return Poll::Ready(Came::Headed);
                            }
                        },
                    },
                }
            }
            Stage::Reading { body, .. } => match Pin::new(body).poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(read) => match std::mem::replace(&mut self.stage, Stage::Over) {
                    Stage::Reading { response, head, .. } => rebuilt(response, head, read),
                    _ => return Poll::Pending,
                },
            },
            Stage::Asked(found) => match found.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(answer) => Came::Queried(answer),
            },
            Stage::Over => return Poll::Pending,
        };
        self.stage = Stage::Over;
        Poll::Ready(came)
    }
}

/// A response whose body was read inside its attempt, rebuilt around the bytes.
fn rebuilt(response: JsValue, head: Head, read: Result<JsValue, JsValue>) -> Came {
    let bytes = match read {
        Ok(bytes) if values::is_bytes(&bytes) => bytes,
        Ok(other) => {
            return Came::Failed(text::join(&["the response body resolved with ", values::kind(&other), ", not bytes"]))
        }
        Err(e) => return Came::Failed(text::join(&["the response body failed: ", &describe(&e)])),
    };
    match face(&response) {
        Ok(face) => {
            let status = head.status;
            Came::Answered(head, Received::rebuilt(response, status, face, &bytes))
        }
        Err(why) => Came::Failed(why),
    }
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
        let Ok(controller) = AbortController::new() else { return Some(failed(attempt, NO_CONTROLLER.to_owned())) };
        match fetch::send(request, &controller.signal(), hedge) {
            Err(words) => Some(failed(attempt, words)),
            Ok(fetching) => {
                self.out.push(Flight { attempt, controller, stage: Stage::Sent { fetching, read_body } });
                None
            }
        }
    }

    /// Runs the caller's status query `attempt`, with a signal that fires when it is aborted.
    pub(super) fn query(&mut self, query: &Query, attempt: u32) -> Option<Event> {
        let Ok(controller) = AbortController::new() else {
            return Some(Event::QueryAnswer(attempt, Err(NO_CONTROLLER.to_owned())));
        };
        let found = query(attempt, controller.signal());
        self.out.push(Flight { attempt, controller, stage: Stage::Asked(found) });
        None
    }

    /// Aborts request `attempt`, if it is still out: what it answers later is dropped.
    pub(super) fn abort(&mut self, attempt: u32, timed_out: bool) {
        if let Some(at) = self.out.iter().position(|f| f.attempt == attempt) {
            abort::abort(&self.out.remove(at).controller, timed_out);
        }
    }

    /// The call is over: every request still out is aborted.
    pub(super) fn abandon(&mut self) {
        for flight in self.out.drain(..) {
            abort::abort(&flight.controller, false);
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
            let came = match flight.poll(cx, header, waits) {
                Poll::Pending => {
                    at += 1;
                    continue;
                }
                Poll::Ready(came) => came,
            };
            let event = match came {
                // Still out: its body is read next.
                Came::Headed => {
                    events.push_back(Event::Headed(attempt));
                    continue;
                }
                Came::Answered(head, received) => answered(attempt, head, received, last),
                Came::Failed(words) => failed(attempt, words),
                Came::Queried(answer) => Event::QueryAnswer(attempt, answer),
            };
            self.out.remove(at);
            events.push_back(event);
        }
    }
}

const NO_CONTROLLER: &str = "no AbortController could be made";

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
