//! The carrier of a call's machine ([`crate::call::Call`]), as js/executor/call.js: it does what
//! each effect says — a request, an abort, a store call, the caller's predicate or status query,
//! the request body read, a report — and hands back what came of it, in the order the call's waits
//! are looked at. [`Running`] is the call as a future; when a request ends, and why, is the
//! machine's to say.

use std::cell::Ref;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use wasm_bindgen::JsValue;
use web_sys::{AbortController, AbortSignal};

use super::drive::{Answer, Carrier, Driven, Run};
use super::Executor;
use crate::call::{Call, Done, Effect, Event};
use crate::classify::Observed;
use crate::reconcile::Evidence;
use crate::record::AttemptRecord;
use crate::web::platform::abort::{self, AbortWatch, Listening};
use crate::web::platform::fetch::{Came, Requests, NO_CONTROLLER};
use crate::web::platform::request::{BodyRead, RequestTemplate};
use crate::web::platform::response::{Received, Waits};
use crate::web::platform::store::{self, Begun, Op};
use crate::web::platform::tabs::{self, Heard};

/// The caller's `shouldRetry`, given the attempt a retry would follow (its record, error, response).
pub type Predicate =
    Rc<dyn Fn(AttemptRecord, Option<String>, Option<web_sys::Response>) -> Answer<Result<bool, String>>>;

/// The caller's status query: given the attempt and a signal that fires when it is aborted.
pub type Query = Rc<dyn Fn(u32, AbortSignal) -> Found>;
type Found = Answer<Result<Evidence, String>>;

/// What a call is carried out with beside its machine, as the API gives it.
#[derive(Default)]
pub struct With {
    /// The caller's request (a fetch), sent as each attempt; its responses read for `waits`.
    pub request: Option<RequestTemplate>,
    pub waits: Waits,
    /// Any of them aborting is the caller's abort.
    pub signals: Vec<AbortSignal>,
    pub should_retry: Option<Predicate>,
    /// The caller's status query (a reconciliation).
    pub query: Option<Query>,
}

/// How a call settled, for the API to hand on ([`Running::call`] has what the core wrote).
pub struct Ended {
    pub done: Done,
    /// The latest response: the caller's on success, the error's otherwise.
    pub last: Option<Received>,
    /// What reading the request body threw.
    pub body_error: Option<JsValue>,
    /// The caller's signals: a response handed on with its body unread follows them.
    pub signals: Vec<AbortSignal>,
    /// A read's last good response, served stale (`Done::Stale`), if one could be made.
    pub stale: Option<web_sys::Response>,
    /// Joined callers got copies of the response: the caller's signals must not abort them all.
    pub shared: bool,
}

/// A call running until it settles; dropping it ends the call where it stands.
pub struct Running(Rc<Driven<Calling>>);

/// What carries out a call's effects, and what they made.
pub(super) struct Calling {
    with: With,
    signals: AbortWatch,
    listening: Option<Listening>,
    /// News of a hold or ban under the budget's share name.
    heard: Option<Rc<Heard>>,
    /// News that a slot of the budget's `maxInFlight` freed in this realm.
    room: Rc<Heard>,
    requests: Requests,
    queries: Vec<(u32, AbortController, Found)>,
    body: Option<BodyRead>,
    body_error: Option<JsValue>,
    last: Option<(u32, Received)>,
    /// The budget's used-weight header for the call's scope.
    header: Option<String>,
    /// The identity its response is kept under on success, or its kept response looked for by.
    kept: Option<u64>,
    /// Callers who joined it (coalescing), each with its slot.
    pub(super) joiners: Vec<(u32, Rc<super::join_slot::JoinSlot>)>,
    /// The caller who began it left (its abort) while others wait.
    first_left: bool,
    /// That caller's future is gone: the joined callers drive it.
    pub(super) driverless: bool,
    /// Its `tracing` spans (feature `tracing`).
    traced: super::traced::Traced,
}

impl Running {
    /// Runs `call` on `exec`'s budget, draws, store and observer, with what the API gave.
    pub fn new(call: Call, exec: &Rc<Executor>, mut with: With) -> Running {
        let header = exec.budget.borrow().used_weight_header(call.operation().scope()).map(str::to_owned);
        let signals = AbortWatch::new(std::mem::take(&mut with.signals));
        let (listening, heard) = (signals.listen(), exec.share.as_ref().map(tabs::hear));
        let (requests, queries, body, body_error, last) = Default::default();
        let room = tabs::hear_local(budget_at(exec));
        let calling = Calling {
            with,
            signals,
            listening,
            heard,
            room,
            requests,
            queries,
            body,
            body_error,
            last,
            header,
            kept: None,
            joiners: Vec::new(),
            first_left: false,
            driverless: false,
            traced: super::traced::Traced::begin(&call),
        };
        let joinable = call.joinable();
        let driven = Driven::new(call, calling, (), exec.clone());
        if joinable {
            exec.joinable.add(&driven);
        }
        Running(driven)
    }

    /// The call as it is (once settled: its outcome, its operation).
    pub fn call(&self) -> Ref<'_, Call> {
        self.0.machine()
    }
}

impl Future for Running {
    type Output = Ended;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Ended> {
        if let Poll::Ready(ended) = self.0.poll(cx) {
            return Poll::Ready(ended);
        }
        // Its caller aborted while others wait on the read: it stops alone, as the core released it.
        match self.0.with_run(|run| run.carrier.first_left) {
            Some(true) => {
                let signals = Vec::new();
                Poll::Ready(Ended {
                    done: Done::Failed,
                    last: None,
                    body_error: None,
                    signals,
                    stale: None,
                    shared: true,
                })
            }
            _ => Poll::Pending,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Dropped while joined callers wait: the first caller leaves, and they drive the read on.
        let waiting = self.0.with_run(|run| {
            let waiting = !run.carrier.joiners.is_empty();
            run.carrier.driverless |= waiting;
            (waiting, run.carrier.first_left)
        });
        if let Some((true, left)) = waiting {
            if !left {
                self.0.feed(Event::Abort);
            }
            self.0.with_run(|run| run.carrier.joiners.iter().for_each(|(_, slot)| slot.wake()));
        }
    }
}

impl Carrier for Calling {
    type Machine = Call;
    type Face = ();
    type Output = Ended;

    fn first(&mut self) -> Event {
        // A call aborted before it began is the machine's to end.
        if self.signals.is_aborted() {
            Event::Abort
        } else {
            Event::Go
        }
    }

    fn perform(run: &mut Run<Self>, effect: Effect, driven: &Rc<Driven<Self>>) -> Option<Ended> {
        let me = &mut run.carrier;
        let at_once = match effect {
            Effect::Share(share) => run.share(share),
            Effect::ReadBody => {
                me.body = me.with.request.as_ref().and_then(RequestTemplate::read_body);
                // Without a body, read at once.
                me.body.is_none().then_some(Event::BodyRead(true))
            }
            Effect::Send { attempt, hedge, read_body, .. } => {
                me.traced.sent(attempt, hedge);
                let sent = me.with.request.as_ref().map(|r| me.requests.send(r, attempt, hedge, read_body));
                // A request that could not be made is answered at once (counted as sent: an order
                // is safer called unknown than repeated).
                sent.and_then(Result::err).map(|words| failed(attempt, words))
            }
            Effect::Abort { attempt, timed_out } => {
                me.requests.abort(attempt, timed_out);
                if let Some(at) = me.queries.iter().position(|(a, ..)| *a == attempt) {
                    abort::abort(&me.queries.remove(at).1, timed_out);
                }
                None
            }
            Effect::Get { seq, key } => store(run, seq, Op::Get, key, ""),
            Effect::Set { seq, key, value } => store(run, seq, Op::Set, key, &value),
            Effect::Delete { seq, key } => store(run, seq, Op::Delete, key, ""),
            Effect::Ask { seq, record, error } => ask(run, seq, *record, error),
            Effect::Query { attempt } => me.query(attempt),
            Effect::Report { from } => {
                me.traced.recorded(run.machine.records().get(from..).unwrap_or_default());
                run.exec.report(run.machine.records().get(from..).unwrap_or_default());
                None
            }
            Effect::Wake => {
                tabs::tell_local(budget_at(&run.exec));
                None
            }
            Effect::Keep { key } => {
                me.kept = Some(key);
                None
            }
            Effect::LookStale { seq, key } => {
                me.kept = Some(key);
                Some(Event::StaleKept(seq, run.exec.kept.borrow().kept_at(key)))
            }
            Effect::Release { caller: 0, .. } => {
                me.first_left = true;
                None
            }
            Effect::Release { caller, json } => {
                if let Some(at) = me.joiners.iter().position(|(id, _)| *id == caller) {
                    me.joiners.remove(at).1.fill(super::join_slot::JoinOutcome::Stopped(json));
                }
                me.wake_joiners();
                None
            }
            // Nor do they coalesce across tabs: none awaits another's, nothing is carried.
            Effect::Await { .. } => Some(Event::Carried(false)),
            Effect::Carry { .. } => None,
            Effect::Retrying { record, after } => {
                me.traced.retrying(&record, after);
                run.exec.retrying(*record, after);
                None
            }
            Effect::Done(done) => {
                me.traced.ended(&run.machine, matches!(done, Done::Success { .. } | Done::Reconciled));
                let (last, body_error) = (me.last.take().map(|(_, r)| r), me.body_error.take());
                let stale = match (done, me.kept) {
                    (Done::Success { .. }, Some(key)) => {
                        if let Some(response) = last.as_ref().and_then(Received::keepable) {
                            run.exec.kept.borrow_mut().keep(key, &response, crate::web::platform::clock::wall_now());
                        }
                        None
                    }
                    (Done::Stale { age_ms }, Some(key)) => run.exec.kept.borrow().serve(key, age_ms),
                    _ => None,
                };
                let shared = !me.joiners.is_empty();
                if shared {
                    let json = run.machine.outcome_json();
                    let kept = &run.exec.kept;
                    for (_, slot) in std::mem::take(&mut me.joiners) {
                        slot.fill(super::join_slot::outcome_for(done, last.as_ref(), me.kept, kept, &json));
                    }
                }
                return Some(Ended { done, last, body_error, signals: me.signals.signals().to_vec(), stale, shared });
            }
        };
        if let Some(event) = at_once {
            driven.later(event);
        }
        None
    }

    fn gather(run: &mut Run<Self>, _: &(), cx: &mut Context<'_>, came: &mut Vec<Event>) {
        let me = &mut run.carrier;
        if me.listening.as_mut().is_some_and(|l| l.poll_aborted(cx).is_ready()) {
            me.listening = None;
            came.push(Event::Abort);
        }
        if run.due(cx) {
            came.push(Event::Timer);
        }
        let me = &mut run.carrier;
        if me.heard.as_ref().is_some_and(|heard| heard.poll_news(cx)) | me.room.poll_news(cx) {
            came.push(Event::News);
        }
        if let (Some(body), Some(request)) = (me.body.as_mut(), me.with.request.as_mut()) {
            if let Poll::Ready(read) = body.poll_read(cx, request) {
                me.body = None;
                me.body_error = read.err();
                came.push(Event::BodyRead(me.body_error.is_none()));
            }
        }
        // Store calls and the predicate.
        run.answered(cx, came);
        run.locked(cx, came);
        let me = &mut run.carrier;
        let (header, waits, last) = (me.header.as_deref(), &me.with.waits, &mut me.last);
        me.requests.poll(cx, header, waits, |attempt, answer| came.push(heard(attempt, answer, last)));
        me.queries.retain_mut(|(attempt, _, found)| match found.as_mut().poll(cx) {
            Poll::Ready(answer) => {
                came.push(Event::QueryAnswer(*attempt, answer));
                false
            }
            Poll::Pending => true,
        });
    }

    /// Lets go of its listeners and waits; its requests still out are aborted.
    fn end(&mut self) {
        (self.listening, self.heard, self.body) = (None, None, None);
        self.requests.abandon();
        for (_, controller, _) in self.queries.drain(..) {
            abort::abort(&controller, false);
        }
    }
}

impl Calling {
    /// Wakes every joined caller still waiting, when they drive the read themselves.
    pub(super) fn wake_joiners(&self) {
        if self.driverless {
            self.joiners.iter().for_each(|(_, slot)| slot.wake());
        }
    }

    /// Runs the caller's status query `attempt`, with a signal that fires when it is aborted.
    fn query(&mut self, attempt: u32) -> Option<Event> {
        let query = self.with.query.as_ref()?;
        let Ok(controller) = AbortController::new() else {
            return Some(Event::QueryAnswer(attempt, Err(NO_CONTROLLER.to_owned())));
        };
        let found = query(attempt, controller.signal());
        self.queries.push((attempt, controller, found));
        None
    }
}

/// Makes store call `op` on `key` (`value`: what `Set` stores); a store of memory answers at once.
fn store(run: &mut Run<Calling>, seq: u32, op: Op, key: String, value: &str) -> Option<Event> {
    match run.exec.store.start(op, &key, value) {
        Begun::Now(stored) => Some(Event::Stored(seq, stored)),
        Begun::Later(settling) => {
            run.pending.push(Box::pin(async move { Event::Stored(seq, store::answer(op, &key, settling.await)) }));
            None
        }
    }
}

/// Puts the retry to the predicate, with the response of the attempt it follows.
fn ask(run: &mut Run<Calling>, seq: u32, record: AttemptRecord, error: Option<String>) -> Option<Event> {
    let me = &run.carrier;
    // Never asked without one: the machine knows whether the call has a predicate.
    let Some(predicate) = &me.with.should_retry else { return Some(Event::Answered(seq, Ok(true))) };
    let response = me.last.as_ref().filter(|(attempt, _)| *attempt == record.attempt).and_then(|(_, r)| r.response());
    let answer = predicate(record, error, response);
    run.pending.push(Box::pin(async move { Event::Answered(seq, answer.await) }));
    None
}

/// What came of request `attempt`, as the machine hears it: a response becomes the latest.
/// The budget's address: the machines that share it hear its freed slots.
fn budget_at(exec: &Rc<Executor>) -> usize {
    Rc::as_ptr(&exec.budget) as *const () as usize
}

fn heard(attempt: u32, came: Came, last: &mut Option<(u32, Received)>) -> Event {
    match came {
        Came::Headed => Event::Headed(attempt),
        Came::Failed(words) => failed(attempt, words),
        Came::Answered(head, received) => {
            // A fetch that hands back one object for every attempt keeps its body.
            if let Some((_, earlier)) = last.take().filter(|(_, earlier)| !earlier.is(&received)) {
                earlier.discard();
            }
            *last = Some((attempt, received));
            Event::Response(attempt, head.seen())
        }
    }
}

fn failed(attempt: u32, words: String) -> Event {
    Event::Failed(attempt, Observed::NetworkError, Some(words))
}
