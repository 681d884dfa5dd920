//! Waiting for a write to be committed: the future a store hands out per write
//! ([`Committed`]) and the waiters a writer settles by ticket ([`Waiters`]).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{ErrorKind, StoreError};

/// The future of [`Store::committed`] and [`Store::committed_all`].
#[derive(Debug)]
pub struct Committed(Waiting);

#[derive(Debug)]
enum Waiting {
    One(tokio::sync::oneshot::Receiver<Result<(), StoreError>>),
    /// Several writes (one per file of a sharded store): resolves once all have, with the
    /// first error met.
    All {
        left: Vec<Committed>,
        failed: Option<StoreError>,
    },
}

impl Committed {
    /// Resolves once every one of `all` has.
    pub(crate) fn all(all: Vec<Committed>) -> Committed {
        Committed(Waiting::All {
            left: all,
            failed: None,
        })
    }
}

impl Future for Committed {
    type Output = Result<(), StoreError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.0 {
            Waiting::One(rx) => Pin::new(rx).poll(cx).map(|r| {
                r.unwrap_or_else(|_| Err(StoreError::new(ErrorKind::Closed, "the store stopped")))
            }),
            Waiting::All { left, failed } => {
                let mut i = 0;
                while i < left.len() {
                    match Pin::new(&mut left[i]).poll(cx) {
                        Poll::Pending => i += 1,
                        Poll::Ready(outcome) => {
                            left.swap_remove(i);
                            if let (Err(e), None) = (outcome, &failed) {
                                *failed = Some(e);
                            }
                        }
                    }
                }
                if left.is_empty() {
                    Poll::Ready(failed.take().map_or(Ok(()), Err))
                } else {
                    Poll::Pending
                }
            }
        }
    }
}

/// Failed tickets remembered, for a waiter that asks after its write settled.
const FAILURES_KEPT: usize = 65_536;

/// Waiters for tickets, woken once their write settles (not on every commit).
#[derive(Debug, Default)]
pub(crate) struct Waiters {
    inner: std::sync::Mutex<WaitersInner>,
}

type Waiter = tokio::sync::oneshot::Sender<Result<(), StoreError>>;

#[derive(Debug, Default)]
struct WaitersInner {
    /// Every ticket up to this one has settled.
    settled: u64,
    /// Settled tickets that failed (the most recent [`FAILURES_KEPT`]).
    failed: BTreeMap<u64, StoreError>,
    /// Tickets below this may have failed without being remembered (never in practice:
    /// waiters ask right after writing).
    forgotten_below: u64,
    waiting: BTreeMap<u64, Vec<Waiter>>,
}

impl Waiters {
    pub(crate) fn wait(&self, ticket: u64) -> Committed {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if ticket == 0 {
            // No write: what it stands for (a change read back from the log) is committed.
            let _ = tx.send(Ok(()));
        } else if ticket <= inner.settled {
            let outcome = match inner.failed.get(&ticket) {
                Some(e) => Err(e.clone()),
                None if ticket < inner.forgotten_below => Err(StoreError::new(
                    ErrorKind::Io,
                    "the outcome of this write is no longer known",
                )),
                None => Ok(()),
            };
            let _ = tx.send(outcome);
        } else {
            inner.waiting.entry(ticket).or_default().push(tx);
        }
        Committed(Waiting::One(rx))
    }

    /// Every ticket up to this one has settled.
    pub(crate) fn settled(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).settled
    }

    /// Every ticket up to `upto` has settled: those in `failures` failed, the rest are
    /// committed.
    pub(crate) fn settle(&self, upto: u64, failures: Vec<(u64, StoreError)>) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.settled = inner.settled.max(upto);
        for (ticket, e) in failures {
            inner.failed.insert(ticket, e);
        }
        while inner.failed.len() > FAILURES_KEPT {
            if let Some((ticket, _)) = inner.failed.pop_first() {
                inner.forgotten_below = ticket + 1;
            }
        }
        let later = inner.waiting.split_off(&(upto + 1));
        let done = std::mem::replace(&mut inner.waiting, later);
        let outcomes: Vec<_> = done
            .into_iter()
            .map(|(ticket, waiters)| {
                let outcome = inner.failed.get(&ticket).cloned().map_or(Ok(()), Err);
                (outcome, waiters)
            })
            .collect();
        drop(inner);
        for (outcome, waiters) in outcomes {
            for tx in waiters {
                let _ = tx.send(outcome.clone());
            }
        }
    }
}
