//! HTTP-dates that RFC 9110 allows and the `httpdate` crate (the oracle of tests/http_date.rs)
//! refuses or reads otherwise: a leap second, an RFC 850 two-digit year read against the clock,
//! a weekday that is not the date's own. Read as unparseable, they made the caller retry before
//! the time the server named; each is now read so that the wait is never shorter.
#![cfg(not(target_arch = "wasm32"))]

use retryline::backoff::MAX_TIMER_MS;
use retryline::http_date::unix_seconds;
use retryline::retry_after::{parse, ProviderWait, RetryAfterForm as F};

/// 2026-07-01T00:00:00Z, the wall clock the two-digit years are read at.
const WALL_2026: u64 = 1_782_864_000_000;
/// 2017-01-01T00:00:00Z, the second after the leap second of 2016.
const NEW_YEAR_2017_S: u64 = 1_483_228_800;
/// RFC 9110 §5.6.7's example instant, Sun, 06 Nov 1994 08:49:37 GMT.
const EXAMPLE_S: u64 = 784_111_777;

fn wait(ms: u64, form: F) -> ProviderWait {
    ProviderWait { wait_ms: ms, form }
}

#[test]
fn a_leap_second_is_the_next_second_in_all_three_forms() {
    for text in ["Sat, 31 Dec 2016 23:59:60 GMT", "Saturday, 31-Dec-16 23:59:60 GMT", "Sat Dec 31 23:59:60 2016"] {
        assert_eq!(unix_seconds(text, WALL_2026), Some(NEW_YEAR_2017_S), "{text:?}: 2017-01-01T00:00:00Z");
    }
    // Second 60 of any minute comes after its second 59, never before it.
    let (fifty_nine, sixty) = ("Sun, 06 Nov 1994 08:49:59 GMT", "Sun, 06 Nov 1994 08:49:60 GMT");
    assert_eq!(unix_seconds(sixty, WALL_2026), unix_seconds(fifty_nine, WALL_2026).map(|s| s + 1));
}

#[test]
fn a_retry_after_on_a_leap_second_waits_until_the_second_after_it() {
    let at = "Sat, 31 Dec 2016 23:59:60 GMT";
    // Measured from the response's Date, 30 s before, and from a wall clock a minute before.
    assert_eq!(parse(at, Some("Sat, 31 Dec 2016 23:59:30 GMT"), WALL_2026), wait(30_000, F::Date));
    assert_eq!(parse(at, None, (NEW_YEAR_2017_S - 60) * 1000), wait(60_000, F::Date));
}

#[test]
fn an_rfc_850_year_is_the_latest_with_its_digits_not_more_than_fifty_years_ahead() {
    let table = [
        // 2075 is 49 years after 2026: it stays ahead. 2077 would be 51: it is 1977.
        ("Tuesday, 01-Jan-75 00:00:00 GMT", 3_313_526_400),
        ("Saturday, 01-Jan-77 00:00:00 GMT", 220_924_800),
        ("Thursday, 01-Jan-26 00:00:00 GMT", 1_767_225_600),
        // Fifty years to the second from the clock is not more than fifty; one second later is.
        ("Wednesday, 01-Jul-76 00:00:00 GMT", 3_360_787_200),
        ("Thursday, 01-Jul-76 00:00:01 GMT", 205_027_201),
    ];
    for (text, secs) in table {
        assert_eq!(unix_seconds(text, WALL_2026), Some(secs), "{text:?}");
    }
    // The same text at another clock names another century: RFC 9110's window moves with it.
    assert_eq!(unix_seconds("Tuesday, 01-Jan-75 00:00:00 GMT", 0), Some(157_766_400), "at the epoch: 1975");
}

#[test]
fn from_2070_a_two_digit_year_70_is_waited_for_not_read_as_1970() {
    // 2070-01-01T00:00:00Z: a provider still writing RFC 850 dates asks for 30 s.
    let wall = 3_155_760_000_000;
    assert_eq!(parse("Wednesday, 01-Jan-70 00:00:30 GMT", None, wall), wait(30_000, F::Date));
    // And a date fifty years ahead of the clock is far, not past: clamped, not "no wait".
    assert_eq!(parse("Tuesday, 01-Jan-75 00:00:00 GMT", None, WALL_2026), wait(MAX_TIMER_MS, F::Clamped));
}

#[test]
fn a_weekday_that_is_not_the_dates_is_redundant_in_all_three_forms() {
    for text in ["Mon, 06 Nov 1994 08:49:37 GMT", "Monday, 06-Nov-94 08:49:37 GMT", "Mon Nov  6 08:49:37 1994"] {
        assert_eq!(unix_seconds(text, WALL_2026), Some(EXAMPLE_S), "{text:?}");
        assert_eq!(parse(text, None, (EXAMPLE_S - 5) * 1000), wait(5000, F::Date), "{text:?}");
    }
}

#[test]
fn what_stays_unparseable_and_never_panics() {
    let refused = [
        // The weekday is still one, spelt as its form spells it.
        "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06-Nov-94 08:49:37 GMT",
        // No second 61, minute 60 or hour 24; no 30 February under any weekday.
        "Sat, 31 Dec 2016 23:59:61 GMT",
        "Sat, 31 Dec 2016 23:60:00 GMT",
        "Sat, 31 Dec 2016 24:00:00 GMT",
        "Mon, 30 Feb 2026 00:00:00 GMT",
        // Before 1970 or after 9999, however it is written.
        "Wed, 31 Dec 1969 23:59:59 GMT",
        "Sat, 01 Jan 10000 00:00:00 GMT",
    ];
    for text in refused {
        assert_eq!(unix_seconds(text, WALL_2026), None, "{text:?}");
        assert_eq!(parse(text, None, WALL_2026), wait(0, F::Unparseable), "{text:?}");
    }
    // A clock at the epoch reads 69 as 1969 (2069 is 99 years ahead): before any Unix time.
    assert_eq!(unix_seconds("Tuesday, 01-Jan-69 00:00:00 GMT", 0), None);
    // A clock far beyond 9999 reads every two-digit year past 9999.
    assert_eq!(unix_seconds("Tuesday, 01-Jan-75 00:00:00 GMT", u64::MAX), None);
    assert_eq!(parse("Tuesday, 01-Jan-75 00:00:00 GMT", None, u64::MAX), wait(0, F::Unparseable));
    // The last instant, and a leap second after it.
    assert_eq!(unix_seconds("Fri, 31 Dec 9999 23:59:60 GMT", WALL_2026), Some(253_402_300_800));
}
