//! A stream's machine under thousands of random lives: refused upgrades with Retry-After, drops
//! early and late, bans in the scope. Whatever happens, a provider's wait is never shortened, an
//! outage never sends more than maxAttempts nor starts one past its deadline, and a shared bucket
//! is never overspent.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use retryline::budget::BudgetConfig;
use retryline::stream::{Closed, Stream, StreamSpec, Watch};
use retryline::{Action, Budget, Decision, Draws, Loose, Observed, Outcome, Policy};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;
const SCOPE: &str = "http://x.test";

/// What happens to one connection attempt: refused (status, Retry-After seconds), up for some ms
/// then dropped, or a ban put on the scope by a REST call meanwhile.
#[derive(Clone, Debug)]
enum Life {
    Refused(u16, Option<u64>),
    Up(u64),
    Banned(u64),
}

fn lives() -> impl Strategy<Value = Vec<Life>> {
    let life = prop_oneof![
        (prop::sample::select(vec![429u16, 503, 502, 418]), prop::option::of(0u64..5))
            .prop_map(|(s, r)| Life::Refused(s, r)),
        (0u64..20_000).prop_map(Life::Up),
        (1u64..20_000).prop_map(Life::Banned),
    ];
    prop::collection::vec(life, 1..40)
}

fn budget() -> Budget {
    let options: Loose = serde_json::from_value(json!({ "capacity": 3, "refillPerSecond": 1, "reserve": 0 })).unwrap();
    Budget::new(BudgetConfig::from_options(&options).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn waits_attempts_deadlines_and_tokens_hold(lives in lives(), seed in any::<u64>(), min_uptime in 0u64..8000, attempts in 1u64..8) {
        let policy = Policy::for_streams()
            .with_options(&serde_json::from_value(json!({ "maxAttempts": attempts, "deadlineMs": 60_000, "baseDelayMs": 200 })).unwrap())
            .unwrap();
        let watch = Watch { min_uptime_ms: min_uptime, ..Watch::default() };
        let spec = StreamSpec { policy, scope: SCOPE.to_owned(), weight: 1, url: None, watch, send_per_second: None };
        let (mut s, mut budget, mut draws) = (Stream::begin(spec), budget(), Draws::seeded(seed));
        let mut now = 0u64;
        let mut action = s.connect(now, WALL, &mut draws, &mut budget);
        // Instants before which no connection attempt may start (a provider's wait), and every start.
        let mut not_before = 0u64;
        let mut starts = Vec::new();
        for life in lives {
            while let Action::Sleep { until } = action {
                prop_assert!(until >= now);
                now = until;
                action = s.on_wake(now, &mut budget);
            }
            let Action::Send { .. } = action else { break };
            prop_assert!(now >= not_before, "connected at {} before a provider's wait ended at {}", now, not_before);
            starts.push(now);
            let closed = match life {
                Life::Refused(status, retry_after) => {
                    now += 30;
                    let outcome = Outcome { retry_after: retry_after.map(|r| r.to_string()), ..Outcome::response(status) };
                    if let Some(r) = retry_after {
                        not_before = not_before.max(now + r * 1000);
                    }
                    s.on_close(now, WALL, &outcome, None, &mut draws, &mut budget)
                }
                Life::Up(ms) => {
                    now += 10;
                    s.on_open(now, WALL, &mut draws, &mut budget);
                    now += ms;
                    s.check(now, WALL, Some(now), &mut draws, &mut budget);
                    s.on_close(now, WALL, &Outcome::failure(Observed::NetworkError), Some(1006), &mut draws, &mut budget)
                }
                Life::Banned(ms) => {
                    now += 10;
                    s.on_open(now, WALL, &mut draws, &mut budget);
                    budget.ban(SCOPE, now + ms);
                    not_before = not_before.max(now + ms);
                    now += 5;
                    s.on_close(now, WALL, &Outcome::failure(Observed::NetworkError), Some(1012), &mut draws, &mut budget)
                }
            };
            action = match closed {
                Closed::Act(action) => action,
                Closed::Adopted => unreachable!("no rotation here"),
            };
        }
        // Every outage: at most maxAttempts sent, none started past its deadline.
        let records = s.take_records();
        let mut sent_in_outage = 0u64;
        for r in &records {
            if r.attempt == 1 {
                sent_in_outage = 0;
            }
            if r.decision == Decision::Sent {
                sent_in_outage += 1;
                prop_assert!(sent_in_outage <= attempts);
                prop_assert!(r.start_ms <= 60_000, "an attempt started {} ms into its outage", r.start_ms);
            }
        }
        // A bucket of 3 refilling 1/s: never more than 3 + n starts in any n seconds.
        for (i, &t) in starts.iter().enumerate() {
            for (j, &u) in starts.iter().enumerate().skip(i) {
                let n = (j - i + 1) as u64;
                prop_assert!(n <= 3 + (u - t) / 1000 + 1, "{} starts within {} ms", n, u - t);
            }
        }
    }
}
