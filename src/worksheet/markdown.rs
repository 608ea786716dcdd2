//! The worksheet: its rows, their flags, and the Markdown table js/api/worksheet.js's
//! `toMarkdown` prints — built by joining text, no `format!` (the crate's rule for wasm size).

use super::row::{list, Row, Weight};
use crate::reason::Reason;
use crate::text::{join, number};

/// One row per endpoint family, in order, then the row of requests no family matches.
#[derive(Clone, Debug)]
pub struct Worksheet {
    /// The rows.
    pub rows: Vec<Row>,
}

/// The columns, as the JavaScript table has them.
const HEAD: [&str; 12] = [
    "family",
    "match",
    "side effect",
    "retried on",
    "provider waits",
    "windows ms",
    "attempts (fit)",
    "attempt timeout",
    "deadline (longest schedule)",
    "scope, bucket",
    "when exhausted",
    "docs (checked)",
];

/// A table line: `| a | b |`.
fn line(cells: &[&str]) -> String {
    join(&["| ", &cells.join(" | "), " |"])
}

/// Milli-units as JavaScript prints `n / 1000`: `100`, `1.5`, `0.025` (integers only, no float formatting).
fn thousandths(n: u64) -> String {
    let (whole, frac) = (number(n / 1000), n % 1000);
    if frac == 0 {
        return whole;
    }
    let digits = number(1000 + frac); // "1025": the leading 1 keeps the zeros
    join(&[&whole, ".", digits.get(1..).unwrap_or_default().trim_end_matches('0')])
}

impl Row {
    /// The family's name, or `(no family)`.
    pub fn label(&self) -> &str {
        self.family.as_deref().unwrap_or("(no family)")
    }

    /// The row's cells, in [`HEAD`]'s order.
    fn cells(&self) -> Vec<String> {
        let p = &self.policy;
        let timeouts = if self.timeouts == Reason::Retryable { ", timeouts" } else { "" };
        let unknown = match self.unknown_outcome.is_empty() {
            true => String::new(),
            false => join(&["; unknown outcome: ", &list(&self.unknown_outcome), ", timeouts"]),
        };
        let windows = self.windows_ms.iter().map(|w| number(*w)).collect::<Vec<_>>();
        let windows = if windows.is_empty() { "–".to_owned() } else { windows.join(", ") };
        let bucket = match self.bucket {
            Some(b) => join(&[&number(b.capacity), " tokens, ", &thousandths(b.refill_milli_per_second), "/s"]),
            None => "no token limit".to_owned(),
        };
        let weight = match self.weight {
            Weight::Tokens(n) => number(u64::from(n)),
            Weight::ByRequest => "by request".to_owned(),
        };
        let docs = match &self.docs {
            Some(d) => join(&[d.url.as_deref().unwrap_or("–"), " (", d.checked.as_deref().unwrap_or("not dated"), ")"]),
            None => "–".to_owned(),
        };
        vec![
            self.label().to_owned(),
            join(&["`", &self.match_text, "`"]),
            self.operation.name().to_owned(),
            join(&[&list(&self.retried), timeouts, &unknown]),
            self.provider_wait_headers.join(", "),
            windows,
            join(&[&number(u64::from(p.max_attempts())), " (", &number(u64::from(self.attempts_that_fit)), ")"]),
            join(&[&number(p.attempt_timeout_ms()), " ms"]),
            join(&[&number(p.deadline_ms()), " ms (", &number(self.longest_schedule_ms), " ms)"]),
            join(&[&self.scope, ", ", &bucket, "; weight ", &weight]),
            self.exhausted.to_owned(),
            docs,
        ]
    }
}

impl Worksheet {
    /// Every row's flags, as (the row's label, the flag), in row order.
    pub fn flags(&self) -> Vec<(&str, &str)> {
        self.rows.iter().flat_map(|r| r.flags.iter().map(move |f| (r.label(), f.as_str()))).collect()
    }

    /// The worksheet as a Markdown table, then its flags: the layout of the JavaScript `toMarkdown`.
    pub fn to_markdown(&self) -> String {
        let mut out = vec![line(&HEAD), line(&["---"; 12])];
        for row in &self.rows {
            let cells = row.cells();
            out.push(line(&cells.iter().map(String::as_str).collect::<Vec<_>>()));
        }
        let flags = self.flags();
        out.push(String::new());
        out.push(if flags.is_empty() { "No flags." } else { "Flags:" }.to_owned());
        out.extend(flags.iter().map(|(label, flag)| join(&["- **", label, "**: ", flag])));
        out.push(String::new());
        out.join("\n")
    }
}
