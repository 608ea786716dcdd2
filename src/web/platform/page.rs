//! What a browser page says of itself, for a stream (as js/platform/page-signals.js): offline,
//! online, hidden, visible, and a wake (a `pageshow` from the back/forward cache, a `resume`).
//! Where there is no page (Node, workerd, a worker), nothing is heard and nothing changes.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::values;
use crate::stream::session::PageSignal;

/// What an event of the page means, if anything.
type Read = Box<dyn Fn(&JsValue) -> Option<PageSignal>>;

/// One listener: on what, for which event, and the closure the page holds.
type Listener = (JsValue, &'static str, Closure<dyn FnMut(JsValue)>);

/// The page's listeners; dropping it removes them.
pub struct Page {
    on: Vec<Listener>,
}

impl Page {
    /// Tells `tell` what the page says, beginning with where it is now (online or offline,
    /// hidden); `None` where there is no page.
    pub fn listen(tell: Rc<dyn Fn(PageSignal)>) -> Option<Page> {
        let global: JsValue = js_sys::global().into();
        let document = values::get(&global, "document").ok().filter(JsValue::is_object)?;
        if !values::get(&global, "addEventListener").is_ok_and(|f| f.is_function()) {
            return None;
        }
        let hidden = |doc: &JsValue| {
            values::get(doc, "visibilityState").ok().and_then(|v| v.as_string()).as_deref() == Some("hidden")
        };
        let mut page = Page { on: Vec::new() };
        let doc = document.clone();
        let visibility: Read =
            Box::new(move |_| Some(if hidden(&doc) { PageSignal::Hidden } else { PageSignal::Visible }));
        let persisted: Read = Box::new(|event| {
            values::get(event, "persisted").ok().and_then(|p| p.as_bool()).filter(|p| *p).map(|_| PageSignal::Wake)
        });
        page.add(&global, "offline", Box::new(|_| Some(PageSignal::Offline)), &tell);
        page.add(&global, "online", Box::new(|_| Some(PageSignal::Online)), &tell);
        page.add(&global, "pageshow", persisted, &tell);
        page.add(&document, "visibilitychange", visibility, &tell);
        page.add(&document, "resume", Box::new(|_| Some(PageSignal::Wake)), &tell);
        let navigator = values::get(&global, "navigator").unwrap_or(JsValue::UNDEFINED);
        // Where the network is now: a stream begun again after a stop may have missed a change.
        if let Some(online) = values::get(&navigator, "onLine").ok().and_then(|v| v.as_bool()) {
            tell(if online { PageSignal::Online } else { PageSignal::Offline });
        }
        if hidden(&document) {
            tell(PageSignal::Hidden);
        }
        Some(page)
    }

    fn add(&mut self, target: &JsValue, kind: &'static str, read: Read, tell: &Rc<dyn Fn(PageSignal)>) {
        let tell = tell.clone();
        let closure = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            if let Some(signal) = read(&event) {
                tell(signal);
            }
        });
        if values::invoke(target, "addEventListener", &[&kind.into(), closure.as_ref()]).is_ok() {
            self.on.push((target.clone(), kind, closure));
        }
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        for (target, kind, closure) in &self.on {
            let _ = values::invoke(target, "removeEventListener", &[&(*kind).into(), closure.as_ref()]);
        }
    }
}
