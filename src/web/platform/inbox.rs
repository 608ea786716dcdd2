//! Values posted by JavaScript callbacks (a socket's events) or by a task (a stream's events for
//! its reader), taken in order by the one task that waits on them.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

struct Queue<T> {
    items: VecDeque<T>,
    waker: Option<Waker>,
}

/// Posts into an [`Inbox`]; cheap to clone, and harmless once the inbox is gone.
pub struct Poster<T> {
    queue: Rc<RefCell<Queue<T>>>,
}

impl<T> Clone for Poster<T> {
    fn clone(&self) -> Self {
        Poster { queue: self.queue.clone() }
    }
}

impl<T> Poster<T> {
    /// Queues `value` and wakes the inbox's reader.
    pub fn post(&self, value: T) {
        self.push(Some(value));
    }

    /// Wakes the inbox's reader with nothing new: it looks again at what it waits on.
    pub fn wake(&self) {
        self.push(None);
    }

    fn push(&self, value: Option<T>) {
        let waker = match self.queue.try_borrow_mut() {
            Ok(mut queue) => {
                queue.items.extend(value);
                queue.waker.take()
            }
            Err(_) => None,
        };
        // Outside the borrow: a waker may run its task at once.
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Posted values, in order.
pub struct Inbox<T> {
    queue: Rc<RefCell<Queue<T>>>,
}

impl<T> Inbox<T> {
    pub fn new() -> Inbox<T> {
        Inbox { queue: Rc::new(RefCell::new(Queue { items: VecDeque::new(), waker: None })) }
    }

    pub fn poster(&self) -> Poster<T> {
        Poster { queue: self.queue.clone() }
    }

    /// The next posted value; if there is none, `cx` is woken when one is posted.
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<T> {
        let Ok(mut queue) = self.queue.try_borrow_mut() else { return Poll::Pending };
        match queue.items.pop_front() {
            Some(value) => Poll::Ready(value),
            None => {
                queue.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
