//! `replay(spec)`: the engine on a virtual clock, spec in (wire form), report out (JSON).

use super::invalid;
use super::io::{self, with_input};
use crate::input::At;
use crate::replay::{replay, ReplaySpec};

/// Replays the spec; 1 with the report as the output, or 0 with the error.
#[no_mangle]
pub extern "C" fn rl_replay(spec: u32) -> u32 {
    let read = with_input(|input| {
        let spec = input.wire(spec).map_err(|e| e.at("spec"))?;
        ReplaySpec::read(&spec)
    });
    match read {
        Ok(spec) => {
            io::output(crate::json::to_json(&replay(spec)));
            1
        }
        Err(error) => invalid(&error),
    }
}
