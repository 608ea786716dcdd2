//! The JSON form of a budget's shared state (`Budget::export`), as IndexedDB or a Durable
//! Object keeps it. Every number is a whole number of ms, µs or µ-tokens below 2^53.

use super::read::from_loose_by_read;
use super::{Fields, FromLoose, Object, ToJson};
use crate::budget::shared::{SharedScope, SharedState};
use crate::input::{Invalid, Loose, MAX_SAFE_INTEGER};

/// A grant admitted and not yet sent.
struct Queued(u64, u64);

impl ToJson for Queued {
    fn write_json(&self, out: &mut String) {
        Object::new(out).field("id", &self.0).field("startAt", &self.1).end();
    }
}

impl FromLoose for Queued {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let mut f = Fields::only(value, &["id", "startAt"])?;
        let queued = Queued(f.take("id"), f.take("startAt"));
        f.finish(queued)
    }
}

impl ToJson for SharedScope {
    fn write_json(&self, out: &mut String) {
        let queued: Vec<Queued> = self.queued.iter().map(|&(id, at)| Queued(id, at)).collect();
        let safe = |x: u128| u64::try_from(x).unwrap_or(u64::MAX).min(MAX_SAFE_INTEGER);
        Object::new(out)
            .field("scope", &self.scope)
            .field("holdUntil", &self.hold_until)
            .field("banUntil", &self.ban_until)
            .field("bucketTatUs", &self.bucket_tat_us)
            .field("meterLevelMicro", &self.meter.map(|(level, _)| safe(level)))
            .field("meterUpdatedAt", &self.meter.map(|(_, at)| at))
            .field("quotaAvailable", &self.quota_available)
            .field("queued", &queued)
            .field("breaker", &self.breaker.map(|parts| parts.to_vec()))
            .end();
    }
}

impl FromLoose for SharedScope {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let names = [
            "scope",
            "holdUntil",
            "banUntil",
            "bucketTatUs",
            "meterLevelMicro",
            "meterUpdatedAt",
            "quotaAvailable",
            "queued",
            "breaker",
        ];
        let mut f = Fields::only(value, &names)?;
        let scope = f.take("scope");
        let (hold_until, ban_until) = (f.take("holdUntil"), f.take("banUntil"));
        let bucket_tat_us = f.take("bucketTatUs");
        let meter_level: Option<u64> = f.take("meterLevelMicro");
        let meter_at: Option<u64> = f.take("meterUpdatedAt");
        let quota_available = f.take("quotaAvailable");
        let queued: Vec<Queued> = f.take_or_default("queued");
        let breaker: Option<Vec<u64>> = f.take("breaker");
        let breaker = breaker.and_then(|parts| <[u64; 5]>::try_from(parts).ok());
        let meter = meter_level.zip(meter_at).map(|(level, at)| (u128::from(level), at));
        let queued = queued.into_iter().map(|Queued(id, at)| (id, at)).collect();
        f.finish(SharedScope { scope, hold_until, ban_until, bucket_tat_us, meter, quota_available, queued, breaker })
    }
}

impl ToJson for SharedState {
    fn write_json(&self, out: &mut String) {
        Object::new(out).field("nextGrant", &self.next_grant).field("scopes", &self.scopes).end();
    }
}

impl FromLoose for SharedState {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let mut f = Fields::only(value, &["nextGrant", "scopes"])?;
        let state = SharedState { next_grant: f.take("nextGrant"), scopes: f.take_or_default("scopes") };
        f.finish(state)
    }
}
