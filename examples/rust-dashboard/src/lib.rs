//! A dashboard's data layer: prices through retryline's typed client, refused calls explained,
//! and live trades from a stream that reconnects under the same budget.
//! In a Leptos, Yew or Dioxus app, call [`last_price`] from a resource or an effect, and read
//! [`trades`] in a task that updates the view.

use js_sys::Reflect;
use retryline::web::{CallOptions, Client, Error, Message, Stream, StreamOptions};
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

/// One trade of the exchange's ticker stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Trade {
    /// The exchange's sequence number: a gap means ticks were missed while reconnecting.
    pub seq: u64,
    /// The price, as the exchange wrote it.
    pub price: String,
}

/// The exchange's trade stream (`/ws/ticker`, `query` appended), reconnecting under `options`
/// and the client's budget: a ban on the REST calls holds it too.
pub fn trades(client: &Client, exchange: &str, query: &str, options: StreamOptions) -> Result<Stream, Error> {
    client.stream(&format!("{exchange}/ws/ticker{query}"), options)
}

/// The trade a message carries, if it is one (`{"e":"trade","seq":…,"p":"…"}`).
pub fn trade(message: &Message) -> Option<Trade> {
    let Message::Text(text) = message else { return None };
    let value = js_sys::JSON::parse(text).ok()?;
    let field = |name: &str| Reflect::get(&value, &name.into()).ok();
    if field("e")?.as_string()? != "trade" {
        return None;
    }
    let seq = field("seq")?.as_f64().filter(|n| n.fract() == 0.0 && *n >= 0.0)? as u64;
    Some(Trade { seq, price: field("p")?.as_string()? })
}
