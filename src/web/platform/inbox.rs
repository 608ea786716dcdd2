//! What a long-lived task waits on: values its JavaScript callbacks post (a socket's events),
//! and one alarm, the earliest of its timers, in one poll. (Without its alarm: a queue of values
//! for a reader, a stream's events.)
//!
//! One timer, not one per concern: the task knows which of its instants came due, and a
//! stale timer cannot fire into a new wait (its waiter's generation is gone, see [`super::wake`]).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use super::alarm::Alarm;

/// What came in.
pub enum Got<T> {
    /// A value a callback posted.
    Posted(T),
    /// The alarm's instant came.
    Due,
}

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

/// Posted values in order, and an alarm.
pub struct Inbox<T> {
    queue: Rc<RefCell<Queue<T>>>,
    alarm: Option<Alarm>,
}

impl<T> Inbox<T> {
    pub fn new() -> Inbox<T> {
        Inbox { queue: Rc::new(RefCell::new(Queue { items: VecDeque::new(), waker: None })), alarm: None }
    }

    pub fn poster(&self) -> Poster<T> {
        Poster { queue: self.queue.clone() }
    }

    /// Sets the alarm for `at` (monotonic ms; `None`: no alarm); an unchanged instant keeps its timer.
    /// `false` where the platform set no timer (fake timers that throw): nothing is then due until
    /// the next posted value.
    pub fn alarm_at(&mut self, at: Option<u64>) -> bool {
        if self.alarm.as_ref().map(Alarm::instant) != at {
            self.alarm = at.map(Alarm::at);
        }
        !matches!(&self.alarm, Some(alarm) if !alarm.is_set())
    }

    /// The next posted value, or `Due` once the alarm's instant has come (the alarm is then unset).
    pub fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Got<T>> {
        if let Ok(mut queue) = self.queue.try_borrow_mut() {
            if let Some(value) = queue.items.pop_front() {
                return Poll::Ready(Got::Posted(value));
            }
            queue.waker = Some(cx.waker().clone());
        }
        let fired = self.alarm.as_mut().is_some_and(|alarm| alarm.poll_due(cx).is_ready());
        match fired {
            true => {
                self.alarm = None;
                Poll::Ready(Got::Due)
            }
            false => Poll::Pending,
        }
    }
}
