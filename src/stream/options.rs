//! `client.stream(url, options)` as far as the core decides it: the reconnect policy, the scope
//! and weight, how the open connection is watched, and the send pace.

use super::{StreamSpec, Watch};
use crate::input::read::{millis, name, whole};
use crate::input::{Invalid, InvalidOption, Loose, Problem};
use crate::policy::Policy;
use crate::text::join;

/// The most messages a second `sendPerSecond` may allow.
const MAX_SEND_PER_SECOND: u64 = 1_000_000;

/// The scope of a stream at `url`: its origin, with `ws:`/`wss:` read as `http:`/`https:` so
/// that the exchange's REST calls and its streams share holds, bans and tokens.
pub fn stream_scope(url: &str) -> Option<String> {
    let (scheme, rest) = match url {
        u if u.starts_with("wss://") => ("https://", u.get(6..)?),
        u if u.starts_with("ws://") => ("http://", u.get(5..)?),
        u => return crate::scope::origin(u),
    };
    crate::scope::origin(&join(&[scheme, rest]))
}

impl StreamSpec {
    /// Reads a stream's options (`Absent`: all defaults) for `url`; an error names its field.
    pub fn read(options: &Loose, url: &str) -> Result<StreamSpec, Invalid> {
        let mut spec = StreamSpec {
            policy: Policy::for_streams(),
            scope: stream_scope(url).unwrap_or_else(|| url.to_owned()),
            weight: 1,
            url: Some(crate::redact::redact_url(url)),
            watch: Watch::default(),
            send_per_second: None,
        };
        if options.is_absent() {
            return Ok(spec);
        }
        for (field, value) in options.fields("options")? {
            if value.is_absent() {
                continue;
            }
            let f = field.as_str();
            let watch = &mut spec.watch;
            match f {
                "policy" => spec.policy = Policy::for_streams().read_over(value)?,
                "scope" => spec.scope = name(f, value)?,
                "weight" => spec.weight = whole(f, value, 1, u64::from(crate::budget::MAX_WEIGHT))? as u32,
                "minUptimeMs" => watch.min_uptime_ms = millis(f, value)?,
                "staleAfterMs" => watch.stale_after_ms = unless_zero(millis(f, value)?),
                "reconnectAfterStaleMs" => watch.reconnect_after_stale_ms = unless_zero(millis(f, value)?),
                "rotateAfterMs" => watch.rotate_after_ms = unless_zero(millis(f, value)?),
                "sendPerSecond" => spec.send_per_second = Some(whole(f, value, 1, MAX_SEND_PER_SECOND)?),
                "stopCodes" => watch.stop_codes = crate::replay::each(f, value, |_, v| close_code(v))?,
                _ => return Err(InvalidOption::boxed(f, Problem::UnknownField)),
            }
        }
        let watch = &spec.watch;
        if let (Some(stale), Some(replace)) = (watch.stale_after_ms, watch.reconnect_after_stale_ms) {
            if replace < stale {
                return Err(InvalidOption::boxed("reconnectAfterStaleMs", Problem::TooSmall { min: stale }));
            }
        }
        Ok(spec)
    }
}

/// A duration where 0 turns the watch off.
fn unless_zero(ms: u64) -> Option<u64> {
    (ms > 0).then_some(ms)
}

/// A WebSocket close code (1000–4999).
fn close_code(value: &Loose) -> Result<u16, Invalid> {
    whole("", value, 1000, 4999).map(|c| c as u16)
}
