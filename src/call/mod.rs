//! A call as a machine: everything between `client.fetch(…)` and its settling, decided here,
//! without I/O — the key's claim and saves, the request body's read, each attempt and its
//! timeout, hedges and which loser to abort, the caller's `shouldRetry`, sleeps, the shared
//! budget's brackets, the records reported, and how the call settles. Reconciliation and
//! `resolve` are calls too ([`Purpose`]).
//!
//! The shell performs the [`Effect`]s it hands out and feeds back [`Event`]s, as quinn's driver
//! does with quinn-proto's `Connection`:
//!
//! ```text
//! loop {
//!     call.handle(event, &mut ctx);            // what happened: a response, a store's answer, a timer…
//!     while let Some(effect) = call.poll() {}   // do each: send, abort, store, ask, report, done
//!     arm one timer at call.poll_timeout()      // and feed Event::Timer when it fires
//! }
//! ```
//!
//! Every wait has its bound here: an attempt's timeout, the deadline of a store call, of the
//! request body, of the predicate and of the shared budget's lock; a shell whose platform never
//! answers still gets `Done` by the deadline, from its one timer.
//!
//! One file per concern: `flights.rs` the requests on the wire and their hedges, `keyed.rs` the
//! store, `settle.rs` how a call stops and what its error says, `reconcile.rs` the status queries.

mod coalesce;
mod effects;
mod flights;
mod keyed;
mod reconcile;
mod settle;
mod spec;
mod stale;
mod steps;

pub use coalesce::{request_key, EVERY_CALLER};
pub use effects::{Ctx, Done, Effect, Event, Head, Purpose, Settings, Stored};
pub use settle::Stopped;
pub use spec::CallSpec;

use crate::budget::sharing::{Answered, Bracket, Share, Step};
use crate::durable::Refusal;
use crate::failure::Note;
use crate::machine::Operation;
use crate::record::AttemptRecord;

/// What a retry the outcome proposed does once it is admitted: send or sleep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    Send { attempt: u32, timeout_ms: u64 },
    Sleep,
}

/// What the call waits for besides its requests on the wire. Tested with `matches!`: a derived
/// `==` on it is a function of its own in the wasm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// `Go` has not come.
    Begun,
    /// The store's answer to the claim's `Get` (`waited`: one lease was waited out already).
    Claiming { seq: u32, waited: bool },
    /// Another owner's lease, until then.
    LeaseWait { until: u64 },
    /// The request body.
    Buffering,
    /// The save before `next`.
    Saving { seq: u32, next: Next },
    /// The caller's predicate, before `next`.
    Asking { seq: u32, next: Next },
    /// Requests on the wire.
    Flying,
    /// The planned sleep, until its timer (a provider's wait with its slack).
    Sleeping { wake_at: u64 },
    /// The key finished in the store after the stop, by `until` (`deadline`: the deadline's bound).
    Finishing { seq: u32, until: u64, deadline: bool },
    /// Reconciliation: the store's state before the queries.
    Looking { seq: u32 },
    /// Reconciliation: the store's state after them, then its update (`until`: the deadline).
    Keeping { seq: u32, update: bool },
    /// A failed read waits for the shell to say when its kept response was kept.
    Stale { seq: u32 },
    /// The same read on the wire in another realm: its answer, until its attempt must have ended.
    Awaiting { until: u64 },
    /// Settled.
    Done,
}

/// A request on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Flight {
    attempt: u32,
    /// When its timeout ends it (monotonic ms).
    due: u64,
    /// Its head came; its body is being read.
    headed: bool,
}

/// One call, from `client.fetch` to its settling.
pub struct Call {
    op: Operation,
    purpose: Purpose,
    settings: Settings,
    stage: Stage,
    flights: Vec<Flight>,
    hedge_at: Option<u64>,
    owns_key: bool,
    resumed: bool,
    bracket: Bracket<Event>,
    shares: Vec<Share>,
    /// Handed out front first. A `Vec`, not a `VecDeque`: a few at a time, and no slice-index
    /// panics (with their formatting code) in the wasm.
    effects: Vec<Effect>,
    /// What a step decided while its news is on its way to the coordinator.
    held: Vec<Effect>,
    reported: usize,
    note: Note,
    seq: u32,
    /// What went wrong last, for the error's `cause`.
    cause: Option<String>,
    /// The key was refused: why, and the saved operation's records.
    refused: Option<(Refusal, Vec<AttemptRecord>)>,
    /// When the call was made (monotonic, wall): a reconciliation begins again from it.
    called_at: (u64, u64),
    /// What reconciliation could not write back to the store.
    store_error: Option<String>,
    /// Reconciliation failed at the store: it rejects.
    store_failed: bool,
    /// The key is still running: what the `TypeError` says.
    running: Option<String>,
    /// Callers who joined it (coalescing).
    callers: coalesce::Callers,
    /// The last attempt announced by [`Effect::Retrying`].
    announced: u32,
}

impl Call {
    /// A call of `op` (begun at the call's instant), for `purpose`.
    pub fn new(op: Operation, purpose: Purpose, settings: Settings, now: u64, wall: u64) -> Call {
        Call {
            op,
            purpose,
            settings,
            stage: Stage::Begun,
            flights: Vec::new(),
            hedge_at: None,
            owns_key: false,
            resumed: false,
            bracket: Bracket::default(),
            shares: Vec::new(),
            effects: Vec::new(),
            held: Vec::new(),
            reported: 0,
            note: Note::None,
            seq: 0,
            cause: None,
            refused: None,
            called_at: (now, wall),
            store_error: None,
            store_failed: false,
            running: None,
            callers: coalesce::Callers::default(),
            announced: 1,
        }
    }

    /// The operation it runs.
    pub fn operation(&self) -> &Operation {
        &self.op
    }

    /// Every record so far.
    pub fn records(&self) -> &[AttemptRecord] {
        self.op.records()
    }

    /// What went wrong last (redacted), for the error's `cause`.
    pub fn cause(&self) -> Option<&str> {
        self.cause.as_deref()
    }

    /// What it is for: always a fetch in a build without reconciliation, whose code then goes.
    fn purpose(&self) -> Purpose {
        if cfg!(feature = "reconcile") {
            self.purpose
        } else {
            Purpose::Fetch
        }
    }

    /// Whether it has settled.
    pub fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done)
    }

    /// The next effect to perform.
    pub fn poll(&mut self) -> Option<Effect> {
        crate::sorted_map::remove_at(&mut self.effects, 0)
    }

    /// When the shell's one timer must fire next (monotonic ms), if the call waits on time.
    pub fn poll_timeout(&self) -> Option<u64> {
        if let Some(until) = self.bracket.waiting_until() {
            return Some(until);
        }
        let stage = self.stage_timeout();
        match self.joiner_due() {
            Some(due) => Some(stage.map_or(due, |at| at.min(due))),
            None => stage,
        }
    }

    /// When the stage the call is in must be looked at again.
    fn stage_timeout(&self) -> Option<u64> {
        let deadline = self.op.deadline_at();
        match self.stage {
            // The shell answers a look for a kept response at once.
            Stage::Begun | Stage::Done | Stage::Stale { .. } => None,
            Stage::LeaseWait { until } => Some(until.min(deadline)),
            Stage::Claiming { .. }
            | Stage::Buffering
            | Stage::Saving { .. }
            | Stage::Asking { .. }
            | Stage::Looking { .. }
            | Stage::Keeping { .. } => Some(deadline),
            Stage::Finishing { until, .. } => Some(until),
            Stage::Sleeping { wake_at } => Some(wake_at),
            Stage::Awaiting { until } => Some(until),
            Stage::Flying => {
                let due = self.flights.iter().map(|f| f.due).min();
                [due, self.hedge_at].into_iter().flatten().min()
            }
        }
    }

    /// Feeds what happened at `ctx.now`.
    pub fn handle(&mut self, event: Event, ctx: &mut Ctx) {
        match event {
            Event::Entered(seq, state) => {
                let scope = self.op.scope().to_owned();
                let answer =
                    self.bracket.entered(seq, state.as_ref(), ctx.budget, &scope, ctx.now, ctx.wall, &mut self.shares);
                self.answered_share(answer, ctx);
            }
            Event::Timer if self.bracket.waiting_until().is_some_and(|until| ctx.now >= until) => {
                let answer = self.bracket.give_up();
                self.answered_share(answer, ctx);
            }
            // A settled call hears nothing more: a late answer changes nothing.
            _ if matches!(self.stage, Stage::Done) => {}
            // Only a sleeper looks at news; a sleeper's look is a step.
            Event::News if !matches!(self.stage, Stage::Sleeping { .. }) => {}
            // A head changes no shared state; nor does a kept response.
            Event::Headed(attempt) => self.headed(attempt),
            Event::StaleKept(seq, kept) => self.stale_kept(seq, kept, ctx.now, ctx.wall),
            event => {
                if let Some(event) = self.caller_event(event, ctx.now) {
                    self.bracketed(event, ctx);
                }
            }
        }
        if self.bracket.is_leaving() {
            // What the step decided waits until its news reached the coordinator.
            self.held.append(&mut self.effects);
        }
        self.flush_shares();
        if ctx.budget.take_freed() {
            // First: after `Done` the shell holds nothing of the call to tell the others with.
            crate::sorted_map::insert_at(&mut self.effects, 0, Effect::Wake);
        }
    }

    /// Steps on `event` inside the shared budget's bracket (queued until the shell has it).
    fn bracketed(&mut self, event: Event, ctx: &mut Ctx) {
        let op = &self.op;
        let step = Step {
            ask: Some(op.ask(ctx.now)),
            scope: op.scope(),
            priority: op.ask(ctx.now).priority,
            deadline: op.deadline_at(),
        };
        let Some(event) = self.bracket.take(event, ctx.budget, &step, ctx.now, ctx.wall, &mut self.shares) else {
            return;
        };
        self.step(event, ctx);
        self.leave(ctx);
    }

    /// The shell answered a bracket (or its time ran out): the queued events step now, inside it;
    /// or, once the news of a step reached the coordinator, what the step decided is handed out.
    fn answered_share(&mut self, answer: Answered<Event>, ctx: &mut Ctx) {
        match answer {
            Answered::Entered(queued) if !queued.is_empty() => {
                for event in queued {
                    if !matches!(self.stage, Stage::Done) {
                        self.step(event, ctx);
                    }
                }
                self.leave(ctx);
            }
            Answered::Left(queued) => {
                self.effects.append(&mut self.held);
                for event in queued {
                    if !matches!(self.stage, Stage::Done) {
                        self.bracketed(event, ctx);
                    }
                }
            }
            Answered::Entered(_) | Answered::Late => {}
        }
    }

    fn leave(&mut self, ctx: &mut Ctx) {
        let op = &self.op;
        let step =
            Step { ask: None, scope: op.scope(), priority: op.ask(ctx.now).priority, deadline: op.deadline_at() };
        self.bracket.leave(ctx.budget, &step, ctx.now, ctx.wall, &mut self.shares);
    }

    /// Puts the bracket's effects ahead of what the steps handed out: the share is let go before a
    /// request leaves, and before `Done` (after which the shell holds nothing of the call).
    fn flush_shares(&mut self) {
        if self.shares.is_empty() {
            return;
        }
        let mut ahead: Vec<Effect> = std::mem::take(&mut self.shares).into_iter().map(Effect::Share).collect();
        ahead.append(&mut self.effects);
        self.effects = ahead;
    }

    /// One event, inside the bracket.
    fn step(&mut self, event: Event, ctx: &mut Ctx) {
        match event {
            Event::Go => self.go(ctx),
            Event::BodyRead(read) => self.body_read(read, ctx),
            Event::Response(attempt, head) => self.response(attempt, head, ctx),
            Event::Failed(attempt, observed, words) => self.failed(attempt, observed, words, ctx),
            Event::Stored(seq, answer) => self.stored(seq, answer, ctx),
            Event::Answered(seq, answer) => self.answered(seq, answer, ctx),
            Event::QueryAnswer(attempt, answer) => self.query_answer(attempt, answer, ctx),
            Event::Timer => self.timer(ctx),
            Event::Abort => self.abort(ctx),
            Event::News => self.news(ctx),
            Event::Carried(ok) => self.carried(ok, ctx),
            Event::Entered(..) | Event::Headed(_) | Event::StaleKept(..) | Event::Leave(_) => {}
        }
        self.report();
    }

    /// Hands the records made since the last report to the observers; the last ones wait until
    /// the store has had its say (a store failure then shows in the last record).
    fn report(&mut self) {
        if matches!(self.stage, Stage::Finishing { .. } | Stage::Keeping { .. }) {
            return;
        }
        let total = self.op.records().len();
        if total > self.reported {
            if self.settings.observed {
                self.effects.push(Effect::Report { from: self.reported });
            }
            self.reported = total;
        }
    }

    fn next_seq(&mut self) -> u32 {
        self.seq = self.seq.wrapping_add(1);
        self.seq
    }
}
