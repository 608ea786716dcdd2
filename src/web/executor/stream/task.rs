//! The stream's task: it starts the session, then feeds it what came — a socket's event, the
//! timer, a lock of the shared budget, a callback of the caller's that finished — until it stops.
//! The callbacks are polled here, outside every borrow (they may send or close), and are dropped
//! with the task.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use super::{Answer, Shared};
use crate::redact::redact_text_with;
use crate::stream::session::SessionEvent;
use crate::web::platform::inbox::Got;
use crate::web::platform::socket::{Message, SocketEvent};

/// What is posted to the task.
pub(super) enum Input {
    /// Socket `link` did this.
    Socket(u32, SocketEvent),
    /// A callback of the caller's began: the task waits for its answer.
    Begun(Callback),
}

/// A callback of the caller's under way.
pub(super) enum Callback {
    OnOpen(u32, Answer),
    Resync(u32, Answer),
}

impl Callback {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<SessionEvent> {
        match self {
            Callback::OnOpen(link, answer) => {
                answer.as_mut().poll(cx).map(|done| SessionEvent::OnOpenDone(*link, done))
            }
            Callback::Resync(round, answer) => {
                answer.as_mut().poll(cx).map(|done| SessionEvent::Resynced(*round, done.is_ok()))
            }
        }
    }
}

/// What a socket did, as the session hears it (its words redacted as records are).
fn heard(link: u32, event: SocketEvent) -> (SessionEvent, Option<Message>) {
    match event {
        SocketEvent::Open => (SessionEvent::Opened(link), None),
        SocketEvent::Message(message) => (SessionEvent::Message(link), Some(message)),
        SocketEvent::Closed { code, reason } => (SessionEvent::Closed(link, code, redacted(&reason)), None),
    }
}

/// What the platform said, redacted as records are (it may quote a URL).
pub(super) fn redacted(words: &str) -> String {
    redact_text_with(words, &|_| false)
}

pub(super) struct Task {
    shared: Rc<Shared>,
    callbacks: Vec<Callback>,
    begun: bool,
}

impl Task {
    pub(super) fn new(shared: Rc<Shared>) -> Task {
        Task { shared, callbacks: Vec::new(), begun: false }
    }
}

impl Future for Task {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let task = &mut *self;
        if !std::mem::replace(&mut task.begun, true) {
            task.shared.feed(SessionEvent::Start, None);
        }
        loop {
            if task.shared.live.try_borrow().is_ok_and(|live| live.ended) {
                return Poll::Ready(());
            }
            let mut came: Vec<(SessionEvent, Option<Message>)> = Vec::new();
            task.callbacks.retain_mut(|callback| match callback.poll(cx) {
                Poll::Ready(event) => {
                    came.push((event, None));
                    false
                }
                Poll::Pending => true,
            });
            let got = {
                let Ok(mut live) = task.shared.live.try_borrow_mut() else {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                };
                live.locks.poll(cx, |seq, state| came.push((SessionEvent::Entered(seq, state), None)));
                live.inbox.poll_next(cx)
            };
            match got {
                Poll::Ready(Got::Posted(Input::Socket(link, event))) => came.push(heard(link, event)),
                Poll::Ready(Got::Posted(Input::Begun(callback))) => task.callbacks.push(callback),
                Poll::Ready(Got::Due) => came.push((SessionEvent::Timer, None)),
                Poll::Pending if came.is_empty() => return Poll::Pending,
                Poll::Pending => {}
            }
            for (event, data) in came {
                task.shared.feed(event, data);
            }
        }
    }
}
