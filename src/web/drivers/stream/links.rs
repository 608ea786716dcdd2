//! The stream's sockets: an attempt's (or a rotation's) socket opened under its connect timeout,
//! and what each of its events tells the machine. A socket that is done with is dropped, which
//! closes it with its handlers gone, so its own close tells nothing.

use std::rc::Rc;

use super::failed::redacted;
use super::{Event, Input, Link, Live, Step, StreamState};
use crate::classify::Observed;
use crate::machine::Outcome;
use crate::text;
use crate::web::platform::clock;
use crate::web::platform::errors::describe;
use crate::web::platform::socket::{Message, Socket, SocketEvent};

/// The most of a close's reason kept in the record.
const MAX_REASON_CHARS: usize = 120;

impl Live {
    /// Opens a socket for the attempt (or the rotation's), to open within `timeout_ms`.
    pub(super) fn connect(&mut self, timeout_ms: u64, rotating: bool) {
        if !rotating {
            self.set_state(StreamState::Connecting);
        }
        let id = self.next_link;
        self.next_link = self.next_link.wrapping_add(1).max(1);
        let poster = self.inbox.poster();
        let on: Rc<dyn Fn(SocketEvent)> = Rc::new(move |event| poster.post(Input::Socket(id, event)));
        let opened = Socket::open(&self.opening.url, &self.opening.protocols, on);
        let connect_by = Some(clock::now().saturating_add(timeout_ms));
        let (socket, thrown) = match opened {
            Ok(socket) => (Some(socket), None),
            Err(thrown) => (None, Some(thrown)),
        };
        let link = Link { id, socket, rotating, opened_at: None, connect_by, timeout_ms };
        match rotating {
            true => self.rotation = Some(link),
            false => self.current = Some(link),
        }
        if let Some(thrown) = thrown {
            self.dropped(id, Observed::NetworkError, &describe(&thrown), None);
        }
    }

    /// What socket `id` did.
    pub(super) fn on_socket(&mut self, id: u32, event: SocketEvent) {
        match event {
            SocketEvent::Open => self.opened(id),
            SocketEvent::Message(message) => self.message(id, message),
            SocketEvent::Closed { code, reason } => self.closed(id, code, &reason),
        }
    }

    fn link(&mut self, id: u32) -> Option<&mut Link> {
        match (&mut self.current, &mut self.rotation) {
            (Some(link), _) if link.id == id => Some(link),
            (_, Some(link)) if link.id == id => Some(link),
            _ => None,
        }
    }

    fn take_link(&mut self, id: u32) -> Option<Link> {
        match (&self.current, &self.rotation) {
            (Some(link), _) if link.id == id => self.current.take(),
            (_, Some(link)) if link.id == id => self.rotation.take(),
            _ => None,
        }
    }

    /// The socket opened: its subscriptions go out; the machine hears of the attempt's (a
    /// rotation's takes over when it delivers).
    fn opened(&mut self, id: u32) {
        let Some(link) = self.link(id).filter(|l| l.opened_at.is_none()) else { return };
        link.opened_at = Some(clock::now());
        link.connect_by = None;
        let rotating = link.rotating;
        for message in self.opening.subscribe.clone() {
            self.send_on(id, message);
        }
        if !rotating {
            self.up();
        }
    }

    /// The current connection is up: the machine is told, and watching begins.
    pub(super) fn up(&mut self) {
        let (now, wall) = (clock::now(), clock::wall_now());
        self.heard_at = None;
        let watching = {
            let (mut draws, mut budget) = (self.driver.draws.borrow_mut(), self.driver.budget.borrow_mut());
            self.machine.on_open(now, wall, &mut draws, &mut budget);
            self.machine.check(now, wall, None, &mut draws, &mut budget)
        };
        self.watch(watching);
    }

    fn message(&mut self, id: u32, message: Message) {
        let Some(link) = self.link(id) else { return };
        if link.rotating {
            if link.opened_at.is_none() {
                return;
            }
            self.switch_to_rotation();
        }
        self.heard_at = Some(clock::now());
        if let Ok(mut view) = self.view.try_borrow_mut() {
            view.last_message_wall = Some(clock::wall_now());
        }
        if self.state() == StreamState::Stale {
            self.set_state(StreamState::Open);
        }
        self.push(Event::Message(message));
    }

    /// Make-before-break: the rotation's socket delivered, so it is the stream's; the old one goes
    /// without a reconnect.
    fn switch_to_rotation(&mut self) {
        let Some(mut link) = self.rotation.take() else { return };
        link.rotating = false;
        let (now, wall) = (clock::now(), clock::wall_now());
        // Dropped: closed, its close untold.
        self.current = Some(link);
        let watching = {
            let (mut draws, mut budget) = (self.driver.draws.borrow_mut(), self.driver.budget.borrow_mut());
            self.machine.on_rotation_open(now, wall, &mut draws, &mut budget);
            self.machine.check(now, wall, Some(now), &mut draws, &mut budget)
        };
        self.watch(watching);
    }

    /// The socket closed: before it opened (a failed attempt, a refused upgrade) or after (a drop).
    fn closed(&mut self, id: u32, code: u16, reason: &str) {
        let Some(link) = self.link(id) else { return };
        let reason: String = reason.chars().take(MAX_REASON_CHARS).collect();
        let words = match reason.is_empty() {
            true => String::new(),
            false => text::join(&[" (", &reason, ")"]),
        };
        let code_text = text::number(u64::from(code));
        match link.opened_at {
            None => {
                let error = text::join(&["closed before it opened, code ", &code_text, &words]);
                self.dropped(id, Observed::NetworkError, &error, None);
            }
            Some(at) => {
                let up = text::number(clock::now().saturating_sub(at));
                let error = text::join(&["closed after ", &up, " ms up, code ", &code_text, &words]);
                self.dropped(id, Observed::NetworkError, &error, Some(code));
            }
        }
    }

    /// Socket `id` is done with: a rotation's failure leaves the stream's connection as it is;
    /// the current one's is a step for the machine.
    pub(super) fn dropped(&mut self, id: u32, observed: Observed, error: &str, code: Option<u16>) {
        let Some(link) = self.take_link(id) else { return };
        if self.stopped {
            return;
        }
        let outcome = Outcome { error: Some(redacted(error)), ..Outcome::failure(observed) };
        if link.rotating {
            let (now, wall) = (clock::now(), clock::wall_now());
            let watching = {
                let (mut draws, mut budget) = (self.driver.draws.borrow_mut(), self.driver.budget.borrow_mut());
                self.machine.on_rotation_close(now, wall, &outcome, &mut draws, &mut budget);
                self.machine.check(now, wall, self.heard_at, &mut draws, &mut budget)
            };
            return self.watch(watching);
        }
        (self.watch_at, self.heard_at) = (None, None);
        self.steps.push_back(Step::Closed(outcome, code));
    }

    /// Sends `message` on socket `id`, through the pace when there is one.
    pub(super) fn send_on(&mut self, id: u32, message: Message) {
        match self.pace.as_mut() {
            Some(pace) => {
                pace.push(id, message);
                self.drain_pace();
            }
            None => self.write(id, &message),
        }
    }

    pub(super) fn write(&mut self, id: u32, message: &Message) {
        if let Some(socket) = self.link(id).and_then(|l| l.socket.as_ref()) {
            // A socket that cannot send is about to close: its close tells the machine.
            let _ = socket.send(message);
        }
    }
}
