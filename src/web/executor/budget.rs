//! A budget as clients hold it: the core's budget and, for a budget shared with the origin's other
//! tabs and workers, its share name — the core then brackets every step on it (`Share::Enter` and
//! `Leave`, carried out with js/platform/tab-locks.js) — and the news of a hold or ban published
//! under that name, told to every live call of the share.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::task::{Context, Waker};

use wasm_bindgen::prelude::*;

use crate::budget::{Budget, BudgetConfig};
use crate::web::platform::tabs;

/// A core budget, and the name it is shared under across tabs.
#[derive(Clone)]
pub struct Held {
    pub budget: Rc<RefCell<Budget>>,
    /// `None`: this realm's alone.
    pub share: Option<Rc<str>>,
}

impl Held {
    /// A budget from `config`, shared under `share` where the platform can (Web Locks and
    /// IndexedDB); this realm's own otherwise.
    pub fn new(config: BudgetConfig, share: Option<&str>) -> Held {
        let share: Option<Rc<str>> = share.filter(|_| tabs::available()).map(Rc::from);
        let mut budget = Budget::new(config);
        if share.is_some() {
            budget.share_across_tabs();
        }
        Held { budget: Rc::new(RefCell::new(budget)), share }
    }
}

/// News of a hold or ban under a share name, as one live call hears it.
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

/// Each share name listened to, and the live calls that hear its news.
type Ears = Vec<(Rc<str>, Vec<Weak<Heard>>)>;

thread_local! {
    static EARS: RefCell<Ears> = const { RefCell::new(Vec::new()) };
}

/// A live call's ear for news under `name`; the share's listener is set up with the first.
pub fn listen(name: &Rc<str>) -> Rc<Heard> {
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
        tabs::listen(name, listener.as_ref());
        // One a share name, for the life of the module, as tab-locks.js keeps it.
        listener.forget();
    }
    heard
}

/// Tells every live call of share `name` (outside the table's borrow: a waker may run code).
fn tell(name: &str) {
    let live: Vec<Rc<Heard>> = EARS.with(|ears| {
        let Ok(ears) = ears.try_borrow() else { return Vec::new() };
        ears.iter().filter(|(n, _)| &**n == name).flat_map(|(_, live)| live.iter().filter_map(Weak::upgrade)).collect()
    });
    for heard in live {
        heard.tell();
    }
}
