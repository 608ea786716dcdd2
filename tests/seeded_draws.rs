//! Delays drawn from a seed are reproducible anywhere: the generator is SplitMix64.
//!
//! A schedule must be the same in the browser, in Node, in a worker and in a replay, and
//! the same seed must keep giving the same schedule from one release to the next.
#![cfg(not(target_arch = "wasm32"))]

use retryline::Rng;

#[test]
fn the_generator_yields_splitmix64s_published_sequence() {
    // The reference sequence of SplitMix64 (Steele, Lea & Flood 2014; Vigna's splitmix64.c) for seed 0.
    let mut rng = Rng::seeded(0);
    let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
    assert_eq!(first, vec![0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F]);
}

#[test]
fn the_same_seed_gives_the_same_draws_and_another_seed_others() {
    let draws = |seed| {
        let mut rng = Rng::seeded(seed);
        (0..8).map(|_| rng.between(0, 10_000)).collect::<Vec<u64>>()
    };
    assert_eq!(draws(17), draws(17));
    assert_ne!(draws(17), draws(18));
}

#[test]
fn an_empty_range_gives_its_lower_end_and_the_full_range_any_value() {
    let mut rng = Rng::seeded(3);
    assert_eq!(rng.between(7, 7), 7);
    assert_eq!(rng.between(9, 2), 9);
    let mut a = Rng::seeded(3);
    let mut b = Rng::seeded(3);
    assert_eq!(a.between(0, u64::MAX), b.next_u64(), "the whole u64 range is the raw output");
}
