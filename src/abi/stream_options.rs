//! A stream's options, read and checked apart from its machine: a page's first wasm checks them
//! when `client.stream` is called, and the stream then runs in the whole core's (js/core/cores.js).

use super::io::{self, with_input};
use super::invalid;
use super::state::CLIENTS;
use crate::input::Invalid;
use crate::stream::StreamSpec;

/// The spec of a stream of `client` at `url` (input: the URL, its options in wire form or none,
/// the names that matched the caller's `RegExp`s), its URL redacted; `None` if the client is gone.
pub fn read(client: u32, url: u32, opts: u32, extra: u32) -> Result<Option<StreamSpec>, Invalid> {
    with_input(|input| {
        let (url, options, extra) = (input.text(url), input.wire(opts), super::client::names(input.text(extra)));
        CLIENTS.with(|clients| {
            let Some(owner) = clients.get(client) else { return Ok(None) };
            let mut spec = StreamSpec::read(&options?, url)?;
            spec.url = Some(owner.redact(url, true, &extra));
            Ok(Some(spec))
        })
    })
}

/// Checks a stream's options as [`super::stream::rl_stream_begin`] would, beginning nothing (input:
/// the URL and its options in wire form or none): 1 if they hold, else 0 with the error. Numbers:
/// sendPerSecond (0: unpaced), the connect timeout ms.
#[no_mangle]
pub extern "C" fn rl_stream_options(url: u32, opts: u32) -> u32 {
    // The input is read in the order it was written: the URL, then the options.
    let read = with_input(|input| {
        let url = input.text(url);
        input.wire(opts).and_then(|options| StreamSpec::read(&options, url))
    });
    match read {
        Ok(spec) => {
            io::numbers(&[spec.send_per_second.unwrap_or(0) as f64, spec.policy.attempt_timeout_ms() as f64]);
            1
        }
        Err(error) => invalid(&error),
    }
}
