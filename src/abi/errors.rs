//! What a `RetryError` carries, as the core words it: `{ reason, message, records, key }`.

use super::state::{Op, Purpose};
use crate::failure::{Failure, Note};
use crate::json::{to_json, Object, ToJson};
use crate::reason::Reason;
use crate::record::AttemptRecord;
use crate::text::join;

/// `{ reason, message, records, key }`: what a `RetryError` (or a stream's stop) carries.
pub struct Stopped<'a> {
    pub reason: Reason,
    pub message: String,
    pub records: &'a [AttemptRecord],
    pub key: Option<&'a str>,
}

impl ToJson for Stopped<'_> {
    fn write_json(&self, out: &mut String) {
        let mut object = Object::new(out);
        object.field("reason", &self.reason).field("message", &self.message).field("records", &self.records);
        if let Some(key) = self.key {
            object.field("key", &key);
        }
        object.end();
    }
}

/// The failure of `op` with `reason`, its records, and `detail` in place of the explanation.
pub fn failure_json(op: &Op, reason: Reason, records: &[AttemptRecord], detail: Option<&str>, note: &Note) -> String {
    let key = op.op.key();
    let target;
    let (method, url) = match op.purpose {
        Purpose::Call => (op.op.method().unwrap_or("GET"), op.op.url().unwrap_or_default()),
        Purpose::Reconcile | Purpose::Resolve => {
            target = join(&["key \"", key.unwrap_or_default(), "\""]);
            ("reconcile", target.as_str())
        }
    };
    let message = Failure { method, url, reason, records, detail, note }.message();
    to_json(&Stopped { reason, message, records, key })
}
