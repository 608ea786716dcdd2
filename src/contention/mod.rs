//! Contention for one optimistic-concurrency row, on a virtual clock: the model of the simulator
//! published with AWS's "Exponential Backoff And Jitter" (aws-samples/aws-arch-backoff-simulator,
//! `backoff_simulator.py`), with retryline's own backoff code drawing the delays.
//!
//! N clients each read the row's version and write it back once. A write that carries a stale
//! version conflicts; the client backs off and reads again. Every message takes |N(10, 2)| ms;
//! base 5 ms, cap 2 s. `calls` counts writes (as the model does); `completion_ms` is when the
//! last client's write was answered. Kept from the model: its attempt numbering (the first retry
//! waits `window(1)`, twice the base) and its decorrelated jitter starting from the base. The
//! delays are [`backoff::sample`] of a [`Policy`] kept in microseconds, so that whole units draw
//! as finely as the model's floats.
//!
//! The budget variants run full jitter through one shared [`Budget`], as clients sharing a
//! retryline `Budget` would: its retry quota (a client whose retry is refused gives up), or a
//! token bucket that paces every attempt.

mod network;
mod queue;

use crate::backoff;
use crate::budget::quota::QuotaConfig;
use crate::budget::{Ask, Budget, BudgetConfig, Grant, Limits, Priority};
use crate::draw::Rng;
use crate::input::Loose;
use crate::policy::Policy;
use network::Network;
use queue::Queue;

const BASE_MS: u64 = 5;
const CAP_MS: u64 = 2000;
const SCOPE: &str = "row";
/// The token bucket of the `full+bucket` variant: 10 attempts at once, 100 a second after that.
const BUCKET_CAPACITY: u64 = 10;
const BUCKET_PER_SECOND: u64 = 100;

/// How a client waits after a conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Exponential backoff without jitter (the model's "Exponential").
    Exponential,
    /// Decorrelated jitter: each delay drawn from `[base, previous × 3]`, capped.
    Decorrelated,
    /// Equal jitter: half the window plus a uniform draw over the other half.
    Equal,
    /// Full jitter: uniform over the whole window.
    Full,
    /// Retry at once.
    NoBackoff,
    /// Full jitter, every retry spending a shared retry quota (retryline's default 500 / 5).
    FullWithQuota,
    /// Full jitter, every attempt taking a token from a shared bucket (10, 100 per second).
    FullWithBucket,
}

impl Strategy {
    /// Every strategy, in the order the simulator reports them.
    pub const ALL: [Strategy; 7] = [
        Strategy::Exponential,
        Strategy::Decorrelated,
        Strategy::Equal,
        Strategy::Full,
        Strategy::NoBackoff,
        Strategy::FullWithQuota,
        Strategy::FullWithBucket,
    ];

    /// The strategy's name in reports and in the simulator page.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Exponential => "exponential",
            Strategy::Decorrelated => "decorrelated",
            Strategy::Equal => "equal",
            Strategy::Full => "full",
            Strategy::NoBackoff => "no-backoff",
            Strategy::FullWithQuota => "full+quota",
            Strategy::FullWithBucket => "full+bucket",
        }
    }

    /// The strategy with that [`name`](Strategy::name), if any.
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The jitter of the policy that draws this strategy's delays (`None`: no backoff).
    fn jitter(self) -> Option<&'static str> {
        match self {
            Strategy::Exponential => Some("none"),
            Strategy::Decorrelated => Some("decorrelated"),
            Strategy::Equal => Some("equal"),
            Strategy::Full | Strategy::FullWithQuota | Strategy::FullWithBucket => Some("full"),
            Strategy::NoBackoff => None,
        }
    }

    fn budget(self) -> Option<Budget> {
        match self {
            Strategy::FullWithQuota => Some(Budget::new(BudgetConfig {
                retry_quota: Some(QuotaConfig::default()),
                ..BudgetConfig::unlimited()
            })),
            Strategy::FullWithBucket => Some(Budget::new(BudgetConfig {
                limits: Limits {
                    capacity: Some(BUCKET_CAPACITY),
                    refill_milli: BUCKET_PER_SECOND * 1000,
                    reserve_permille: 0,
                    used_weight_header: None,
                    breaker: None,
                    max_in_flight: None,
                },
                ..BudgetConfig::unlimited()
            })),
            _ => None,
        }
    }
}

/// One simulated contention.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// Writes the row received.
    pub calls: u64,
    /// When the last write was answered, ms.
    pub completion_ms: f64,
    /// Clients whose write succeeded.
    pub written: u32,
    /// Clients whose retry the budget refused (they stop without writing).
    pub gave_up: u32,
}

/// Means over runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Means {
    /// Clients contending for the row.
    pub clients: u32,
    /// How they waited after a conflict.
    pub strategy: Strategy,
    /// Mean writes the row received per run.
    pub calls: f64,
    /// Mean time until the last write was answered, ms of the virtual clock.
    pub completion_ms: f64,
    /// Mean clients per run that the budget refused and that stopped without writing.
    pub gave_up: f64,
}

enum Event {
    ReadAtServer(usize),
    ReadAnswered(usize, u64),
    WriteAtServer(usize, u64),
    WriteAnswered(usize, bool),
}

struct Client {
    attempt: u32,
    previous_us: u64,
    grant: Option<Grant>,
}

/// The model's policy in microseconds: base 5 ms, cap 2 s, the strategy's jitter.
fn policy(jitter: &str) -> Option<Policy> {
    let options = Loose::Map(vec![
        ("baseDelayMs".into(), Loose::Number((BASE_MS * 1000) as f64)),
        ("maxDelayMs".into(), Loose::Number((CAP_MS * 1000) as f64)),
        ("jitter".into(), Loose::Text(jitter.into())),
    ]);
    Policy::from_options(&options).ok()
}

/// Runs one contention of `clients` clients.
pub fn simulate(clients: u32, strategy: Strategy, rng: &mut Rng) -> Run {
    let network = Network::new(10.0, 2.0);
    let policy = strategy.jitter().and_then(policy);
    let mut budget = strategy.budget();
    let mut people: Vec<Client> =
        (0..clients).map(|_| Client { attempt: 0, previous_us: BASE_MS * 1000, grant: None }).collect();
    let mut queue = Queue::new();
    let mut run = Run { calls: 0, completion_ms: 0.0, written: 0, gave_up: 0 };
    let mut version = 0u64;
    for (id, client) in people.iter_mut().enumerate() {
        let arrives = network.delay(rng);
        match admit(&mut budget, client, arrives, false) {
            Some(at) => queue.push(at, Event::ReadAtServer(id)),
            None => run.gave_up += 1,
        }
    }
    while let Some((now, event)) = queue.pop() {
        run.completion_ms = now;
        match event {
            Event::ReadAtServer(id) => queue.push(now + network.delay(rng), Event::ReadAnswered(id, version)),
            Event::ReadAnswered(id, seen) => queue.push(now + network.delay(rng), Event::WriteAtServer(id, seen)),
            Event::WriteAtServer(id, seen) => {
                run.calls += 1;
                let written = seen == version;
                if written {
                    version += 1;
                    run.written += 1;
                }
                queue.push(now + network.delay(rng), Event::WriteAnswered(id, written));
            }
            Event::WriteAnswered(id, written) => {
                let Some(client) = people.get_mut(id) else { continue };
                if let (Some(budget), Some(grant)) = (&mut budget, client.grant.take()) {
                    budget.settle(SCOPE, grant, written);
                }
                if written {
                    continue;
                }
                client.attempt += 1;
                let wait_ms = match &policy {
                    Some(policy) => {
                        let step = backoff::sample(policy, client.attempt, client.previous_us, rng);
                        client.previous_us = step.delay_ms;
                        step.delay_ms as f64 / 1000.0
                    }
                    None => 0.0,
                };
                let arrives = now + network.delay(rng) + wait_ms;
                match admit(&mut budget, client, arrives, true) {
                    Some(at) => queue.push(at, Event::ReadAtServer(id)),
                    None => run.gave_up += 1,
                }
            }
        }
    }
    run
}

/// When the client's read may reach the row: at once without a budget, else when the budget
/// grants it (`None`: refused, the client gives up).
fn admit(budget: &mut Option<Budget>, client: &mut Client, arrives_ms: f64, retry: bool) -> Option<f64> {
    let Some(budget) = budget else { return Some(arrives_ms) };
    let earliest = arrives_ms.ceil() as u64;
    let ask = Ask {
        scope: SCOPE,
        weight: 1,
        priority: Priority::Read,
        retry,
        after_timeout: false,
        earliest,
        latest: u64::MAX,
    };
    let grant = budget.admit(&ask).ok()?;
    let at = grant.start_at.max(earliest);
    // The grant's tokens are charged as it goes; a late start (never here) would only wait longer.
    let _ = budget.dispatch(SCOPE, grant, at);
    client.grant = Some(grant);
    Some(arrives_ms.max(grant.start_at as f64))
}

/// Means of `runs` contentions, each seeded from `seed` in turn.
pub fn means(clients: u32, strategy: Strategy, runs: u32, seed: u64) -> Means {
    let mut rng = Rng::seeded(seed);
    let (mut calls, mut completion, mut gave_up) = (0u64, 0.0, 0u64);
    for _ in 0..runs {
        let run = simulate(clients, strategy, &mut rng);
        calls += run.calls;
        completion += run.completion_ms;
        gave_up += u64::from(run.gave_up);
    }
    let n = f64::from(runs.max(1));
    Means { clients, strategy, calls: calls as f64 / n, completion_ms: completion / n, gave_up: gave_up as f64 / n }
}
