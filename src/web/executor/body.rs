//! The caller's request body, read once before the first attempt when the machine says
//! (`Effect::ReadBody`, answered `Event::BodyRead`) and kept for every attempt; what reading it
//! threw is the caller's error.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use wasm_bindgen::JsValue;

use crate::call::Event;
use crate::text;
use crate::web::platform::errors::type_error;
use crate::web::platform::request::RequestTemplate;
use crate::web::platform::settling::Settling;
use crate::web::platform::values;

/// The body being read.
pub(super) struct Body {
    reading: Settling,
}

impl Body {
    /// Starts reading `request`'s body; `Err` is the answer at once (it has none).
    pub(super) fn read(request: &RequestTemplate) -> Result<Body, Event> {
        match request.read_body() {
            Some(called) => Ok(Body { reading: Settling::of(called) }),
            None => Err(Event::BodyRead(true)),
        }
    }

    /// The body read (kept in `request`), or what reading it threw.
    pub(super) fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        request: &mut RequestTemplate,
    ) -> Poll<Result<(), JsValue>> {
        Pin::new(&mut self.reading).poll(cx).map(|read| match read {
            Ok(bytes) if values::is_bytes(&bytes) => {
                request.keep_body(&bytes);
                Ok(())
            }
            Ok(other) => {
                Err(type_error(&text::join(&["the request body resolved with ", values::kind(&other), ", not bytes"])))
            }
            Err(thrown) => Err(thrown),
        })
    }
}
