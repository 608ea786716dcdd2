//! A one-shot value shared between JavaScript callbacks and a Rust future.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

struct Slot<T> {
    value: Option<T>,
    waker: Option<Waker>,
}

/// The first `set` wins; the future resolves with it.
pub struct Latch<T> {
    slot: Rc<RefCell<Slot<T>>>,
}

impl<T> Clone for Latch<T> {
    fn clone(&self) -> Self {
        Latch { slot: self.slot.clone() }
    }
}

impl<T> Latch<T> {
    pub fn new() -> Self {
        Latch { slot: Rc::new(RefCell::new(Slot { value: None, waker: None })) }
    }

    pub fn set(&self, value: T) {
        let waker = {
            let Ok(mut slot) = self.slot.try_borrow_mut() else {
                return;
            };
            if slot.value.is_some() {
                return;
            }
            slot.value = Some(value);
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Future for Latch<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let Ok(mut slot) = self.slot.try_borrow_mut() else {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        };
        match slot.value.take() {
            Some(value) => Poll::Ready(value),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
