//! A circuit breaker per scope: when a provider keeps failing, its scope stops sending for a
//! while and then lets a probe through. The open time grows with jitter on each failed probe
//! (capped), so that many clients do not probe together.
//!
//! ```text
//! closed ─(threshold: consecutive failures, or a failure ratio over a rolling window)─▶ open
//! open ─(its time is up)─▶ half-open: `probes` attempts may go, the rest are refused
//! half-open ─(a probe succeeds)─▶ closed      half-open ─(a probe fails)─▶ open, longer
//! ```

use super::Budget;
use crate::draw::Rng;
use crate::input::read::whole;
use crate::input::{At, Invalid, InvalidOption, Loose, Problem};

/// Slots of the rolling window, each a tenth of it, counted on its own (bounded memory).
const SLOTS: usize = 10;

/// How a scope's breaker decides. Every duration in ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakerConfig {
    /// Consecutive failures that open it (default 5).
    pub consecutive: u32,
    /// Failures per mille of the window's outcomes that open it (default 500: half).
    pub ratio_permille: u32,
    /// The rolling window the ratio is measured over (default 10 000).
    pub window_ms: u64,
    /// Outcomes the window needs before its ratio counts (default 10).
    pub min_volume: u32,
    /// How long it first stays open (default 5 000); each failed probe doubles it, with jitter.
    pub open_ms: u64,
    /// The longest it stays open (default 60 000).
    pub max_open_ms: u64,
    /// Attempts let through half-open (default 1).
    pub probes: u32,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            consecutive: 5,
            ratio_permille: 500,
            window_ms: 10_000,
            min_volume: 10,
            open_ms: 5_000,
            max_open_ms: 60_000,
            probes: 1,
        }
    }
}

impl BreakerConfig {
    /// `breaker: true | { consecutiveFailures, failureRatio, windowMs, minVolume, openMs, maxOpenMs, probes }`.
    pub(crate) fn read(value: &Loose) -> Result<Option<BreakerConfig>, Invalid> {
        let mut config = BreakerConfig::default();
        let entries = match value {
            Loose::Bool(false) => return Ok(None),
            Loose::Bool(true) => return Ok(Some(config)),
            Loose::Map(entries) => entries,
            other => {
                let problem = Problem::WrongType { expected: "a boolean or an object", found: other.kind() };
                return Err(InvalidOption::boxed("breaker", problem));
            }
        };
        for (field, value) in entries {
            if value.is_absent() {
                continue;
            }
            let f = field.as_str();
            let at = |e: Invalid| e.at("breaker");
            match f {
                "consecutiveFailures" => config.consecutive = whole(f, value, 1, 1_000_000).map_err(at)? as u32,
                "failureRatio" => {
                    let ratio = crate::input::read::number(f, value).map_err(at)?;
                    if !(ratio > 0.0 && ratio <= 1.0) {
                        return Err(at(InvalidOption::boxed(f, Problem::NotAFraction)));
                    }
                    config.ratio_permille = ((ratio * 1000.0) as u32).max(1);
                }
                "windowMs" => config.window_ms = whole(f, value, 1000, 3_600_000).map_err(at)?,
                "minVolume" => config.min_volume = whole(f, value, 1, 1_000_000).map_err(at)? as u32,
                "openMs" => config.open_ms = whole(f, value, 1, 86_400_000).map_err(at)?,
                "maxOpenMs" => config.max_open_ms = whole(f, value, 1, 86_400_000).map_err(at)?,
                "probes" => config.probes = whole(f, value, 1, 1000).map_err(at)? as u32,
                _ => return Err(at(InvalidOption::boxed(f, Problem::UnknownField))),
            }
        }
        if config.max_open_ms < config.open_ms {
            return Err(InvalidOption::boxed("maxOpenMs", Problem::TooSmall { min: config.open_ms }).at("breaker"));
        }
        Ok(Some(config))
    }
}

/// Where a breaker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakerState {
    /// Sending; failures are counted.
    Closed,
    /// Refusing until `until` (monotonic ms).
    Open {
        /// When it lets probes through.
        until: u64,
    },
    /// Letting `probes` attempts through; `in_flight` have gone.
    HalfOpen {
        /// Probes sent and not yet answered.
        in_flight: u32,
        /// When the last of them has outlived its attempt timeout (monotonic ms): a probe that never
        /// reports (its shell went away) gives its slot back then, so the scope cannot stay refused.
        until: u64,
    },
}

/// One scope's breaker.
#[derive(Clone, Debug)]
pub struct Breaker {
    config: BreakerConfig,
    state: BreakerState,
    consecutive: u32,
    /// Per slot of the window: (the slot's number since the clock's start, outcomes, failures).
    slots: [(u64, u32, u32); SLOTS],
    /// How long it stays open next time.
    next_open_ms: u64,
}

impl Breaker {
    /// A closed breaker.
    pub fn new(config: BreakerConfig) -> Breaker {
        Breaker {
            config,
            state: BreakerState::Closed,
            consecutive: 0,
            slots: [(0, 0, 0); SLOTS],
            next_open_ms: config.open_ms,
        }
    }

    /// Its state at `now` (an open breaker whose time is up is half-open).
    pub fn state(&mut self, now: u64) -> BreakerState {
        match self.state {
            BreakerState::Open { until } if now >= until => {
                self.state = BreakerState::HalfOpen { in_flight: 0, until: 0 }
            }
            BreakerState::HalfOpen { in_flight: 1.., until } if now >= until => {
                self.state = BreakerState::HalfOpen { in_flight: 0, until: 0 }
            }
            _ => {}
        }
        self.state
    }

    /// Whether an attempt may go at `now`: `Ok` (a probe slot taken when half-open, held for at
    /// most `probe_ms`, the attempt's timeout), or `Err(ms)` until the scope is probed. `reconcile`
    /// goes whatever the state, taking a probe slot first.
    pub fn admit(&mut self, now: u64, reconcile: bool, probe_ms: u64) -> Result<(), u64> {
        match self.state(now) {
            BreakerState::Closed => Ok(()),
            BreakerState::Open { until } if !reconcile => Err(until - now),
            BreakerState::Open { .. } => Ok(()),
            BreakerState::HalfOpen { in_flight, until } if in_flight < self.config.probes || reconcile => {
                let until = until.max(now.saturating_add(probe_ms));
                self.state = BreakerState::HalfOpen { in_flight: in_flight.saturating_add(1), until };
                Ok(())
            }
            // The probe in flight answers first (or expires); until then, what is left of a second.
            BreakerState::HalfOpen { until, .. } => Err(until.saturating_sub(now).clamp(1, 1000)),
        }
    }

    /// An attempt's outcome: `failed` for a timeout, a network error or a 5xx.
    pub fn observe(&mut self, now: u64, failed: bool, rng: &mut Rng) {
        match self.state(now) {
            BreakerState::HalfOpen { .. } if failed => self.open(now, rng),
            BreakerState::HalfOpen { .. } => self.close(),
            BreakerState::Open { .. } => {}
            BreakerState::Closed => {
                self.count(now, failed);
                if self.tripped(now) {
                    self.open(now, rng);
                }
            }
        }
    }

    fn count(&mut self, now: u64, failed: bool) {
        self.consecutive = if failed { self.consecutive.saturating_add(1) } else { 0 };
        let number = self.slot_number(now);
        let slot = &mut self.slots[(number % SLOTS as u64) as usize];
        if slot.0 != number {
            *slot = (number, 0, 0);
        }
        slot.1 = slot.1.saturating_add(1);
        slot.2 = slot.2.saturating_add(u32::from(failed));
    }

    fn tripped(&self, now: u64) -> bool {
        if self.consecutive >= self.config.consecutive {
            return true;
        }
        let current = self.slot_number(now);
        let (total, failures) = self
            .slots
            .iter()
            .filter(|(number, _, _)| *number + SLOTS as u64 > current && *number <= current)
            .fold((0u64, 0u64), |(t, f), (_, n, x)| (t + u64::from(*n), f + u64::from(*x)));
        total >= u64::from(self.config.min_volume) && failures * 1000 >= total * u64::from(self.config.ratio_permille)
    }

    /// Which slot of the window `now` falls in (slots are a tenth of the window).
    fn slot_number(&self, now: u64) -> u64 {
        now / (self.config.window_ms / SLOTS as u64).max(1)
    }

    fn open(&mut self, now: u64, rng: &mut Rng) {
        let base = self.next_open_ms.min(self.config.max_open_ms);
        // Jitter: up to half as long again, so that clients sharing nothing do not probe together.
        let open_ms = base.saturating_add(rng.between(0, base / 2)).min(self.config.max_open_ms);
        self.state = BreakerState::Open { until: now.saturating_add(open_ms) };
        self.next_open_ms = base.saturating_mul(2).min(self.config.max_open_ms);
    }

    /// Open until `until` at least: another realm's breaker opened (or the coordinator holds the
    /// scope for a probe). A probe in flight here keeps its half-open state.
    pub(crate) fn open_to(&mut self, until: u64) {
        match self.state {
            BreakerState::HalfOpen { in_flight: 1.., .. } => {}
            BreakerState::Open { until: own } if own >= until => {}
            _ => self.state = BreakerState::Open { until },
        }
    }

    /// Half-open from closed: it was granted the probe of a breaker other realms opened.
    pub(crate) fn half_open(&mut self) {
        if self.state == BreakerState::Closed {
            self.state = BreakerState::HalfOpen { in_flight: 0, until: 0 };
        }
    }

    pub(crate) fn close(&mut self) {
        self.state = BreakerState::Closed;
        self.consecutive = 0;
        self.slots = [(0, 0, 0); SLOTS];
        self.next_open_ms = self.config.open_ms;
    }

    /// What realms share of it (tabs under one lock): `[state (0 closed, 1 open, 2 half-open),
    /// open until (monotonic ms), probes in flight, consecutive failures, next open ms]`. The
    /// rolling window stays each realm's own.
    pub(crate) fn shared(&self) -> [u64; 5] {
        let (code, until, in_flight) = match self.state {
            BreakerState::Closed => (0, 0, 0),
            BreakerState::Open { until } => (1, until, 0),
            BreakerState::HalfOpen { in_flight, until } => (2, until, in_flight),
        };
        [code, until, u64::from(in_flight), u64::from(self.consecutive), self.next_open_ms]
    }

    /// Takes up what another realm left (see [`shared`](Self::shared)), `until` already in this realm's clock.
    pub(crate) fn take_up(&mut self, [code, until, in_flight, consecutive, next_open_ms]: [u64; 5]) {
        let narrow = |x: u64| u32::try_from(x).unwrap_or(u32::MAX);
        self.state = match code {
            1 => BreakerState::Open { until },
            2 => BreakerState::HalfOpen { in_flight: narrow(in_flight), until },
            _ => BreakerState::Closed,
        };
        self.consecutive = narrow(consecutive);
        // max then min, not clamp: its assertion brings panic formatting into the wasm.
        self.next_open_ms = next_open_ms.max(self.config.open_ms).min(self.config.max_open_ms);
    }

    /// A probe that never answered (its attempt was abandoned) gives its slot back.
    pub fn release(&mut self) {
        if let BreakerState::HalfOpen { in_flight, until } = self.state {
            self.state = BreakerState::HalfOpen { in_flight: in_flight.saturating_sub(1), until };
        }
    }

    /// Its state's name at `now`, as a snapshot shows it.
    pub fn name(&self, now: u64) -> &'static str {
        match self.state {
            BreakerState::Open { until } if now < until => "open",
            BreakerState::Closed => "closed",
            _ => "half-open",
        }
    }

    /// When it next lets a probe through, if it is open (monotonic ms).
    pub fn open_until(&self) -> Option<u64> {
        match self.state {
            BreakerState::Open { until } => Some(until),
            _ => None,
        }
    }
}

/// The breaker's part of a budget: each scope's, if its limits have one.
impl Budget {
    /// How long the scope's breaker still refuses at `now` (0: it lets an attempt be proposed).
    pub fn breaker_open_ms(&mut self, scope: &str, now: u64) -> u64 {
        match self.scope_mut(scope).breaker.as_mut().map(|b| b.state(now)) {
            Some(BreakerState::Open { until }) => until.saturating_sub(now),
            _ => 0,
        }
    }

    /// An attempt about to go: `Err(ms)` if the breaker refuses it (a half-open one whose probe
    /// is out); `reconcile` is never refused.
    pub fn breaker_admit(&mut self, scope: &str, now: u64, reconcile: bool, probe_ms: u64) -> Result<(), u64> {
        self.scope_mut(scope).breaker.as_mut().map_or(Ok(()), |b| b.admit(now, reconcile, probe_ms))
    }

    /// An attempt that went and was abandoned without an outcome gives back a probe slot it held.
    pub fn breaker_release(&mut self, scope: &str) {
        if let Some(b) = self.scope_mut(scope).breaker.as_mut() {
            b.release();
        }
    }

    /// An attempt's outcome, for the scope's breaker: `failed` for a timeout, a network error or a 5xx.
    pub fn breaker_observe(&mut self, scope: &str, now: u64, failed: bool, rng: &mut Rng) {
        if let Some(b) = self.scope_mut(scope).breaker.as_mut() {
            b.observe(now, failed, rng);
        }
    }
}
