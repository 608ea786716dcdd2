//! Property ("fuzz") tests of the core's parsers and of the replay engine.
//!
//! Every property runs `RETRYLINE_FUZZ_CASES` generated cases (default [`DEFAULT_CASES`],
//! a few seconds for the whole file in a debug `cargo test`, which is what `npm test`
//! runs). `npm run fuzz` (scripts/fuzz.mjs) runs the same file in a release build with a
//! count that makes at least 10⁶ cases over all properties.
//!
//! What is checked:
//! * `Retry-After` (`retry_after::parse`, `http_date_ms`): total, never above
//!   `MAX_TIMER_MS`, delta-seconds exact (or clamped), past dates are no wait, and every
//!   IMF-fixdate / RFC 850 / asctime rendering of a random instant reads back as that instant.
//! * Redaction (`redact_url`, `redact_url_with`, `redact_text_with`): total, idempotent, no
//!   secret value gets through (also nested in encoded URLs and query strings, also after
//!   decoding the output), and ordinary values survive.
//! * Options from JavaScript-like values (`Loose` trees, near-valid and arbitrary): no
//!   panic in `Policy`, `BudgetConfig`, `ReplaySpec`, `OperationState`, `Saved`; what is
//!   accepted is valid; restored states drive the machine without panics or late sends.
//! * The replay engine over random valid specs: no attempt past the deadline, no overlap,
//!   at most `maxAttempts` requests, a refusal's reason is the stop reason, and a provider's
//!   `Retry-After` is never shortened.
//!
//! Bugs the properties found are kept, minimal, in [`regressions`].
#![cfg(not(target_arch = "wasm32"))]

use std::time::{Duration, UNIX_EPOCH};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;
use retryline::backoff::MAX_TIMER_MS;
use retryline::budget::{BudgetConfig, Limits};
use retryline::durable::Saved;
use retryline::input::MAX_SAFE_INTEGER;
use retryline::json::FromLoose;
use retryline::redact::{is_secret, redact_text_with, redact_url, redact_url_with};
use retryline::retry_after::{http_date_ms, parse, ProviderWait, RetryAfterForm};
use retryline::{
    replay, Action, Budget, Draws, Loose, Observed, Operation, OperationKind, OperationState, Outcome, Policy,
    Priority, Reason, ReplayReport, ReplaySpec, Start,
};
use serde_json::{json, Value};

/// Cases per property when `RETRYLINE_FUZZ_CASES` is not set.
const DEFAULT_CASES: u32 = 200;

fn cases() -> u32 {
    match std::env::var("RETRYLINE_FUZZ_CASES") {
        Ok(text) => text
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("RETRYLINE_FUZZ_CASES must be a whole number, got {text:?}")),
        Err(_) => DEFAULT_CASES,
    }
}

fn config() -> ProptestConfig {
    let cases = cases();
    ProptestConfig {
        cases,
        // Failures are kept as tests in `regressions`, not in a regressions file.
        failure_persistence: None,
        // Some generators reject inputs (the marker value itself, say).
        max_global_rejects: cases.max(1024),
        max_local_rejects: cases.saturating_mul(4).max(65_536),
        ..ProptestConfig::default()
    }
}

fn loose(value: &Value) -> Loose {
    serde_json::from_value(value.clone()).expect("JSON reads as Loose")
}

fn num(n: u64) -> Loose {
    Loose::Number(n as f64)
}

// ───────────────────────────── HTTP-dates, rendered by hand ─────────────────────────────

/// 9999-12-31T23:59:59Z, the last instant an HTTP-date can name.
const MAX_DATE_S: u64 = 253_402_300_799;
/// 2070-01-01T00:00:00Z: two-digit years (RFC 850) name 1970 to 2069.
const RFC850_END_S: u64 = 3_155_760_000;

const WEEKDAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DateForm {
    ImfFixdate,
    Rfc850,
    Asctime,
}

/// Fields of a Unix time (UTC), by Howard Hinnant's `civil_from_days`.
struct Civil {
    year: i64,
    month: usize,
    day: i64,
    hour: u64,
    minute: u64,
    second: u64,
    weekday: usize,
}

fn civil(secs: u64) -> Civil {
    let days = (secs / 86_400) as i64;
    let of_day = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    Civil {
        year,
        month: month as usize,
        day,
        hour: of_day / 3600,
        minute: of_day % 3600 / 60,
        second: of_day % 60,
        // 1970-01-01 was a Thursday.
        weekday: ((days + 4) % 7) as usize,
    }
}

/// `secs` in `form`; `None` for an RFC 850 date outside 1970–2069 (two-digit years).
fn render_date(secs: u64, form: DateForm) -> Option<String> {
    let c = civil(secs);
    let (wday, mon) = (WEEKDAYS[c.weekday], MONTHS[c.month - 1]);
    let time = format!("{:02}:{:02}:{:02}", c.hour, c.minute, c.second);
    Some(match form {
        DateForm::ImfFixdate => format!("{}, {:02} {mon} {:04} {time} GMT", &wday[..3], c.day, c.year),
        DateForm::Rfc850 if secs < RFC850_END_S => format!("{wday}, {:02}-{mon}-{:02} {time} GMT", c.day, c.year % 100),
        DateForm::Rfc850 => return None,
        DateForm::Asctime => format!("{} {mon} {:>2} {time} {:04}", &wday[..3], c.day, c.year),
    })
}

/// Days from 1970-01-01 to a date (month from 1), by Howard Hinnant's `days_from_civil`.
fn days_from_civil(year: i64, month: usize, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * if m > 2 { m - 3 } else { m + 9 } + 2) / 5 + day - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// The instant the RFC 850 rendering of `secs` names when read at wall clock `wall_ms`. Its
/// two-digit year is the latest year with those digits whose date is not more than fifty years
/// after the clock (RFC 9110 §5.6.7); `None` if that year is before 1970 or after 9999, or has no
/// such day (29 February).
fn rfc850_reading(secs: u64, wall_ms: u64) -> Option<u64> {
    let (at, now) = (civil(secs), civil(wall_ms / 1000));
    let fields = |c: &Civil| (c.month, c.day, c.hour, c.minute, c.second);
    let limit = now.year + 50;
    let mut year = limit - (limit - at.year).rem_euclid(100);
    if year == limit && fields(&at) > fields(&now) {
        year -= 100;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    if !(1970..=9999).contains(&year) || (at.month == 2 && at.day == 29 && !leap) {
        return None;
    }
    u64::try_from(days_from_civil(year, at.month, at.day) * 86_400 + (secs % 86_400) as i64).ok()
}

/// `secs` rendered in `form` (IMF-fixdate where RFC 850 cannot name it), and the instant it
/// names when read at wall clock `wall_ms`.
fn rendered_at(secs: u64, form: DateForm, wall_ms: u64) -> (String, Option<u64>) {
    match render_date(secs, form) {
        Some(text) if form == DateForm::Rfc850 => (text, rfc850_reading(secs, wall_ms)),
        Some(text) => (text, Some(secs)),
        None => (render_date(secs, DateForm::ImfFixdate).unwrap_or_default(), Some(secs)),
    }
}

fn date_forms() -> impl Strategy<Value = DateForm> {
    prop::sample::select(vec![DateForm::ImfFixdate, DateForm::Rfc850, DateForm::Asctime])
}

/// Instants an HTTP-date can name, with the edges (epoch, leap days, 2069/2070, 9999) often.
fn date_secs() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 0..=MAX_DATE_S,
        3 => 1_500_000_000u64..2_200_000_000,
        1 => prop::sample::select(vec![
            0,
            59,
            86_399,
            86_400,
            68_169_600,    // 1972-02-29
            951_782_400,   // 2000-02-29
            951_868_799,   // 2000-02-29T23:59:59
            4_107_542_400, // 2100-03-01 (2100 is not a leap year)
            RFC850_END_S - 1,
            RFC850_END_S,
            MAX_DATE_S - 86_400,
            MAX_DATE_S,
        ]),
    ]
}

/// A wall clock (Unix ms): anything, plausible, or near the ends of the date range.
fn wall_clocks() -> impl Strategy<Value = u64> {
    prop_oneof![
        1 => any::<u64>(),
        2 => 0..=(MAX_DATE_S + 1) * 1000,
        2 => 1_500_000_000_000u64..2_200_000_000_000,
        1 => prop::sample::select(vec![0, 999, 1000, MAX_DATE_S * 1000, MAX_SAFE_INTEGER, u64::MAX]),
    ]
}

/// Optional whitespace as RFC 9110 §5.6.3 allows it around a field value.
fn ows() -> impl Strategy<Value = String> {
    "[ \t]{0,3}"
}

/// The wait `parse` owes: `ms`, or the largest timer (clamped) beyond it.
fn bounded(ms: u128, form: RetryAfterForm) -> ProviderWait {
    if ms > u128::from(MAX_TIMER_MS) {
        ProviderWait { wait_ms: MAX_TIMER_MS, form: RetryAfterForm::Clamped }
    } else {
        ProviderWait { wait_ms: ms as u64, form }
    }
}

/// The value of a string of ASCII digits, saturating.
fn decimal(digits: &str) -> u128 {
    digits.bytes().fold(0u128, |n, b| n.saturating_mul(10).saturating_add(u128::from(b - b'0')))
}

/// A valid date with a few characters replaced: reaches deep into the date parsers.
fn mutated_dates() -> impl Strategy<Value = String> {
    let replacement = prop::sample::select(vec![
        '0', '1', '2', '3', '5', '6', '9', ' ', '\t', ',', ':', '-', 'G', 'M', 'T', 'x', 'é', '\u{0}',
    ]);
    (date_secs(), date_forms(), prop::collection::vec((any::<Index>(), replacement), 0..3)).prop_map(
        |(secs, form, edits)| {
            let mut chars: Vec<char> =
                render_date(secs, form).unwrap_or_else(|| "Sun, 06 Nov 1994 08:49:37 GMT".into()).chars().collect();
            for (at, c) in edits {
                let i = at.index(chars.len());
                chars[i] = c;
            }
            chars.into_iter().collect()
        },
    )
}

const DATE_TOKENS: &[&str] = &[
    "Sun", "Sunday", "Mon", "Thu", "Thursday", ",", ", ", " ", "  ", "\t", "-", "06", "6", "29", "31", "00", "Nov",
    "Feb", "Dec", "94", "69", "70", "1994", "2000", "2100", "1969", "1900", "0000", "9999", "08:49:37", "23:59:60",
    "24:00:00", ":", "GMT", "UTC", "+0000", "é", "٣", "\u{0}", "\r\n",
];

const NUMBER_TOKENS: &[&str] =
    &["0", "1", "9", "00", "120", "2147483", "2147484", "18446744073709551616", "-", "+", ".", "e", " ", "\t", "x"];

fn soup(tokens: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(tokens), 0..max).prop_map(|parts| parts.concat())
}

/// Header values: arbitrary text, token soups, damaged dates and digit strings.
fn header_texts() -> BoxedStrategy<String> {
    prop_oneof![
        2 => any::<String>(),
        2 => "\\PC{0,40}",
        3 => soup(DATE_TOKENS, 14),
        2 => soup(NUMBER_TOKENS, 6),
        3 => mutated_dates(),
        2 => (ows(), "[0-9]{1,25}", ows()).prop_map(|(a, d, b)| format!("{a}{d}{b}")),
    ]
    .boxed()
}

// ─────────────────────────────────── Redaction ───────────────────────────────────

/// Parameter names the built-in list must catch, before variation.
const SECRET_NAMES: &[&str] = &[
    "signature",
    "sig",
    "apiKey",
    "api_key",
    "API-KEY",
    "key",
    "token",
    "access_token",
    "refreshToken",
    "client_secret",
    "secret",
    "password",
    "passphrase",
    "pwd",
    "auth",
    "authorization",
    "credential",
    "credentials",
    "hmac",
    "jwt",
    "sessionid",
    "session_id",
    "cookie",
    "otp",
    "code",
    "X-MBX-APIKEY",
    "privateKey",
    "auth[token]",
];

/// Names that must not be taken for secrets (checked by `ordinary_names_are_not_secret`).
const ORDINARY_NAMES: &[&str] = &[
    "symbol",
    "limit",
    "side",
    "type",
    "interval",
    "price",
    "quantity",
    "timestamp",
    "recvWindow",
    "countryCode",
    "lang",
    "page",
    "q",
    "id",
    "orderId",
    "next",
    "redirect",
    "state",
    "callback",
    "return_to",
    "u",
    "url",
];

/// Names only the caller's own predicate ([`extra`]) calls secret.
const CUSTOM_NAMES: &[&str] = &["traceId", "myParam"];

fn extra(name: &str) -> bool {
    name.eq_ignore_ascii_case("traceid") || name == "myParam"
}

/// `encodeURIComponent`.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-decoding (and `+` as space) until nothing changes: what a reader of the output could recover.
fn decode_all(text: &str) -> String {
    decode_rounds(text, 16)
}

/// `rounds` rounds of percent-decoding, fewer if nothing changes.
fn decode_rounds(text: &str, rounds: usize) -> String {
    let mut current = text.to_owned();
    for _ in 0..rounds {
        let bytes = current.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match (bytes[i], hex) {
                (b'%', Some(byte)) if bytes[i + 1].is_ascii_hexdigit() && bytes[i + 2].is_ascii_hexdigit() => {
                    out.push(byte);
                    i += 3;
                }
                (b'+', _) => {
                    out.push(b' ');
                    i += 1;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        let next = String::from_utf8_lossy(&out).into_owned();
        if next == current {
            break;
        }
        current = next;
    }
    current
}

/// A name with some characters percent-encoded, once or twice, in either hex case.
fn percent_some(name: &str, picks: &[(Index, u8, bool)]) -> String {
    let mut tokens: Vec<String> = name.chars().map(String::from).collect();
    for (at, times, upper) in picks {
        if tokens.is_empty() {
            break;
        }
        let i = at.index(tokens.len());
        if tokens[i].len() != 1 {
            continue;
        }
        let mut t = tokens[i].clone();
        for _ in 0..*times {
            t = t.bytes().map(|b| if *upper { format!("%{b:02X}") } else { format!("%{b:02x}") }).collect();
        }
        tokens[i] = t;
    }
    tokens.concat()
}

fn percent_picks() -> impl Strategy<Value = Vec<(Index, u8, bool)>> {
    prop::collection::vec((any::<Index>(), 1u8..=2, any::<bool>()), 0..3)
}

/// A built-in secret name in another case, with separators inside, a prefix or suffix
/// (not for `code`, secret only as a whole) and percent-encoded characters.
fn secret_names() -> impl Strategy<Value = String> {
    (
        prop::sample::select(SECRET_NAMES),
        prop::collection::vec(any::<bool>(), 1..16),
        prop::collection::vec((any::<Index>(), prop::sample::select(vec!['_', '-', '.', '+'])), 0..3),
        prop::sample::select(vec!["", "", "x", "my", "user_", "X-", "client."]),
        prop::sample::select(vec!["", "", "Id", "_v2", "[0]", "s"]),
        percent_picks(),
    )
        .prop_map(|(base, flips, separators, prefix, suffix, picks)| {
            let mut chars: Vec<char> =
                base.chars().enumerate().map(|(i, c)| if flips[i % flips.len()] { swap_case(c) } else { c }).collect();
            for (at, separator) in separators {
                let i = at.index(chars.len() + 1);
                chars.insert(i, separator);
            }
            let core: String = chars.into_iter().collect();
            let name = if base == "code" { core } else { format!("{prefix}{core}{suffix}") };
            percent_some(&name, &picks)
        })
}

fn swap_case(c: char) -> char {
    if c.is_ascii_uppercase() {
        c.to_ascii_lowercase()
    } else {
        c.to_ascii_uppercase()
    }
}

fn custom_names() -> impl Strategy<Value = String> {
    (prop::sample::select(CUSTOM_NAMES), percent_picks()).prop_map(|(name, picks)| percent_some(name, &picks))
}

/// Secret values: an upper-case letter then upper-case letters and digits, so that no
/// ordinary value (lower case) or name can contain one by chance.
fn secret_values() -> impl Strategy<Value = String> {
    "[A-Z][A-Z0-9]{7,19}".prop_filter("the marker itself", |v| v != "REDACTED")
}

fn ordinary_values() -> impl Strategy<Value = String> {
    "[a-z0-9._~-]{1,12}"
}

#[derive(Clone, Debug)]
enum Val {
    Plain(String),
    Secret(String),
    /// Secret to [`extra`] only.
    Custom(String),
    /// `inner`, percent-encoded `times` times (1 to 3: the redactor decodes three rounds).
    Nested {
        times: u8,
        inner: Inner,
    },
}

#[derive(Clone, Debug)]
struct Param {
    name: String,
    value: Val,
    /// Separated from the one before by `;` instead of `&`.
    semicolon: bool,
}

#[derive(Clone, Debug)]
enum Inner {
    Url {
        /// Empty for a relative URL (a path and a query).
        scheme: &'static str,
        /// `user:password@`, the password secret.
        user_info: Option<(String, String)>,
        host: &'static str,
        path: &'static str,
        query: Option<Vec<Param>>,
        /// A fragment holding a secret.
        fragment: Option<(bool, String)>,
    },
    Query(Vec<Param>),
}

fn params(depth: u32) -> BoxedStrategy<Vec<Param>> {
    prop::collection::vec(param(depth), 0..5).boxed()
}

fn param(depth: u32) -> BoxedStrategy<Param> {
    let secret = (secret_names(), secret_values()).prop_map(|(n, v)| (n, Val::Secret(v))).boxed();
    let custom = (custom_names(), secret_values()).prop_map(|(n, v)| (n, Val::Custom(v))).boxed();
    let plain = (prop::sample::select(ORDINARY_NAMES), ordinary_values())
        .prop_map(|(n, v)| (n.to_owned(), Val::Plain(v)))
        .boxed();
    let mut choices = vec![(3, secret), (1, custom), (4, plain)];
    if depth > 0 {
        let nested = (prop::sample::select(ORDINARY_NAMES), 1u8..=3, inner(depth - 1))
            .prop_map(|(n, times, inner)| (n.to_owned(), Val::Nested { times, inner }))
            .boxed();
        choices.push((3, nested));
    }
    (prop::strategy::Union::new_weighted(choices), prop::bool::weighted(0.2))
        .prop_map(|((name, value), semicolon)| Param { name, value, semicolon })
        .boxed()
}

/// URLs with a query `depth` levels deep; `relative` ones (a path and a query) too.
fn urls(depth: u32, relative: bool) -> BoxedStrategy<Inner> {
    let schemes = if relative { vec!["https", "http", "wss", "", ""] } else { vec!["https", "http", "wss"] };
    (
        prop::sample::select(schemes),
        prop::option::weighted(0.15, ("[a-z]{1,6}", secret_values())),
        prop::sample::select(vec!["x.test", "api.x.test:8443", "y.test"]),
        prop::sample::select(vec!["", "/", "/api/v3/order", "/cb"]),
        prop::option::weighted(0.9, params(depth)),
        prop::option::weighted(0.1, (any::<bool>(), secret_values())),
    )
        .prop_map(|(scheme, user_info, host, path, query, fragment)| Inner::Url {
            scheme,
            user_info: user_info.filter(|_| !scheme.is_empty()),
            host,
            path: if scheme.is_empty() && path.is_empty() { "/" } else { path },
            query,
            // A relative path with a `#` is not recognizably a URL: its fragment is no secret's place.
            fragment: fragment.filter(|_| !scheme.is_empty()),
        })
        .boxed()
}

fn inner(depth: u32) -> BoxedStrategy<Inner> {
    prop_oneof![urls(depth, true), params(depth).prop_map(Inner::Query)].boxed()
}

fn render_inner(inner: &Inner) -> String {
    match inner {
        Inner::Url { scheme, user_info, host, path, query, fragment } => {
            let mut out = String::new();
            if !scheme.is_empty() {
                out.push_str(&format!("{scheme}://"));
                if let Some((user, password)) = user_info {
                    out.push_str(&format!("{user}:{password}@"));
                }
                out.push_str(host);
            }
            out.push_str(path);
            if let Some(query) = query {
                out.push('?');
                out.push_str(&render_params(query));
            }
            if let Some((as_param, secret)) = fragment {
                out.push_str(&if *as_param { format!("#token={secret}") } else { format!("#{secret}") });
            }
            out
        }
        Inner::Query(query) => render_params(query),
    }
}

fn render_params(query: &[Param]) -> String {
    let mut out = String::new();
    for (i, p) in query.iter().enumerate() {
        if i > 0 {
            out.push(if p.semicolon { ';' } else { '&' });
        }
        out.push_str(&p.name);
        out.push('=');
        match &p.value {
            Val::Plain(v) | Val::Secret(v) | Val::Custom(v) => out.push_str(v),
            Val::Nested { times, inner } => {
                let mut v = render_inner(inner);
                for _ in 0..*times {
                    v = encode(&v);
                }
                out.push_str(&v);
            }
        }
    }
    out
}

/// Values by what must become of them.
#[derive(Default)]
struct Values {
    secret: Vec<String>,
    custom: Vec<String>,
    plain: Vec<String>,
}

fn collect(inner: &Inner, into: &mut Values) {
    let query = match inner {
        Inner::Url { user_info, query, fragment, .. } => {
            into.secret.extend(user_info.iter().map(|(_, p)| p.clone()));
            into.secret.extend(fragment.iter().map(|(_, s)| s.clone()));
            query.as_deref().unwrap_or_default()
        }
        Inner::Query(query) => query,
    };
    for p in query {
        match &p.value {
            Val::Plain(v) => into.plain.push(v.clone()),
            Val::Secret(v) => into.secret.push(v.clone()),
            Val::Custom(v) => into.custom.push(v.clone()),
            Val::Nested { inner, .. } => collect(inner, into),
        }
    }
}

const URL_TOKENS: &[&str] = &[
    "https://",
    "http://",
    "://",
    "x.test",
    "/",
    "?",
    "&",
    ";",
    "=",
    "#",
    "@",
    ":",
    "%",
    "%2",
    "%25",
    "%3D",
    "%26",
    "%3F",
    "%23",
    "%3A%2F%2F",
    "%40",
    "%2B",
    "%7",
    "%74oken",
    "+",
    " ",
    "\t",
    "\n",
    "é",
    "ß",
    "İ",
    "ẞ",
    "😀",
    "\u{0}",
    "%C3",
    "%A9",
    "%C3%A9",
    "%FF",
    "%E2%82",
    "%ZZ",
    "token",
    "key",
    "sig",
    "code",
    "apiKey",
    "api_key",
    "next",
    "a",
    "Z",
    "0",
    "9",
    "REDACTED",
    "'",
    "\"",
    "<",
    ">",
    "`",
    "user:pw@",
];

fn url_soups() -> BoxedStrategy<String> {
    prop_oneof![
        4 => soup(URL_TOKENS, 24),
        1 => any::<String>(),
        1 => "\\PC{0,30}",
        // A valid URL with a few characters replaced.
        2 => (urls(2, false), prop::collection::vec((any::<Index>(), prop::sample::select(URL_TOKENS)), 1..4)).prop_map(
            |(url, edits)| {
                let mut tokens: Vec<String> = render_inner(&url).chars().map(String::from).collect();
                for (at, token) in edits {
                    let i = at.index(tokens.len().max(1));
                    if i < tokens.len() {
                        tokens[i] = token.to_owned();
                    }
                }
                tokens.concat()
            }
        ),
    ]
    .boxed()
}

// ─────────────────────────── Loose values, as from JavaScript ───────────────────────────

const KEYS: &[&str] = &[
    // policy
    "baseDelayMs",
    "maxDelayMs",
    "jitter",
    "maxAttempts",
    "attemptTimeoutMs",
    "deadlineMs",
    "retryOn",
    "retryAfterSpreadMs",
    // budget
    "capacity",
    "refillPerSecond",
    "reserve",
    "usedWeightHeader",
    "retryQuota",
    "scopes",
    "retryCost",
    "timeoutCost",
    "successCredit",
    // replay
    "policy",
    "operation",
    "seed",
    "draws",
    "outcomes",
    "wallClockMs",
    "afterMs",
    "status",
    "retryAfter",
    "date",
    "error",
    // durable state and records
    "version",
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
    "wakeAtWallMs",
    "record",
    "stop",
    "reason",
    "atMs",
    "attempt",
    "decision",
    "decidedAtMs",
    "startMs",
    "endMs",
    "outcome",
    "windowMs",
    "sampledDelayMs",
    "providerWaitMs",
    "budgetWaitMs",
    "plannedWaitMs",
    "evidence",
    "pending",
    "storeError",
    "limit",
    "owner",
    "leaseUntilMs",
    "escalated",
    "lastEvidence",
    "state",
    "__proto__",
    "",
];

const TEXTS: &[&str] = &[
    "",
    "full",
    "equal",
    "decorrelated",
    "none",
    "Full",
    "read",
    "idempotent",
    "order",
    "refresh",
    "reconcile",
    "timeout",
    "network-error",
    "sent",
    "refused",
    "idle",
    "sleeping",
    "in-flight",
    "stopped",
    "success",
    "retryable",
    "throttled",
    "non-retryable",
    "attempts",
    "deadline",
    "provider-wait",
    "budget",
    "banned",
    "rate-limited",
    "unknown-outcome",
    "aborted",
    "store",
    "response",
    "interrupted",
    "tokens",
    "retry-quota",
    "filled",
    "partially-filled",
    "open",
    "canceled",
    "rejected",
    "not-found",
    "body",
    "request-body",
    "query",
    "lease",
    "store-get",
    "store-set",
    "store-delete",
    "seconds",
    "date",
    "unparseable",
    "clamped",
    "120",
    "1e3",
    "-1",
    "Sun, 06 Nov 1994 08:49:37 GMT",
    "X-MBX-USED-WEIGHT-1M",
    "GET",
    "POST",
    "https://u:p@x.test/a?token=1#f",
    "é",
    "\u{0}",
];

const SPECIAL_NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    0.5,
    1.0,
    1.5,
    -1.0,
    2.0,
    99.0,
    100.0,
    418.0,
    599.0,
    600.0,
    1e-9,
    0.999_999,
    10_000.0,
    10_001.0,
    2_147_483_647.0,
    2_147_483_648.0,
    4_294_967_295.0,
    4_294_967_296.0,
    1e12,
    1e12 + 1.0,
    9_007_199_254_740_991.0,
    9_007_199_254_740_992.0,
    9_007_199_254_740_994.0,
    9_223_372_036_854_775_808.0,
    -9_223_372_036_854_775_808.0,
    18_446_744_073_709_551_616.0,
    1e300,
    -1e300,
    f64::MIN_POSITIVE,
    f64::MAX,
    f64::MIN,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

fn numbers() -> BoxedStrategy<f64> {
    prop_oneof![
        4 => (0u64..100).prop_map(|n| n as f64),
        3 => (0u64..100_000).prop_map(|n| n as f64),
        1 => (-1000i64..0).prop_map(|n| n as f64),
        2 => prop::sample::select(SPECIAL_NUMBERS),
        1 => any::<f64>(),
        1 => 0.0f64..10_000.0,
        1 => 0.0f64..1.0,
    ]
    .boxed()
}

fn texts() -> BoxedStrategy<String> {
    prop_oneof![3 => prop::sample::select(TEXTS).prop_map(str::to_owned), 1 => "\\PC{0,12}"].boxed()
}

fn keys() -> BoxedStrategy<String> {
    prop_oneof![6 => prop::sample::select(KEYS).prop_map(str::to_owned), 1 => "\\PC{0,8}"].boxed()
}

fn leaves() -> BoxedStrategy<Loose> {
    prop_oneof![
        1 => Just(Loose::Absent),
        1 => any::<bool>().prop_map(Loose::Bool),
        4 => numbers().prop_map(Loose::Number),
        3 => texts().prop_map(Loose::Text),
        1 => prop::sample::select(vec!["a function", "a symbol", "a bigint"]).prop_map(Loose::Other),
    ]
    .boxed()
}

/// Any JavaScript-like value, up to a few levels deep.
fn trees() -> BoxedStrategy<Loose> {
    leaves()
        .prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Loose::List),
                prop::collection::vec((keys(), inner), 0..6).prop_map(Loose::Map),
            ]
        })
        .boxed()
}

/// An object with some of `fields` (each usually a plausible value, sometimes anything),
/// in any order, sometimes with a stray field; rarely not an object at all.
fn object(fields: Vec<(&'static str, BoxedStrategy<Loose>)>) -> BoxedStrategy<Loose> {
    let present: Vec<BoxedStrategy<Option<(String, Loose)>>> = fields
        .into_iter()
        .map(|(key, value)| {
            prop::option::weighted(0.6, prop_oneof![12 => value, 1 => trees()])
                .prop_map(move |v| v.map(|v| (key.to_owned(), v)))
                .boxed()
        })
        .collect();
    let map = (present, prop::option::weighted(0.08, (keys(), trees())))
        .prop_flat_map(|(present, stray)| {
            let mut entries: Vec<(String, Loose)> = present.into_iter().flatten().collect();
            entries.extend(stray);
            Just(entries).prop_shuffle()
        })
        .prop_map(Loose::Map);
    prop_oneof![40 => map, 1 => trees()].boxed()
}

fn whole_in(range: std::ops::Range<u64>) -> BoxedStrategy<Loose> {
    prop_oneof![6 => range.prop_map(num), 1 => numbers().prop_map(Loose::Number)].boxed()
}

fn names(list: &'static [&'static str]) -> BoxedStrategy<Loose> {
    prop_oneof![6 => prop::sample::select(list).prop_map(|s| Loose::Text(s.to_owned())), 1 => leaves()].boxed()
}

const STATUSES: &[u16] = &[
    100, 101, 199, 200, 201, 204, 301, 304, 399, 400, 401, 402, 403, 404, 408, 413, 418, 422, 429, 451, 499, 500, 501,
    502, 503, 504, 505, 599,
];

fn policy_options() -> BoxedStrategy<Loose> {
    let statuses = prop_oneof![
        6 => prop::sample::select(STATUSES).prop_map(|s| num(u64::from(s))),
        1 => leaves(),
    ];
    object(vec![
        ("baseDelayMs", whole_in(0..5000)),
        ("maxDelayMs", whole_in(0..40_000)),
        ("jitter", names(&["full", "equal", "decorrelated", "none"])),
        ("maxAttempts", whole_in(1..20)),
        ("attemptTimeoutMs", whole_in(1..10_000)),
        ("deadlineMs", whole_in(1..100_000)),
        ("retryOn", prop::collection::vec(statuses, 0..6).prop_map(Loose::List).boxed()),
        ("retryAfterSpreadMs", whole_in(0..3000)),
    ])
}

fn budget_options() -> BoxedStrategy<Loose> {
    let limits = || {
        vec![
            ("capacity", whole_in(1..1000)),
            (
                "refillPerSecond",
                prop_oneof![4 => (0.0001f64..100.0).prop_map(Loose::Number), 1 => numbers().prop_map(Loose::Number)]
                    .boxed(),
            ),
            (
                "reserve",
                prop_oneof![4 => (0.0f64..1.0).prop_map(Loose::Number), 1 => numbers().prop_map(Loose::Number)].boxed(),
            ),
            ("usedWeightHeader", names(&["X-MBX-USED-WEIGHT-1M", "x-used", ""])),
        ]
    };
    let quota = prop_oneof![
        2 => any::<bool>().prop_map(Loose::Bool),
        3 => object(vec![
            ("capacity", whole_in(0..1000)),
            ("retryCost", whole_in(0..20)),
            ("timeoutCost", whole_in(0..20)),
            ("successCredit", whole_in(0..5)),
        ]),
    ]
    .boxed();
    let scopes = prop::collection::vec((prop_oneof!["[a-z]{1,3}", "\\PC{0,4}"], object(limits())), 0..3)
        .prop_map(Loose::Map)
        .boxed();
    let mut fields = limits();
    fields.push(("retryQuota", quota));
    fields.push(("scopes", scopes));
    object(fields)
}

fn spec_options() -> BoxedStrategy<Loose> {
    let outcome = object(vec![
        ("afterMs", whole_in(0..10_000)),
        (
            "status",
            prop_oneof![6 => prop::sample::select(STATUSES).prop_map(|s| num(u64::from(s))), 1 => leaves()].boxed(),
        ),
        (
            "retryAfter",
            prop_oneof![3 => (0u64..100).prop_map(num), 3 => header_texts().prop_map(Loose::Text), 1 => leaves()]
                .boxed(),
        ),
        ("date", prop_oneof![3 => mutated_dates().prop_map(Loose::Text), 1 => leaves()].boxed()),
        ("error", names(&["timeout", "network-error"])),
    ]);
    object(vec![
        ("policy", policy_options()),
        ("operation", names(&["read", "idempotent", "order"])),
        ("seed", whole_in(0..u64::from(u32::MAX))),
        (
            "draws",
            prop_oneof![6 => prop::collection::vec(whole_in(0..40_000), 0..6).prop_map(Loose::List), 1 => leaves()]
                .boxed(),
        ),
        (
            "outcomes",
            prop_oneof![6 => prop::collection::vec(outcome, 0..8).prop_map(Loose::List), 1 => leaves()].boxed(),
        ),
        (
            "wallClockMs",
            prop_oneof![3 => (0..=MAX_DATE_S * 1000).prop_map(num), 1 => numbers().prop_map(Loose::Number)].boxed(),
        ),
    ])
}

fn holds_other(v: &Loose) -> bool {
    match v {
        Loose::Other(_) => true,
        Loose::List(items) => items.iter().any(holds_other),
        Loose::Map(entries) => entries.iter().any(|(_, v)| holds_other(v)),
        _ => false,
    }
}

/// The fields of an object as the parsers read them: `Absent` skipped, the last of a repeated name wins.
fn given<'a>(options: &'a Loose, field: &str) -> Option<&'a Loose> {
    let Loose::Map(entries) = options else { return None };
    entries.iter().rev().find(|(k, v)| k == field && *v != Loose::Absent).map(|(_, v)| v)
}

/// An accepted policy is valid, holds what it was given, and reads back from its own JSON.
fn check_policy(policy: &Policy, options: &Loose) -> Result<(), TestCaseError> {
    prop_assert!(policy.max_delay_ms() >= policy.base_delay_ms(), "{policy:?}");
    prop_assert!(policy.attempt_timeout_ms() <= policy.deadline_ms(), "{policy:?}");
    prop_assert!(policy.attempt_timeout_ms() >= 1, "{policy:?}");
    prop_assert!((1..=10_000).contains(&policy.max_attempts()), "{policy:?}");
    prop_assert!(policy.retry_on().iter().all(|s| (100..=599).contains(s) && !(200..=399).contains(s)), "{policy:?}");
    for (field, got) in [
        ("baseDelayMs", policy.base_delay_ms()),
        ("maxDelayMs", policy.max_delay_ms()),
        ("attemptTimeoutMs", policy.attempt_timeout_ms()),
        ("deadlineMs", policy.deadline_ms()),
        ("retryAfterSpreadMs", policy.retry_after_spread_ms()),
        ("maxAttempts", u64::from(policy.max_attempts())),
    ] {
        if let Some(Loose::Number(x)) = given(options, field) {
            // Fractions of a millisecond round up: a wait is never shortened.
            prop_assert_eq!(got, x.ceil() as u64, "{}", field);
        }
    }
    if let Some(Loose::List(items)) = given(options, "retryOn") {
        let want: Vec<u16> = items.iter().map(|i| if let Loose::Number(x) = i { *x as u16 } else { 0 }).collect();
        prop_assert_eq!(policy.retry_on(), &want[..]);
    }
    let again = Policy::from_options(&loose(&serde_json::to_value(policy).expect("a policy serializes")));
    prop_assert_eq!(again.as_ref(), Ok(policy), "a policy reads back from its own JSON");
    Ok(())
}

fn check_limits(limits: &Limits) -> Result<(), TestCaseError> {
    if let Some(capacity) = limits.capacity {
        prop_assert!((1..=1_000_000_000_000).contains(&capacity), "{limits:?}");
        prop_assert!(limits.refill_milli >= 1, "a capacity refills: {limits:?}");
    }
    prop_assert!(limits.reserve_permille < 1000, "{limits:?}");
    if let Some(header) = &limits.used_weight_header {
        prop_assert!(!header.is_empty() && *header == header.to_ascii_lowercase(), "{limits:?}");
    }
    Ok(())
}

// ───────────────────────────── The machine on a virtual clock ─────────────────────────────

/// A scripted request: how long it takes and what it yields.
fn scripted_outcomes() -> impl Strategy<Value = Vec<(u64, Outcome)>> {
    let one = (
        prop_oneof![3 => 0u64..2000, 1 => 0u64..100_000],
        prop::sample::select(STATUSES),
        prop::option::weighted(0.3, prop_oneof![(0u64..30).prop_map(|s| s.to_string()), header_texts()]),
        prop::sample::select(vec![
            None,
            None,
            None,
            Some(Observed::Timeout),
            Some(Observed::NetworkError),
            Some(Observed::Interrupted),
        ]),
    )
        .prop_map(|(took, status, retry_after, failure)| {
            let outcome = match failure {
                Some(observed) => Outcome::failure(observed),
                None => Outcome { retry_after, ..Outcome::response(status) },
            };
            (took, outcome)
        });
    prop::collection::vec(one, 0..10)
}

/// Drives `op` from `action` through `script` (then 200s); every request it sends must be
/// able to finish before its deadline.
fn drive(
    op: &mut Operation,
    mut action: Action,
    mut now: u64,
    wall_at_zero: u64,
    script: &[(u64, Outcome)],
    draws: &mut Draws,
    budget: &mut Budget,
) -> Result<(), TestCaseError> {
    let mut script = script.iter().cloned();
    for _ in 0..256 {
        match action {
            Action::Send { timeout_ms, attempt } => {
                prop_assert!(timeout_ms >= 1);
                prop_assert!(
                    now.saturating_add(timeout_ms) <= op.deadline_at(),
                    "attempt {attempt} sent at {now} with timeout {timeout_ms} past the deadline {}",
                    op.deadline_at()
                );
                let (took, outcome) = script.next().unwrap_or((0, Outcome::response(200)));
                let (took, outcome) =
                    if took > timeout_ms { (timeout_ms, Outcome::failure(Observed::Timeout)) } else { (took, outcome) };
                now = now.saturating_add(took);
                action = op.on_outcome(now, wall_at_zero.saturating_add(now), &outcome, draws, budget);
            }
            Action::Sleep { until } => {
                now = now.max(until);
                action = op.on_wake(now, budget);
            }
            Action::Stop(_) => return Ok(()),
        }
    }
    Ok(())
}

/// What a report must show (DESIGN.md §2). `provider_min(k, t)` is the provider's minimum
/// wait announced by the response to the `k`-th request (from 0), received at `t`.
fn check_replay(
    policy: &Policy,
    kind: OperationKind,
    report: &ReplayReport,
    provider_min: &dyn Fn(usize, u64) -> Option<u64>,
) -> Result<(), TestCaseError> {
    let (deadline, timeout, max) = (policy.deadline_ms(), policy.attempt_timeout_ms(), policy.max_attempts());
    let records = &report.records;
    let sent: Vec<(usize, &retryline::AttemptRecord)> =
        records.iter().enumerate().filter(|(_, r)| r.is_sent()).collect();
    prop_assert_eq!(report.wire_requests as usize, sent.len());
    prop_assert!(report.wire_requests <= max, "{} requests, maxAttempts {max}", report.wire_requests);
    prop_assert!(report.stop.at_ms <= deadline, "stopped at {} after the deadline {deadline}", report.stop.at_ms);
    for (k, (_, r)) in sent.iter().enumerate() {
        prop_assert_eq!(r.attempt as usize, k + 1);
        let Some(end) = r.end_ms else {
            return Err(TestCaseError::fail(format!("sent attempt {} has no end", r.attempt)));
        };
        prop_assert!(r.decided_at_ms <= r.start_ms && r.start_ms <= end, "{r:?}");
        prop_assert!(end <= deadline, "attempt {} ends at {end}, after the deadline {deadline}", r.attempt);
        if k > 0 {
            prop_assert!(
                r.start_ms.checked_add(timeout).is_some_and(|e| e <= deadline),
                "retry {} starts at {} with timeout {timeout}: past the deadline {deadline}",
                r.attempt,
                r.start_ms
            );
        }
    }
    for w in sent.windows(2) {
        prop_assert!(
            w[0].1.end_ms.unwrap_or(u64::MAX) <= w[1].1.start_ms,
            "attempts overlap: {:?} {:?}",
            w[0].1,
            w[1].1
        );
    }
    for r in records {
        prop_assert!(r.planned_wait_ms >= r.provider_wait_ms, "planned wait shorter than the provider's: {r:?}");
    }
    let refused: Vec<usize> = records.iter().enumerate().filter(|(_, r)| !r.is_sent()).map(|(i, _)| i).collect();
    prop_assert!(refused.len() <= 1, "more than one refusal");
    match (refused.first(), records.last()) {
        (Some(&i), _) => {
            prop_assert_eq!(i, records.len() - 1, "a refusal is the last record");
            prop_assert_eq!(records[i].reason, Some(report.stop.reason));
        }
        (None, Some(last)) => prop_assert_eq!(last.reason, Some(report.stop.reason)),
        (None, None) => prop_assert!(false, "no records"),
    }
    for (k, &(i, r)) in sent.iter().enumerate() {
        let next = records.get(i + 1);
        // A 429 after an honoured provider wait ends the loop.
        if r.reason == Some(Reason::Throttled) && r.provider_wait_ms > 0 {
            prop_assert!(
                next.is_some_and(|n| !n.is_sent() && n.reason == Some(Reason::RateLimited)),
                "a second throttle after a provider wait must stop with rate-limited: {next:?}"
            );
        }
        if r.outcome != Some(Observed::Response) {
            continue;
        }
        let t = r.end_ms.unwrap_or_default();
        let (Some(min), Some(next)) = (provider_min(k, t), next) else { continue };
        prop_assert!(
            next.provider_wait_ms >= min,
            "Retry-After of {min} ms at {t} recorded as {}: {next:?}",
            next.provider_wait_ms
        );
        if next.is_sent() {
            prop_assert!(
                next.start_ms >= t.saturating_add(min),
                "Retry-After shortened: {min} ms from {t}, next attempt at {}",
                next.start_ms
            );
        } else if min > 0 && t.saturating_add(min).checked_add(timeout).map_or(true, |e| e > deadline) {
            prop_assert!(
                !matches!(next.reason, Some(Reason::Deadline | Reason::Budget)),
                "a provider wait that cannot fit stops with provider-wait, not {:?}",
                next.reason
            );
        }
    }
    if report.stop.reason == Reason::Success {
        let status = sent.last().and_then(|(_, r)| r.status);
        prop_assert!(status.is_some_and(|s| (200..400).contains(&s)), "success with status {status:?}");
    }
    if kind == OperationKind::Order {
        // An order is repeated only after a 429, which is rejected before execution.
        for w in sent.windows(2) {
            prop_assert_eq!(w[0].1.status, Some(429));
        }
    }
    Ok(())
}

/// `parse` as the oracle of a spec's provider minimums (for specs not built by this file).
fn provider_min_by_parse(spec: &ReplaySpec) -> impl Fn(usize, u64) -> Option<u64> + '_ {
    let wall_zero = spec.wall_clock_ms.unwrap_or(retryline::replay::DEFAULT_WALL_CLOCK_MS);
    move |k, t| {
        let o = spec.outcomes.get(k)?;
        let value = match &o.retry_after {
            Loose::Text(s) => s.clone(),
            Loose::Number(x) => (*x as u64).to_string(),
            _ => return None,
        };
        let wait = parse(&value, o.date.as_deref(), wall_zero.saturating_add(t));
        (wait.form != RetryAfterForm::Unparseable).then_some(wait.wait_ms)
    }
}

/// A `Retry-After` as a replay spec carries it, with the wait it must impose.
#[derive(Clone, Debug)]
enum RetryAfterGen {
    None,
    /// Delta-seconds as a string (with OWS) or a JSON number.
    Seconds {
        value: Value,
        seconds: u128,
    },
    /// An HTTP-date at `at_ms` (as read at the wall clock it was rendered for), in RFC 850 form or not.
    Date {
        text: String,
        at_ms: u64,
        rfc850: bool,
    },
    Garbage(&'static str),
}

#[derive(Clone, Debug)]
enum DateGen {
    None,
    Valid { text: String, ms: u64, rfc850: bool },
    Garbage(&'static str),
}

#[derive(Clone, Debug)]
struct OutcomeGen {
    after_ms: u64,
    status: Option<u16>,
    retry_after: RetryAfterGen,
    date: DateGen,
    error: Option<&'static str>,
}

impl OutcomeGen {
    fn json(&self) -> Value {
        let mut o = serde_json::Map::new();
        o.insert("afterMs".into(), json!(self.after_ms));
        if let Some(status) = self.status {
            o.insert("status".into(), json!(status));
        }
        match &self.retry_after {
            RetryAfterGen::None => {}
            RetryAfterGen::Seconds { value, .. } => _ = o.insert("retryAfter".into(), value.clone()),
            RetryAfterGen::Date { text, .. } => _ = o.insert("retryAfter".into(), json!(text)),
            RetryAfterGen::Garbage(text) => _ = o.insert("retryAfter".into(), json!(text)),
        }
        match &self.date {
            DateGen::None => {}
            DateGen::Valid { text, .. } => _ = o.insert("date".into(), json!(text)),
            DateGen::Garbage(text) => _ = o.insert("date".into(), json!(text)),
        }
        if let Some(error) = self.error {
            o.insert("error".into(), json!(error));
        }
        Value::Object(o)
    }

    /// The wait this response imposes, received at wall-clock `wall_ms`.
    fn provider_min(&self, wall_ms: u64) -> Option<u64> {
        let ms = match &self.retry_after {
            RetryAfterGen::None | RetryAfterGen::Garbage(_) => return None,
            RetryAfterGen::Seconds { seconds, .. } => seconds.saturating_mul(1000),
            RetryAfterGen::Date { at_ms, rfc850, .. } => {
                // Received much later than rendered, an RFC 850 date may name another century.
                let read = |ms: u64, rfc850: bool| match rfc850 {
                    true => rfc850_reading(ms / 1000, wall_ms).map(|s| s * 1000),
                    false => Some(ms),
                };
                let at_ms = read(*at_ms, *rfc850)?;
                let reference = match &self.date {
                    DateGen::Valid { ms, rfc850, .. } => read(*ms, *rfc850).unwrap_or(wall_ms),
                    _ => wall_ms,
                };
                u128::from(at_ms.saturating_sub(reference))
            }
        };
        // Clamped to the largest timer, as DESIGN.md §2 allows for absurd values.
        Some(bounded(ms, RetryAfterForm::Seconds).wait_ms)
    }
}

const GARBAGE: &[&str] = &["", "soon", "-5", "+5", "1.5", "2s", "0x10", "NaN", "Sun, 32 Nov 1994 08:49:37 GMT", "٣"];

fn outcome_gens(wall_zero: u64) -> impl Strategy<Value = OutcomeGen> {
    let wall_s = wall_zero / 1000;
    let date_at = move |offset: i64| (wall_s as i64 + offset).clamp(0, MAX_DATE_S as i64) as u64;
    let seconds = prop_oneof![
        6 => 0u64..8,
        3 => 0u64..30,
        2 => 0u64..100_000,
        1 => Just(2_147_483u64),
        1 => Just(2_147_484u64),
        1 => 0..=MAX_SAFE_INTEGER,
    ];
    let retry_after = prop_oneof![
        5 => Just(RetryAfterGen::None),
        4 => (seconds.clone(), ows(), ows()).prop_map(|(s, a, b)| RetryAfterGen::Seconds { value: json!(format!("{a}{s}{b}")), seconds: u128::from(s) }),
        2 => seconds.prop_map(|s| RetryAfterGen::Seconds { value: json!(s), seconds: u128::from(s) }),
        1 => "[0-9]{20,30}".prop_map(|d| RetryAfterGen::Seconds { seconds: decimal(&d), value: json!(d) }),
        3 => (-5i64..30, date_forms(), ows()).prop_map(move |(offset, form, pad)| {
            let secs = date_at(offset);
            let rfc850 = form == DateForm::Rfc850 && secs < RFC850_END_S;
            let text = render_date(secs, form).or_else(|| render_date(secs, DateForm::ImfFixdate)).unwrap_or_default();
            RetryAfterGen::Date { text: format!("{pad}{text}"), at_ms: secs * 1000, rfc850 }
        }),
        1 => prop::sample::select(GARBAGE).prop_map(RetryAfterGen::Garbage),
    ];
    let date = prop_oneof![
        4 => Just(DateGen::None),
        2 => (-3600i64..3600, date_forms()).prop_map(move |(skew, form)| {
            let secs = date_at(skew);
            let rfc850 = form == DateForm::Rfc850 && secs < RFC850_END_S;
            let text = render_date(secs, form).or_else(|| render_date(secs, DateForm::ImfFixdate)).unwrap_or_default();
            DateGen::Valid { text, ms: secs * 1000, rfc850 }
        }),
        1 => prop::sample::select(&["yesterday", "", "Sun, 06 Nov 1994 25:49:37 GMT"][..]).prop_map(DateGen::Garbage),
    ];
    let after = prop_oneof![4 => 0u64..3000, 2 => 0u64..20_000, 1 => 0..=MAX_SAFE_INTEGER];
    let status = prop::option::weighted(
        0.9,
        prop_oneof![3 => prop::sample::select(vec![408u16, 429, 429, 500, 502, 503, 504]), 2 => prop::sample::select(STATUSES)],
    );
    let error =
        prop::sample::select(vec![None, None, None, None, None, None, None, Some("timeout"), Some("network-error")]);
    (after, status, retry_after, date, error).prop_map(|(after_ms, status, retry_after, date, error)| OutcomeGen {
        after_ms,
        status,
        retry_after,
        date,
        error,
    })
}

/// A valid policy as JSON: usually everyday values, sometimes extreme ones.
fn policy_json() -> BoxedStrategy<Value> {
    let jitter = prop::sample::select(vec!["full", "equal", "decorrelated", "none"]);
    // A valid retryOn lists failures: 200-399 is always a success, and refused there.
    let failures: Vec<u16> = STATUSES.iter().copied().filter(|s| !(200..=399).contains(s)).collect();
    let retry_on = prop::option::weighted(0.3, prop::collection::vec(prop::sample::select(failures), 0..6));
    let big = || {
        prop_oneof![
            2 => 0u64..10_000,
            1 => prop::sample::select(vec![0, 1, 2_147_483_647, 2_147_483_648, 1 << 40, MAX_SAFE_INTEGER / 2]),
            1 => 0..=MAX_SAFE_INTEGER / 2,
        ]
    };
    let everyday = (0u64..3000, 0u64..30_000, 1u32..12, 1u64..8000, 0u64..60_000, prop_oneof![0u64..1, 0u64..3000])
        .prop_map(|(base, extra, attempts, timeout, slack, spread)| {
            (base, base + extra, attempts, timeout, timeout + slack, spread)
        });
    let extreme = (big(), big(), prop_oneof![1u32..30, 9990u32..=10_000], big(), big(), big()).prop_map(
        |(base, extra, attempts, timeout, slack, spread)| {
            let timeout = timeout.max(1);
            (base, base + extra, attempts, timeout, timeout + slack, spread)
        },
    );
    (prop_oneof![4 => everyday, 1 => extreme], jitter, retry_on)
        .prop_map(|((base, max, attempts, timeout, deadline, spread), jitter, retry_on)| {
            let mut p = json!({
                "baseDelayMs": base, "maxDelayMs": max, "jitter": jitter, "maxAttempts": attempts,
                "attemptTimeoutMs": timeout, "deadlineMs": deadline, "retryAfterSpreadMs": spread,
            });
            if let Some(retry_on) = retry_on {
                p["retryOn"] = json!(retry_on);
            }
            p
        })
        .boxed()
}

#[derive(Clone, Debug)]
struct SpecGen {
    json: Value,
    wall_zero: u64,
    outcomes: Vec<OutcomeGen>,
}

fn spec_gens() -> impl Strategy<Value = SpecGen> {
    let wall = prop_oneof![
        2 => Just(None),
        4 => (1_500_000_000_000u64..2_200_000_000_000).prop_map(Some),
        1 => (0..=MAX_DATE_S * 1000).prop_map(Some),
        1 => prop::sample::select(vec![0, MAX_DATE_S * 1000, MAX_SAFE_INTEGER]).prop_map(Some),
    ];
    wall.prop_flat_map(|wall| {
        let wall_zero = wall.unwrap_or(retryline::replay::DEFAULT_WALL_CLOCK_MS);
        let draws =
            prop::collection::vec(prop_oneof![8 => 0u64..3000, 2 => 0u64..40_000, 1 => 0..=MAX_SAFE_INTEGER], 0..8);
        (
            policy_json(),
            prop::sample::select(vec![None, Some("read"), Some("idempotent"), Some("order")]),
            0..=MAX_SAFE_INTEGER,
            draws,
            prop::collection::vec(outcome_gens(wall_zero), 0..12),
        )
            .prop_map(move |(policy, operation, seed, draws, outcomes)| {
                let mut spec = json!({
                    "policy": policy, "seed": seed, "draws": draws,
                    "outcomes": outcomes.iter().map(OutcomeGen::json).collect::<Vec<_>>(),
                });
                if let Some(operation) = operation {
                    spec["operation"] = json!(operation);
                }
                if let Some(wall) = wall {
                    spec["wallClockMs"] = json!(wall);
                }
                SpecGen { json: spec, wall_zero, outcomes }
            })
    })
}

// ───────────────────────────── Saved states, valid then damaged ─────────────────────────────

/// A saved operation taken at a random point of a random run, as JSON.
fn saved_jsons() -> impl Strategy<Value = Value> {
    (
        policy_json(),
        prop::sample::select(vec![OperationKind::Read, OperationKind::Idempotent, OperationKind::Order]),
        prop::sample::select(vec![Priority::Refresh, Priority::Read, Priority::Order, Priority::Reconcile]),
        (1u32..4, prop::option::of("[a-z0-9-]{1,8}"), prop::option::of(prop::sample::select(vec!["GET", "POST"]))),
        prop::option::of(prop::sample::select(vec![
            "https://x.test/a?token=T&b=1",
            "https://u:p@x.test/",
            "/rel?sig=1",
        ])),
        (0u64..1_000_000, 1_500_000_000_000u64..2_200_000_000_000),
        scripted_outcomes(),
        (0usize..12, any::<bool>(), any::<u64>()),
    )
        .prop_map(
            |(policy, kind, priority, (weight, key, method), url, (now, wall), script, (steps, abort, seed))| {
                let policy = Policy::from_options(&loose(&policy)).expect("a valid policy");
                let start = Start {
                    policy,
                    kind,
                    priority,
                    scope: "s".into(),
                    weight,
                    key,
                    method: method.map(str::to_owned),
                    url: url.map(str::to_owned),
                };
                let mut budget = Budget::unlimited();
                let mut draws = Draws::seeded(seed);
                let mut op = Operation::begin(start, now, wall);
                let mut now_ = now;
                let mut script = script.into_iter();
                let mut action = op.start(now_, &mut draws, &mut budget);
                for _ in 0..steps {
                    match action {
                        Action::Send { timeout_ms, .. } => {
                            let (took, outcome) = script.next().unwrap_or((0, Outcome::response(200)));
                            now_ += took.min(timeout_ms);
                            action = op.on_outcome(now_, wall - now + now_, &outcome, &mut draws, &mut budget);
                        }
                        Action::Sleep { until } => {
                            now_ = now_.max(until);
                            action = op.on_wake(now_, &mut budget);
                        }
                        Action::Stop(_) => break,
                    }
                }
                if abort {
                    op.abort(now_, &mut budget);
                }
                let saved = Saved::of(&op, "owner-a", now_, wall - now + now_, &budget);
                serde_json::to_value(saved).expect("a saved state serializes")
            },
        )
}

/// Every number in `v` is one a JavaScript number holds exactly.
fn exact_in_javascript(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_u64().map_or(true, |n| n <= MAX_SAFE_INTEGER),
        Value::Array(items) => items.iter().all(exact_in_javascript),
        Value::Object(entries) => entries.values().all(exact_in_javascript),
        _ => true,
    }
}

/// One change to a value tree, at the node `at` (pre-order, modulo the tree's size).
#[derive(Clone, Debug)]
enum Mutation {
    Replace(Loose),
    Remove,
    Number(f64),
    Text(String),
    Add(String, Loose),
    DuplicateFirst,
}

fn mutations() -> impl Strategy<Value = (usize, Mutation)> {
    let mutation = prop_oneof![
        2 => trees().prop_map(Mutation::Replace),
        2 => Just(Mutation::Remove),
        3 => numbers().prop_map(Mutation::Number),
        2 => texts().prop_map(Mutation::Text),
        1 => (keys(), leaves()).prop_map(|(k, v)| Mutation::Add(k, v)),
        1 => Just(Mutation::DuplicateFirst),
    ];
    (any::<usize>(), mutation)
}

fn size(v: &Loose) -> usize {
    1 + match v {
        Loose::List(items) => items.iter().map(size).sum(),
        Loose::Map(entries) => entries.iter().map(|(_, v)| size(v)).sum(),
        _ => 0,
    }
}

/// Applies `m` to the node `*at` counts down to; true once applied.
fn mutate(node: &mut Loose, at: &mut usize, m: &Mutation) -> bool {
    if *at == 0 {
        match m {
            Mutation::Replace(v) => *node = v.clone(),
            Mutation::Remove => *node = Loose::Absent,
            Mutation::Number(x) => *node = Loose::Number(*x),
            Mutation::Text(s) => *node = Loose::Text(s.clone()),
            Mutation::Add(k, v) => match node {
                Loose::Map(entries) => entries.push((k.clone(), v.clone())),
                Loose::List(items) => items.push(v.clone()),
                other => *other = v.clone(),
            },
            Mutation::DuplicateFirst => match node {
                Loose::Map(entries) if !entries.is_empty() => entries.push(entries[0].clone()),
                Loose::List(items) if !items.is_empty() => items.push(items[0].clone()),
                _ => {}
            },
        }
        return true;
    }
    *at -= 1;
    let children: Vec<&mut Loose> = match node {
        Loose::List(items) => items.iter_mut().collect(),
        Loose::Map(entries) => entries.iter_mut().map(|(_, v)| v).collect(),
        _ => return false,
    };
    let mut remove = None;
    for (i, child) in children.into_iter().enumerate() {
        if *at == 0 && matches!(m, Mutation::Remove) {
            remove = Some(i);
            break;
        }
        if mutate(child, at, m) {
            return true;
        }
    }
    match (remove, node) {
        (Some(i), Loose::List(items)) => _ = items.remove(i),
        (Some(i), Loose::Map(entries)) => _ = entries.remove(i),
        _ => return false,
    }
    true
}

// ─────────────────────────────────────── Properties ───────────────────────────────────────

mod properties {
    use super::*;

    proptest! {
        #![proptest_config(config())]

        /// `parse` and `http_date_ms` are total, and what they return is coherent.
        #[test]
        fn retry_after_parsing_is_total(value in header_texts(), date in prop::option::of(header_texts()), wall in wall_clocks()) {
            let w = parse(&value, date.as_deref(), wall);
            prop_assert!(w.wait_ms <= MAX_TIMER_MS);
            let trimmed = value.trim_matches([' ', '\t']);
            let digits = !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit());
            let at = http_date_ms(&value, wall);
            let reference = date.as_deref().and_then(|date| http_date_ms(date, wall));
            for ms in [at, reference].into_iter().flatten() {
                // A leap second after the last instant is the second after it.
                prop_assert!(ms % 1000 == 0 && ms <= (MAX_DATE_S + 1) * 1000, "{ms}");
            }
            let expected = if digits {
                bounded(decimal(trimmed).saturating_mul(1000), RetryAfterForm::Seconds)
            } else if let Some(at) = at {
                bounded(u128::from(at.saturating_sub(reference.unwrap_or(wall))), RetryAfterForm::Date)
            } else {
                ProviderWait { wait_ms: 0, form: RetryAfterForm::Unparseable }
            };
            prop_assert_eq!(w, expected, "{:?} with Date {:?} at {}", value, date, wall);
        }

        /// Delta-seconds are exact: n seconds wait n × 1000 ms, or the largest timer beyond it,
        /// whatever the `Date` header says.
        #[test]
        fn delay_seconds_are_exact(
            digits in prop_oneof![any::<u64>().prop_map(|n| n.to_string()), (0u64..3_000_000).prop_map(|n| n.to_string()), "[0-9]{1,30}"],
            (before, after) in (ows(), ows()),
            date in prop::option::of(header_texts()),
            wall in wall_clocks(),
        ) {
            let w = parse(&format!("{before}{digits}{after}"), date.as_deref(), wall);
            prop_assert_eq!(w, bounded(decimal(&digits) * 1000, RetryAfterForm::Seconds));
        }

        /// Every rendering of a random instant in each of the three forms reads back as that
        /// instant (RFC 850's two-digit year as the wall clock names its century), and waits until
        /// it from the `Date` header (if valid) or the wall clock.
        #[test]
        fn http_dates_read_back_in_all_three_forms(
            secs in date_secs(),
            form in date_forms(),
            (before, after) in (ows(), ows()),
            wall in wall_clocks(),
            // A `Date` header, with the instant it names when it is a valid one.
            header in prop_oneof![
                2 => Just(None),
                2 => (date_secs(), date_forms()).prop_map(|(s, f)| Some(Ok((s, f)))),
                1 => prop::sample::select(GARBAGE).prop_map(|g| Some(Err(g))),
            ],
        ) {
            let Some(text) = render_date(secs, form) else {
                prop_assert!(form == DateForm::Rfc850 && secs >= RFC850_END_S);
                return Ok(());
            };
            if form == DateForm::ImfFixdate {
                prop_assert_eq!(&text, &httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(secs)));
            }
            let value = format!("{before}{text}{after}");
            let named = if form == DateForm::Rfc850 { rfc850_reading(secs, wall) } else { Some(secs) };
            prop_assert_eq!(http_date_ms(&value, wall), named.map(|s| s * 1000), "{:?} at {}", value, wall);
            let header = header.map(|h| match h {
                Ok((s, f)) => rendered_at(s, f, wall),
                Err(garbage) => (garbage.to_owned(), None),
            });
            let header_text = header.as_ref().map(|(text, _)| text.as_str());
            let reference = header.as_ref().and_then(|(_, s)| *s).map_or(wall, |s| s * 1000);
            let w = parse(&value, header_text, wall);
            let Some(at) = named.map(|s| s * 1000) else {
                prop_assert_eq!(w, ProviderWait { wait_ms: 0, form: RetryAfterForm::Unparseable });
                return Ok(());
            };
            prop_assert_eq!(w, bounded(u128::from(at.saturating_sub(reference)), RetryAfterForm::Date));
            if at <= reference {
                prop_assert_eq!(w, ProviderWait { wait_ms: 0, form: RetryAfterForm::Date }, "a past date is no wait");
            }
        }

        /// Redaction never panics and is idempotent, on anything.
        #[test]
        fn redaction_is_total_and_idempotent(text in url_soups()) {
            let once = redact_url(&text);
            prop_assert_eq!(redact_url(&once), once.clone(), "redact_url({:?})", text);
            prop_assert!(!once.contains('#'), "a fragment survived: {:?}", once);
            let once = redact_url_with(&text, &extra);
            prop_assert_eq!(redact_url_with(&once, &extra), once, "redact_url_with({:?})", text);
            let once = redact_text_with(&text, &extra);
            prop_assert_eq!(redact_text_with(&once, &extra), once, "redact_text_with({:?})", text);
        }

        /// No secret value gets through (not even percent-encoded), ordinary values do, and
        /// redacting the output again changes nothing.
        #[test]
        fn redaction_hides_every_secret(url in urls(2, false)) {
            let url_text = render_inner(&url);
            let mut values = Values::default();
            collect(&url, &mut values);
            let message = format!("GET {url_text} failed: connection reset");
            for (out, hidden, kept) in [
                (redact_url_with(&url_text, &extra), [&values.secret, &values.custom], [&values.plain, &vec![]]),
                (redact_url(&url_text), [&values.secret, &vec![]], [&values.plain, &values.custom]),
                (redact_text_with(&message, &extra), [&values.secret, &values.custom], [&values.plain, &vec![]]),
            ] {
                let decoded = decode_all(&out);
                for secret in hidden.into_iter().flatten() {
                    prop_assert!(!decoded.contains(secret.as_str()), "{secret} leaks from {url_text}\n into {out}");
                }
                for value in kept.into_iter().flatten() {
                    prop_assert!(out.contains(value.as_str()), "{value} lost from {url_text}\n in {out}");
                }
            }
            let once = redact_url_with(&url_text, &extra);
            prop_assert_eq!(redact_url_with(&once, &extra), once);
        }

        /// Policies from near-valid options: no panic; what is accepted is valid and holds what was given.
        #[test]
        fn policy_options_are_read_safely(options in policy_options()) {
            if let Ok(policy) = Policy::from_options(&options) {
                check_policy(&policy, &options)?;
            }
        }

        /// Budget configurations: no panic; what is accepted is valid and can run an operation.
        #[test]
        fn budget_options_are_read_safely(options in budget_options(), script in scripted_outcomes(), seed in any::<u64>()) {
            let Ok(config) = BudgetConfig::from_options(&options) else { return Ok(()) };
            check_limits(&config.limits)?;
            for (_, limits) in &config.scopes {
                check_limits(limits)?;
            }
            let scope = config.scopes.first().map_or("s".to_owned(), |(name, _)| name.clone());
            let mut budget = Budget::new(config);
            let policy = Policy::from_options(&loose(&json!({ "maxAttempts": 6, "baseDelayMs": 100, "maxDelayMs": 2000 }))).expect("a policy");
            let start = Start { policy, kind: OperationKind::Read, priority: Priority::Read, scope, weight: 1, key: None, method: None, url: None };
            let mut draws = Draws::seeded(seed);
            let mut op = Operation::begin(start, 0, retryline::replay::DEFAULT_WALL_CLOCK_MS);
            let action = op.start(0, &mut draws, &mut budget);
            drive(&mut op, action, 0, retryline::replay::DEFAULT_WALL_CLOCK_MS, &script, &mut draws, &mut budget)?;
        }

        /// Replay specs from near-valid options: both ways of reading agree, and what is accepted
        /// replays within the rules.
        #[test]
        fn replay_spec_options_are_read_safely(options in spec_options()) {
            let direct = ReplaySpec::from_options(&options);
            let via_serde = options.read::<ReplaySpec>();
            match (&direct, &via_serde) {
                (Ok(a), Ok(b)) => prop_assert_eq!(replay(a.clone()), replay(b.clone())),
                // A value no JSON holds (a function, a BigInt) stops serde before the field checks.
                (Err(a), Err(b)) if !holds_other(&options) => prop_assert_eq!(a.to_string(), b.to_string()),
                (Err(_), Err(_)) => {}
                _ => prop_assert!(false, "the two readings disagree: {direct:?} / {via_serde:?}"),
            }
            if let Ok(spec) = direct {
                let report = replay(spec.clone());
                check_replay(&spec.policy, spec.operation, &report, &provider_min_by_parse(&spec))?;
            }
        }

        /// Anything at all: no parser panics, and an accepted policy is valid.
        #[test]
        fn arbitrary_values_never_panic(value in trees()) {
            if let Ok(policy) = Policy::from_options(&value) {
                check_policy(&policy, &value)?;
            }
            if let Ok(config) = BudgetConfig::from_options(&value) {
                check_limits(&config.limits)?;
            }
            let _ = ReplaySpec::from_options(&value);
            let _ = value.read::<ReplaySpec>();
            let _ = value.read::<Policy>();
            let _ = value.read::<OperationState>();
            let _ = value.read::<Saved>();
            let _ = <Saved as FromLoose>::from_loose(&value);
            let _ = <OperationState as FromLoose>::from_loose(&value);
        }

        /// Saved states, valid or damaged: reading never panics, a valid one reads back as
        /// itself, and whatever is accepted restores and runs without panics or late sends.
        #[test]
        fn saved_states_are_read_and_restored_safely(
            saved in saved_jsons(),
            damage in prop::collection::vec(mutations(), 0..4),
            (later, clock_skew) in (0u64..100_000, -100_000i64..100_000),
            script in scripted_outcomes(),
            seed in any::<u64>(),
        ) {
            let mut tree = loose(&saved);
            for (at, m) in &damage {
                let mut at = at % size(&tree);
                mutate(&mut tree, &mut at, m);
            }
            // Read as the wasm shell reads it (hand-written), not through serde.
            let as_saved = <Saved as FromLoose>::from_loose(&tree);
            let state_tree = given(&tree, "state").cloned().unwrap_or(Loose::Absent);
            let as_state = <OperationState as FromLoose>::from_loose(&state_tree);
            // Intact, it reads back as itself (JavaScript numbers hold integers up to 2^53 − 1 only).
            if damage.is_empty() && exact_in_javascript(&saved) {
                let original: Saved = serde_json::from_value(saved.clone()).expect("serde_json reads it");
                prop_assert_eq!(as_saved.as_ref(), Ok(&original));
                prop_assert_eq!(as_state.as_ref(), Ok(&original.state));
            }
            for state in [as_saved.ok().map(|s| s.state), as_state.ok()].into_iter().flatten() {
                let now = 5_000_000 + later;
                let wall = state.saved_at_wall_ms.saturating_add_signed(clock_skew);
                let mut budget = Budget::unlimited();
                let mut draws = Draws::seeded(seed);
                let Ok(mut op) = Operation::restore(state, now, wall, &mut budget) else { continue };
                let action = op.resume(now, wall, &mut draws, &mut budget);
                drive(&mut op, action, now, wall.saturating_sub(now), &script, &mut draws, &mut budget)?;
            }
        }

        /// The replay engine over random valid specs keeps every promise of DESIGN.md §2.
        #[test]
        fn replay_keeps_its_promises(generated in spec_gens()) {
            let spec = ReplaySpec::from_options(&loose(&generated.json));
            prop_assert!(spec.is_ok(), "a valid spec was refused: {:?}", spec.err());
            let spec = spec.unwrap_or_default();
            let report = replay(spec.clone());
            let wall_zero = generated.wall_zero;
            let outcomes = &generated.outcomes;
            let independent = |k: usize, t: u64| outcomes.get(k).and_then(|o| o.provider_min(wall_zero.saturating_add(t)));
            check_replay(&spec.policy, spec.operation, &report, &independent)?;
            // The library's own reading of each Retry-After agrees with the generator's.
            let by_parse = provider_min_by_parse(&spec);
            for r in report.records.iter().filter(|r| r.is_sent() && r.outcome == Some(Observed::Response)) {
                let (k, t) = (r.attempt as usize - 1, r.end_ms.unwrap_or_default());
                prop_assert_eq!(by_parse(k, t), independent(k, t), "outcome {}", k);
            }
        }
    }
}

// ───────────────────────────────── Sanity of the generators ─────────────────────────────────

#[test]
fn ordinary_names_are_not_secret_and_secret_names_are() {
    for name in ORDINARY_NAMES {
        assert!(!is_secret(name), "{name}");
    }
    for name in SECRET_NAMES {
        assert!(is_secret(name), "{name}");
    }
    for name in CUSTOM_NAMES {
        assert!(!is_secret(name) && extra(name), "{name}");
    }
}

#[test]
fn hand_rendered_dates_match_rfc_9110_examples() {
    let example = 784_111_777; // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110 §5.6.7)
    assert_eq!(render_date(example, DateForm::ImfFixdate).unwrap(), "Sun, 06 Nov 1994 08:49:37 GMT");
    assert_eq!(render_date(example, DateForm::Rfc850).unwrap(), "Sunday, 06-Nov-94 08:49:37 GMT");
    assert_eq!(render_date(example, DateForm::Asctime).unwrap(), "Sun Nov  6 08:49:37 1994");
    assert_eq!(render_date(MAX_DATE_S, DateForm::ImfFixdate).unwrap(), "Fri, 31 Dec 9999 23:59:59 GMT");
    assert_eq!(render_date(RFC850_END_S, DateForm::Rfc850), None);
}

#[test]
fn mutations_reach_every_node() {
    let tree = loose(&json!({ "a": [1, { "b": 2 }], "c": "x" }));
    let n = size(&tree);
    assert_eq!(n, 6);
    for at in 0..n {
        let mut t = tree.clone();
        let mut i = at;
        assert!(mutate(&mut t, &mut i, &Mutation::Remove), "{at}");
        assert_ne!(t, tree, "{at}");
    }
}

/// Bugs the properties found, as minimal cases (all fixed; they fail if one comes back).
mod regressions {
    use super::*;

    /// src/redact.rs `redact_value`: a value was read as a URL or a query string by where the
    /// first `://` stood, even one of a deeper, still-encoded level; re-encoding that level
    /// changed the reading, so a second pass redacted what the first had kept (`traceId`).
    /// Found by `redaction_is_total_and_idempotent` in the 10^6-case run.
    #[test]
    fn a_scheme_deeper_down_does_not_decide_how_a_value_is_read() {
        let url = "https://x.test?symbol=%2F%3FtraceId%3DAAAAA0AA%26signature%3DAAA0AAA0%26symbol%3Dsignature%253Dhttps://0AA00AA%2526signature%253DAA0AAA0A#AAA0A0A0";
        let once = redact_url_with(url, &extra);
        assert_eq!(redact_url_with(&once, &extra), once, "{url}");
        assert!(!decode_all(&once).contains("AAAAA0AA"), "the caller's traceId is redacted the first time: {once}");
    }

    fn spec(json: Value) -> ReplaySpec {
        ReplaySpec::from_options(&loose(&json)).expect("a valid spec")
    }

    /// src/redact.rs `redact_pair`: a decoded value holding `://` or `?` goes to `url_at` even
    /// when it is a query string (`token=…&next=https://…`, `token=…&next=/home?x=1`); `url_at`
    /// keeps everything before the first `?` as the URL's head, unread, so the query string's own
    /// parameters are never redacted. Found by `redaction_hides_every_secret` (the `?` forms by
    /// `redaction_is_total_and_idempotent`: the `#…` cut makes the second pass differ).
    #[test]
    fn a_query_string_carrying_a_url_leaks_its_secrets() {
        for url in [
            "https://x.test/cb?state=signature%3DA1B2C3D4%26next%3Dhttps%253A%252F%252Fy.test%252Fhome",
            "https://x.test/cb?state=token%3DA1B2C3D4%26next%3Dhttps%3A%2F%2Fy.test%2Fhome",
            // No URL at all, a `?` is enough: a relative `next`, or a `?` after a `#`.
            "https://x.test/cb?state=token%3DA1B2C3D4%26next%3D%2Fhome%3Fx%3D1",
            "https://x.test/cb?state=sig%3DA1B2C3D4%23%3F",
        ] {
            let out = redact_url(url);
            assert!(!decode_all(&out).contains("A1B2C3D4"), "{url}\n → {out}");
        }
    }

    /// src/redact.rs `redact_pair`/`decode_fully`: a value is decoded up to three rounds at
    /// once, so the `%2523` (`#`) of a URL nested one level deeper becomes a `#` of the outer
    /// value, and `url_at` cuts everything after it: `page=2` is lost (over-redaction, no leak).
    /// Found by `redaction_hides_every_secret` (ordinary values must survive).
    #[test]
    fn a_fragment_two_levels_down_cuts_off_the_rest_of_its_parent() {
        let url =
            "https://x.test/?next=https%3A%2F%2Fy.test%2F%3Fu%3Dhttps%253A%252F%252Fz.test%252F%2523top%26page%3D2";
        let out = redact_url(url);
        assert!(decode_all(&out).contains("page=2"), "{url}\n → {out}");
    }

    /// src/redact.rs `redact_pair`: a value decoded three rounds is re-encoded once, so a value
    /// encoded four times or more reads differently the second time (`sig=1` then surfaces and
    /// goes). Such values are also not searched at all: their secrets pass (the documented "a
    /// few rounds at most"). Found by `redaction_is_total_and_idempotent`.
    #[test]
    fn a_value_encoded_four_times_is_redacted_differently_twice() {
        let url = "https://x.test/?q=%2525253Fsig%3D1%3Fsig%3DA";
        let once = redact_url(url);
        assert_eq!(redact_url(&once), once, "{url}");
    }

    /// src/machine.rs: refusals decided before the gate — `propose`'s `maxAttempts` check
    /// (`Reason::Attempts`) and `on_outcome`'s `Reason::Banned`/`Reason::RateLimited` — keep the
    /// proposed record's `plannedWaitMs` (the draw alone), below its `providerWaitMs`, so the
    /// record says the attempt would have started before the provider's boundary. Found by
    /// `replay_keeps_its_promises` (plannedWaitMs ≥ providerWaitMs).
    #[test]
    fn a_refusal_before_the_gate_understates_the_providers_wait() {
        let policy = json!({ "baseDelayMs": 0, "maxDelayMs": 0, "maxAttempts": 1, "attemptTimeoutMs": 500, "deadlineMs": 20_000 });
        let cases = [
            (json!({ "policy": policy, "outcomes": [{ "status": 503, "retryAfter": "1" }] }), Reason::Attempts),
            (
                json!({ "policy": { "maxAttempts": 3 }, "draws": [0], "outcomes": [{ "status": 418, "retryAfter": "1" }] }),
                Reason::Banned,
            ),
        ];
        for (json, reason) in cases {
            let report = replay(spec(json));
            let refused = report.records.last().expect("a refusal");
            assert_eq!(refused.reason, Some(reason));
            assert_eq!(refused.provider_wait_ms, 1000);
            assert!(
                refused.planned_wait_ms >= refused.provider_wait_ms && refused.start_ms >= 1000,
                "{reason:?}: planned {} ms, would start at {} ms, provider wait {} ms",
                refused.planned_wait_ms,
                refused.start_ms,
                refused.provider_wait_ms
            );
        }
    }
}
