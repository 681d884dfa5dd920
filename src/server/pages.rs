//! A session's log read over HTTP, streamed: the events are read from the store a few at a
//! time as the client takes them, so a page of 1,000 large turns is never in memory at once,
//! and a client that does not read holds one chunk until the write timeout drops it. At most
//! [`MAX_PAGE_READS`] pages are read at once: the API's memory has a ceiling under any
//! concurrency (about `MAX_PAGE_READS` × 2 chunks).

use std::sync::Arc;

use axum::body::{Body, Bytes};
use dashmap::DashMap;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::App;
use super::edge::Client;
use crate::store::{ErrorKind, Event, StoreError};

/// Events read from the store at a time.
pub(crate) const CHUNK: usize = 16;

/// Pages of a log read at once by the node; more are answered 503 and retried.
pub(crate) const MAX_PAGE_READS: usize = 16;

/// Pages of a log read at once for one address (as the connection caps count addresses).
pub(crate) const MAX_PAGE_READS_PER_ADDRESS: usize = 4;

/// The longest a page may take to be sent: a client that takes a chunk now and then, just
/// fast enough for the write timeout, does not hold its place for ever.
pub(crate) const PAGE_TIME: std::time::Duration = std::time::Duration::from_secs(60);

/// The node's places for page reads: [`MAX_PAGE_READS`] in all, [`MAX_PAGE_READS_PER_ADDRESS`]
/// per address.
#[derive(Debug)]
pub(crate) struct PageReads {
    node: Arc<Semaphore>,
    per_address: Arc<DashMap<Client, usize>>,
}

impl Default for PageReads {
    fn default() -> PageReads {
        PageReads {
            node: Arc::new(Semaphore::new(MAX_PAGE_READS)),
            per_address: Arc::default(),
        }
    }
}

/// A page read's place, given back when the page is done or dropped.
#[derive(Debug)]
pub(crate) struct Place {
    _node: OwnedSemaphorePermit,
    address: Option<(Client, Arc<DashMap<Client, usize>>)>,
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some((client, map)) = &self.address {
            map.remove_if_mut(client, |_, n| {
                *n -= 1;
                *n == 0
            });
        }
    }
}

impl PageReads {
    /// A place for a page read from `ip` (`None`: not counted per address), or none free.
    pub(crate) fn admit(&self, ip: Option<std::net::IpAddr>) -> Option<Place> {
        let node = self.node.clone().try_acquire_owned().ok()?;
        let address = match ip {
            Some(ip) => {
                let client = Client::of(ip);
                let mut n = self.per_address.entry(client).or_insert(0);
                if *n >= MAX_PAGE_READS_PER_ADDRESS {
                    return None;
                }
                *n += 1;
                Some((client, self.per_address.clone()))
            }
            None => None,
        };
        Some(Place {
            _node: node,
            address,
        })
    }
}

/// Reads a chunk of `id`'s log after `after` (blocking, off the runtime's workers).
pub(crate) async fn chunk(
    app: &Arc<App>,
    id: &str,
    after: u64,
    limit: usize,
) -> Result<Option<Vec<Event>>, StoreError> {
    let (reading, key) = (app.clone(), id.to_string());
    tokio::task::spawn_blocking(move || reading.sessions.events(&key, after, limit))
        .await
        .unwrap_or_else(|e| {
            Err(StoreError::new(
                ErrorKind::Io,
                format!("store task failed: {e}"),
            ))
        })
}

/// Where a streamed page is.
struct Page {
    app: Arc<App>,
    id: String,
    /// The chunk read before the response started (it told whether the session exists).
    first: Option<Vec<Event>>,
    after: u64,
    /// Events still to send at most.
    left: usize,
    started: bool,
    wrote_any: bool,
    done: bool,
    /// When the page must be sent by ([`PAGE_TIME`]).
    until: tokio::time::Instant,
    _place: Place,
}

/// The page as a JSON array: `first` (the first chunk of the events after `after`, read
/// already), then the rest of at most `limit` events, read as the client takes them.
pub(crate) fn stream(
    app: Arc<App>,
    id: String,
    first: Vec<Event>,
    after: u64,
    limit: usize,
    place: Place,
) -> Body {
    let page = Page {
        app,
        id,
        first: Some(first),
        after,
        left: limit,
        started: false,
        wrote_any: false,
        done: false,
        until: tokio::time::Instant::now() + PAGE_TIME,
        _place: place,
    };
    Body::from_stream(futures_util::stream::unfold(page, |mut page| async move {
        if page.done {
            return None;
        }
        if tokio::time::Instant::now() > page.until {
            page.done = true;
            let late = format!("the page was not taken within {} s", PAGE_TIME.as_secs());
            return Some((Err(std::io::Error::other(late)), page));
        }
        let wanted = CHUNK.min(page.left);
        let events = match page.first.take() {
            Some(first) => first,
            None => match chunk(&page.app, &page.id, page.after, wanted).await {
                Ok(events) => events.unwrap_or_default(),
                // The response is cut short: the client sees an unfinished array.
                Err(e) => {
                    page.done = true;
                    return Some((Err(std::io::Error::other(e.message)), page));
                }
            },
        };
        let mut text = String::with_capacity(256);
        if !page.started {
            text.push('[');
            page.started = true;
        }
        for event in &events {
            if page.wrote_any {
                text.push(',');
            }
            text.push_str(&crate::protocol::to_text(event));
            page.wrote_any = true;
        }
        page.left = page.left.saturating_sub(events.len());
        if let Some(last) = events.last() {
            page.after = last.seq;
        }
        if events.len() < wanted || page.left == 0 {
            text.push(']');
            page.done = true;
        }
        Some((Ok(Bytes::from(text)), page))
    }))
}
