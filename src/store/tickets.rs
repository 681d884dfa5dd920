//! The ticket queue both writing stores share (SQLite's writer thread, Redis's writer task):
//! tickets numbered in order under one lock with the sender to the writer, so they reach it in
//! order; bounded by what is still unsettled ([`MAX_QUEUED`]).

use std::sync::Mutex;

use super::{ErrorKind, HealthCell, MAX_QUEUED, StoreError, Waiters, queue_full};

/// A sender to a store's writer: `false` once the writer is gone.
pub(super) trait Writer<T> {
    fn put(&self, item: T) -> bool;
}

impl<T> Writer<T> for std::sync::mpsc::Sender<T> {
    fn put(&self, item: T) -> bool {
        self.send(item).is_ok()
    }
}

impl<T> Writer<T> for tokio::sync::mpsc::UnboundedSender<T> {
    fn put(&self, item: T) -> bool {
        self.send(item).is_ok()
    }
}

/// The last ticket given, and the writer's sender (`None` once closed).
#[derive(Debug)]
pub(super) struct Tickets<S> {
    inner: Mutex<(u64, Option<S>)>,
}

impl<S> Tickets<S> {
    pub(super) fn new(writer: S) -> Tickets<S> {
        Tickets {
            inner: Mutex::new((0, Some(writer))),
        }
    }

    /// Gives the next ticket to `item(ticket)` and sends it to the writer. Refused once
    /// closed, when [`MAX_QUEUED`] writes wait unsettled, or when the writer is gone (which
    /// `health` then reports: a writer never stops but at close, so it is a bug to show on
    /// /readyz rather than refuse every change silently). `name` names the store in errors.
    pub(super) fn queue<T>(
        &self,
        name: &str,
        waiters: &Waiters,
        health: &HealthCell,
        item: impl FnOnce(u64) -> T,
    ) -> Result<u64, StoreError>
    where
        S: Writer<T>,
    {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let ticket = inner.0 + 1;
        let Some(tx) = &inner.1 else {
            return Err(StoreError::new(
                ErrorKind::Closed,
                format!("{name}: the store is closed"),
            ));
        };
        if ticket.saturating_sub(waiters.settled()) > MAX_QUEUED as u64 {
            return Err(queue_full(name));
        }
        if !tx.put(item(ticket)) {
            let e = StoreError::new(
                ErrorKind::Closed,
                format!("{name}: the store's writer stopped"),
            );
            health.set_failing(e.clone());
            return Err(e);
        }
        inner.0 = ticket;
        Ok(ticket)
    }

    /// The last ticket given.
    pub(super) fn last(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).0
    }

    /// Stops queueing (the writer ends after what was queued): the last ticket given.
    pub(super) fn close(&self) -> u64 {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.1 = None;
        inner.0
    }
}
