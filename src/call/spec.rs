//! The third argument of `client.fetch`, as far as the core decides it, and the operation a call
//! of a method and URL begins from.

use crate::budget::Priority;
use crate::classify::OperationKind;
use crate::input::read::{flag, millis, name, whole};
use crate::input::{Invalid, InvalidOption, Loose, Problem};
use crate::json::FromLoose;
use crate::machine::Start;
use crate::policy::Policy;
use crate::redact::Secrets;

/// A call's options, read and checked.
#[derive(Clone, Debug)]
pub struct CallSpec {
    /// The client's policy with the call's over it.
    pub policy: Policy,
    /// `operation`: by default from the method.
    pub operation: Option<OperationKind>,
    /// `priority`: by default from the operation.
    pub priority: Option<Priority>,
    /// `key`: the operation's identity (a client order id).
    pub key: Option<String>,
    /// `scope`: by default the URL's origin.
    pub scope: Option<String>,
    /// `weight`: the tokens each attempt spends (default 1).
    pub weight: u32,
    /// `readBody`, if the call gives one.
    pub read_body: Option<bool>,
    /// `staleIfErrorMs`, if the call gives one (0: none): how old a kept response a failed read
    /// may serve, marked stale.
    pub stale_if_error_ms: Option<u64>,
    /// `coalesce`, if the call gives one: a read may share the operation of the same read running.
    pub coalesce: Option<bool>,
}

impl CallSpec {
    /// A call without options: the client's policy, everything else by default.
    pub fn of(policy: &Policy) -> CallSpec {
        CallSpec {
            policy: policy.clone(),
            operation: None,
            priority: None,
            key: None,
            scope: None,
            weight: 1,
            read_body: None,
            stale_if_error_ms: None,
            coalesce: None,
        }
    }

    /// Reads the call's options over the client's `policy`.
    pub fn read(options: &Loose, policy: &Policy) -> Result<CallSpec, Invalid> {
        let mut call = CallSpec::of(policy);
        let mut deadline = None;
        for (field, value) in options.fields("options")? {
            if value.is_absent() {
                continue;
            }
            let f = field.as_str();
            match f {
                "policy" => call.policy = policy.read_over(value)?,
                "operation" => call.operation = Some(operation(value)?),
                "priority" => call.priority = Some(priority(value)?),
                "key" => call.key = Some(name(f, value)?),
                "scope" => call.scope = Some(name(f, value)?),
                "weight" => call.weight = whole(f, value, 1, u64::from(crate::budget::MAX_WEIGHT))? as u32,
                "deadlineMs" => deadline = Some(millis(f, value)?),
                "readBody" => call.read_body = flag(f, value)?,
                "staleIfErrorMs" => call.stale_if_error_ms = Some(millis(f, value)?),
                "coalesce" => call.coalesce = flag(f, value)?,
                _ => return Err(InvalidOption::boxed(f, Problem::UnknownField)),
            }
        }
        if let Some(ms) = deadline {
            // The call's deadline replaces the policy's; a longer attempt timeout is cut to it.
            call.policy = call.policy.with_call_deadline("deadlineMs", ms)?;
        }
        Ok(call)
    }

    /// What a request of `method` to `url` begins from: its kind from the method unless the call
    /// names one, its scope the call's, else the shell's (`scope`, for a URL that is not http(s)),
    /// else the URL's origin; the URL redacted with `secrets` too.
    pub fn start(self, method: &str, url: &str, scope: Option<&str>, secrets: &Secrets) -> Start {
        let kind = self.operation.unwrap_or_else(|| OperationKind::from_method(method));
        let scope = self
            .scope
            .or_else(|| scope.map(str::to_owned))
            .or_else(|| crate::scope::origin(url))
            .unwrap_or_else(|| url.to_owned());
        let url = match *secrets == Secrets::default() {
            true => url.to_owned(),
            false => secrets.redact(url, true),
        };
        Start {
            policy: self.policy,
            kind,
            priority: self.priority.unwrap_or(Priority::for_kind(kind)),
            scope,
            weight: self.weight,
            key: self.key,
            method: Some(method.to_owned()),
            url: Some(url),
        }
    }
}

fn operation(value: &Loose) -> Result<OperationKind, Invalid> {
    OperationKind::from_name(crate::input::read::text("operation", value)?)
        .ok_or_else(|| InvalidOption::boxed("operation", Problem::UnknownName { allowed: OperationKind::NAMES }))
}

fn priority(value: &Loose) -> Result<Priority, Invalid> {
    crate::input::read::text("priority", value)?;
    // The saved-state reader's table; the error keeps this option's own wording.
    Priority::read_loose(value).map_err(|_| {
        InvalidOption::boxed(
            "priority",
            Problem::UnknownName { allowed: "\"reconcile\", \"order\", \"read\", \"refresh\"" },
        )
    })
}
