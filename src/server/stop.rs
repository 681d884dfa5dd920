//! Where the server is in its life: serving, closing, or stopping now. Every task watches it
//! through a `watch` channel.

use tokio::sync::watch;

/// Where the server is in its life; every task watches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stop {
    Serving,
    /// Closing gracefully: no new connections, every WebSocket closes with 1001.
    Closing,
    /// Whatever is still open is dropped.
    Now,
}

/// Resolves once the server has reached `at` (or is gone).
pub(crate) async fn reached(stop: &mut watch::Receiver<Stop>, at: Stop) {
    if stop.wait_for(|s| *s >= at).await.is_err() {
        // The server is gone: nothing left to wait for.
    }
}
