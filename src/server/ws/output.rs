//! Writing to a connection's socket: frames sent within the write timeout, the outbox
//! flushed, errors told, the close handshake.

use super::*;

impl Connection {
    /// Sends the answers that are ready, in order, up to the first still waiting for a commit.
    pub(super) async fn flush(&mut self) -> Result<(), End> {
        loop {
            match self.replies.front() {
                Some(Reply::Refused { .. }) => {
                    if let Some(Reply::Refused { text, closes }) = self.replies.pop_front() {
                        self.send(text).await?;
                        if let Some((code, reason)) = closes {
                            return Err(End::Close(code, reason));
                        }
                    }
                }
                Some(Reply::State) => {
                    self.replies.pop_front();
                    // The frames waiting first, so that none is skipped; then the state.
                    let current = Box::pin(self.up_to_now()).await?;
                    self.send(current).await?;
                }
                Some(Reply::Commit { .. }) | None => return Ok(()),
            }
        }
    }

    /// Sends an error frame now, counted.
    pub(super) async fn error(&mut self, code: ErrorCode, message: &str) -> Result<(), End> {
        self.app.metrics.error(code);
        let frame = ServerFrame::error(code, message).to_text();
        self.send(frame.into()).await
    }

    pub(super) async fn send(&mut self, text: Utf8Bytes) -> Result<(), End> {
        self.write(Message::Text(text)).await
    }

    /// Writes one message, within the write timeout; gives up when the server starts closing
    /// (the close frame then goes out after what is already in the WebSocket's buffer).
    ///
    /// Most writes are done at the first try (the socket has room): only a write that has to
    /// wait gets its timer and the shutdown's watch, boxed. Inline, they would make this
    /// future, and every future that writes, several hundred bytes larger, and a connection's
    /// future is as large as its largest state, for its whole life.
    pub(super) async fn write(&mut self, message: Message) -> Result<(), End> {
        let mut sending = futures_util::SinkExt::send(&mut self.socket, message);
        let first = std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut sending).poll(cx))).await;
        if let Poll::Ready(written) = first {
            return written.map_err(|e| write_failed(&e));
        }
        let mut stop = self.app.stop.clone();
        let limit = self.app.config.write_timeout;
        Box::pin(async move {
            tokio::select! {
                biased;
                written = tokio::time::timeout(limit, sending) => match written {
                    Ok(written) => written.map_err(|e| write_failed(&e)),
                    Err(_) => Err(End::TooSlow),
                },
                _ = reached(&mut stop, Stop::Closing) => {
                    Err(End::Close(close_code::AWAY, "server shutting down"))
                }
            }
        })
        .await
    }

    /// Closes with `code`, and gives the close frame and the client's answer `patience`; a
    /// client that never answers does not hold us, nor does a server that stops now.
    pub(super) async fn close(&mut self, code: u16, reason: &'static str, patience: Duration) {
        let frame = CloseFrame {
            code,
            reason: reason.into(),
        };
        let mut stop = self.app.stop.clone();
        let closing = tokio::time::timeout(patience, async {
            if self.socket.send(Message::Close(Some(frame))).await.is_err() {
                return;
            }
            while let Some(Ok(m)) = self.socket.recv().await {
                if matches!(m, Message::Close(_)) {
                    break;
                }
            }
        });
        // Boxed: it runs once, at the end, and inline it would add to the connection's size.
        let closing = Box::pin(closing);
        tokio::select! {
            _ = closing => {}
            _ = reached(&mut stop, Stop::Now) => {}
        }
    }
}

/// How a write that failed ends the connection.
pub(super) fn write_failed(e: &axum::Error) -> End {
    if write_buffer_full(e) {
        End::TooSlow
    } else {
        End::Gone
    }
}

/// Whether a write failed because the WebSocket's write buffer is full.
pub(super) fn write_buffer_full(e: &axum::Error) -> bool {
    use tokio_tungstenite::tungstenite::Error;
    matches!(
        std::error::Error::source(e).and_then(|s| s.downcast_ref::<Error>()),
        Some(Error::WriteBufferFull(_))
    )
}

/// The close code and reason for a frame that could not be read: over the hard limit (1009),
/// a text frame that is not UTF-8 (1007), a frame that breaks the protocol (1002). `None`: the
/// connection itself failed.
pub(super) fn unreadable(e: &axum::Error) -> Option<(u16, &'static str)> {
    use tokio_tungstenite::tungstenite::Error;
    match std::error::Error::source(e).and_then(|s| s.downcast_ref::<Error>()) {
        Some(Error::Capacity(_)) => Some((close_code::SIZE, "frame too large")),
        Some(Error::Utf8(_)) => Some((close_code::INVALID, "a text frame that is not UTF-8")),
        Some(Error::Protocol(_)) => Some((close_code::PROTOCOL, "protocol error")),
        _ => None,
    }
}
