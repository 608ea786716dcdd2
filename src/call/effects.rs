//! A call's vocabulary with its shell: what the call is for and what it is given, the effects it
//! hands out, the events it takes back, and the context of each step.

use crate::budget::shared::SharedState;
use crate::budget::sharing::Share;
use crate::budget::Budget;
use crate::classify::Observed;
use crate::draw::Draws;
use crate::input::Loose;
use crate::reconcile::Evidence;
use crate::record::AttemptRecord;
use crate::redact::Secrets;

/// What the call is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// `client.fetch`: a request and its retries.
    Fetch,
    /// `client.reconcile`: status queries that settle an unknown outcome.
    Reconcile,
    /// `client.resolve`: an unknown outcome closed by hand with this evidence.
    Resolve(Evidence),
}

/// What a call needs beyond its operation, fixed when it begins.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Who runs it, in the leases it writes (keyed calls).
    pub owner: String,
    /// Each response's body is read inside its attempt's timeout.
    pub read_body: bool,
    /// The caller's request has a body: it is read once, before the first attempt.
    pub has_body: bool,
    /// The caller gave `policy.shouldRetry`: each retry an outcome proposes is put to it.
    pub asks: bool,
    /// Someone reads records as they are made: [`Effect::Report`]s are handed out.
    pub observed: bool,
    /// How the platform's words are redacted.
    pub secrets: Secrets,
    /// `staleIfErrorMs`: a read that fails may serve its last good response up to this old, ms
    /// (0: never); a read that succeeds is kept for that ([`Effect::Keep`]).
    pub stale_ms: u64,
    /// `coalesce`: a read of the same request may join this one while it runs.
    pub coalesce: bool,
    /// Its requests go through the platform's own `fetch`: the request's identity says all that
    /// is sent, so another client's read of it (or another tab's) may join it.
    pub platform_fetch: bool,
    /// The shell carries a read's answer to other realms of a shared budget (the JavaScript one).
    pub carries: bool,
}

/// What the shell does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// A step on the shared budget (see [`Share`]).
    Share(Share),
    /// Read the caller's request body once; answer `BodyRead`.
    ReadBody,
    /// Send request `attempt` (a hedge beside the one in flight, or not); answer `Response` or
    /// `Failed` (and `Headed` first when `read_body`: its body is read before `Response`).
    Send {
        /// Its number: 1 for the initial request.
        attempt: u32,
        /// Its time, ms: the machine's timer ends it (this is for a `fetch` that wants a number).
        timeout_ms: u64,
        /// A hedge: a second request of a late read (in a browser, past the HTTP cache).
        hedge: bool,
        /// Read its body inside the attempt.
        read_body: bool,
    },
    /// Abort request `attempt` (the caller's abort, a lost race, or its timeout: `timed_out`).
    Abort {
        /// The request to abort.
        attempt: u32,
        /// Its own timeout ended it (the abort's reason is then a `TimeoutError`).
        timed_out: bool,
    },
    /// Read the key from the store; answer `Stored(seq, …)`.
    Get {
        /// Names the answer.
        seq: u32,
        /// The key.
        key: String,
    },
    /// Write `value` (JSON) under the key; answer `Stored(seq, …)`.
    Set {
        /// Names the answer.
        seq: u32,
        /// The key.
        key: String,
        /// What to store.
        value: String,
    },
    /// Delete the key; answer `Stored(seq, …)`.
    Delete {
        /// Names the answer.
        seq: u32,
        /// The key.
        key: String,
    },
    /// Put the retry just admitted to the caller's `shouldRetry`; answer `Answered(seq, …)`.
    Ask {
        /// Names the answer.
        seq: u32,
        /// The attempt it follows, as its record describes it.
        record: Box<AttemptRecord>,
        /// What went wrong with that attempt, for the predicate's `error`.
        error: Option<String>,
    },
    /// Run the caller's status query for attempt `attempt`; answer `QueryAnswer`.
    Query {
        /// The query's number.
        attempt: u32,
    },
    /// Hand the records from index `from` on to the observers.
    Report {
        /// The first record not reported yet.
        from: usize,
    },
    /// Keep a copy of the response this call resolves with (after `Done::Success`) under `key`:
    /// a later failed read of the same request may serve it, marked stale.
    Keep {
        /// The request's identity ([`super::request_key`]: scope, method, URL, headers).
        key: u64,
    },
    /// A failed read looks for the response kept under `key`; answer [`Event::StaleKept`] with
    /// when it was kept, or nothing.
    LookStale {
        /// Names the answer.
        seq: u32,
        /// The request's identity.
        key: u64,
    },
    /// A slot of a scope's `maxInFlight` freed while others waited for room: tell every machine of
    /// the budget ([`Event::News`]); each looks again, and the budget lets through whom it ranks first.
    Wake,
    /// A caller of a coalesced read leaves before its outcome: reject it with this `RetryError`
    /// (`json`: `{ reason, message, records }`); the others wait on.
    Release {
        /// Who (0: the caller who began it).
        caller: u32,
        /// What its `RetryError` carries.
        json: String,
    },
    /// The same read is on the wire in another realm: listen for its answer under `key`, and
    /// feed [`Event::Carried`].
    Await {
        /// The request's identity.
        key: u64,
    },
    /// Carry this call's outcome to the realms awaiting the same read under `key`: a success's
    /// response (`ok`: the one `Done` resolves with), or that it failed.
    Carry {
        /// The request's identity.
        key: u64,
        /// It succeeded.
        ok: bool,
    },
    /// A retry stands and is slept for, or sent at once: the attempt as planned (window, draw,
    /// provider minimum, planned wait, time left) and why the attempt before it failed. Handed
    /// out once per retry, to observers (`onRetry`, telemetry's sleep events).
    Retrying {
        /// The planned attempt's record (its decision still open).
        record: Box<AttemptRecord>,
        /// What the attempt before it meant: "retryable", "throttled", …
        after: Option<&'static str>,
    },
    /// The call is over.
    Done(Done),
}

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// Resolve with the response of request `attempt`.
    Success {
        /// The request whose response is the caller's.
        attempt: u32,
    },
    /// Reject with a `RetryError` ([`super::Call::outcome_json`]).
    Failed,
    /// Reject with what reading the request body threw.
    BodyThrew,
    /// Reject with a `TypeError` ([`super::Call::outcome_json`]'s message): the key is still running.
    Running,
    /// Resolve with the reconciliation's result ([`super::Call::outcome_json`]).
    Reconciled,
    /// Resolve with the kept response, marked stale: it is `age_ms` old, and why the fresh read
    /// failed is in [`super::Call::outcome_json`] (its records end with the `stale` record).
    Stale {
        /// The kept response's age, ms.
        age_ms: u64,
    },
    /// Resolve with the response another realm's same read received and the shell was carried.
    Carried,
}

/// What the shell saw of a request that came back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Head {
    /// The status, as the platform gave it (checked here).
    pub status: f64,
    /// The raw `Retry-After`.
    pub retry_after: Option<String>,
    /// A cross-origin response hid `Retry-After`.
    pub hidden: bool,
    /// The raw `Date`.
    pub date: Option<String>,
    /// A reset header (its index in [`crate::retry_after::RESET_HEADERS`]) and its raw value.
    pub reset: Option<(usize, String)>,
    /// The provider's count of weight used, from the budget's used-weight header.
    pub used: Option<u64>,
}

/// What happened, fed to [`super::Call::handle`].
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The call may begin (the caller's task has ended).
    Go,
    /// The shell holds the shared budget of bracket `seq` (tabs: its stored state, if read).
    Entered(u32, Option<SharedState>),
    /// The request body was read (`true`), or reading it threw (`false`: the shell keeps what).
    BodyRead(bool),
    /// Request `attempt`'s response head came; its body is being read.
    Headed(u32),
    /// Request `attempt` came back with a response.
    Response(u32, Head),
    /// Request `attempt` failed without a response (`observed`: a network error, mostly), with
    /// what the platform said.
    Failed(u32, Observed, Option<String>),
    /// The store answered request `seq`.
    Stored(u32, Stored),
    /// The caller's `shouldRetry` answered `seq`: go on (`true`), or not; or it threw (`Err`).
    Answered(u32, Result<bool, String>),
    /// The status query `attempt` found this, or failed so.
    QueryAnswer(u32, Result<Evidence, String>),
    /// The shell's timer fired.
    Timer,
    /// The caller aborted.
    Abort,
    /// Another realm published a hold or ban on the shared budget: a sleeper looks again.
    News,
    /// The answer to `LookStale` `seq`: when the kept response was kept (wall-clock Unix ms), if
    /// one is.
    StaleKept(u32, Option<u64>),
    /// A joined caller (its number) aborted.
    Leave(u32),
    /// The read awaited in another realm answered (`true`: a success, carried here) or failed.
    Carried(bool),
}

/// The clocks and the shared parts a step reads.
pub struct Ctx<'a> {
    /// Monotonic ms.
    pub now: u64,
    /// Wall-clock Unix ms.
    pub wall: u64,
    /// The client's draws.
    pub draws: &'a mut Draws,
    /// The budget the call spends.
    pub budget: &'a mut Budget,
}

/// What a store call came to.
#[derive(Clone, Debug, PartialEq)]
pub enum Stored {
    /// What the store holds (`Absent`: nothing; what a write or delete answers does not matter).
    Value(Loose),
    /// What it holds could not be read (a getter that threw): why.
    Unreadable(String),
    /// The store failed: what it said.
    Failed(String),
}
