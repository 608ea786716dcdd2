//! [`Client`]: `fetch` with retries, for Rust callers on wasm32.

use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};

use super::call_options::CallOptions;
use super::error::Error;
use super::family::{Family, FamilyRequest};
use crate::text;
use crate::web::drivers::driver::Driver;
use crate::web::platform::errors::{invalid, type_error};
use crate::web::platform::values::kind;

/// Retries `fetch` under a policy; cheap to clone (clones share everything).
///
/// Made by [`Client::new`] or [`Client::builder`].
#[derive(Clone)]
pub struct Client {
    pub(super) driver: Rc<Driver>,
    /// Endpoint families, in the order declared: the first that takes a request gives its options.
    pub(super) families: Rc<[Family]>,
}

impl Client {
    /// `fetch(request)` with retries under the client's policy and `options`: the successful
    /// response, or why the operation stopped. Dropping the future cancels the call.
    pub async fn fetch(&self, request: &web_sys::Request, options: CallOptions) -> Result<web_sys::Response, Error> {
        self.run(request.as_ref(), &JsValue::UNDEFINED, None, options).await
    }

    /// `GET url` with retries.
    pub async fn get(&self, url: &str, options: CallOptions) -> Result<web_sys::Response, Error> {
        self.run(&JsValue::from_str(url), &JsValue::UNDEFINED, None, options).await
    }

    /// `method url` with `headers` and a text `body`, with retries.
    pub async fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
        options: CallOptions,
    ) -> Result<web_sys::Response, Error> {
        let init = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&init, &k.into(), v).map(|_| ());
        let header_pairs = js_sys::Array::new();
        for (name, value) in headers {
            header_pairs.push(&js_sys::Array::of2(&(*name).into(), &(*value).into()));
        }
        set("method", &method.into())
            .and_then(|()| set("headers", &header_pairs))
            .and_then(|()| body.map_or(Ok(()), |b| set("body", &b.into())))
            .map_err(Error::Invalid)?;
        self.run(&JsValue::from_str(url), &init, body, options).await
    }

    async fn run(
        &self,
        input: &JsValue,
        init: &JsValue,
        body: Option<&str>,
        options: CallOptions,
    ) -> Result<web_sys::Response, Error> {
        let policy = self.driver.policy();
        let checked = |options: CallOptions| options.checked(policy).map_err(|e| invalid("fetch options", &e));
        let call = if self.families.is_empty() {
            let spec = checked(options).map_err(Error::Invalid)?;
            self.driver.prepare(input, init, spec)
        } else {
            // The call's own options are checked before the request is built, as without families.
            checked(options.clone()).map_err(Error::Invalid)?;
            self.driver.prepare_with(input, init, |method, url| {
                let request = FamilyRequest { method, url, body };
                match self.families.iter().find(|f| f.matcher.test(method, url)) {
                    None => checked(options),
                    Some(family) => {
                        let context = text::join(&["fetch: family \"", family.name(), "\""]);
                        let merged = family.under(options, &request)?;
                        merged.checked(policy).map_err(|e| invalid(&context, &e))
                    }
                }
            })
        }
        .map_err(Error::Invalid)?;
        // Dropped before it ends: its timers are cleared by their races, its request aborted by the attempt.
        let response = self.driver.run(call).await?;
        response.dyn_into::<web_sys::Response>().map_err(|other| {
            Error::Invalid(type_error(&text::join(&["fetch gave ", kind(&other), ", not a Response"])))
        })
    }
}
