//! An operation begins: its deadline is fixed, and its initial attempt proposed.

use super::{Action, Operation, Phase, Proposal, Start};
use crate::budget::Budget;
use crate::draw::Draws;
use crate::redact::redact_url;

impl Operation {
    /// Begins an operation at monotonic `now`, wall-clock `wall_now` (Unix ms).
    /// The deadline is fixed here: `now + policy.deadlineMs`.
    pub fn begin(mut start: Start, now: u64, wall_now: u64) -> Operation {
        start.url = start.url.as_deref().map(redact_url);
        let deadline_ms = start.policy.deadline_ms();
        Operation {
            previous_delay: start.policy.base_delay_ms(),
            start,
            origin: i128::from(now),
            deadline_at: now.saturating_add(deadline_ms),
            started_at_wall: wall_now,
            expires_at_wall: wall_now.saturating_add(deadline_ms),
            sent: 0,
            retries_proposed: 0,
            after_provider_wait: false,
            after_timeout: false,
            unresolved: false,
            records: Vec::new(),
            phase: Phase::Idle,
            hedges: Vec::new(),
            race: Vec::new(),
            hedges_proposed: 0,
        }
    }

    /// Proposes the first attempt of an outage that a dropped connection began: a retry, after a
    /// backoff draw, since the drop was the failure (a stream's reconnect).
    pub fn start_after_drop(&mut self, now: u64, draws: &mut Draws, budget: &mut Budget) -> Action {
        match self.phase {
            Phase::Idle => {
                let proposal = Proposal { step: Some(self.next_step(draws)), provider: None };
                self.propose(now, proposal, draws, budget)
            }
            _ => self.pending_action(),
        }
    }

    /// Proposes the initial attempt.
    pub fn start(&mut self, now: u64, draws: &mut Draws, budget: &mut Budget) -> Action {
        match self.phase {
            Phase::Idle => self.propose(now, Proposal::default(), draws, budget),
            _ => self.pending_action(),
        }
    }
}
