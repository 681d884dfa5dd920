//! A session's log read over HTTP, streamed: the events are read from the store a few at a
//! time as the client takes them, so a page of 1,000 large turns is never in memory at once,
//! and a client that does not read holds one chunk until the write timeout drops it. At most
//! [`MAX_PAGE_READS`] pages are read at once: the API's memory has a ceiling under any
//! concurrency (about `MAX_PAGE_READS` × 2 chunks).

use std::sync::Arc;

use axum::body::{Body, Bytes};
use tokio::sync::OwnedSemaphorePermit;

use super::App;
use crate::store::{ErrorKind, Event, StoreError};

/// Events read from the store at a time.
pub(crate) const CHUNK: usize = 16;

/// Pages of a log read at once by the node; more are answered 503 and retried.
pub(crate) const MAX_PAGE_READS: usize = 16;

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
    _permit: OwnedSemaphorePermit,
}

/// The page as a JSON array: `first` (the first chunk of the events after `after`, read
/// already), then the rest of at most `limit` events, read as the client takes them.
pub(crate) fn stream(
    app: Arc<App>,
    id: String,
    first: Vec<Event>,
    after: u64,
    limit: usize,
    permit: OwnedSemaphorePermit,
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
        _permit: permit,
    };
    Body::from_stream(futures_util::stream::unfold(page, |mut page| async move {
        if page.done {
            return None;
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
