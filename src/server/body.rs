//! A request's body with a deadline: it must have arrived whole within `header_timeout` of the
//! request's start, and it ends when the server starts stopping. A client that announces a
//! body and sends it slowly, or not at all, holds its connection that long and no longer.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::watch;

use super::stop::{Stop, reached};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why a body was cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CutOff {
    /// It did not arrive within `header_timeout`.
    TooSlow,
    /// The server started stopping.
    Stopping,
}

impl std::fmt::Display for CutOff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CutOff::TooSlow => "the request's body did not arrive within the header timeout",
            CutOff::Stopping => "the server is stopping",
        })
    }
}

impl std::error::Error for CutOff {}

/// A body that fails once its deadline has passed.
pub(crate) struct Deadline<B> {
    inner: B,
    /// Resolves at the deadline, or when the server starts stopping; `None` once it has.
    due: Option<Pin<Box<dyn Future<Output = CutOff> + Send>>>,
}

impl<B> Deadline<B> {
    pub(crate) fn new(inner: B, within: Duration, mut stop: watch::Receiver<Stop>) -> Deadline<B> {
        let due = Box::pin(async move {
            tokio::select! {
                _ = tokio::time::sleep(within) => CutOff::TooSlow,
                _ = reached(&mut stop, Stop::Closing) => CutOff::Stopping,
            }
        });
        Deadline {
            inner,
            due: Some(due),
        }
    }
}

impl<B> Body for Deadline<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        // What has arrived is taken, however late it is read; the deadline cuts only a wait.
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        let Some(due) = self.due.as_mut() else {
            return Poll::Ready(Some(Err(CutOff::TooSlow.into())));
        };
        match due.as_mut().poll(cx) {
            Poll::Ready(why) => {
                self.due = None;
                Poll::Ready(Some(Err(why.into())))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
