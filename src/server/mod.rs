//! The WebSocket server: `run` serves a bound listener until a shutdown future resolves.
//!
//! - `sessions`: the registry of live sessions (synchronous, lock per session);
//! - `deadlines`: the sweeper's queue of idle deadlines and evictions;
//! - `ws`: one task per WebSocket;
//! - `http`: the routes (`/ws`, `/healthz`, `/metrics`, `/api/sessions/...`, the demo);
//! - `web`: the demo page and embed script, compiled in;
//! - `metrics`: the counters behind `/metrics`;
//! - this module: [`run`], the sweeper, the purge, the [`Clock`].

pub(crate) mod deadlines;
pub(crate) mod http;
pub(crate) mod metrics;
pub(crate) mod sessions;
pub(crate) mod web;
pub(crate) mod ws;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};
use tracing::{info, warn};

use crate::config::ServerConfig;
use crate::conversation::Engine;
use crate::store::Store;
use metrics::Metrics;
use sessions::Sessions;

/// The server's clock: every `now` the engine gets comes from here.
#[derive(Clone, Debug)]
pub enum Clock {
    /// The system's.
    System,
    /// Tokio's: starts at `origin` and moves with `tokio::time`, so a test with paused time
    /// advances deadlines without waiting for them.
    Tokio {
        origin: DateTime<Utc>,
        start: tokio::time::Instant,
    },
}

impl Clock {
    /// Tokio's clock, starting at the system's time now. Call it inside the runtime.
    pub fn tokio() -> Clock {
        Clock::Tokio {
            origin: Utc::now(),
            start: tokio::time::Instant::now(),
        }
    }

    pub fn now(&self) -> DateTime<Utc> {
        match self {
            Clock::System => Utc::now(),
            Clock::Tokio { origin, start } => {
                *origin + TimeDelta::from_std(start.elapsed()).unwrap_or(TimeDelta::MAX)
            }
        }
    }

    /// How long from now until `at` (zero if it has passed).
    fn until(&self, at: DateTime<Utc>) -> Duration {
        (at - self.now()).to_std().unwrap_or(Duration::ZERO)
    }
}

/// Everything the handlers share.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) sessions: Sessions,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) config: ServerConfig,
    pub(crate) clock: Clock,
    /// Becomes `true` when the server stops: every WebSocket task closes with 1001.
    pub stop: watch::Receiver<bool>,
    /// Open WebSocket tasks, so shutdown can wait for their close handshakes.
    open: AtomicUsize,
    all_closed: Notify,
}

impl App {
    pub(crate) fn new(
        config: ServerConfig,
        engine: Engine,
        store: Arc<dyn Store>,
        clock: Clock,
        stop: watch::Receiver<bool>,
    ) -> App {
        let metrics = Arc::new(Metrics::default());
        App {
            sessions: Sessions::new(engine, store, metrics.clone(), config.retention),
            metrics,
            config,
            clock,
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

/// Serves `listener` until `shutdown` resolves, then closes every WebSocket with 1001, waits
/// for their close handshakes (a few seconds at most) and for the store to commit what it
/// holds.
///
/// Before serving, sessions whose idle deadline is pending in the store are loaded, so the
/// idle transitions that fell due while the server was down are applied at once.
pub async fn run(
    listener: TcpListener,
    config: ServerConfig,
    engine: Engine,
    store: Arc<dyn Store>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    run_with_clock(listener, config, engine, store, Clock::System, shutdown).await
}

/// [`run`] with another clock (tests of deadlines use tokio's, with paused time).
pub async fn run_with_clock(
    listener: TcpListener,
    config: ServerConfig,
    engine: Engine,
    store: Arc<dyn Store>,
    clock: Clock,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let rules = crate::patterns::fingerprint(&engine);
    let app = Arc::new(App::new(config, engine, store, clock, stop_rx.clone()));
    let (recording, now) = (app.clone(), rules.clone());
    match tokio::task::spawn_blocking(move || recording.sessions.store().record_rules(&rules)).await
    {
        Ok(Ok(Some(before))) => warn!(
            before = %before,
            now = %now,
            "the patterns, settings or version changed since this store was last served: \
             sessions are loaded from their last snapshot and the rest of their log is read \
             with the new rules, so a resumed session may differ from what its clients last saw"
        ),
        Ok(Ok(None)) => {}
        Ok(Err(e)) => return Err(std::io::Error::other(e)),
        Err(e) => return Err(std::io::Error::other(e)),
    }
    let recovering = app.clone();
    let now = app.clock.now();
    match tokio::task::spawn_blocking(move || recovering.sessions.recover(now)).await {
        Ok(Ok(n)) if n > 0 => info!(sessions = n, "recovered sessions with a pending deadline"),
        Ok(Ok(_)) => {}
        Ok(Err(e)) => return Err(std::io::Error::other(e)),
        Err(e) => return Err(std::io::Error::other(e)),
    }
    info!(address = %listener.local_addr()?, store = %app.sessions.store().describe(), "listening");
    let sweeper = tokio::spawn(sweep(app.clone(), stop_rx.clone()));
    let purger = tokio::spawn(purge(app.clone(), stop_rx));
    let router = http::router(app.clone());
    // Frames go out as soon as they are written: without TCP_NODELAY, a small frame right after
    // another (an ack after its state frame) waits for the peer's delayed ACK, up to 40 ms.
    let listener = axum::serve::ListenerExt::tap_io(listener, |stream| {
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
    });
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
    purger.abort();
    let closing = app.clone();
    let _ = tokio::task::spawn_blocking(move || closing.sessions.store().close()).await;
    Ok(())
}

/// Deletes finished sessions past the retention period from the store: at start-up, then every
/// hour (or every retention period when that is shorter).
async fn purge(app: Arc<App>, mut stop: watch::Receiver<bool>) {
    let every = app
        .config
        .retention
        .to_std()
        .unwrap_or(Duration::from_secs(3600))
        .min(Duration::from_secs(3600));
    loop {
        let purging = app.clone();
        let now = app.clock.now();
        match tokio::task::spawn_blocking(move || purging.sessions.purge(now)).await {
            Ok(Ok(n)) if n > 0 => info!(sessions = n, "deleted finished sessions past retention"),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => warn!(error = %e, "retention purge failed"),
            Err(e) => warn!(error = %e, "retention purge failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.changed() => return,
        }
    }
}

/// The sweeper: sleeps until the earliest deadline, then lets the sessions handle what fell
/// due. The engine decides what idleness means; this only decides when to ask.
async fn sweep(app: Arc<App>, mut stop: watch::Receiver<bool>) {
    let deadlines = app.sessions.deadlines();
    loop {
        let wait = match deadlines.next() {
            Some(at) => app.clock.until(at),
            None => Duration::from_secs(3600),
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = deadlines.changed() => continue,
            _ = stop.changed() => return,
        }
        // Sessions are in memory when scheduled, but the store may be written: off the runtime.
        let due = app.clone();
        let now = app.clock.now();
        let _ = tokio::task::spawn_blocking(move || due.sessions.run_due(now)).await;
    }
}

/// Resolves on SIGINT (ctrl-c) or SIGTERM. The handlers are installed when this is called,
/// not when the future is first polled, so a signal that arrives right after start-up is not
/// lost to the default action (which would kill the process without a clean shutdown). Call it
/// inside the runtime.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let terminate = signal(SignalKind::terminate()).ok();
        let interrupt = signal(SignalKind::interrupt()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = wait(terminate) => {}
                _ = wait(interrupt) => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
