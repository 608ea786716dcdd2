//! The Rust API: [`Client`] (made by [`ClientBuilder`]), [`CallOptions`], [`PolicyLayer`],
//! [`ShouldRetry`] and its [`RetryContext`], [`Family`], [`Worksheet`], [`Error`] and [`Stopped`],
//! [`SharedBudget`], [`Reconciled`]; streams: [`Stream`], [`StreamOptions`], [`StreamEvent`],
//! [`StreamState`], [`Message`], [`NotOpen`], and what a stream runs of the caller's: [`OnOpen`]
//! (given a [`Connection`]), [`Resync`], [`Heartbeat`], [`OnEvent`]. It checks what the caller
//! gives and hands it to the executor; the results come back as these types.

mod builder;
mod call_options;
mod client;
mod error;
mod family;
mod policy_layer;
mod prepare;
mod reconciled;
mod retry_info;
mod settle;
mod shared_budget;
mod should_retry;
mod stale;
mod stream;
mod stream_callbacks;
mod stream_event;
mod stream_options;
mod worksheet;

pub use crate::web::platform::socket::Message;
/// The worksheet's types are the core's ([`crate::worksheet`]): plain Rust, tested natively.
pub use crate::worksheet::{Docs, Match, Row as WorksheetRow, TokenBucket, UrlPattern, Weight, Worksheet};
pub use builder::ClientBuilder;
pub use call_options::CallOptions;
pub use client::Client;
pub use error::{Error, Stopped};
pub use family::{Family, FamilyRequest};
pub use policy_layer::PolicyLayer;
pub use reconciled::Reconciled;
pub use retry_info::RetryInfo;
pub use shared_budget::SharedBudget;
pub use should_retry::{RetryContext, ShouldRetry};
pub use stale::{staleness, Staleness};
pub use stream::{PageSignal, Stream, StreamState};
pub use stream_callbacks::{Connection, Heartbeat, NotOpen, OnOpen, ProtocolsProvider, Resync, UrlProvider};
pub use stream_event::{OnEvent, StreamEvent};
pub use stream_options::StreamOptions;
