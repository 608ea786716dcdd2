//! `RetryClient`: drives the core's [`Operation`] with real requests and timers.
//!
//! A call is prepared synchronously when `fetch()` is called — options read, request
//! built, deadline fixed — so that its deadline counts from the call, not from whenever
//! the event loop first gets to it. Every wait after that (store, lease, request body,
//! fetch, response body) races the deadline; every stop settles the promise.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::abort::AbortWatch;
use super::budget::{Held, Share};
use super::clock;
use super::error::{cause, retry_error, Failure};
use super::fetch::{self, Fetcher};
use super::guard;
use super::keyed::{Claimed, Keyed};
use super::options::{CallOptions, ClientOptions};
use super::race::{Cut, Ended, Race};
use super::request::{RequestTemplate, Unread};
use super::response::Received;
use super::secrets::Secrets;
use super::spawn::promise;
use super::store::{pending_name, still_pending, Fault, Store};
use super::text;
use super::timer;
use super::to_js;
use super::value::loose;
use crate::budget::shared::SharedState;
use crate::budget::{Budget, Priority};
use crate::classify::OperationKind;
use crate::draw::Draws;
use crate::durable::Refusal;
use crate::gate;
use crate::json::FromLoose;
use crate::machine::{Action, Operation, Start};
use crate::reason::{Reason, Stop};
use crate::record::{AttemptRecord, Pending};

/// Wraps `fetch` with a retry policy: the JavaScript face of [`super::Client`], whose shell it
/// runs after reading its JavaScript options into the same Rust types.
#[wasm_bindgen(js_name = RetryClient)]
pub struct RetryClient {
    pub(super) client: super::typed::Client,
}

pub(super) struct Client {
    pub policy: crate::policy::Policy,
    pub budget: Rc<RefCell<Budget>>,
    /// How the budget is shared beyond this realm, if it is: each budget step then takes part.
    pub share: Option<Share>,
    /// Across tabs: the hold and ban ends of the scope of the step in progress, as it began.
    pub published: Cell<(u64, u64)>,
    pub draws: RefCell<Draws>,
    pub fetcher: Fetcher,
    pub on_attempt: Option<JsValue>,
    /// The Rust API's observer of every record (before `on_attempt`).
    pub observer: Option<Observer>,
    pub on_escalation: Option<JsValue>,
    pub store: Store,
    pub secrets: Secrets,
    /// Names this client in the leases it writes.
    pub owner: String,
    /// The default of `readBody` for its calls.
    pub read_body: bool,
}

#[wasm_bindgen(js_class = RetryClient)]
impl RetryClient {
    /// Validates every option; throws a `TypeError`/`RangeError` naming the field.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<RetryClient, JsValue> {
        let options = ClientOptions::parse(&options)?;
        let seed = options.seed.unwrap_or_else(entropy);
        let held =
            options.budget.unwrap_or_else(|| Held { budget: Rc::new(RefCell::new(Budget::default())), share: None });
        let client = Client {
            policy: options.policy,
            budget: held.budget,
            share: held.share,
            published: Cell::new((0, 0)),
            draws: RefCell::new(Draws::scripted(options.draws, seed)),
            fetcher: options.fetcher,
            on_attempt: options.on_attempt,
            observer: None,
            on_escalation: options.on_escalation,
            store: options.store.unwrap_or_else(Store::memory),
            secrets: options.secrets,
            owner: text::hex16(entropy()),
            read_body: options.read_body,
        };
        Ok(RetryClient { client: super::typed::Client { shell: Rc::new(client) } })
    }

    /// Like `fetch(input, init)`, with retries; resolves with the successful `Response`
    /// or rejects with a `RetryError`.
    pub fn fetch(&self, input: JsValue, init: JsValue, options: JsValue) -> Promise {
        let (now, wall) = (clock::now(), clock::wall_now());
        match self.client.shell.prepare(now, wall, &input, &init, &options) {
            Ok(call) => {
                let core = self.client.shell.clone();
                promise(async move { core.run(call).await.map_err(Failed::into_js) })
            }
            Err(error) => Promise::reject(&error),
        }
    }
}

/// A seed from `crypto.getRandomValues`, or from the clocks where there is none.
pub(super) fn entropy() -> u64 {
    match guard::random() {
        Some(bits) => bits,
        None => clock::wall_now() ^ clock::now().rotate_left(32),
    }
}

/// `scheme://host[:port]` of a URL, the default scope.
fn origin(url: &str) -> String {
    // A Request's URL is serialized and has no user-info: for http(s) the origin is its
    // scheme and authority, read here without making a URL object per call.
    for scheme in ["https://", "http://"] {
        if let Some(rest) = url.strip_prefix(scheme) {
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            return text::join(&[scheme, rest.get(..end).unwrap_or(rest)]);
        }
    }
    web_sys::Url::new(url).map(|u| u.origin()).unwrap_or_else(|_| url.to_owned())
}

/// Added to a sleep that honours a provider's minimum. Our readings are whole milliseconds
/// rounded up, and timers may fire up to a clock step early (workerd schedules them from its
/// own millisecond clock; Node's can fire a millisecond early): the provider's wait, measured
/// at its server, must not come out shorter.
const PROVIDER_SLACK_MS: u64 = 2;

/// One call of `client.fetch`, from its preparation to its settling.
pub(super) struct Call {
    op: Operation,
    template: RequestTemplate,
    abort: AbortWatch,
    key: Option<String>,
    scope: String,
    /// The body is read inside the attempt timeout and the response rebuilt (`readBody`).
    read_body: bool,
    /// The store holds (or will hold) this call's state under its key: finish it.
    owns_key: bool,
    resumed: bool,
    reported: usize,
    last_response: Option<Received>,
    /// What the platform or the store threw last, as a redacted copy.
    last_cause: Option<JsValue>,
    /// What the message adds: a store failure, or what was still pending when the call was cut.
    note: Option<String>,
    /// The call's own `onAttempt`.
    on_attempt: Option<JsValue>,
}

/// The Rust API's observer of attempt records.
pub(super) type Observer = Rc<dyn Fn(&AttemptRecord)>;

/// How a call ended without its response.
pub(super) enum Failed {
    /// The operation stopped: why, and what it saw.
    Stopped(Box<Failure>),
    /// What JavaScript threw, handed on as it is (a request body that could not be read).
    Thrown(JsValue),
}

impl Failed {
    /// As JavaScript sees it: a `RetryError`, or what was thrown.
    pub(super) fn into_js(self) -> JsValue {
        match self {
            Failed::Stopped(failure) => retry_error(&failure),
            Failed::Thrown(error) => error,
        }
    }
}

/// How a call settles when the shell gives up on a pending step.
struct Interrupted {
    reason: Reason,
    pending: Pending,
    /// What the store said, for the record and the `cause`.
    detail: Option<String>,
}

impl From<Fault> for Interrupted {
    fn from(fault: Fault) -> Self {
        match fault {
            Fault::Failed { pending, detail } => Interrupted { reason: Reason::Store, pending, detail: Some(detail) },
            Fault::Cut { pending, cut } => Interrupted { reason: cut_reason(cut), pending, detail: None },
        }
    }
}

fn cut_reason(cut: Cut) -> Reason {
    match cut {
        Cut::Aborted => Reason::Aborted,
        Cut::Timeout | Cut::Deadline => Reason::Deadline,
    }
}

impl Client {
    /// Everything a call needs, read synchronously; the deadline is fixed at `now`.
    fn prepare(
        &self,
        now: u64,
        wall: u64,
        input: &JsValue,
        init: &JsValue,
        options: &JsValue,
    ) -> Result<Box<Call>, JsValue> {
        let call = CallOptions::parse(options, &self.policy)?;
        self.prepare_call(now, wall, input, init, call)
    }

    /// A call from options already read (by the JavaScript or the Rust API).
    pub(super) fn prepare_call(
        &self,
        now: u64,
        wall: u64,
        input: &JsValue,
        init: &JsValue,
        call: CallOptions,
    ) -> Result<Box<Call>, JsValue> {
        let template = RequestTemplate::new(input, init, matches!(self.fetcher, Fetcher::Global))?;
        // The request's signal can abort only if it follows one of the caller's: listening to
        // a signal that never aborts would cost a listener on every wait.
        let given = |v: &JsValue| !v.is_undefined() && !v.is_null();
        let init_signal = given(init) && guard::get(init, "signal").is_ok_and(|s| given(&s));
        let mut signals: Vec<AbortSignal> = Vec::new();
        if init_signal || (input.is_object() && input.is_instance_of::<web_sys::Request>()) {
            signals.extend(template.signal());
        }
        signals.extend(call.signal.clone());
        let kind = call.operation.unwrap_or_else(|| OperationKind::from_method(&template.method));
        let scope = call.scope.clone().unwrap_or_else(|| origin(&template.url));
        let start = Start {
            policy: call.policy,
            kind,
            priority: call.priority.unwrap_or(Priority::for_kind(kind)),
            scope: scope.clone(),
            weight: call.weight,
            key: call.key.clone(),
            method: Some(template.method.clone()),
            // `begin` applies the built-in redaction; the caller's own names only when there are some.
            url: Some(if self.secrets.is_empty() { template.url.clone() } else { self.secrets.url(&template.url) }),
        };
        // Boxed: every future that holds the call then holds a pointer (the call inline made
        // each pending call's futures 2 KB).
        Ok(Box::new(Call {
            op: Operation::begin(start, now, wall),
            template,
            abort: AbortWatch::new(signals),
            key: call.key,
            scope,
            read_body: call.read_body.unwrap_or(self.read_body),
            owns_key: false,
            resumed: false,
            reported: 0,
            last_response: None,
            last_cause: None,
            note: None,
            on_attempt: call.on_attempt,
        }))
    }

    /// Each step's future is boxed while it runs, so that a pending call holds only its
    /// current step: 100 000 pending calls each kept every step's state inline before.
    pub(super) async fn run(&self, mut call: Box<Call>) -> Result<JsValue, Failed> {
        if call.key.is_some() {
            if let Err(settled) = Box::pin(self.claim(&mut call)).await {
                return settled;
            }
        }
        // Only a body is read before the first attempt: no race (and no timer) without one.
        let buffered = match call.template.has_body() {
            true => Box::pin(call.template.buffer(&self.bounds(&call))).await,
            false => Ok(()),
        };
        match buffered {
            Ok(()) => {}
            Err(Unread::Failed(error)) => return Err(Failed::Thrown(error)),
            Err(Unread::Cut(cut)) => {
                let why = Interrupted { reason: cut_reason(cut), pending: Pending::RequestBody, detail: None };
                let stop = self.interrupt(&mut call, why);
                return Box::pin(self.settle(call, stop)).await;
            }
        }
        self.enter_budget(&call.op).await;
        let mut action = {
            let (now, wall) = (clock::now(), clock::wall_now());
            let (mut draws, mut budget) = (self.draws.borrow_mut(), self.budget.borrow_mut());
            if call.resumed {
                call.op.resume(now, wall, &mut draws, &mut budget)
            } else {
                call.op.start(now, &mut draws, &mut budget)
            }
        };
        self.leave_budget(&call.op).await;
        loop {
            if let Action::Stop(stop) = action {
                // The last records are reported by `settle`, once the store has had its say.
                return Box::pin(self.settle(call, stop)).await;
            }
            self.report(&call.op, &mut call.reported, call.on_attempt.as_ref());
            // Saved before the request leaves and before each sleep, so a restart resumes from here.
            if let Some(stop) = Box::pin(self.save(&mut call)).await {
                action = Action::Stop(stop);
                continue;
            }
            action = match action {
                Action::Send { timeout_ms, .. } => Box::pin(self.attempt(&mut call, timeout_ms)).await,
                Action::Sleep { until } => Box::pin(self.sleep(&mut call.op, until, &call.abort)).await,
                stop @ Action::Stop(_) => stop,
            };
        }
    }

    /// The races of this call's store calls and body reads: its deadline and the caller's abort.
    fn bounds(&self, call: &Call) -> Race {
        let left = call.op.deadline_at().saturating_sub(clock::now());
        Race::new().cut_after(left, Cut::Deadline).cut_on_abort(&call.abort)
    }

    fn keyed<'a>(&'a self, key: &'a str) -> Keyed<'a> {
        Keyed { store: &self.store, key, owner: &self.owner }
    }

    /// Claims the call's key; `Err` is how the call settles when it may not run.
    async fn claim(&self, call: &mut Call) -> Result<(), Result<JsValue, Failed>> {
        let key = call.key.clone().unwrap_or_default();
        let latest_start = call.op.deadline_at().saturating_sub(call.op.policy().admission_ms());
        let latest_start_wall = clock::wall_now().saturating_add(latest_start.saturating_sub(clock::now()));
        let claimed = self.keyed(&key).claim(&self.bounds(call), latest_start_wall).await;
        match claimed {
            Ok(Claimed::Fresh) => call.owns_key = true,
            Ok(Claimed::Resume(state)) => {
                let deadline = call.op.deadline_at();
                let (now, wall) = (clock::now(), clock::wall_now());
                match Operation::restore(*state, now, wall, &mut self.budget.borrow_mut()) {
                    Ok(mut op) => {
                        op.limit_deadline(deadline);
                        // Its earlier records were reported by the process that made them.
                        call.reported = op.records().len();
                        call.op = op;
                        call.resumed = true;
                        call.owns_key = true;
                    }
                    Err(e) => {
                        let detail =
                            text::join(&["the stored state of key \"", &key, "\" cannot be resumed: ", &e.message()]);
                        let why =
                            Interrupted { reason: Reason::Store, pending: Pending::StoreGet, detail: Some(detail) };
                        let stop = self.interrupt(call, why);
                        return Err(self.settle_now(call, stop));
                    }
                }
            }
            Ok(Claimed::Refused(refusal, records)) => {
                return Err(Err(Failed::Stopped(self.refused(&call.template, &key, refusal, &records))))
            }
            Err(fault) => {
                let stop = self.interrupt(call, fault.into());
                return Err(self.settle_now(call, stop));
            }
        }
        Ok(())
    }

    /// Saves a keyed operation before it sends or sleeps; `Some` if it must stop instead.
    async fn save(&self, call: &mut Call) -> Option<Stop> {
        let key = call.key.clone()?;
        let saved = self.keyed(&key).save(&call.op, &self.budget, &self.bounds(call)).await;
        match saved {
            Ok(()) => None,
            Err(fault) => Some(self.interrupt(call, fault.into())),
        }
    }

    /// Stops the operation at a step it could not take; the record says why.
    fn interrupt(&self, call: &mut Call, why: Interrupted) -> Stop {
        let now = clock::now();
        let stop = call.op.cancel(now, why.reason, Some(why.pending), &mut self.budget.borrow_mut());
        match why.detail {
            Some(detail) => {
                let detail = self.secrets.text(&detail);
                call.op.note_store_failure(detail.clone());
                call.last_cause = Some(cause("Error", &detail));
                call.note = Some(detail);
            }
            None if why.reason == Reason::Deadline => call.note = Some(still_pending(why.pending, Cut::Deadline)),
            None => {}
        }
        stop
    }

    /// One attempt on the wire, and the core's verdict on it.
    async fn attempt(&self, call: &mut Call, timeout_ms: u64) -> Action {
        let deadline = call.op.deadline_at();
        let now = clock::now();
        if now >= deadline {
            // A slow store ate the time: the attempt never leaves.
            let pending = call.key.as_ref().map(|_| Pending::StoreSet);
            return Action::Stop(call.op.cancel(now, Reason::Deadline, pending, &mut self.budget.borrow_mut()));
        }
        let limit = gate::attempt_timeout(now, timeout_ms, deadline);
        let header = self.budget.borrow().used_weight_header(&call.scope).map(str::to_owned);
        let mut attempt =
            fetch::send(&self.fetcher, &call.template, limit, &call.abort, header.as_deref(), call.read_body).await;
        if self.share.is_none() {
            return self.attempted(call, &mut attempt);
        }
        // Boxed: the lock's wait and the attempt it holds stay out of every unshared call's future.
        Box::pin(async move {
            self.enter_budget(&call.op).await;
            let action = self.attempted(call, &mut attempt);
            self.leave_budget(&call.op).await;
            action
        })
        .await
    }

    /// The core's verdict on an attempt that came back (under the budget's lock when shared).
    fn attempted(&self, call: &mut Call, attempt: &mut fetch::Attempt) -> Action {
        let (now, wall) = (clock::now(), clock::wall_now());
        if !attempt.transmitted {
            return Action::Stop(call.op.cancel(now, Reason::Aborted, None, &mut self.budget.borrow_mut()));
        }
        if let Some(error) = attempt.outcome.error.take() {
            let error = self.secrets.text(&error);
            call.last_cause = Some(cause("Error", &error));
            attempt.outcome.error = Some(error);
        }
        if let Some(response) = attempt.response.take() {
            if let Some(earlier) = call.last_response.replace(response) {
                // A fetch that hands back one object for every attempt keeps its body.
                if !call.last_response.as_ref().is_some_and(|latest| latest.is(&earlier)) {
                    earlier.discard();
                }
            }
        }
        let (mut draws, mut budget) = (self.draws.borrow_mut(), self.budget.borrow_mut());
        if let Some(used) = attempt.used_weight {
            budget.observe_used_weight(&call.scope, used, now);
        }
        call.op.on_outcome(now, wall, &attempt.outcome, &mut draws, &mut budget)
    }

    /// Sleeps until `until`, then lets the operation check its gate again; an abort stops it.
    pub(super) async fn sleep(&self, op: &mut Operation, until: u64, abort: &AbortWatch) -> Action {
        let slack = if op.sleeps_for_provider() { PROVIDER_SLACK_MS } else { 0 };
        let ms = until.saturating_sub(clock::now()) + slack;
        // Across tabs, a hold or ban another tab publishes wakes the sleeper early to look at it.
        let news = match &self.share {
            Some(Share::Tabs(name)) => guard::share_news(name).map(|news| (name, news)),
            _ => None,
        };
        let slept = match &news {
            Some((_, (promise, _))) => timer::sleep_or(ms, promise, abort).await,
            None => timer::sleep(ms, abort).await,
        };
        if let Some((name, (_, resolve))) = &news {
            guard::share_news_done(name, resolve);
        }
        self.enter_budget(op).await;
        let now = clock::now();
        let action = {
            let mut budget = self.budget.borrow_mut();
            if slept {
                op.on_wake(now, &mut budget)
            } else {
                Action::Stop(op.abort(now, &mut budget))
            }
        };
        self.leave_budget(op).await;
        action
    }

    /// Takes up the budget's shared state before a budget step of `op` (docs/shared-budgets.md); a
    /// budget of this realm alone needs nothing. Across tabs: holds its lock until
    /// [`Client::leave_budget`], waiting no later than the deadline — a tab that never lets go (or a
    /// hung IndexedDB) must not hold the call past it; the step then runs on this realm's view.
    /// Across isolates: a lease and fresh news of holds and bans from the coordinator.
    pub(super) async fn enter_budget(&self, op: &Operation) {
        let name = match &self.share {
            None => return,
            // Boxed: an unshared call's steps stay as small as they were.
            Some(Share::Coordinator(coordinator)) => return Box::pin(coordinator.enter(&self.budget, op)).await,
            Some(Share::Tabs(name)) => name,
        };
        let left = op.deadline_at().saturating_sub(clock::now());
        if left == 0 {
            return;
        }
        let entered = guard::share_enter(name, left);
        let Ended::Settled(Ok(text)) = Race::new().wait_call(entered).await else { return };
        let text = text.as_string().unwrap_or_default();
        let state = guard::parse_json(&text).ok().and_then(|v| loose(&v, "state").ok());
        if let Some(state) = state.and_then(|s| SharedState::from_loose(&s).ok()) {
            self.budget.borrow_mut().import(&state, clock::now(), clock::wall_now());
        }
        self.published.set(self.waits(op));
    }

    /// The wall-clock ends of the hold and ban on `op`'s scope (0: none).
    fn waits(&self, op: &Operation) -> (u64, u64) {
        let now = clock::now();
        self.budget.borrow().waits_wall(op.ask(now).scope, now, clock::wall_now())
    }

    /// Hands the state on after a budget step of `op`: across tabs, stores it and releases the lock;
    /// across isolates, a hold or ban the step set goes to the coordinator.
    pub(super) async fn leave_budget(&self, op: &Operation) {
        match &self.share {
            None => {}
            Some(Share::Coordinator(coordinator)) => Box::pin(coordinator.leave(&self.budget, op)).await,
            Some(Share::Tabs(name)) => {
                let text = crate::json::to_json(&self.budget.borrow().export(clock::now(), clock::wall_now()));
                // Wall ends drift by a ms between clocks: only a later end is news for the sleepers.
                let ((hold, ban), (known_hold, known_ban)) = (self.waits(op), self.published.get());
                let tell = hold > known_hold.saturating_add(5) || ban > known_ban.saturating_add(5);
                guard::share_leave(name, &text, tell);
            }
        }
    }

    /// The operation stopped: its state is finished in the store (within the deadline: a
    /// store that hangs is noted, not waited for), its records reported, its promise settled.
    async fn settle(&self, mut call: Box<Call>, stop: Stop) -> Result<JsValue, Failed> {
        if let (true, Some(key)) = (call.owns_key, call.key.clone()) {
            // Not cut by the caller's abort: an aborted order must still be kept unresolved.
            // Bounded like one attempt, and by the deadline: a hanging store delays no answer for long.
            let (to_deadline, timeout) =
                (call.op.deadline_at().saturating_sub(clock::now()), call.op.policy().attempt_timeout_ms());
            let race = match to_deadline <= timeout {
                true => Race::new().cut_after(to_deadline, Cut::Deadline),
                false => Race::new().cut_after(timeout, Cut::Timeout),
            };
            if let Err(fault) = self.keyed(&key).finish(&call.op, &self.budget, &race).await {
                let note = self.secrets.text(&fault.describe());
                call.op.note_store_failure(note.clone());
                if stop.reason != Reason::Success {
                    call.note = Some(text::join(&["its state was not saved: ", &note]));
                }
            }
        }
        self.settle_now(&mut call, stop)
    }

    /// Reports the last records and settles, without touching the store.
    fn settle_now(&self, call: &mut Call, stop: Stop) -> Result<JsValue, Failed> {
        self.report(&call.op, &mut call.reported, call.on_attempt.as_ref());
        let response = call.last_response.take();
        if stop.reason == Reason::Success {
            let signals = call.abort.signals();
            return Ok(response.map(|r| r.for_caller(signals)).unwrap_or(JsValue::UNDEFINED));
        }
        let response = response.map(|r| r.for_error(|url| self.secrets.url(url))).unwrap_or(JsValue::UNDEFINED);
        // An attempt cut by its timeout says what had not come.
        let cut_short = || {
            let pending = call.op.records().iter().rev().find(|r| r.is_sent())?.pending?;
            Some(text::join(&[pending_name(pending), " was still pending when the last attempt timed out"]))
        };
        let note = call.note.take().or_else(cut_short);
        Err(Failed::Stopped(Box::new(Failure {
            stop,
            method: call.template.method.clone(),
            url: call.op.url().unwrap_or_default().to_owned(),
            key: call.op.key().map(str::to_owned),
            response,
            records: call.op.records().to_vec(),
            detail: None,
            note,
            cause: call.last_cause.take(),
        })))
    }

    /// The failure for a key that may not run now; its records are the saved operation's.
    fn refused(
        &self,
        template: &RequestTemplate,
        key: &str,
        refusal: Refusal,
        records: &[AttemptRecord],
    ) -> Box<Failure> {
        let detail = match refusal {
            Refusal::Unresolved => text::join(&[
                "key \"",
                key,
                "\" has an order whose outcome is unknown; reconcile it (client.reconcile) or close it (client.resolve)",
            ]),
            Refusal::InUse => text::join(&["key \"", key, "\" is being run by another client sharing the store"]),
        };
        Box::new(Failure {
            stop: Stop { reason: Reason::UnknownOutcome, at_ms: 0 },
            method: template.method.clone(),
            url: self.secrets.url(&template.url),
            key: Some(key.to_owned()),
            response: JsValue::UNDEFINED,
            records: records.to_vec(),
            detail: Some(detail),
            note: None,
            cause: None,
        })
    }

    /// Hands each record made since the last call to the client's `onAttempt`, then to the call's.
    pub(super) fn report(&self, op: &Operation, reported: &mut usize, call_observer: Option<&JsValue>) {
        let records = op.records();
        let observers = [self.on_attempt.as_ref(), call_observer];
        for record in records.iter().skip(*reported) {
            if let Some(observer) = &self.observer {
                observer(record);
            }
            // Each observer gets its own copy: one cannot change what the other reads.
            for callback in observers.iter().flatten() {
                if let Ok(value) = to_js(record) {
                    // A throwing callback must not break the operation it observes.
                    if let Ok(returned) = guard::call(callback, &JsValue::UNDEFINED, &[&value]) {
                        ignore_rejection(&returned);
                    }
                }
            }
        }
        *reported = records.len();
    }
}

/// An async callback's rejection is the caller's to handle, not an unhandled rejection of ours.
pub(super) fn ignore_rejection(returned: &JsValue) {
    if returned.is_object() || returned.is_function() {
        super::race::swallow(returned);
    }
}
