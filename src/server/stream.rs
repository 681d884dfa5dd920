//! An accepted connection's byte stream, with what the layers above cannot see themselves: a
//! write that makes no progress for `write_timeout` fails (an HTTP response to a client that
//! does not read is dropped, and its memory with it), and the bytes read so far are counted
//! (a WebSocket tells an unfinished message from them).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// What a connection's stream tells the request or the WebSocket it carries.
#[derive(Debug, Default)]
pub(crate) struct Meter {
    read: AtomicU64,
    /// Set once the connection is a WebSocket: its writes have timeouts of their own (which
    /// close it with 1008), so the stream's is off.
    websocket: AtomicBool,
}

impl Meter {
    /// Bytes read from the client so far.
    pub(crate) fn read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    pub(crate) fn set_websocket(&self) {
        self.websocket.store(true, Ordering::Relaxed);
    }
}

/// A TCP stream whose stalled writes time out.
#[derive(Debug)]
pub(crate) struct Stream {
    inner: TcpStream,
    write_timeout: Duration,
    /// Armed when a write could not go on; cleared by any progress.
    stalled: Option<Pin<Box<Sleep>>>,
    meter: Arc<Meter>,
}

impl Stream {
    pub(crate) fn new(inner: TcpStream, write_timeout: Duration) -> Stream {
        Stream {
            inner,
            write_timeout,
            stalled: None,
            meter: Arc::default(),
        }
    }

    pub(crate) fn meter(&self) -> Arc<Meter> {
        self.meter.clone()
    }

    /// After a write that could not go on: pending until `write_timeout` has passed without
    /// progress, then an error.
    fn stall<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        if self.meter.websocket.load(Ordering::Relaxed) {
            return Poll::Pending;
        }
        let timeout = self.write_timeout;
        let sleep = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        ready!(sleep.as_mut().poll(cx));
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client read nothing for the write timeout",
        )))
    }

    /// Passes on a write's outcome: progress clears the stall.
    fn wrote<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match polled {
            Poll::Ready(result) => {
                self.stalled = None;
                Poll::Ready(result)
            }
            Poll::Pending => self.stall(cx),
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let read = buf.filled().len().saturating_sub(before) as u64;
        self.meter.read.fetch_add(read, Ordering::Relaxed);
        polled
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.wrote(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.wrote(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        self.wrote(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.wrote(cx, polled)
    }
}
