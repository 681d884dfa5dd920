//! The WebSocket server: `run` serves a bound listener until a shutdown future resolves.
//!
//! - [`sessions`]: the registry of live sessions (synchronous, lock per session);
//! - [`deadlines`]: the sweeper's queue of idle deadlines and evictions;
//! - [`ws`]: one task per WebSocket;
//! - [`http`]: the routes (`/ws`, `/healthz`, `/metrics`, `/api/sessions/...`);
//! - [`metrics`]: the counters behind `/metrics`.

pub mod deadlines;
pub mod http;
pub mod metrics;
pub mod sessions;
pub mod ws;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use chrono::Utc;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};
use tracing::{info, warn};

use crate::config::ServerConfig;
use crate::conversation::Engine;
use metrics::Metrics;
use sessions::Sessions;

/// Everything the handlers share.
#[derive(Debug)]
pub struct App {
    pub sessions: Sessions,
    pub metrics: Arc<Metrics>,
    pub config: ServerConfig,
    /// Becomes `true` when the server stops: every WebSocket task closes with 1001.
    pub stop: watch::Receiver<bool>,
    /// Open WebSocket tasks, so shutdown can wait for their close handshakes.
    open: AtomicUsize,
    all_closed: Notify,
}

impl App {
    pub fn new(config: ServerConfig, engine: Engine, stop: watch::Receiver<bool>) -> App {
        let metrics = Arc::new(Metrics::default());
        App {
            sessions: Sessions::new(engine, metrics.clone(), config.retention),
            metrics,
            config,
            stop,
            open: AtomicUsize::new(0),
            all_closed: Notify::new(),
        }
    }

    /// Counts a WebSocket connection while the guard lives.
    fn track_connection(&self) -> ConnectionGuard<'_> {
        self.open.fetch_add(1, Ordering::SeqCst);
        self.metrics.connections.inc();
        self.metrics.connections_total.inc();
        ConnectionGuard(self)
    }

    async fn all_closed(&self) {
        loop {
            let notified = self.all_closed.notified();
            if self.open.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

struct ConnectionGuard<'a>(&'a App);

impl Drop for ConnectionGuard<'_> {
    fn drop(&mut self) {
        self.0.metrics.connections.dec();
        if self.0.open.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.all_closed.notify_waiters();
        }
    }
}

/// Serves `listener` until `shutdown` resolves, then closes every WebSocket with 1001 and
/// returns once they are closed (or after a few seconds).
pub async fn run(
    listener: TcpListener,
    config: ServerConfig,
    engine: Engine,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let app = Arc::new(App::new(config, engine, stop_rx.clone()));
    info!(address = %listener.local_addr()?, "listening");
    let sweeper = tokio::spawn(sweep(app.clone(), stop_rx));
    let router = http::router(app.clone());
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            info!("shutting down");
            let _ = stop_tx.send(true);
        })
        .await?;
    if tokio::time::timeout(Duration::from_secs(5), app.all_closed())
        .await
        .is_err()
    {
        warn!("some WebSockets did not close within 5 s");
    }
    sweeper.abort();
    Ok(())
}

/// The sweeper: sleeps until the earliest deadline, then lets the sessions handle what fell
/// due. The engine decides what idleness means; this only decides when to ask.
async fn sweep(app: Arc<App>, mut stop: watch::Receiver<bool>) {
    let deadlines = app.sessions.deadlines();
    loop {
        let wait = match deadlines.next() {
            Some(at) => (at - Utc::now()).to_std().unwrap_or(Duration::ZERO),
            None => Duration::from_secs(3600),
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = deadlines.changed() => continue,
            _ = stop.changed() => return,
        }
        app.sessions.run_due(Utc::now());
    }
}

/// Resolves on SIGINT (ctrl-c) or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = terminate => {}
    }
}
