//! Opening a stream's sockets: on the given URL, or on what the caller's providers give for each
//! attempt (a failure, or a value that is no ws: URL, is that attempt's failure).

use std::rc::Rc;
use std::task::{Context, Poll};

use super::{Answer, Face, Given, Resolved, Streamed};
use crate::stream::session::SessionEvent;
use crate::web::platform::socket::ws_href;

impl Given {
    /// What the caller's providers give for one attempt (`None`: it has none, the given URL goes).
    pub(super) fn resolve(&self) -> Option<Answer<Resolved>> {
        if self.url_provider.is_none() && self.protocols_provider.is_none() {
            return None;
        }
        let url = self.url_provider.as_ref().map(|provider| provider());
        let protocols = self.protocols_provider.as_ref().map(|provider| provider());
        let given = (self.url.clone(), self.protocols.clone());
        Some(Box::pin(async move {
            let join = crate::text::join;
            let url = match url {
                Some(url) => url
                    .await
                    .map_err(|why| join(&["the url provider failed: ", &why]))
                    .and_then(|url| ws_href(&url).map_err(|why| join(&["the url provider's value ", &why])))?,
                None => given.0,
            };
            let protocols = match protocols {
                Some(protocols) => protocols.await.map_err(|why| join(&["the protocols provider failed: ", &why]))?,
                None => given.1,
            };
            Ok((url, protocols))
        }))
    }
}

impl Streamed {
    /// Opens socket `link` on `url`; `Err` with what the platform said.
    pub(super) fn open(&mut self, link: u32, url: &str, protocols: &[String], face: &Face) -> Result<(), String> {
        let post = face.post.clone();
        let on = Rc::new(move |link, event| post.post((link, event)));
        self.sockets.open(link, url, protocols, on)
    }

    /// Opens each connection whose URL and subprotocols came; one a provider failed, or gave no ws:
    /// URL for, failed.
    pub(super) fn resolved(&mut self, face: &Face, cx: &mut Context<'_>, came: &mut Vec<SessionEvent>) {
        let mut answered = Vec::new();
        self.resolving.retain_mut(|(link, answer)| match answer.as_mut().poll(cx) {
            Poll::Ready(resolved) => (answered.push((*link, resolved)), false).1,
            Poll::Pending => true,
        });
        for (link, resolved) in answered {
            if let Err(why) = resolved.and_then(|(url, protocols)| self.open(link, &url, &protocols, face)) {
                came.push(SessionEvent::Failed(link, why));
            }
        }
    }
}
