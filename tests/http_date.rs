//! `http_date::unix_seconds` against the `httpdate` crate (1.0.3) it replaced: both must
//! accept the same texts and read the same instant from them (RFC 9110 §5.6.7), except where
//! httpdate departs from RFC 9110 — those cases are taken out of the comparison ([`oracle`])
//! and tested on their own, here (`rfc_9110_reads_what_httpdate_refuses`) and in
//! tests/http_date_rfc9110.rs.
//!
//! Every property runs `RETRYLINE_HTTP_DATE_CASES` cases (default [`DEFAULT_CASES`]); the
//! sweep reads every 97th day from 1970 to 9999 in all forms. Named edge cases come last.
#![cfg(not(target_arch = "wasm32"))]

use std::time::{Duration, UNIX_EPOCH};

use proptest::prelude::*;
use retryline::http_date::unix_seconds;

/// Cases per property when `RETRYLINE_HTTP_DATE_CASES` is not set (four properties).
const DEFAULT_CASES: u32 = 10_000;

/// 9999-12-31T23:59:59Z, the last instant an HTTP-date can name.
const MAX_DATE_S: u64 = 253_402_300_799;

/// The wall clock every date is read at: 2019-12-31T23:59:59Z. RFC 9110 reads an RFC 850
/// two-digit year as the latest year with those digits not more than fifty years ahead of the
/// clock; at this clock that is 1970–2069, the fixed pivot of httpdate (00–69 are 20xx).
const CLOCK_MS: u64 = 1_577_836_799_000;

/// 2069-12-31T23:59:59Z: fifty years after [`CLOCK_MS`].
const FIFTY_YEARS_AHEAD_S: u64 = 3_155_759_999;

const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/// Near-misses of a month name, for generated fields.
const BAD_MONTHS: [&str; 6] = ["nov", "NOV", "Nov.", "Xyz", "Ja", "Sept"];

fn config() -> ProptestConfig {
    let cases = std::env::var("RETRYLINE_HTTP_DATE_CASES")
        .map(|text| text.trim().replace('_', "").parse().expect("RETRYLINE_HTTP_DATE_CASES is a whole number"))
        .unwrap_or(DEFAULT_CASES);
    // Failures are kept as named cases below, not in a regressions file.
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// What httpdate reads from `text`, as Unix seconds.
fn httpdate(text: &str) -> Option<u64> {
    let at = httpdate::parse_http_date(text).ok()?;
    Some(at.duration_since(UNIX_EPOCH).expect("httpdate refuses years before 1970").as_secs())
}

/// What RFC 9110 reads from `text` at [`CLOCK_MS`], with httpdate as the oracle. Where httpdate
/// departs from RFC 9110, the departure is taken out of `text` before httpdate reads it:
/// * a weekday that is not the date's own: RFC 9110 makes it redundant, httpdate refuses it.
///   Each weekday is tried in its place, spelt as the text spells it;
/// * a leap second: RFC 9110 allows second 60, httpdate refuses it. It is read as second 59
///   and one second added — except an RFC 850 date's leap second after the last second of 2069:
///   that is more than fifty years after the clock, so RFC 9110 reads 1969, before any Unix time.
fn oracle(text: &str) -> Option<u64> {
    // Both refuse any non-ASCII byte, whatever else the text says.
    if !text.is_ascii() {
        return httpdate(text);
    }
    let (text, leap) = match leap_second_as_59(text) {
        Some(text) => (text, true),
        None => (text.to_owned(), false),
    };
    let secs = with_each_weekday(&text).iter().find_map(|text| httpdate(text))?;
    if leap && secs == FIFTY_YEARS_AHEAD_S && weekday_of(&text).is_some_and(|(_, full)| full) {
        return None;
    }
    Some(secs + u64::from(leap))
}

/// What both parsers trim: ASCII whitespace.
fn is_trimmed(c: char) -> bool {
    matches!(c, ' ' | '\t'..='\r')
}

/// Where `text` spells a weekday after its leading whitespace: the weekday's length, and whether
/// it is spelt in full (RFC 850) or by three letters (and no more: `Tueday` is no weekday).
fn weekday_of(text: &str) -> Option<(usize, bool)> {
    let rest = text.trim_start_matches(is_trimmed);
    let full = WEEKDAYS.iter().find(|name| rest.starts_with(*name)).map(|name| (name.len(), true));
    let short = || {
        let ends = !rest.get(3..).is_some_and(|after| after.starts_with(|c: char| c.is_ascii_alphabetic()));
        (ends && WEEKDAYS.iter().any(|name| rest.starts_with(&name[..3]))).then_some((3, false))
    };
    full.or_else(short)
}

/// `text`, then `text` with each of the seven weekdays in place of its own.
fn with_each_weekday(text: &str) -> Vec<String> {
    let mut texts = vec![text.to_owned()];
    if let Some((len, full)) = weekday_of(text) {
        let at = text.len() - text.trim_start_matches(is_trimmed).len();
        for name in WEEKDAYS {
            let name = if full { name } else { &name[..3] };
            texts.push(format!("{}{name}{}", &text[..at], &text[at + len..]));
        }
    }
    texts
}

/// `text` with the second 60 of its first `hh:mm:60` read as 59, if it has one.
fn leap_second_as_59(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let digit = |i: usize| b[i].is_ascii_digit();
    let at = (5..b.len().saturating_sub(2)).find(|&i| {
        b[i] == b':'
            && b[i - 3] == b':'
            && [i - 5, i - 4, i - 2, i - 1].into_iter().all(digit)
            && &b[i + 1..i + 3] == b"60"
    })?;
    Some(format!("{}59{}", &text[..=at], &text[at + 3..]))
}

#[derive(Clone, Copy, Debug)]
enum Form {
    ImfFixdate,
    Rfc850,
    Asctime,
    /// asctime with a zero-padded day (`Nov 06`), which httpdate also reads.
    AsctimeZeroDay,
}

fn forms() -> impl Strategy<Value = Form> {
    prop::sample::select(vec![Form::ImfFixdate, Form::Rfc850, Form::Asctime, Form::AsctimeZeroDay])
}

/// `secs` in `form`, from httpdate's own IMF-fixdate rendering (RFC 850 keeps the last two year digits).
fn render(secs: u64, form: Form) -> String {
    let imf = httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(secs));
    let (weekday, day, month, year, time) = (&imf[0..3], &imf[5..7], &imf[8..11], &imf[12..16], &imf[17..25]);
    match form {
        Form::ImfFixdate => imf.clone(),
        Form::Rfc850 => {
            let full = WEEKDAYS.iter().find(|name| name.starts_with(weekday)).expect("a weekday");
            format!("{full}, {day}-{month}-{} {time} GMT", &year[2..])
        }
        Form::Asctime => format!("{weekday} {month} {:>2} {time} {year}", day.trim_start_matches('0')),
        Form::AsctimeZeroDay => format!("{weekday} {month} {day} {time} {year}"),
    }
}

/// Instants an HTTP-date can name, with the edges (epoch, leap days, 2069/2070, 9999) often.
fn instants() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 0..=MAX_DATE_S,
        2 => 0u64..4_000_000_000,
        1 => prop::sample::select(vec![
            0,
            86_399,
            68_169_600,    // 1972-02-29
            951_782_400,   // 2000-02-29
            4_107_542_400, // 2100-03-01 (2100 is not a leap year)
            3_155_759_999, // 2069-12-31T23:59:59, the last RFC 850 two-digit year
            3_155_760_000, // 2070-01-01
            MAX_DATE_S - 86_400,
            MAX_DATE_S,
        ]),
    ]
}

/// Text around a value, and whether it is whitespace both trim: ASCII whitespace is, while
/// non-ASCII whitespace and control characters make both refuse the value.
fn padding() -> impl Strategy<Value = (String, bool)> {
    prop_oneof![
        6 => Just((String::new(), true)),
        3 => "[ \t\r\n\u{b}\u{c}]{1,3}".prop_map(|s| (s, true)),
        1 => prop::sample::select(vec!["\u{a0}", "\u{85}", "\u{2003}", "\u{0}", "\u{1f}"]).prop_map(|s| (s.to_owned(), false)),
    ]
}

/// Each field of a date drawn on its own (mostly near its range): wrong weekdays, day 31 in
/// 30-day months, 29 February, hour 24, second 60, years before 1970, bad month names.
fn fielded() -> impl Strategy<Value = String> {
    let two = || prop_oneof![3 => 0u32..32, 1 => 0u32..100];
    let month = prop_oneof![8 => prop::sample::select(MONTHS.to_vec()), 1 => prop::sample::select(BAD_MONTHS.to_vec())];
    let year = prop_oneof![3 => 1965u32..2075, 2 => 0u32..10_000, 1 => 9990u32..10_000];
    (0..7usize, two(), month, year, two(), prop_oneof![0u32..60, 0u32..100], prop_oneof![0u32..61, 0u32..100], forms())
        .prop_map(|(weekday, day, month, year, hour, min, sec, form)| {
            let full = WEEKDAYS[weekday];
            let time = format!("{hour:02}:{min:02}:{sec:02}");
            match form {
                Form::ImfFixdate => format!("{}, {day:02} {month} {year:04} {time} GMT", &full[..3]),
                Form::Rfc850 => format!("{full}, {day:02}-{month}-{:02} {time} GMT", year % 100),
                Form::Asctime => format!("{} {month} {day:>2} {time} {year:04}", &full[..3]),
                Form::AsctimeZeroDay => format!("{} {month} {day:02} {time} {year:04}", &full[..3]),
            }
        })
}

/// Characters a mutation puts in: the dates' own alphabet, whitespace, and non-ASCII.
fn mutant_chars() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::sample::select("0123456789 ,-:GMTadeinorstuyFJNOSW".chars().collect::<Vec<_>>()),
        1 => prop::sample::select(vec!['\t', '\r', '\n', '\u{b}', '\u{c}', '\0', '\u{7f}', '\u{a0}', 'é', '\u{2003}']),
        1 => any::<char>(),
    ]
}

#[derive(Clone, Debug)]
enum Mutation {
    Replace(prop::sample::Index, char),
    Insert(prop::sample::Index, char),
    Delete(prop::sample::Index),
    KeepPrefix(prop::sample::Index),
    DropPrefix(prop::sample::Index),
}

fn mutations() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<prop::sample::Index>(), mutant_chars()).prop_map(|(at, c)| Mutation::Replace(at, c)),
        2 => (any::<prop::sample::Index>(), mutant_chars()).prop_map(|(at, c)| Mutation::Insert(at, c)),
        2 => any::<prop::sample::Index>().prop_map(Mutation::Delete),
        1 => any::<prop::sample::Index>().prop_map(Mutation::KeepPrefix),
        1 => any::<prop::sample::Index>().prop_map(Mutation::DropPrefix),
    ]
}

fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for mutation in mutations {
        let len = chars.len();
        if len == 0 {
            break;
        }
        match mutation {
            Mutation::Replace(at, c) => chars[at.index(len)] = *c,
            Mutation::Insert(at, c) => chars.insert(at.index(len + 1), *c),
            Mutation::Delete(at) => _ = chars.remove(at.index(len)),
            Mutation::KeepPrefix(at) => chars.truncate(at.index(len)),
            Mutation::DropPrefix(at) => _ = chars.drain(..at.index(len)),
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(config())]

    /// Every instant in every form reads as itself, as httpdate reads it.
    #[test]
    fn valid_dates_agree(secs in instants(), form in forms(), ((before, trimmed), (after, too)) in (padding(), padding())) {
        let text = format!("{before}{}{after}", render(secs, form));
        let ours = unix_seconds(&text, CLOCK_MS);
        prop_assert_eq!(ours, oracle(&text), "{:?}", text);
        // RFC 850 names only 1970–2069: later years read as their two-digit twin.
        let named = !matches!(form, Form::Rfc850) || secs < 3_155_760_000;
        if trimmed && too && named {
            prop_assert_eq!(ours, Some(secs), "{:?}", text);
        }
    }

    /// Fields drawn one by one: the same accepted, the same instant.
    #[test]
    fn drawn_fields_agree(text in fielded()) {
        prop_assert_eq!(unix_seconds(&text, CLOCK_MS), oracle(&text), "{:?}", text);
    }

    /// Valid dates after byte flips, insertions, deletions and truncations.
    #[test]
    fn mutated_dates_agree(secs in instants(), form in forms(), edits in prop::collection::vec(mutations(), 1..4)) {
        let text = mutate(&render(secs, form), &edits);
        prop_assert_eq!(unix_seconds(&text, CLOCK_MS), oracle(&text), "{:?}", text);
    }

    /// Arbitrary text, and text in the dates' alphabet of about their length.
    #[test]
    fn random_text_agrees(text in prop_oneof![
        "\\PC{0,40}",
        "[ -~]{0,40}",
        "[0-9 ,:GMTJanNovSunday-]{20,34}",
    ]) {
        prop_assert_eq!(unix_seconds(&text, CLOCK_MS), oracle(&text), "{:?}", text);
    }
}

/// Every 97th day (the weekday and day of month drift through all values) at a moving time of day.
#[test]
fn sweep_of_the_whole_range_agrees() {
    let mut cases = 0;
    for day in (0..=MAX_DATE_S / 86_400).step_by(97) {
        let secs = day * 86_400 + (day * 7_919) % 86_400;
        for form in [Form::ImfFixdate, Form::Rfc850, Form::Asctime, Form::AsctimeZeroDay] {
            let text = render(secs, form);
            assert_eq!(unix_seconds(&text, CLOCK_MS), oracle(&text), "{text:?}");
            cases += 1;
        }
    }
    assert!(cases > 100_000, "{cases}");
}

#[test]
fn named_edge_cases() {
    let table = [
        // RFC 9110 §5.6.7's example in its three forms, and asctime's zero-padded day.
        ("Sun, 06 Nov 1994 08:49:37 GMT", Some(784_111_777)),
        ("Sunday, 06-Nov-94 08:49:37 GMT", Some(784_111_777)),
        ("Sun Nov  6 08:49:37 1994", Some(784_111_777)),
        ("Sun Nov 06 08:49:37 1994", Some(784_111_777)),
        // Whitespace that `str::trim` removes, and that it would but httpdate refuses (not ASCII).
        ("\u{b}\r\n Sun, 06 Nov 1994 08:49:37 GMT\t\u{c}", Some(784_111_777)),
        ("\u{a0}Sun, 06 Nov 1994 08:49:37 GMT", None),
        // asctime: one space before a one-digit day, two before the month, a space for the day.
        ("Sun Nov 6 08:49:37 1994", None),
        ("Sun  Nov 6 08:49:37 1994", None),
        ("Sun Nov  6  8:49:37 1994", None),
        ("Sun Nov 6  08:49:37 1994", None),
        // Case matters: month, weekday, zone.
        ("Sun, 06 nov 1994 08:49:37 GMT", None),
        ("sun, 06 Nov 1994 08:49:37 GMT", None),
        ("Sun, 06 Nov 1994 08:49:37 gmt", None),
        ("Sun, 06 Nov 1994 08:49:37 UTC", None),
        // The weekday is spelt as the form spells it (whether it is the date's own: below).
        ("Sunday, 06 Nov 1994 08:49:37 GMT", None),
        ("Sun, 06-Nov-94 08:49:37 GMT", None),
        // Leap days: 2000 is one, 1900 and 2100 are not (1900 is before 1970 anyway). A day past
        // the month's end is refused even under the weekday of the day it would roll over to.
        ("Tue, 29 Feb 2000 00:00:00 GMT", Some(951_782_400)),
        ("Thu, 01 Mar 1900 00:00:00 GMT", None),
        ("Thu, 29 Feb 1900 00:00:00 GMT", None),
        ("Mon, 01 Mar 2100 00:00:00 GMT", Some(4_107_542_400)),
        ("Mon, 29 Feb 2100 00:00:00 GMT", None),
        ("Sat, 31 Apr 2021 00:00:00 GMT", None),
        // The ends of the range: 1970 to 9999.
        ("Thu, 01 Jan 1970 00:00:00 GMT", Some(0)),
        ("Wed, 31 Dec 1969 23:59:59 GMT", None),
        ("Fri, 31 Dec 9999 23:59:59 GMT", Some(MAX_DATE_S)),
        ("Fri Dec 31 23:59:59 9999", Some(MAX_DATE_S)),
        ("Sat, 01 Jan 0000 00:00:00 GMT", None),
        // Two-digit years: 70 is 1970, 69 is 2069 (at CLOCK, for RFC 9110; always, for httpdate).
        ("Thursday, 01-Jan-70 00:00:00 GMT", Some(0)),
        ("Tuesday, 01-Jan-69 00:00:00 GMT", Some(3_124_224_000)),
        ("Tuesday, 31-Dec-69 23:59:59 GMT", Some(3_155_759_999)),
        // httpdate never checks the separator between an RFC 850 year and its hour.
        ("Sunday, 06-Nov-94X08:49:37 GMT", Some(784_111_777)),
        ("Sunday, 06-Nov-94008:49:37 GMT", Some(784_111_777)),
        // No hour 24, no second 61, no day 0.
        ("Sun, 06 Nov 1994 24:00:00 GMT", None),
        ("Sat, 31 Dec 2016 23:59:61 GMT", None),
        ("Sun, 00 Nov 1994 08:49:37 GMT", None),
        ("Sun Nov  0 08:49:37 1994", None),
        // Truncated, extended, empty.
        ("Sun, 06 Nov 1994 08:49:37 GM", None),
        ("Sun, 06 Nov 1994 08:49:37 GMT+1", None),
        ("Sun, 6 Nov 1994 08:49:37 GMT", None),
        ("", None),
    ];
    for (text, expected) in table {
        assert_eq!(httpdate(text), expected, "httpdate on {text:?}");
        assert_eq!(unix_seconds(text, CLOCK_MS), expected, "{text:?}");
    }
}

/// Where httpdate departs from RFC 9110 §5.6.7, which the comparisons above leave out ([`oracle`]).
#[test]
fn rfc_9110_reads_what_httpdate_refuses() {
    let table = [
        // The weekday is redundant: the date decides, in all three forms.
        ("Mon, 06 Nov 1994 08:49:37 GMT", Some(784_111_777)),
        ("Monday, 06-Nov-94 08:49:37 GMT", Some(784_111_777)),
        ("Mon Nov  6 08:49:37 1994", Some(784_111_777)),
        // A leap second is the next second: 2017-01-01T00:00:00Z.
        ("Sat, 31 Dec 2016 23:59:60 GMT", Some(1_483_228_800)),
        ("Sun, 31 Dec 2016 23:59:60 GMT", Some(1_483_228_800)),
        ("Wed, 31 Dec 2069 23:59:60 GMT", Some(3_155_760_000)),
        // Written with a two-digit year, that last one is more than fifty years after CLOCK: 1969.
        ("Wednesday, 31-Dec-69 23:59:60 GMT", None),
    ];
    for (text, rfc_9110) in table {
        assert_eq!(httpdate(text), None, "httpdate on {text:?}");
        assert_eq!(unix_seconds(text, CLOCK_MS), rfc_9110, "{text:?}");
        assert_eq!(oracle(text), rfc_9110, "the oracle leaves {text:?} out as RFC 9110 reads it");
    }
}

#[test]
fn iso_time_writes_what_javascripts_to_iso_string_writes() {
    use retryline::http_date::iso_time;
    assert_eq!(iso_time(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(iso_time(1_767_225_600_000), "2026-01-01T00:00:00.000Z");
    assert_eq!(iso_time(1_796_550_240_123), "2026-12-06T09:44:00.123Z");
    assert_eq!(iso_time(951_825_599_009), "2000-02-29T11:59:59.009Z");
}
