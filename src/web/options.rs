//! Options from JavaScript, validated at the boundary: every mistake throws a
//! `TypeError` or `RangeError` that names its field, and nothing is half-applied.
//! Each field is read once; a getter that throws is a `TypeError` naming that field.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::abort;
use super::budget;
use super::error::invalid;
use super::fetch::Fetcher;
use super::guard;
use super::secrets::Secrets;
use super::store::Store;
use super::value::{field, keys, kind, loose, unreadable};
use crate::budget::Priority;
use crate::classify::OperationKind;
use crate::input::{millis, name, whole, InvalidOption, Loose, Problem, MAX_SAFE_INTEGER};
use crate::json::FromLoose;
use crate::policy::Policy;

/// The most tokens one request may weigh.
const MAX_WEIGHT: u64 = 1_000_000;

/// `new RetryClient(options)`.
pub struct ClientOptions {
    pub policy: Policy,
    pub budget: Option<budget::Held>,
    pub seed: Option<u64>,
    pub fetcher: Fetcher,
    pub on_attempt: Option<JsValue>,
    pub on_escalation: Option<JsValue>,
    pub store: Option<Store>,
    pub secrets: Secrets,
    /// Calls read the body inside the attempt timeout unless they say otherwise.
    pub read_body: bool,
    /// The first delays, ms, before the seeded ones (demos and tests).
    pub draws: Vec<u64>,
}

/// The third argument of `client.fetch(input, init, options)`.
pub struct CallOptions {
    pub policy: Policy,
    pub operation: Option<OperationKind>,
    pub priority: Option<Priority>,
    pub key: Option<String>,
    pub scope: Option<String>,
    pub weight: u32,
    pub signal: Option<AbortSignal>,
    pub read_body: Option<bool>,
    /// This call's own observer of its records, beside the client's.
    pub on_attempt: Option<JsValue>,
}

fn wrong_type(field: &str, expected: &'static str, value: &JsValue) -> InvalidOption {
    InvalidOption::new(field, Problem::WrongType { expected, found: kind(value) })
}

fn function(field_name: &str, value: &JsValue) -> Result<Option<JsValue>, InvalidOption> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if !value.is_function() {
        return Err(wrong_type(field_name, "a function", value));
    }
    Ok(Some(value.clone()))
}

fn object_fields(options: &JsValue) -> Result<Vec<String>, InvalidOption> {
    if options.is_undefined() || options.is_null() {
        return Ok(Vec::new());
    }
    if !options.is_object() || guard::is_array(options).map_err(|e| unreadable("options", &e))? {
        return Err(wrong_type("options", "an object", options));
    }
    keys(options).map_err(|e| e.within("options"))
}

/// An `AbortSignal` that works: a look-alike whose `aborted` throws is refused here, once.
pub fn signal(field_name: &str, value: JsValue) -> Result<AbortSignal, InvalidOption> {
    let signal = value.dyn_into::<AbortSignal>().map_err(|v| wrong_type(field_name, "an AbortSignal", &v))?;
    abort::aborted(&signal).map_err(|e| unreadable(&super::text::join(&[field_name, ".aborted"]), &e))?;
    Ok(signal)
}

impl ClientOptions {
    pub fn parse(options: &JsValue) -> Result<ClientOptions, JsValue> {
        Self::read(options).map_err(|e| invalid("RetryClient", &e))
    }

    fn read(options: &JsValue) -> Result<ClientOptions, InvalidOption> {
        let mut parsed = ClientOptions {
            policy: Policy::default(),
            budget: None,
            seed: None,
            fetcher: Fetcher::Global,
            on_attempt: None,
            on_escalation: None,
            store: None,
            secrets: Secrets::default(),
            read_body: false,
            draws: Vec::new(),
        };
        for key in object_fields(options)? {
            let value = field(options, &key)?;
            match key.as_str() {
                "policy" => parsed.policy = Policy::from_options(&loose(&value, "policy")?)?,
                "budget" if value.is_undefined() => {}
                "budget" => {
                    parsed.budget = Some(
                        budget::shared(&value)
                            .ok_or_else(|| wrong_type("budget", "a Budget (new Budget())", &value))?,
                    )
                }
                "seed" => parsed.seed = seed(&loose(&value, "seed")?)?,
                "fetch" => {
                    if let Some(f) = function("fetch", &value)? {
                        parsed.fetcher = Fetcher::Given(f);
                    }
                }
                "onAttempt" => parsed.on_attempt = function("onAttempt", &value)?,
                "onEscalation" => parsed.on_escalation = function("onEscalation", &value)?,
                "store" if value.is_undefined() || value.is_null() => {}
                "store" => parsed.store = Some(Store::from_js(&value)?),
                "redact" if value.is_undefined() || value.is_null() => {}
                "redact" => parsed.secrets = Secrets::from_js(&value)?,
                "readBody" => parsed.read_body = flag("readBody", &loose(&value, "readBody")?)?.unwrap_or(false),
                "draws" if value.is_undefined() || value.is_null() => {}
                "draws" => parsed.draws = crate::replay::each("draws", &loose(&value, "draws")?, |_, v| millis("", v))?,
                _ => return Err(InvalidOption::new(&key, Problem::UnknownField)),
            }
        }
        if matches!(parsed.fetcher, Fetcher::Global) {
            let global_fetch = guard::get(&js_sys::global(), "fetch").map_err(|e| unreadable("fetch", &e))?;
            if !global_fetch.is_function() {
                return Err(InvalidOption::new(
                    "fetch",
                    Problem::WrongType { expected: "a function (there is no global fetch)", found: "undefined" },
                ));
            }
        }
        Ok(parsed)
    }
}

fn flag(field: &str, value: &Loose) -> Result<Option<bool>, InvalidOption> {
    match value {
        Loose::Absent => Ok(None),
        Loose::Bool(b) => Ok(Some(*b)),
        other => Err(InvalidOption::new(field, Problem::WrongType { expected: "a boolean", found: other.kind() })),
    }
}

fn seed(value: &Loose) -> Result<Option<u64>, InvalidOption> {
    match value {
        Loose::Absent => Ok(None),
        other => whole("seed", other, 0, MAX_SAFE_INTEGER).map(Some),
    }
}

impl CallOptions {
    pub fn parse(options: &JsValue, policy: &Policy) -> Result<CallOptions, JsValue> {
        Self::read(options, policy).map_err(|e| invalid("fetch options", &e))
    }

    fn read(options: &JsValue, policy: &Policy) -> Result<CallOptions, InvalidOption> {
        let mut call = CallOptions {
            policy: policy.clone(),
            operation: None,
            priority: None,
            key: None,
            scope: None,
            weight: 1,
            signal: None,
            read_body: None,
            on_attempt: None,
        };
        let mut deadline = None;
        for key in object_fields(options)? {
            let value = field(options, &key)?;
            if value.is_undefined() || value.is_null() {
                continue;
            }
            if key == "signal" {
                call.signal = Some(signal("signal", value)?);
                continue;
            }
            if key == "onAttempt" {
                call.on_attempt = function("onAttempt", &value)?;
                continue;
            }
            let given = loose(&value, &key)?;
            match key.as_str() {
                "policy" => call.policy = policy.with_options(&given)?,
                "operation" => call.operation = Some(operation(&given)?),
                "priority" => call.priority = Some(priority(&given)?),
                "key" => call.key = Some(name("key", &given)?),
                "scope" => call.scope = Some(name("scope", &given)?),
                "weight" => call.weight = whole("weight", &given, 1, MAX_WEIGHT)? as u32,
                "deadlineMs" => deadline = Some(millis("deadlineMs", &given)?),
                "readBody" => call.read_body = flag("readBody", &given)?,
                _ => return Err(InvalidOption::new(&key, Problem::UnknownField)),
            }
        }
        if let Some(ms) = deadline {
            // The call's deadline replaces the policy's; a longer attempt timeout is cut to it.
            call.policy = call.policy.with_call_deadline("deadlineMs", ms)?;
        }
        Ok(call)
    }
}

fn operation(value: &Loose) -> Result<OperationKind, InvalidOption> {
    OperationKind::from_name(crate::input::text("operation", value)?)
        .ok_or_else(|| InvalidOption::new("operation", Problem::UnknownName { allowed: OperationKind::NAMES }))
}

fn priority(value: &Loose) -> Result<Priority, InvalidOption> {
    crate::input::text("priority", value)?;
    // The saved-state reader's table; the error keeps this option's own wording.
    Priority::from_loose(value).map_err(|_| {
        InvalidOption::new(
            "priority",
            Problem::UnknownName { allowed: "\"reconcile\", \"order\", \"read\", \"refresh\"" },
        )
    })
}
