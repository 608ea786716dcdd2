//! The JSON forms of saved operations: what a store keeps under a key.

use super::read::from_loose_by_read;
use super::{Fields, FromLoose, Object, Placeholder, ToJson};
use crate::durable::Saved;
use crate::input::{Invalid, InvalidOption, Loose, Problem};
use crate::policy::Policy;
use crate::state::{OperationState, PhaseState};

impl ToJson for Policy {
    fn write_json(&self, out: &mut String) {
        let mut object = Object::new(out);
        object
            .field("baseDelayMs", &self.base_delay_ms())
            .field("maxDelayMs", &self.max_delay_ms())
            .field("jitter", &self.jitter())
            .field("maxAttempts", &self.max_attempts())
            .field("attemptTimeoutMs", &self.attempt_timeout_ms())
            .field("deadlineMs", &self.deadline_ms())
            .field("retryOn", &self.retry_on())
            .field("retryAfterSpreadMs", &self.retry_after_spread_ms());
        // Written only when set, as serde's `skip_serializing_if` does.
        if let Some(ms) = self.min_attempt_ms() {
            object.field("minAttemptMs", &ms);
        }
        object.end();
    }
}

/// A saved policy passes the same checks as one given in options.
impl FromLoose for Policy {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        Policy::read(value)
    }
}

impl ToJson for PhaseState {
    fn write_json(&self, out: &mut String) {
        let mut object = Object::new(out);
        match self {
            PhaseState::Idle => object.field("phase", &"idle"),
            PhaseState::Sleeping { wake_at_wall_ms, record } => {
                object.field("phase", &"sleeping").field("wakeAtWallMs", wake_at_wall_ms).field("record", record)
            }
            PhaseState::InFlight { record } => object.field("phase", &"in-flight").field("record", record),
            PhaseState::Stopped { stop } => object.field("phase", &"stopped").field("stop", stop),
        }
        .end();
    }
}

impl Placeholder for PhaseState {
    fn placeholder() -> Self {
        PhaseState::Idle
    }
}

impl FromLoose for PhaseState {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let f = Fields::only(value, &["phase", "wakeAtWallMs", "record", "stop"])?;
        let phase: String = f.read("phase")?;
        let missing = |field: &str, other: &'static str| InvalidOption::boxed(field, Problem::Requires { other });
        match phase.as_str() {
            "idle" => Ok(PhaseState::Idle),
            "sleeping" => Ok(PhaseState::Sleeping {
                wake_at_wall_ms: f
                    .read::<Option<u64>>("wakeAtWallMs")?
                    .ok_or_else(|| missing("phase", "wakeAtWallMs"))?,
                record: f.read::<Option<_>>("record")?.ok_or_else(|| missing("phase", "record"))?,
            }),
            "in-flight" => Ok(PhaseState::InFlight {
                record: f.read::<Option<_>>("record")?.ok_or_else(|| missing("phase", "record"))?,
            }),
            "stopped" => {
                Ok(PhaseState::Stopped { stop: f.read::<Option<_>>("stop")?.ok_or_else(|| missing("phase", "stop"))? })
            }
            _ => Err(InvalidOption::boxed(
                "phase",
                Problem::UnknownName { allowed: "\"idle\" \"sleeping\" \"in-flight\" \"stopped\"" },
            )),
        }
    }
}

const STATE_FIELDS: &[&str] = &[
    "version",
    "policy",
    "operation",
    "priority",
    "scope",
    "weight",
    "key",
    "method",
    "url",
    "startedAtWallMs",
    "expiresAtWallMs",
    "savedAtWallMs",
    "remainingMs",
    "attemptsSent",
    "retriesProposed",
    "previousDelayMs",
    "afterProviderWait",
    "afterTimeout",
    "unresolved",
    "holdUntilWallMs",
    "banUntilWallMs",
    "phase",
    "records",
];

impl ToJson for OperationState {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("version", &self.version)
            .field("policy", &self.policy)
            .field("operation", &self.operation)
            .field("priority", &self.priority)
            .field("scope", &self.scope)
            .field("weight", &self.weight)
            .field("key", &self.key)
            .field("method", &self.method)
            .field("url", &self.url)
            .field("startedAtWallMs", &self.started_at_wall_ms)
            .field("expiresAtWallMs", &self.expires_at_wall_ms)
            .field("savedAtWallMs", &self.saved_at_wall_ms)
            .field("remainingMs", &self.remaining_ms)
            .field("attemptsSent", &self.attempts_sent)
            .field("retriesProposed", &self.retries_proposed)
            .field("previousDelayMs", &self.previous_delay_ms)
            .field("afterProviderWait", &self.after_provider_wait)
            .field("afterTimeout", &self.after_timeout)
            .field("unresolved", &self.unresolved)
            .field("holdUntilWallMs", &self.hold_until_wall_ms)
            .field("banUntilWallMs", &self.ban_until_wall_ms)
            .field("phase", &self.phase)
            .field("records", &self.records)
            .end();
    }
}

impl FromLoose for OperationState {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let mut f = Fields::only(value, STATE_FIELDS)?;
        let state = OperationState {
            version: f.take("version"),
            policy: f.take("policy"),
            operation: f.take("operation"),
            priority: f.take("priority"),
            scope: f.take("scope"),
            weight: f.take("weight"),
            key: f.take("key"),
            method: f.take("method"),
            url: f.take("url"),
            started_at_wall_ms: f.take("startedAtWallMs"),
            expires_at_wall_ms: f.take("expiresAtWallMs"),
            saved_at_wall_ms: f.take("savedAtWallMs"),
            remaining_ms: f.take("remainingMs"),
            attempts_sent: f.take("attemptsSent"),
            retries_proposed: f.take("retriesProposed"),
            previous_delay_ms: f.take("previousDelayMs"),
            after_provider_wait: f.take("afterProviderWait"),
            after_timeout: f.take_or_default("afterTimeout"),
            unresolved: f.take("unresolved"),
            hold_until_wall_ms: f.take("holdUntilWallMs"),
            ban_until_wall_ms: f.take("banUntilWallMs"),
            phase: f.take("phase"),
            records: f.take("records"),
        };
        f.finish(state)
    }
}

impl ToJson for Saved {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("owner", &self.owner)
            .field("leaseUntilMs", &self.lease_until_ms)
            .field("escalated", &self.escalated)
            .field("lastEvidence", &self.last_evidence)
            .field("state", &self.state)
            .end();
    }
}

impl FromLoose for Saved {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let f = Fields::only(value, &["owner", "leaseUntilMs", "escalated", "lastEvidence", "state"])?;
        Ok(Saved {
            owner: f.read("owner")?,
            lease_until_ms: f.read("leaseUntilMs")?,
            escalated: f.read_or_default("escalated")?,
            last_evidence: f.read("lastEvidence")?,
            state: f.read("state")?,
        })
    }
}
