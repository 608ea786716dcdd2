//! The names behind the numbers that cross the boundary: the glue learns them once, at start,
//! so the tables exist in one place (the core's).

use super::io;

/// `{ reason, pending, pendingPhrase, observed, operation, priority, evidence, callOptions }`:
/// each a list whose index is the code that crosses the boundary. The text is built at compile
/// time ([`crate::json::BOUNDARY_NAMES`]).
#[no_mangle]
pub extern "C" fn rl_names() {
    io::output_static(&crate::json::BOUNDARY_NAMES);
}
