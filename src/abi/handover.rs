//! What a page's wasm instance hands to the next one it loads (js/core/cores.js): a client's draws,
//! so that a seeded client's sequence goes on where it was. A budget's state crosses as tabs carry
//! it ([`super::tabs`]).

use super::io;
use super::state::CLIENTS;
use crate::draw::Rng;

/// Hands a client's generator state out (numbers: its high and low 32 bits) and reseeds this
/// client with `entropy`: the calls still running here draw apart from those that go on there.
/// Returns 0 if the client is gone.
#[no_mangle]
pub extern "C" fn rl_client_draws_take(handle: u32, entropy: f64) -> u32 {
    CLIENTS.with(|clients| {
        let Some(client) = clients.get_mut(handle) else { return 0 };
        let state = client.draws.rng().state();
        io::numbers(&[(state >> 32) as f64, (state & 0xffff_ffff) as f64]);
        let reseed = if entropy.is_finite() && entropy >= 0.0 { entropy as u64 } else { 0 };
        *client.draws.rng() = Rng::seeded(reseed);
        1
    })
}

/// Takes up a generator state another instance handed out (its high and low 32 bits).
#[no_mangle]
pub extern "C" fn rl_client_draws_give(handle: u32, high: f64, low: f64) {
    let half = |x: f64| if x.is_finite() && x >= 0.0 { (x as u64) & 0xffff_ffff } else { 0 };
    CLIENTS.with(|clients| {
        if let Some(client) = clients.get_mut(handle) {
            *client.draws.rng() = Rng::seeded(half(high) << 32 | half(low));
        }
    });
}
