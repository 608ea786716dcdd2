//! `stale_if_error_ms` in the Rust API: a read that fails serves its last good response, marked
//! stale with its age and why, as JavaScript's `staleIfErrorMs` does; counted at the server.

use retryline::web::{staleness, CallOptions, Client};
use retryline::{Jitter, Policy, Reason};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

use super::{runtime_path, script, server_log, url};

#[wasm_bindgen_test]
async fn a_failed_read_serves_its_last_good_response_marked_stale() {
    let path = runtime_path("stale");
    script(&path, None, r#"[{"status":200,"body":{"price":"9"}},{"status":503},{"status":503}]"#).await;
    let policy = Policy::builder().jitter(Jitter::None).max_attempts(2).base_delay_ms(20).build().expect("a policy");
    let c = Client::builder().policy(policy).stale_if_error_ms(30_000).build();
    let fresh = c.get(&url(&path), CallOptions::default()).await.expect("the first read succeeds");
    assert_eq!(staleness(&fresh), None);
    JsFuture::from(fresh.text().expect("a body")).await.expect("read");
    let served = c.get(&url(&path), CallOptions::default()).await.expect("the kept answer, served stale");
    let mark = staleness(&served).expect("marked stale");
    assert_eq!(mark.reason, Reason::Attempts);
    assert!(mark.age_ms < 5_000, "{} ms old", mark.age_ms);
    assert_eq!(mark.records.last().map(|r| r.decision), Some(retryline::record::Decision::Stale));
    let age = served.headers().get("age").ok().flatten().unwrap_or_default();
    assert_eq!(age.parse::<u64>().ok(), Some(mark.age_ms / 1000), "Age says the same age, in whole seconds");
    let body = JsFuture::from(served.text().expect("a body")).await.expect("read").as_string().unwrap_or_default();
    assert!(body.contains("\"price\":\"9\""), "{body}");
    assert_eq!(server_log(&path).await.len(), 3, "one good read, two failed attempts");
    // Without the option, the same failure rejects.
    script(&path, None, r#"[{"status":503},{"status":503}]"#).await;
    let never = c.get(&url(&path), CallOptions { stale_if_error_ms: Some(0), ..CallOptions::default() }).await;
    assert!(never.is_err(), "staleIfErrorMs 0 on the call: never stale");
}
