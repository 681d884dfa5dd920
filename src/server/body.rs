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

use super::edge::{Stop, reached};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A body that fails once its deadline has passed.
pub(crate) struct Deadline<B> {
    inner: B,
    /// Resolves at the deadline, or when the server starts stopping.
    due: Pin<Box<dyn Future<Output = &'static str> + Send>>,
}

impl<B> Deadline<B> {
    pub(crate) fn new(inner: B, within: Duration, mut stop: watch::Receiver<Stop>) -> Deadline<B> {
        let due = Box::pin(async move {
            tokio::select! {
                _ = tokio::time::sleep(within) => "the request's body did not arrive within the header timeout",
                _ = reached(&mut stop, Stop::Closing) => "the server is stopping",
            }
        });
        Deadline { inner, due }
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
        if let Poll::Ready(why) = self.due.as_mut().poll(cx) {
            return Poll::Ready(Some(Err(why.into())));
        }
        Pin::new(&mut self.inner)
            .poll_frame(cx)
            .map(|frame| frame.map(|f| f.map_err(Into::into)))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
