//! A dashboard's data layer: prices through retryline's typed client, refused calls explained.
//! In a Leptos, Yew or Dioxus app, call [`last_price`] from a resource or an effect.

use js_sys::Reflect;
use retryline::web::{CallOptions, Client, Error};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

/// The last traded price of `symbol` at `exchange`, retried under the client's policy.
pub async fn last_price(client: &Client, exchange: &str, symbol: &str) -> Result<String, PriceError> {
    let url = format!("{exchange}/api/v3/ticker/price?symbol={symbol}");
    let response = client.get(&url, CallOptions::default()).await.map_err(PriceError::Retry)?;
    let body = JsFuture::from(response.json().map_err(PriceError::Body)?).await.map_err(PriceError::Body)?;
    Reflect::get(&body, &"price".into()).ok().and_then(|p| p.as_string()).ok_or(PriceError::NoPrice)
}

/// Why a price could not be shown.
#[derive(Debug)]
pub enum PriceError {
    /// The request stopped: `error.reason()` says why (a ban, a deadline, …).
    Retry(Error),
    /// The body was not JSON.
    Body(JsValue),
    /// The JSON had no `price`.
    NoPrice,
}
