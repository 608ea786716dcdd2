//! The bindings of `js/platform/tab-locks.js` (the JavaScript shell's own): a budget shared with
//! the other tabs and workers of this origin, its state in IndexedDB under a Web Lock per share
//! name, a BroadcastChannel that tells the share's listeners of a hold or ban
//! (docs/shared-budgets.md). Nothing there throws: where a primitive is missing or fails, a step
//! runs on this realm's own view of the budget.
//!
//! [`Locks`] is one machine's part in a share (the locks it asked for, the one it holds);
//! [`hear`] gives a live machine an ear for the news of a hold or ban under a share's name.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use wasm_bindgen::prelude::*;

use super::loose::plain;
use super::settling::Settling;
use super::values;
use crate::budget::shared::SharedState;
use crate::json::FromLoose;

#[wasm_bindgen(module = "/js/platform/tab-locks.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = shareAvailable)]
    fn js_share_available() -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = shareEnter)]
    fn js_share_enter(name: &str, within_ms: f64) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = shareLeave)]
    fn js_share_leave(name: &str, text: Option<String>, tell: bool) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = shareListen)]
    fn js_share_listen(name: &str, listener: &JsValue) -> Result<(), JsValue>;
}

/// Whether this realm has what sharing a budget needs (Web Locks, IndexedDB).
pub fn available() -> bool {
    js_share_available().unwrap_or(false)
}

/// Takes the share's lock: a promise of its stored state (text, empty if none) once it is held,
/// or of `null` if it cannot be had within `within_ms`; it never rejects.
fn enter(name: &str, within_ms: u64) -> Result<js_sys::Promise, JsValue> {
    js_share_enter(name, within_ms as f64)
}

/// Stores the share's state (`None`: nothing to store) and releases its lock; `tell` tells the
/// share's listeners everywhere of a hold or ban.
fn leave(name: &str, text: Option<&str>, tell: bool) {
    let _ = js_share_leave(name, text.map(str::to_owned), tell);
}

/// Lets go of a lock granted once `entering` (what [`enter`] returned) settles: its taker is gone.
fn leave_once_entered(name: &str, entering: js_sys::Promise) {
    let name = name.to_owned();
    let release = Closure::once_into_js(move |text: JsValue| {
        if !text.is_null() {
            leave(&name, None, false);
        }
    });
    let _ = values::invoke(&entering, "then", &[&release]);
}

/// Calls `listener` whenever a hold or ban is published under `name` (one listener a name).
fn listen(name: &str, listener: &JsValue) {
    let _ = js_share_listen(name, listener);
}

/// The share's lock asked for, for bracket `seq`.
struct Entering {
    seq: u32,
    /// What `shareEnter` returned: a lock granted once its taker is gone is let go through it.
    promise: js_sys::Promise,
    settling: Settling,
}

/// One machine's part in a share.
pub struct Locks {
    /// The share's name (`None`: the budget is this realm's alone).
    name: Option<Rc<str>>,
    entering: Vec<Entering>,
    /// This machine holds the share's lock: `shareLeave` lets go of whatever lock this realm holds
    /// under the name, so only its holder may call it.
    held: bool,
}

impl Locks {
    pub fn new(name: Option<Rc<str>>) -> Locks {
        Locks { name, entering: Vec::new(), held: false }
    }

    /// Asks for the lock for bracket `seq`, to be had within `within_ms`; `false` when there is no
    /// share or no lock to ask for (the bracket is then answered at once, with nothing stored).
    pub fn enter(&mut self, seq: u32, within_ms: u64) -> bool {
        let Some(Ok(promise)) = self.name.as_deref().map(|name| enter(name, within_ms)) else { return false };
        let settling = Settling::of(Ok(promise.clone().into()));
        self.entering.push(Entering { seq, promise, settling });
        true
    }

    /// Stores `state` (JSON) and lets go of the lock, if this holds it; `news` tells the share's
    /// listeners everywhere of a hold or ban.
    pub fn leave(&mut self, state: Option<&str>, news: bool) {
        if let (Some(name), true) = (self.name.as_deref(), std::mem::take(&mut self.held)) {
            leave(name, state, news);
        }
    }

    /// Each lock held (with the state stored, if it could be read) or given up on, handed to
    /// `entered` with its bracket.
    pub fn poll(&mut self, cx: &mut Context<'_>, mut entered: impl FnMut(u32, Option<SharedState>)) {
        let mut at = 0;
        while let Some(entering) = self.entering.get_mut(at) {
            let Poll::Ready(text) = Pin::new(&mut entering.settling).poll(cx) else {
                at += 1;
                continue;
            };
            let seq = self.entering.remove(at).seq;
            // Text (empty: nothing stored yet) once the lock is held; null when it could not be had.
            let text = text.ok().and_then(|t| t.as_string());
            self.held |= text.is_some();
            let text = text.filter(|t| !t.is_empty());
            let state = text.and_then(|t| values::parse_json(&t).ok()).and_then(|v| plain(&v).ok());
            entered(seq, state.and_then(|s| SharedState::from_loose(&s).ok()));
        }
    }

    /// The machine is over: a lock it holds (its answer not fed yet) is let go, and one still to be
    /// granted once it is.
    pub fn abandon(&mut self) {
        let Some(name) = self.name.as_deref() else { return };
        if std::mem::take(&mut self.held) {
            leave(name, None, false);
        }
        for entering in self.entering.drain(..) {
            leave_once_entered(name, entering.promise);
        }
    }
}

/// News of a hold or ban under a share name, as one live machine hears it.
#[derive(Default)]
pub struct Heard {
    news: Cell<bool>,
    waker: RefCell<Option<Waker>>,
}

impl Heard {
    /// Whether news came since the last look; if not, `cx` is woken when it does.
    pub fn poll_news(&self, cx: &mut Context<'_>) -> bool {
        if self.news.replace(false) {
            return true;
        }
        if let Ok(mut waker) = self.waker.try_borrow_mut() {
            *waker = Some(cx.waker().clone());
        }
        false
    }

    fn tell(&self) {
        self.news.set(true);
        let waker = self.waker.try_borrow_mut().ok().and_then(|mut w| w.take());
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Each share name listened to, and the live machines that hear its news.
type Ears = Vec<(Rc<str>, Vec<Weak<Heard>>)>;

thread_local! {
    static EARS: RefCell<Ears> = const { RefCell::new(Vec::new()) };
}

/// A live machine's ear for news under `name`; the share's listener is set up with the first.
pub fn hear(name: &Rc<str>) -> Rc<Heard> {
    let heard = Rc::new(Heard::default());
    let first = EARS.with(|ears| {
        let mut ears = ears.borrow_mut();
        match ears.iter_mut().find(|(n, _)| n == name) {
            Some((_, live)) => {
                live.retain(|ear| ear.strong_count() > 0);
                live.push(Rc::downgrade(&heard));
                false
            }
            None => {
                ears.push((name.clone(), vec![Rc::downgrade(&heard)]));
                true
            }
        }
    });
    if first {
        let told = name.clone();
        let listener = Closure::<dyn Fn()>::new(move || tell(&told));
        listen(name, listener.as_ref());
        // One a share name, for the life of the module, as tab-locks.js keeps it.
        listener.forget();
    }
    heard
}

/// Tells every live machine of share `name` (outside the table's borrow: a waker may run code).
fn tell(name: &str) {
    let live: Vec<Rc<Heard>> = EARS.with(|ears| {
        let Ok(ears) = ears.try_borrow() else { return Vec::new() };
        ears.iter().filter(|(n, _)| &**n == name).flat_map(|(_, live)| live.iter().filter_map(Weak::upgrade)).collect()
    });
    for heard in live {
        heard.tell();
    }
}

thread_local! {
    /// The live machines of each budget in this realm (by its address), for a freed slot's news.
    static LOCAL_EARS: RefCell<Vec<(usize, Vec<Weak<Heard>>)>> = const { RefCell::new(Vec::new()) };
}

/// A live machine's ear for news of budget `at` within this realm (a slot of `maxInFlight` freed).
pub fn hear_local(at: usize) -> Rc<Heard> {
    let heard = Rc::new(Heard::default());
    LOCAL_EARS.with(|ears| {
        let Ok(mut ears) = ears.try_borrow_mut() else { return };
        ears.retain_mut(|(_, live)| {
            live.retain(|ear| ear.strong_count() > 0);
            !live.is_empty()
        });
        match ears.iter_mut().find(|(a, _)| *a == at) {
            Some((_, live)) => live.push(Rc::downgrade(&heard)),
            None => ears.push((at, vec![Rc::downgrade(&heard)])),
        }
    });
    heard
}

/// Tells every live machine of budget `at` in this realm to look again.
pub fn tell_local(at: usize) {
    let live: Vec<Rc<Heard>> = LOCAL_EARS.with(|ears| {
        let Ok(ears) = ears.try_borrow() else { return Vec::new() };
        ears.iter().filter(|(a, _)| *a == at).flat_map(|(_, live)| live.iter().filter_map(Weak::upgrade)).collect()
    });
    for heard in live {
        heard.tell();
    }
}
