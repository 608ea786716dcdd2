//! HTTP-date (RFC 9110 §5.6.7) in its three forms, read as Unix seconds.
//!
//! It accepts exactly what the `httpdate` crate (1.0.3) accepts, without its code in the
//! wasm: the weekday must be the date's own, years run 1970–9999, RFC 850's two-digit
//! years below 70 are 20xx, and there are no leap seconds. `tests/http_date.rs` compares
//! the two.

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

/// An HTTP-date as seconds since the Unix epoch; `None` unless it is a valid one.
pub fn unix_seconds(value: &str) -> Option<u64> {
    // httpdate refuses any non-ASCII byte, even among the whitespace it trims.
    if !value.is_ascii() {
        return None;
    }
    // What `str::trim` removes from ASCII text: space and \t \n \x0B \x0C \r.
    let text = value.trim_matches(|c| matches!(c, ' ' | '\t'..='\r')).as_bytes();
    for (weekday, name) in (0u64..).zip(WEEKDAYS) {
        for (full, layout) in FORMS {
            let name = if full { name.as_bytes() } else { name.as_bytes().get(..3)? };
            // The forms differ right after the weekday, so at most one of them reads.
            if let Some(fields) = text.strip_prefix(name).and_then(|rest| read(rest, layout.as_bytes())) {
                return fields.unix_seconds(weekday);
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
    if layout.contains(&b'y') {
        // httpdate's fixed pivot (69 is 2069), not RFC 9110's rolling fifty years.
        f.year += if f.year < 70 { 2000 } else { 1900 };
    }
    Some(f)
}

impl Fields {
    /// Seconds since the epoch, if every field is in range and `weekday` (0 = Monday) is the date's.
    fn unix_seconds(&self, weekday: u64) -> Option<u64> {
        let leap = self.year % 4 == 0 && (self.year % 100 != 0 || self.year % 400 == 0);
        let month_days = MONTH_DAYS.get(self.month)? + u64::from(leap && self.month == 1);
        let in_range = (1970..=9999).contains(&self.year)
            && (1..=month_days).contains(&self.day)
            && self.hour < 24
            && self.min < 60
            && self.sec < 60;
        if !in_range {
            return None;
        }
        let past = self.year - 1;
        // 477 leap years come before 1970.
        let leap_days = past / 4 - past / 100 + past / 400 - 477;
        let month_start = MONTH_DAYS.iter().take(self.month).sum::<u64>();
        let days =
            (self.year - 1970) * 365 + leap_days + month_start + u64::from(leap && self.month > 1) + self.day - 1;
        // 1 January 1970 was a Thursday.
        ((days + 3) % 7 == weekday).then_some(days * 86_400 + self.hour * 3_600 + self.min * 60 + self.sec)
    }
}
