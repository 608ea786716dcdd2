//! The requests on the wire: each sent with its timeout, ended by its answer or by that timeout,
//! hedged when late, and the losers of a hedged race aborted once one answer wins.

use super::{Call, Ctx, Effect, Flight, Head, Stage};
use crate::classify::Observed;
use crate::machine::{Action, Outcome};
use crate::reason::Reason;
use crate::record::Pending;

impl Call {
    /// Sends attempt `attempt` now, unless the time ran out while it waited for the store.
    pub(super) fn send(&mut self, attempt: u32, timeout_ms: u64, ctx: &mut Ctx) {
        let deadline = self.op.deadline_at();
        if ctx.now >= deadline {
            // A slow store ate the time: the attempt never leaves.
            let pending = self.owns_key.then_some(Pending::StoreSet);
            return self.interrupt(Reason::Deadline, pending, None, ctx);
        }
        self.launch(attempt, timeout_ms, false, ctx);
        let due = self.flights.last().map_or(ctx.now, |f| f.due);
        self.board_flight(due, ctx);
        self.hedge_at = self.hedge_delay(ctx);
        self.stage = Stage::Flying;
    }

    /// One request out, due at its timeout (cut to the deadline).
    fn launch(&mut self, attempt: u32, timeout_ms: u64, hedge: bool, ctx: &Ctx) {
        let limit = timeout_ms.min(self.op.deadline_at().saturating_sub(ctx.now));
        self.flights.push(Flight { attempt, due: ctx.now.saturating_add(limit), headed: false });
        let effect = match self.purpose() {
            super::Purpose::Fetch => {
                Effect::Send { attempt, timeout_ms: limit, hedge, read_body: self.settings.read_body }
            }
            _ => Effect::Query { attempt },
        };
        self.effects.push(effect);
    }

    pub(super) fn headed(&mut self, attempt: u32) {
        if let Some(flight) = self.flights.iter_mut().find(|f| f.attempt == attempt) {
            flight.headed = true;
        }
    }

    pub(super) fn response(&mut self, attempt: u32, head: Head, ctx: &mut Ctx) {
        if !self.flying(attempt) {
            return;
        }
        if let Some(used) = head.used {
            ctx.budget.observe_used_weight(self.op.scope(), used, ctx.now);
        }
        let outcome = self.outcome_of(&head);
        if let Some(why) = &outcome.error {
            self.cause = Some(why.clone());
        }
        self.conclude(attempt, outcome, ctx);
    }

    pub(super) fn failed(&mut self, attempt: u32, observed: Observed, words: Option<String>, ctx: &mut Ctx) {
        if !self.flying(attempt) {
            return;
        }
        let mut outcome = Outcome::failure(observed);
        outcome.error = words.map(|w| self.settings.secrets.redact(&w, false));
        if outcome.error.is_some() {
            self.cause.clone_from(&outcome.error);
        }
        self.conclude(attempt, outcome, ctx);
    }

    /// Whether request `attempt` is on the wire (a late answer of an aborted one is not).
    fn flying(&self, attempt: u32) -> bool {
        matches!(self.stage, Stage::Flying) && self.flights.iter().any(|f| f.attempt == attempt)
    }

    /// Request `attempt` ended with `outcome`: the operation's verdict, and what follows it.
    fn conclude(&mut self, attempt: u32, outcome: Outcome, ctx: &mut Ctx) {
        self.flights.retain(|f| f.attempt != attempt);
        let decided = self.op.on_flight_outcome(ctx.now, ctx.wall, attempt, &outcome, ctx.draws, ctx.budget);
        let Some(action) = decided else {
            // A retryable failure while another request of the race still flies: its answer decides.
            return;
        };
        // The race is over: the requests still out are aborted, their answers dropped.
        for flight in std::mem::take(&mut self.flights) {
            self.effects.push(Effect::Abort { attempt: flight.attempt, timed_out: false });
        }
        self.hedge_at = None;
        let asks = !matches!(action, Action::Stop(_));
        self.act(action, asks, ctx);
    }

    /// The shell's timer: requests past their timeout end as timeouts; a late read is hedged.
    pub(super) fn flights_due(&mut self, ctx: &mut Ctx) {
        while let Some(flight) = self.flights.iter().find(|f| f.due <= ctx.now).copied() {
            self.effects.push(Effect::Abort { attempt: flight.attempt, timed_out: true });
            let mut outcome = Outcome::failure(Observed::Timeout);
            outcome.pending = Some(self.pending_of(flight));
            self.conclude(flight.attempt, outcome, ctx);
            if !matches!(self.stage, Stage::Flying) {
                return;
            }
        }
        if crate::hedging::HEDGES && self.hedge_at.is_some_and(|at| ctx.now >= at) {
            self.hedge(ctx);
        }
    }

    /// The hedge's delay ran out with no answer: the operation admits a hedge, or refuses it.
    fn hedge(&mut self, ctx: &mut Ctx) {
        if let Some(Action::Send { attempt, timeout_ms }) = self.op.hedge(ctx.now, ctx.budget) {
            self.launch(attempt, timeout_ms, true, ctx);
        }
        self.hedge_at = self.hedge_delay(ctx);
    }

    /// When the request in flight is hedged, if it is (a build without hedges never hedges).
    fn hedge_delay(&self, ctx: &mut Ctx) -> Option<u64> {
        if !crate::hedging::HEDGES {
            return None;
        }
        self.op.hedge_delay(ctx.budget).map(|ms| ctx.now.saturating_add(ms))
    }

    /// The caller aborted while requests were on the wire: each is aborted, the race's first
    /// ending the operation as aborted (an order already sent is then unresolved).
    pub(super) fn flights_aborted(&mut self, ctx: &mut Ctx) {
        let Some(first) = self.op.in_flight().and_then(|a| self.flights.iter().find(|f| f.attempt == a)).copied()
        else {
            return;
        };
        for flight in &self.flights {
            self.effects.push(Effect::Abort { attempt: flight.attempt, timed_out: false });
        }
        let mut outcome = Outcome::failure(Observed::Aborted);
        outcome.pending = Some(self.pending_of(first));
        self.flights.retain(|f| f.attempt == first.attempt);
        self.conclude(first.attempt, outcome, ctx);
    }

    /// What a request had not delivered when it was cut.
    fn pending_of(&self, flight: Flight) -> Pending {
        match (self.purpose(), flight.headed) {
            (super::Purpose::Fetch, false) => Pending::Response,
            (super::Purpose::Fetch, true) => Pending::Body,
            _ => Pending::Query,
        }
    }
}
