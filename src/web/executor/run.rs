//! One call's loop, as quinn's driver runs quinn-proto's `Connection`: what happened is fed to the
//! machine (`handle`), each effect it hands out is carried out (`poll`), and one timer is armed at
//! `poll_timeout`, whose firing is fed back as `Event::Timer`.
//!
//! [`Running`] is that loop as a future. Each poll looks at everything the call waits on — the
//! caller's abort, the timer, news of its shared budget, requests and queries, the request body,
//! store calls, the predicate, the budget's lock — and feeds what came, in order. Dropping it ends
//! the call where it stands: its timer cleared, its requests aborted, a lock granted later let go.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use wasm_bindgen::JsValue;

use super::ask::{Asking, Predicate};
use super::client::Executor;
use super::flights::{Flights, Query};
use super::settle::{settled, Settled};
use super::shares;
use crate::call::{Call, Ctx, Effect, Event, Stored};
use crate::record::AttemptRecord;
use crate::web::platform::abort::{AbortWatch, Listening};
use crate::web::platform::alarm::Alarm;
use crate::web::platform::clock;
use crate::web::platform::request::{BodyRead, RequestTemplate};
use crate::web::platform::response::{Received, Waits};
use crate::web::platform::store::{Op, StoreCalls};
use crate::web::platform::tabs::{self, Heard, Locks};

/// A call running, until it settles; dropping it cancels the call.
pub struct Running {
    // Boxed: every future that awaits a call then holds a pointer, not the call.
    run: Box<Run>,
}

/// Everything a call holds while it runs.
struct Run {
    call: Call,
    exec: Rc<Executor>,
    /// The caller's request (a fetch), sent as each attempt.
    request: Option<RequestTemplate>,
    signals: AbortWatch,
    listening: Option<Listening>,
    heard: Option<Rc<Heard>>,
    alarm: Option<Alarm>,
    /// What happened, to be fed in order.
    events: VecDeque<Event>,
    flights: Flights,
    body: Option<BodyRead>,
    /// What reading the request body threw, for the caller.
    body_error: Option<JsValue>,
    stores: StoreCalls,
    asking: Option<Asking>,
    locks: Locks,
    /// The latest response and its attempt: the caller's on success, the error's otherwise.
    last: Option<(u32, Received)>,
    /// The budget's used-weight header for the call's scope.
    header: Option<String>,
    waits: Waits,
    should_retry: Option<Predicate>,
    query: Option<Query>,
    settled: Option<Settled>,
    begun: bool,
    /// The platform set no timer once: the call was told to end (as aborted).
    unbounded: bool,
}

impl Running {
    /// `call` of `exec`'s client, aborted by `signals`; the rest is given by the setters below.
    pub(super) fn new(call: Call, exec: Rc<Executor>, signals: AbortWatch) -> Running {
        let header = exec.held.budget.borrow().used_weight_header(call.operation().scope()).map(str::to_owned);
        let (heard, locks) = (exec.held.share.as_ref().map(tabs::hear), Locks::new(exec.held.share.clone()));
        let listening = signals.listen();
        let run = Run {
            call,
            exec,
            request: None,
            signals,
            listening,
            heard,
            alarm: None,
            events: VecDeque::new(),
            flights: Flights::default(),
            body: None,
            body_error: None,
            stores: StoreCalls::default(),
            asking: None,
            locks,
            last: None,
            header,
            waits: Waits::default(),
            should_retry: None,
            query: None,
            settled: None,
            begun: false,
            unbounded: false,
        };
        Running { run: Box::new(run) }
    }

    /// The caller's request, its responses read for `waits` (a fetch).
    pub(super) fn sending(mut self, request: RequestTemplate, waits: Waits) -> Running {
        (self.run.request, self.run.waits) = (Some(request), waits);
        self
    }

    /// The predicate each retry is put to.
    pub(super) fn asking(mut self, should_retry: Option<Predicate>) -> Running {
        self.run.should_retry = should_retry;
        self
    }

    /// The caller's status query (a reconciliation).
    pub(super) fn querying(mut self, query: Query) -> Running {
        self.run.query = Some(query);
        self
    }
}

impl Future for Running {
    type Output = Settled;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Settled> {
        let run = &mut *self.run;
        if !run.begun {
            run.begun = true;
            // A call aborted before it began is the machine's to end.
            let first = if run.signals.is_aborted() { Event::Abort } else { Event::Go };
            run.events.push_back(first);
        }
        loop {
            while let Some(event) = run.events.pop_front() {
                run.feed(event);
                if let Some(settled) = run.settled.take() {
                    run.end();
                    return Poll::Ready(settled);
                }
            }
            run.arm();
            run.gather(cx);
            if run.events.is_empty() {
                return Poll::Pending;
            }
        }
    }
}

impl Run {
    /// Feeds `event` at this instant, then carries out what the machine hands out.
    fn feed(&mut self, event: Event) {
        {
            let (now, wall) = (clock::now(), clock::wall_now());
            let (mut draws, mut budget) = (self.exec.draws.borrow_mut(), self.exec.held.budget.borrow_mut());
            self.call.handle(event, &mut Ctx { now, wall, draws: &mut draws, budget: &mut budget });
        }
        while self.settled.is_none() {
            let Some(effect) = self.call.poll() else { break };
            self.perform(effect);
        }
    }

    /// Carries out `effect`; an answer that comes at once is queued like any other.
    fn perform(&mut self, effect: Effect) {
        let store = &self.exec.store;
        let answer = match effect {
            Effect::Share(share) => shares::step(&mut self.locks, share).map(|(seq, state)| Event::Entered(seq, state)),
            Effect::ReadBody => self.read_body(),
            Effect::Send { attempt, hedge, read_body, .. } => {
                self.request.as_ref().and_then(|r| self.flights.send(r, attempt, hedge, read_body))
            }
            Effect::Abort { attempt, timed_out } => {
                self.flights.abort(attempt, timed_out);
                None
            }
            Effect::Get { seq, key } => self.stores.start(store, seq, Op::Get, key, "").map(stored),
            Effect::Set { seq, key, value } => self.stores.start(store, seq, Op::Set, key, &value).map(stored),
            Effect::Delete { seq, key } => self.stores.start(store, seq, Op::Delete, key, "").map(stored),
            Effect::Ask { seq, record, error } => self.ask(seq, *record, error),
            Effect::Query { attempt } => self.query.as_ref().and_then(|q| self.flights.query(q, attempt)),
            Effect::Report { from } => {
                self.report(from);
                None
            }
            Effect::Done(done) => {
                let (last, body_error) = (self.last.take().map(|(_, r)| r), self.body_error.take());
                self.settled = Some(settled(&self.call, done, last, self.signals.signals(), body_error));
                None
            }
        };
        self.events.extend(answer);
    }

    fn read_body(&mut self) -> Option<Event> {
        self.body = self.request.as_ref().and_then(RequestTemplate::read_body);
        // Without a body, read at once.
        self.body.is_none().then_some(Event::BodyRead(true))
    }

    /// Puts the retry to the predicate, with the response of the attempt it follows.
    fn ask(&mut self, seq: u32, record: AttemptRecord, error: Option<String>) -> Option<Event> {
        // Never asked without one: the machine knows whether the call has a predicate.
        let Some(predicate) = self.should_retry.as_ref() else { return Some(Event::Answered(seq, Ok(true))) };
        let received = self.last.as_ref().filter(|(attempt, _)| *attempt == record.attempt).map(|(_, r)| r);
        self.asking = Some(Asking::new(predicate, seq, record, error, received));
        None
    }

    /// Hands the records from `from` on to the client's observer.
    fn report(&self, from: usize) {
        let Some(observer) = self.exec.observer.as_ref() else { return };
        for record in self.call.records().get(from..).unwrap_or_default() {
            observer(record);
        }
    }

    /// The one timer, where the machine wants it (an unchanged instant keeps its timer).
    fn arm(&mut self) {
        let at = self.call.poll_timeout();
        if self.alarm.as_ref().map(Alarm::instant) == at {
            return;
        }
        self.alarm = at.map(Alarm::at);
        // A platform whose timers throw cannot bound a wait: the call is ended as aborted.
        if self.alarm.as_ref().is_some_and(|alarm| !alarm.is_set()) && !self.unbounded {
            self.unbounded = true;
            self.events.push_back(Event::Abort);
        }
    }

    /// What came of everything the call waits on, queued as events.
    fn gather(&mut self, cx: &mut Context<'_>) {
        if self.listening.as_mut().is_some_and(|l| l.poll_aborted(cx).is_ready()) {
            self.listening = None;
            self.events.push_back(Event::Abort);
        }
        if self.alarm.as_mut().is_some_and(|alarm| alarm.poll_due(cx).is_ready()) {
            self.alarm = None;
            self.events.push_back(Event::Timer);
        }
        if self.heard.as_ref().is_some_and(|heard| heard.poll_news(cx)) {
            self.events.push_back(Event::News);
        }
        if let (Some(body), Some(request)) = (self.body.as_mut(), self.request.as_mut()) {
            if let Poll::Ready(read) = body.poll_read(cx, request) {
                self.body = None;
                self.body_error = read.err();
                self.events.push_back(Event::BodyRead(self.body_error.is_none()));
            }
        }
        self.stores.poll(cx, |seq, answer| self.events.push_back(Event::Stored(seq, answer)));
        if let Some(Poll::Ready(answer)) = self.asking.as_mut().map(|asking| asking.poll_answer(cx)) {
            self.asking = None;
            self.events.push_back(answer);
        }
        self.locks.poll(cx, |seq, state| self.events.push_back(Event::Entered(seq, state)));
        self.flights.poll(cx, self.header.as_deref(), &self.waits, &mut self.last, &mut self.events);
    }

    /// Lets go of everything the call holds: its timer, listeners and waits, its requests still
    /// out (a response handed on keeps its body), a lock that may yet be granted.
    fn end(&mut self) {
        (self.alarm, self.listening, self.heard, self.body, self.asking) = (None, None, None, None, None);
        self.stores.clear();
        self.flights.abandon();
        self.locks.abandon();
    }
}

fn stored((seq, answer): (u32, Stored)) -> Event {
    Event::Stored(seq, answer)
}

impl Drop for Run {
    fn drop(&mut self) {
        self.end();
    }
}
