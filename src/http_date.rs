//! HTTP-date (RFC 9110 §5.6.7) in its three forms, read as Unix seconds.
//!
//! It reads what the `httpdate` crate (1.0.3) reads, without its code in the wasm, and three
//! things RFC 9110 allows that httpdate refuses:
//! * a weekday that is not the date's own: it is redundant, and the date decides;
//! * a leap second (`23:59:60`), read as the next second, so a provider's wait never comes out
//!   shorter than it named;
//! * RFC 850's two-digit year, read against the wall clock rather than a fixed pivot: the latest
//!   year with those digits whose date is not more than fifty years ahead.
//!
//! Years run 1970–9999. `tests/http_date.rs` compares the two where they agree.

/// Weekdays from Monday as RFC 850 spells them; the other forms use the first three letters.
const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// Month names, and their lengths in a common year.
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MONTH_DAYS: [u64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// What follows the weekday in each form, and whether that weekday is spelt in full.
/// `D` day, `N` month name, `Y` year, `y` two-digit year, `h` `m` `s` time, `_` a space or
/// a digit (asctime pads one-digit days), `?` any byte; any other byte stands for itself.
const FORMS: [(bool, &str); 3] = [
    (false, ", DD NNN YYYY hh:mm:ss GMT"), // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
    (true, ", DD-NNN-yy?hh:mm:ss GMT"),    // RFC 850:     Sunday, 06-Nov-94 08:49:37 GMT
    (false, " NNN _D hh:mm:ss YYYY"),      // asctime:     Sun Nov  6 08:49:37 1994
];

/// An HTTP-date as seconds since the Unix epoch; `None` unless it is a valid one. `wall_now_ms`
/// (Unix ms) is the wall clock an RFC 850 two-digit year is read against.
pub fn unix_seconds(value: &str, wall_now_ms: u64) -> Option<u64> {
    // httpdate refuses any non-ASCII byte, even among the whitespace it trims.
    if !value.is_ascii() {
        return None;
    }
    // What `str::trim` removes from ASCII text: space and \t \n \x0B \x0C \r.
    let text = crate::text::trim_ascii_with(value, |b| matches!(b, b' ' | b'\t'..=b'\r')).as_bytes();
    for name in WEEKDAYS {
        for (full, layout) in FORMS {
            let name = if full { name.as_bytes() } else { name.as_bytes().get(..3)? };
            // The forms differ right after the weekday, so at most one of them reads.
            if let Some(mut fields) = text.strip_prefix(name).and_then(|rest| read(rest, layout.as_bytes())) {
                if layout.contains('y') {
                    fields.year = fields.year_within_fifty(wall_now_ms / 1000);
                }
                return fields.unix_seconds();
            }
        }
    }
    None
}

/// One date's fields as written, before any range check.
#[derive(Default)]
struct Fields {
    year: u64,
    /// 0 = January.
    month: usize,
    day: u64,
    hour: u64,
    min: u64,
    sec: u64,
}

/// Reads `text` against a [`FORMS`] layout.
fn read(text: &[u8], layout: &[u8]) -> Option<Fields> {
    if text.len() != layout.len() {
        return None;
    }
    let mut f = Fields::default();
    for (&byte, &slot) in text.iter().zip(layout) {
        let field = match slot {
            b'_' if byte == b' ' => continue,
            b'D' | b'_' => &mut f.day,
            b'Y' | b'y' => &mut f.year,
            b'h' => &mut f.hour,
            b'm' => &mut f.min,
            b's' => &mut f.sec,
            b'N' => continue,
            // httpdate never looks at the byte between an RFC 850 year and its hour.
            b'?' => continue,
            _ if byte == slot => continue,
            _ => return None,
        };
        *field = *field * 10 + u64::from(char::from(byte).to_digit(10)?);
    }
    let at = layout.iter().position(|&slot| slot == b'N')?;
    let name = text.get(at..at + 3)?;
    f.month = MONTHS.iter().position(|month| month.as_bytes() == name)?;
    Some(f)
}

impl Fields {
    /// RFC 9110 §5.6.7: the two-digit `year` read at `now` (Unix seconds) — the latest year with
    /// those digits whose date is not more than fifty years after `now` (a date further ahead is
    /// "the most recent year in the past that had the same last two digits").
    fn year_within_fifty(&self, now: u64) -> u64 {
        let (year, month, day) = civil_from_days(now / 86_400);
        let of_day = now % 86_400;
        let limit = year + 50;
        let latest = limit - (limit % 100 + 100 - self.year % 100) % 100;
        let written = (self.month, self.day, self.hour, self.min, self.sec);
        let ahead = written > (month, day, of_day / 3_600, of_day % 3_600 / 60, of_day % 60);
        if latest == limit && ahead {
            latest.saturating_sub(100)
        } else {
            latest
        }
    }

    /// Seconds since the epoch, if every field is in range. Second 60 (a leap second) is the
    /// next second.
    fn unix_seconds(&self) -> Option<u64> {
        let leap = self.year % 4 == 0 && (self.year % 100 != 0 || self.year % 400 == 0);
        let month_days = MONTH_DAYS.get(self.month)? + u64::from(leap && self.month == 1);
        let in_range = (1970..=9999).contains(&self.year)
            && (1..=month_days).contains(&self.day)
            && self.hour < 24
            && self.min < 60
            && self.sec <= 60;
        if !in_range {
            return None;
        }
        let past = self.year - 1;
        // 477 leap years come before 1970.
        let leap_days = past / 4 - past / 100 + past / 400 - 477;
        let month_start = MONTH_DAYS.iter().take(self.month).sum::<u64>();
        let days =
            (self.year - 1970) * 365 + leap_days + month_start + u64::from(leap && self.month > 1) + self.day - 1;
        Some(days * 86_400 + self.hour * 3_600 + self.min * 60 + self.sec)
    }
}

/// `ms` since the Unix epoch as ISO 8601 in UTC, as JavaScript's `toISOString` writes it:
/// `2026-12-05T09:44:00.123Z`.
pub fn iso_time(ms: u64) -> String {
    let (secs, milli) = (ms / 1000, ms % 1000);
    let (year, month, day) = civil_from_days(secs / 86_400);
    let of_day = secs % 86_400;
    let two = |n: u64| [b'0' + (n / 10 % 10) as u8, b'0' + (n % 10) as u8];
    let mut out = crate::text::number(year);
    let fields =
        [(b'-', month as u64 + 1), (b'-', day), (b'T', of_day / 3600), (b':', of_day / 60 % 60), (b':', of_day % 60)];
    for (sep, n) in fields {
        out.push(char::from(sep));
        out.extend(two(n).map(char::from));
    }
    out.push('.');
    out.push(char::from(b'0' + (milli / 100) as u8));
    out.extend(two(milli).map(char::from));
    out.push('Z');
    out
}

/// The date (year, month from 0 = January, day from 1) of `days` since 1970-01-01: Howard
/// Hinnant's `civil_from_days`, for days on or after the epoch.
fn civil_from_days(days: u64) -> (u64, usize, u64) {
    // Days since 0000-03-01, in 400-year eras of 146 097 days.
    let z = days + 719_468;
    let (era, doe) = (z / 146_097, z % 146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    // Months from March.
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 2 } else { mp - 10 };
    let year = era * 400 + yoe + u64::from(month <= 1);
    (year, usize::try_from(month).unwrap_or(0), day)
}
