//! A hedged attempt in the Rust API ([`crate::machine`]'s hedge.rs decides): the request in
//! flight, and after the core's delay with no answer a second one; the first usable answer wins.
//! The requests still out when it does are dropped, and a dropped request aborts its own.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::Poll;

use super::call::Call;
use super::driver::Driver;
use crate::gate;
use crate::machine::Action;
use crate::web::platform::abort::AbortWatch;
use crate::web::platform::clock;
use crate::web::platform::fetch::{self, Attempt};
use crate::web::platform::timer;

/// A request of the race: its attempt number and its answer to come.
type Flight<'a> = (u32, Pin<Box<dyn Future<Output = Attempt> + 'a>>);

/// What came first: the hedge's timer, or request `i`'s answer.
enum Next {
    Hedge,
    Answer(usize, Attempt),
}

impl Driver {
    /// Runs the attempt the core just sent (bounded by `limit` ms) and its hedges to the core's next action.
    pub(super) async fn hedged(&self, call: &mut Call, limit: u64, header: Option<&str>, delay_ms: u64) -> Action {
        let Call { op, template, abort, scope, last_response, read_body, reported, .. } = call;
        let (template, abort, read_body) = (&*template, &*abort, *read_body);
        let first = op.in_flight().unwrap_or(0);
        let mut flights: Vec<Flight<'_>> =
            vec![(first, Box::pin(fetch::send(template, limit, abort, header, read_body)))];
        // The hedge's timer is not cut by the caller's abort: the requests are, and they answer.
        let never = AbortWatch::new(Vec::new());
        let mut wait: Option<Pin<Box<dyn Future<Output = bool> + '_>>> = Some(Box::pin(timer::sleep(delay_ms, &never)));
        loop {
            let next = poll_fn(|cx| {
                if wait.as_mut().is_some_and(|w| w.as_mut().poll(cx).is_ready()) {
                    return Poll::Ready(Next::Hedge);
                }
                for (i, (_, request)) in flights.iter_mut().enumerate() {
                    if let Poll::Ready(answer) = request.as_mut().poll(cx) {
                        return Poll::Ready(Next::Answer(i, answer));
                    }
                }
                Poll::Pending
            })
            .await;
            match next {
                Next::Hedge => {
                    self.enter_budget(op).await;
                    let now = clock::now();
                    let hedge = op.hedge(now, &mut self.budget.borrow_mut());
                    let delay = op.hedge_delay(&mut self.budget.borrow_mut());
                    self.leave_budget(op);
                    self.report(op, reported);
                    if let Some(Action::Send { attempt, timeout_ms }) = hedge {
                        let limit = gate::attempt_timeout(now, timeout_ms, op.deadline_at());
                        flights
                            .push((attempt, Box::pin(fetch::send_as(template, limit, abort, header, read_body, true))));
                    }
                    wait =
                        delay.map(|ms| Box::pin(timer::sleep(ms, &never)) as Pin<Box<dyn Future<Output = bool> + '_>>);
                }
                Next::Answer(i, mut answer) => {
                    let (number, _) = flights.remove(i);
                    op.select_flight(number);
                    self.enter_budget(op).await;
                    let action = self.verdict(op, scope, last_response, &mut answer);
                    self.leave_budget(op);
                    match action {
                        // The race is over: the requests still out are dropped with `flights`, aborting them.
                        Some(action) => return action,
                        None => self.report(op, reported),
                    }
                }
            }
        }
    }
}
