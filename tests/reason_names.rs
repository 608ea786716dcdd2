//! A reason reads the same everywhere: in records (JSON), in messages and in `RetryError.reason`.
#![cfg(not(target_arch = "wasm32"))]

use retryline::Reason;

const ALL: [(Reason, &str); 13] = [
    (Reason::Success, "success"),
    (Reason::Retryable, "retryable"),
    (Reason::Throttled, "throttled"),
    (Reason::NonRetryable, "non-retryable"),
    (Reason::Attempts, "attempts"),
    (Reason::Deadline, "deadline"),
    (Reason::ProviderWait, "provider-wait"),
    (Reason::Budget, "budget"),
    (Reason::Banned, "banned"),
    (Reason::RateLimited, "rate-limited"),
    (Reason::UnknownOutcome, "unknown-outcome"),
    (Reason::Aborted, "aborted"),
    (Reason::Store, "store"),
];

#[test]
fn each_reason_has_its_documented_name_in_text_and_in_json() {
    for (reason, name) in ALL {
        assert_eq!(reason.as_str(), name);
        assert_eq!(reason.to_string(), name);
        assert_eq!(format!("stopped: {reason}"), format!("stopped: {name}"));
        assert_eq!(serde_json::to_value(reason).unwrap(), serde_json::json!(name));
    }
}

#[test]
fn every_reason_is_listed_once_and_its_name_reads_back() {
    use retryline::json::{to_json, FromLoose};
    use retryline::{Loose, Reason};
    let mut names: Vec<&str> = Reason::ALL.iter().map(|r| r.as_str()).collect();
    let listed: Vec<&str> = Reason::NAMES.split_whitespace().map(|n| n.trim_matches('"')).collect();
    assert_eq!(names, listed, "NAMES lists ALL in order");
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Reason::ALL.len(), "no name twice");
    for reason in Reason::ALL {
        assert_eq!(to_json(&reason), format!("\"{}\"", reason.as_str()));
        assert_eq!(Reason::from_loose(&Loose::Text(reason.as_str().to_owned())), Ok(reason));
    }
}
