//! Prints the reference article's worked example, replayed by the core, as a table
//! (or, with `--json`, as the report JSON the JavaScript `replay` must match).
//! Run: `cargo run --example worked_example [-- --json]`

use retryline::{replay, Decision, ReplaySpec};

fn main() -> Result<(), serde_json::Error> {
    let spec: ReplaySpec = serde_json::from_str(include_str!("worked_example.json"))?;
    let report = replay(spec);
    if std::env::args().any(|a| a == "--json") {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("attempt  decision  window/draw   wait    start → end (ms)   outcome            reason");
    for r in &report.records {
        let draw = match (r.window_ms, r.sampled_delay_ms) {
            (Some(w), Some(d)) => format!("{w} / {d}"),
            _ => "none".to_owned(),
        };
        let outcome = match (r.status, r.outcome) {
            (Some(status), _) => status.to_string(),
            (None, Some(o)) => serde_json::to_value(o)?.as_str().unwrap_or("").to_owned(),
            (None, None) => "-".to_owned(),
        };
        let verb = if r.decision == Decision::Sent { "sent" } else { "refused" };
        let end = r.end_ms.map_or("-".to_owned(), |e| e.to_string());
        let reason = r.reason.map_or("", |x| x.as_str());
        println!(
            "{:>7}  {verb:<8}  {draw:<12} {:>5}   {:>6} → {end:<8}   {outcome:<18} {reason}",
            r.attempt, r.planned_wait_ms, r.start_ms
        );
    }
    println!("\nwire requests: {}; stopped: {} at {} ms", report.wire_requests, report.stop.reason, report.stop.at_ms);
    Ok(())
}
