//! Hand-written JSON for what the shell hands out and stores: records, saved states,
//! budget snapshots, replay reports. The forms are exactly serde's derived ones (a test
//! compares them with serde_json), without serde's derives and serde-wasm-bindgen in the
//! wasm build, which cost it about 20 KB gzip.

mod names;
mod read;
mod records;
mod shared;
mod state;
mod write;

pub(crate) use names::position;
pub use names::{BOUNDARY_NAMES, CALL_OPTIONS};
pub use read::{Fields, FromLoose, Placeholder};
pub use write::{push_u64, to_json, Object, ToJson};
