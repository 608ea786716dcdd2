//! Many operations sharing one budget on a virtual clock: the contention simulator.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use retryline::{Action, Budget, Draws, Operation, Outcome, Reason, Start};

/// How a scripted provider answers: (attempt number, send time) → (duration, outcome).
pub type Respond = Box<dyn FnMut(u32, u64) -> (u64, Outcome)>;

struct Op {
    op: Operation,
    weight: u32,
    respond: Respond,
    stop: Option<Reason>,
}

enum Event {
    Start,
    Outcome(Outcome),
    Wake,
}

pub struct Sim {
    pub now: u64,
    pub budget: Budget,
    draws: Draws,
    ops: Vec<Op>,
    queue: BinaryHeap<Reverse<(u64, u64, usize)>>,
    events: Vec<Option<Event>>,
    /// Every request on the wire: (time, operation index, weight).
    pub sends: Vec<(u64, usize, u32)>,
    /// A stalled event loop: events due in `[from, to)` run at `to`.
    pub stall: Option<(u64, u64)>,
}

impl Sim {
    pub fn new(budget: Budget, seed: u64) -> Self {
        Sim {
            now: 0,
            budget,
            draws: Draws::seeded(seed),
            ops: Vec::new(),
            queue: BinaryHeap::new(),
            events: Vec::new(),
            sends: Vec::new(),
            stall: None,
        }
    }

    /// Adds an operation that begins at `at`; returns its index.
    pub fn add(&mut self, at: u64, start: Start, respond: Respond) -> usize {
        let weight = start.weight;
        let op = Operation::begin(start, at, 1_767_225_600_000 + at);
        self.ops.push(Op { op, weight, respond, stop: None });
        let index = self.ops.len() - 1;
        self.schedule(at, index, Event::Start);
        index
    }

    fn schedule(&mut self, at: u64, op: usize, event: Event) {
        self.events.push(Some(event));
        self.queue.push(Reverse((at, (self.events.len() - 1) as u64, op)));
    }

    /// Runs until every operation has stopped (or `until`).
    pub fn run(&mut self, until: u64) {
        while let Some(Reverse((at, event_id, index))) = self.queue.pop() {
            if at > until {
                break;
            }
            let at = match self.stall {
                Some((from, to)) if (from..to).contains(&at) => to,
                _ => at,
            };
            self.now = at;
            let Some(event) = self.events[event_id as usize].take() else { continue };
            let op = &mut self.ops[index];
            let action = match event {
                Event::Start => op.op.start(at, &mut self.draws, &mut self.budget),
                Event::Outcome(outcome) => op.op.on_outcome(at, at, &outcome, &mut self.draws, &mut self.budget),
                Event::Wake => op.op.on_wake(at, &mut self.budget),
            };
            match action {
                Action::Send { attempt, .. } => {
                    self.sends.push((at, index, op.weight));
                    let (took, outcome) = (op.respond)(attempt, at);
                    self.schedule(at + took, index, Event::Outcome(outcome));
                }
                Action::Sleep { until } => self.schedule(until, index, Event::Wake),
                Action::Stop(stop) => op.stop = Some(stop.reason),
            }
        }
    }

    pub fn stop(&self, index: usize) -> Option<Reason> {
        self.ops[index].stop
    }

    pub fn operation(&self, index: usize) -> &Operation {
        &self.ops[index].op
    }

    pub fn stops(&self) -> Vec<Option<Reason>> {
        self.ops.iter().map(|o| o.stop).collect()
    }

    /// The most weight sent in any window of `window_ms` (windows start at each send).
    pub fn max_weight_in_window(&self, window_ms: u64) -> u64 {
        let mut sends: Vec<(u64, u32)> = self.sends.iter().map(|&(t, _, w)| (t, w)).collect();
        sends.sort_unstable();
        let mut best = 0;
        let (mut lo, mut sum) = (0, 0u64);
        for hi in 0..sends.len() {
            sum += u64::from(sends[hi].1);
            while sends[hi].0 - sends[lo].0 >= window_ms {
                sum -= u64::from(sends[lo].1);
                lo += 1;
            }
            best = best.max(sum);
        }
        best
    }
}
