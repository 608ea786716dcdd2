//! One worksheet row: the plan's decisions beside what only the family knows, and the flags a
//! risk reviewer must see (as js/api/worksheet.js computes them).

use super::{Match, Plan};
use crate::budget::Priority;
use crate::classify::OperationKind;
use crate::policy::Policy;
use crate::reason::Reason;
use crate::text::{join, number};

/// The provider's documentation of a family: its page, the ISO date (YYYY-MM-DD) it was read,
/// and the statuses it documents as final (the worksheet flags a policy that retries them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Docs {
    /// The provider's page.
    pub url: Option<String>,
    /// When it was last read against the configuration: an ISO date, YYYY-MM-DD.
    pub checked: Option<String>,
    /// The statuses the provider documents as final (`docs.final` in JavaScript).
    pub final_statuses: Vec<u16>,
}

/// Days from 1970-01-01 to the ISO date `date` (YYYY-MM-DD), if it is one (Hinnant's days_from_civil).
pub fn iso_day(date: &str) -> Option<i64> {
    let b = date.as_bytes();
    let digits = |r: core::ops::Range<usize>| -> Option<i64> {
        b.get(r)?.iter().try_fold(0i64, |n, d| d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0')))
    };
    let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days_in = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let valid = b.len() == 10 && b[4] == b'-' && b[7] == b'-' && (1..=12).contains(&m);
    if !valid || d < 1 || d > *days_in.get(m as usize - 1)? {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let (era, mp) = (y.div_euclid(400), (m + 9) % 12);
    let doe = (y - era * 400) * 365 + (y - era * 400) / 4 - (y - era * 400) / 100 + (153 * mp + 2) / 5 + d - 1;
    Some(era * 146_097 + doe - 719_468)
}

/// What only the family knows, for its row: its name, match, scope, weight and docs.
pub struct Declared<'a> {
    /// Its name.
    pub name: &'a str,
    /// Which requests it takes.
    pub matcher: &'a Match,
    /// Its scope, if it names one (else the origin its pattern names).
    pub scope: Option<&'a str>,
    /// Its weight is a function of the request: the row says "by request".
    pub weight_by_request: bool,
    /// The provider's documentation, if given.
    pub docs: Option<&'a Docs>,
}

/// A row's weight: tokens per attempt, or a function of the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// These many tokens per attempt.
    Tokens(u32),
    /// A function of the request decides.
    ByRequest,
}

/// The scope's token bucket, as the worksheet shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenBucket {
    /// Tokens it holds.
    pub capacity: u64,
    /// Milli-tokens it gets back a second.
    pub refill_milli_per_second: u64,
}

/// One worksheet row, the fields of js/api/worksheet.js's rows (`final` is `final_statuses`).
#[derive(Clone, Debug)]
pub struct Row {
    /// `None`: the row of requests no family matches.
    pub family: Option<String>,
    /// How its match reads (`match` in JavaScript).
    pub match_text: String,
    /// The methods its match names (`None`: any, or a function).
    pub methods: Option<Vec<String>>,
    /// The URL pattern its match names, if it names one.
    pub match_url: Option<String>,
    /// The side-effect class.
    pub operation: OperationKind,
    /// Its budget priority.
    pub priority: Priority,
    /// Where its provider limits apply.
    pub scope: String,
    /// Tokens per attempt.
    pub weight: Weight,
    /// The policy it runs (client ← family).
    pub policy: Policy,
    /// Each retry's window, `min(cap, base × 2ⁿ)`.
    pub windows_ms: Vec<u64>,
    /// Every attempt timing out and every wait its whole window, ms.
    pub longest_schedule_ms: u64,
    /// How many attempts the deadline admits on the longest schedule.
    pub attempts_that_fit: u32,
    /// The statuses retried.
    pub retried: Vec<u16>,
    /// The statuses that leave the outcome unknown: reconciled, never resent.
    pub unknown_outcome: Vec<u16>,
    /// The statuses that ban the scope.
    pub banned: Vec<u16>,
    /// The statuses that end it as they are (`final` in JavaScript).
    pub final_statuses: Vec<u16>,
    /// What an attempt timeout is: retryable, or an unknown outcome.
    pub timeouts: Reason,
    /// The provider wait headers honoured, lower case.
    pub provider_wait_headers: Vec<String>,
    /// The scope's token bucket, if it has one.
    pub bucket: Option<TokenBucket>,
    /// What happens when a limit runs out.
    pub exhausted: &'static str,
    /// The provider's documentation, if given.
    pub docs: Option<Docs>,
    /// What a reviewer must see.
    pub flags: Vec<String>,
}

/// A documentation date older than this many days is flagged.
const STALE_DOCS_DAYS: i64 = 90;
const DAY_MS: i64 = 86_400_000;

impl Row {
    /// The row of `family` (`None`: requests no family matches) that runs `plan`, after the
    /// `earlier` families (every family, for the `None` row); `today_ms` (Unix ms) dates its docs.
    pub fn of(plan: &Plan, family: Option<&Declared>, earlier: &[(&str, &Match)], today_ms: u64) -> Row {
        let (methods, url) = match family.map(|f| f.matcher) {
            Some(Match::Request { methods, url }) => (Some(methods.clone()).filter(|m| !m.is_empty()), url.as_ref()),
            _ => (None, None),
        };
        let mut flags = Vec::new();
        if let Some(f) = family {
            let all = methods.as_deref().unwrap_or_default();
            if all.iter().any(|m| ["POST", "PUT", "PATCH", "DELETE"].contains(&m.as_str()))
                && plan.kind == OperationKind::Read
            {
                let list = all.join("/");
                flags.push(join(&[
                    "a mutation (",
                    &list,
                    ") declared \"read\": a lost answer would be retried as if nothing had happened",
                ]));
            }
            let checked = f.docs.and_then(|d| d.checked.as_deref());
            match checked.and_then(|c| iso_day(c).map(|day| (c, day))) {
                None => flags
                    .push("no provider documentation with the date it was checked (docs: { url, checked })".to_owned()),
                Some((c, day))
                    if i64::try_from(today_ms).unwrap_or(i64::MAX) - day * DAY_MS > STALE_DOCS_DAYS * DAY_MS =>
                {
                    flags.push(join(&["its documentation was checked ", c, ", more than 90 days ago"]))
                }
                Some(_) => {}
            }
            let final_by_docs = f.docs.map(|d| d.final_statuses.as_slice()).unwrap_or_default();
            let retried_final: Vec<u16> = plan.retried().into_iter().filter(|s| final_by_docs.contains(s)).collect();
            if !retried_final.is_empty() {
                flags.push(join(&["retries ", &list(&retried_final), ", which the provider documents as final"]));
            }
            let method = all.first().map_or("GET", String::as_str);
            let sample = url.map(super::UrlPattern::sample);
            if let Some((name, _)) = sample.and_then(|s| earlier.iter().find(|(_, m)| m.test(method, &s))) {
                flags.push(join(&[
                    "shadowed by the earlier family \"",
                    name,
                    "\": it matches this family's requests first",
                ]));
            }
        }
        let (fit, p) = (plan.attempts_that_fit(), plan.policy);
        if fit < p.max_attempts() {
            let (fit, max, deadline) =
                (number(u64::from(fit)), number(u64::from(p.max_attempts())), number(p.deadline_ms()));
            flags.push(join(&[
                "only ",
                &fit,
                " of ",
                &max,
                " attempts fit the ",
                &deadline,
                " ms deadline on the longest schedule",
            ]));
        }
        let origin = url.and_then(super::UrlPattern::origin);
        let scope = family.and_then(|f| f.scope).or(origin).unwrap_or("the request's origin");
        let weight =
            if family.is_some_and(|f| f.weight_by_request) { Weight::ByRequest } else { Weight::Tokens(plan.weight) };
        Row {
            family: family.map(|f| f.name.to_owned()),
            match_text: family.map_or_else(|| "anything no family matches".to_owned(), |f| f.matcher.text()),
            methods,
            match_url: url.map(|u| u.as_str().to_owned()),
            operation: plan.kind,
            priority: plan.priority,
            scope: scope.to_owned(),
            weight,
            policy: p.clone(),
            windows_ms: plan.windows(),
            longest_schedule_ms: plan.longest_ms(),
            attempts_that_fit: fit,
            retried: plan.retried(),
            unknown_outcome: plan.unknown_outcome(),
            banned: plan.banned(),
            final_statuses: plan.final_statuses(),
            timeouts: plan.timeouts(),
            provider_wait_headers: plan.provider_wait_headers().into_iter().map(str::to_owned).collect(),
            bucket: plan.bucket.map(|(capacity, refill_milli_per_second)| TokenBucket { capacity, refill_milli_per_second }),
            exhausted: match plan.kind.is_order() {
                true => "attempts / deadline / budget stop the call; a lost answer is an unknown outcome: reconciled (client.reconcile), never resubmitted",
                false => "stops with attempts, deadline, provider-wait, budget or banned; nothing more is sent",
            },
            docs: family.and_then(|f| f.docs.cloned()),
            flags,
        }
    }
}

/// Statuses as the worksheet lists them: `500, 502`.
pub(super) fn list(statuses: &[u16]) -> String {
    statuses.iter().map(|s| number(u64::from(*s))).collect::<Vec<_>>().join(", ")
}
