//! A WebSocket of the platform's, as a stream's executor drives it: made through the guarded
//! constructor, its events handed to one callback, closed quietly (its handlers gone first) when
//! closed or dropped.
//!
//! The constructor and every method that can throw go through [`super::values`] or a `catch`
//! import with no value to leak; the handlers are the typed setters, which a real `WebSocket`
//! (checked with `instanceof`) never throws from.

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::{BinaryType, CloseEvent, MessageEvent, WebSocket};

use super::errors::describe;
use super::values::{self, kind};
use crate::text;

/// A message, as it came from or goes to the socket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// A text frame.
    Text(String),
    /// A binary frame.
    Binary(Vec<u8>),
}

/// What a socket did.
#[derive(Debug)]
pub enum SocketEvent {
    Open,
    Message(Message),
    /// Closed, before or after it opened (a refused upgrade is a close with 1006 in browsers).
    Closed {
        code: u16,
        reason: String,
    },
    /// Its upgrade was refused with `status`, where the library shows it (`ws`'s
    /// `unexpected-response`, in Node): the `Retry-After` and `Date` it came with.
    Refused {
        status: u16,
        retry_after: Option<String>,
        date: Option<String>,
    },
}

/// A socket and the handlers that feed its events to the callback; dropping it closes it.
pub struct Socket {
    ws: WebSocket,
    closed: bool,
    // One closure type for the three: each type costs its own glue in the wasm and the JS.
    _handlers: [Closure<dyn FnMut(JsValue)>; 3],
    /// Listening to a refused upgrade, where the library tells one (see [`SocketEvent::Refused`]).
    refused: Option<Closure<dyn FnMut(JsValue, JsValue)>>,
}

/// The URL as the platform's `URL` reads it: `(protocol, href)`, e.g. `("wss:", "wss://…/ws")`.
pub fn parse_url(url: &str) -> Result<(String, String), JsValue> {
    let parsed = values::construct("URL", &[&JsValue::from_str(url)])?;
    let read = |name| values::get(&parsed, name).map(|v| v.as_string().unwrap_or_default());
    Ok((read("protocol")?, read("href")?))
}

/// `url` as a `ws:`/`wss:` URL (`http(s):` read as `ws(s):`); `Err` says what is wrong with it.
pub fn ws_href(url: &str) -> Result<String, String> {
    let (protocol, href) =
        parse_url(url).map_err(|_| "must be an absolute ws:, wss:, http: or https: URL".to_owned())?;
    match protocol.as_str() {
        "ws:" | "wss:" => Ok(href),
        "http:" | "https:" => Ok(text::join(&["ws", href.get(4..).unwrap_or_default()])),
        _ => Err(text::join(&["must be a ws:, wss:, http: or https: URL, got ", &protocol])),
    }
}

impl Socket {
    /// `new WebSocket(url, protocols)` with its events handed to `on`; what the constructor threw
    /// (a `SyntaxError`, a blocked port) as `Err`.
    pub fn open(url: &str, protocols: &[String], on: Rc<dyn Fn(SocketEvent)>) -> Result<Socket, JsValue> {
        let url = JsValue::from_str(url);
        let made = match protocols {
            [] => values::construct("WebSocket", &[&url])?,
            _ => {
                let list: js_sys::Array = protocols.iter().map(|p| JsValue::from_str(p)).collect();
                values::construct("WebSocket", &[&url, &list])?
            }
        };
        let ws = made.dyn_into::<WebSocket>().map_err(|other| {
            js_sys::TypeError::new(&text::join(&["new WebSocket gave ", kind(&other), ", not a WebSocket"]))
        })?;
        // Bytes as an ArrayBuffer, read at once: a Blob would need a promise per message.
        ws.set_binary_type(BinaryType::Arraybuffer);
        let handler = |on: Rc<dyn Fn(SocketEvent)>, read: fn(JsValue) -> SocketEvent| {
            Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| on(read(event)))
        };
        let open = handler(on.clone(), |_| SocketEvent::Open);
        let message = handler(on.clone(), |event| {
            SocketEvent::Message(message_of(&event.unchecked_into::<MessageEvent>().data()))
        });
        let refused = on_refused(&ws, on.clone());
        let close = handler(on, |event| {
            let event = event.unchecked_into::<CloseEvent>();
            SocketEvent::Closed { code: event.code(), reason: event.reason() }
        });
        ws.set_onopen(Some(open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(close.as_ref().unchecked_ref()));
        Ok(Socket { ws, closed: false, _handlers: [open, message, close], refused })
    }

    /// Sends `message`; what the socket threw (it was not open) as `Err`.
    pub fn send(&self, message: &Message) -> Result<(), JsValue> {
        match message {
            Message::Text(text) => self.ws.send_with_str(text),
            Message::Binary(bytes) => self.ws.send_with_u8_array(bytes),
        }
    }

    /// Closes it with `code` and `reason`; nothing it does afterwards is told.
    pub fn close(mut self, code: u16, reason: &str) {
        self.shut(code, reason);
    }

    fn shut(&mut self, code: u16, reason: &str) {
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        // Handlers first: its close must tell nothing, and the closures die with this.
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        if let Some(refused) = &self.refused {
            let _ = values::invoke(&self.ws, "off", &[&"unexpected-response".into(), refused.as_ref()]);
        }
        // A code or reason the platform refuses still closes it, plainly.
        if self.ws.close_with_code_and_reason(code, reason).is_err() {
            let _ = self.ws.close_with_code(1000);
        }
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.shut(1000, "");
    }
}

/// A stream's sockets by link, each handing what it does, with its link, to one callback.
#[derive(Default)]
pub struct Sockets {
    open: Vec<(u32, Socket)>,
}

impl Sockets {
    /// Opens socket `link` to `url`; what the constructor threw, described, as `Err`.
    pub fn open(
        &mut self,
        link: u32,
        url: &str,
        protocols: &[String],
        on: Rc<dyn Fn(u32, SocketEvent)>,
    ) -> Result<(), String> {
        let socket = Socket::open(url, protocols, Rc::new(move |event| on(link, event))).map_err(|e| describe(&e))?;
        self.open.push((link, socket));
        Ok(())
    }

    /// Sends on socket `link`, if it is there; one that cannot send is about to close, and says so.
    pub fn send(&self, link: u32, message: &Message) {
        if let Some((_, socket)) = self.open.iter().find(|(l, _)| *l == link) {
            let _ = socket.send(message);
        }
    }

    /// The platform's socket of link `link`, if it is open.
    pub fn socket(&self, link: u32) -> Option<WebSocket> {
        self.open.iter().find(|(l, _)| *l == link).map(|(_, socket)| socket.ws.clone())
    }

    /// Closes socket `link` with `code` and `reason`; nothing it does afterwards is told.
    pub fn close(&mut self, link: u32, code: u16, reason: &str) {
        if let Some(at) = self.open.iter().position(|(l, _)| *l == link) {
            self.open.swap_remove(at).1.close(code, reason);
        }
    }

    /// Closes every socket quietly.
    pub fn clear(&mut self) {
        self.open.clear();
    }
}

/// Listens for `ws`'s `unexpected-response` (a socket with an `on` method: an `EventEmitter`), as
/// js/platform/socket.js does; `None` for a platform's socket, which never tells a refusal.
fn on_refused(ws: &WebSocket, on: Rc<dyn Fn(SocketEvent)>) -> Option<Closure<dyn FnMut(JsValue, JsValue)>> {
    if !values::get(ws, "on").is_ok_and(|f| f.is_function()) {
        return None;
    }
    let refused = Closure::<dyn FnMut(JsValue, JsValue)>::new(move |request: JsValue, response: JsValue| {
        let headers = values::get(&response, "headers").unwrap_or(JsValue::UNDEFINED);
        let status = values::get(&response, "statusCode").ok().and_then(|s| s.as_f64()).unwrap_or(0.0);
        // Once the event has a listener, ending the request is the listener's part.
        let _ = values::invoke(&response, "resume", &[]);
        let _ = values::invoke(&request, "destroy", &[]);
        let status = if (0.0..=f64::from(u16::MAX)).contains(&status) { status as u16 } else { 0 };
        on(SocketEvent::Refused {
            status,
            retry_after: header(&headers, "retry-after"),
            date: header(&headers, "date"),
        });
    });
    values::invoke(ws, "on", &[&"unexpected-response".into(), refused.as_ref()]).ok()?;
    Some(refused)
}

/// Header `name` of a Node response's `headers` (a repeated one is an array: its first).
fn header(headers: &JsValue, name: &str) -> Option<String> {
    let value = values::get(headers, name).ok()?;
    let value = match values::is_array(&value) {
        Ok(true) => values::item(&value, 0).ok()?,
        _ => value,
    };
    value.as_string().or_else(|| value.as_f64().map(|n| n.to_string()))
}

/// A message's data: a string, or an `ArrayBuffer` (any other kind arrives as no bytes).
fn message_of(data: &JsValue) -> Message {
    match data.as_string() {
        Some(text) => Message::Text(text),
        None => match data.dyn_ref::<js_sys::ArrayBuffer>() {
            Some(buffer) => Message::Binary(js_sys::Uint8Array::new(buffer).to_vec()),
            None => Message::Binary(Vec::new()),
        },
    }
}
