//! How a call ends without a successful response: [`Error`], and for an operation that stopped,
//! [`Stopped`] (what `RetryError` carries in JavaScript).

use wasm_bindgen::JsValue;

pub use super::settle::Stopped;
use crate::reason::Reason;
use crate::record::AttemptRecord;
use crate::web::platform::errors::describe;

/// How a call ended without a successful response.
#[derive(Debug)]
pub enum Error {
    /// The operation stopped: its [`Reason`], the last response and every record.
    Stopped(Box<Stopped>),
    /// An option or the request was invalid (a `TypeError`/`RangeError` naming the field), or the
    /// request's body could not be read: nothing was sent.
    Invalid(JsValue),
}

impl Error {
    /// Why the operation stopped; `None` for an invalid call.
    pub fn reason(&self) -> Option<Reason> {
        match self {
            Error::Stopped(stopped) => Some(stopped.reason),
            Error::Invalid(_) => None,
        }
    }

    /// The operation's records (none for an invalid call).
    pub fn records(&self) -> &[AttemptRecord] {
        match self {
            Error::Stopped(stopped) => &stopped.records,
            Error::Invalid(_) => &[],
        }
    }

    /// The provider's last response, if there was one.
    pub fn response(&self) -> Option<&web_sys::Response> {
        match self {
            Error::Stopped(stopped) => stopped.response.as_ref(),
            Error::Invalid(_) => None,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Stopped(stopped) => f.write_str(&stopped.message),
            Error::Invalid(error) => f.write_str(&describe(error)),
        }
    }
}

impl std::error::Error for Error {}
