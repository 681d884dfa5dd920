//! The WebSocket server: `run` serves a bound listener until a shutdown future resolves.
//!
//! - `sessions`: the registry of live sessions (synchronous, lock per session);
//! - `deadlines`: the sweeper's queue of idle deadlines and evictions;
//! - `ws`: one task per WebSocket;
//! - `http`: the routes (`/ws`, `/healthz`, `/metrics`, `/api/sessions/...`, the demo);
//! - `web`: the demo page and embed script, compiled in;
//! - `metrics`: the counters behind `/metrics`;
//! - `edge`: accepting connections, their limits and timeouts, and [`Shutdown`];
//! - this module: [`run`], the sweeper, the purge, the [`Clock`].

pub(crate) mod auth;
pub(crate) mod body;
pub(crate) mod deadlines;
pub(crate) mod edge;
pub(crate) mod http;
pub(crate) mod metrics;
pub(crate) mod pages;
pub(crate) mod rate;
pub(crate) mod replies;
pub(crate) mod sessions;
pub(crate) mod stop;
pub(crate) mod stream;
pub(crate) mod web;
pub(crate) mod ws;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tracing::{info, warn};

use crate::config::ServerConfig;
use crate::conversation::Engine;
use crate::store::Store;
pub use edge::Shutdown;
use edge::{Limits, SessionRate, Tracker};
use metrics::Metrics;
use sessions::Sessions;
use stop::Stop;

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
    /// Where the server is in its life: at `Closing` every WebSocket closes with 1001, at
    /// `Now` whatever is left is dropped.
    pub(crate) stop: watch::Receiver<Stop>,
    pub(crate) limits: Arc<Limits>,
    pub(crate) session_rate: SessionRate,
    /// Resumes (joins with `last_seq`) per address: the same rate as new sessions, counted
    /// apart.
    pub(crate) join_rate: SessionRate,
    /// Open WebSockets, so shutdown can wait for their close handshakes.
    pub(crate) websockets: Arc<Tracker>,
    /// HTTP requests in flight, so shutdown can let them finish.
    pub(crate) requests: Arc<Tracker>,
    /// Verifies tokens; `None`: authentication is off.
    pub(crate) verifier: Option<auth::Verifier>,
    /// Keys that open the HTTP API and the metrics.
    pub(crate) api_keys: Option<auth::ApiKeys>,
    /// Pages of session logs being read ([`pages::MAX_PAGE_READS`]).
    pub(crate) page_reads: pages::PageReads,
}

impl App {
    pub(crate) fn new(
        config: ServerConfig,
        engine: Engine,
        store: Arc<dyn Store>,
        clock: Clock,
        stop: watch::Receiver<Stop>,
        (verifier, api_keys): (Option<auth::Verifier>, Option<auth::ApiKeys>),
        (guide, llm): (
            Option<crate::assistant::guide::Guide>,
            Option<Arc<crate::assistant::llm::Llm>>,
        ),
    ) -> App {
        let metrics = Arc::new(Metrics::default());
        let limits = Arc::new(Limits::new(&config));
        App {
            sessions: Sessions::new(engine, guide, llm, store, metrics.clone(), &config),
            metrics,
            session_rate: SessionRate::new(&config, limits.clone()),
            join_rate: SessionRate::new(&config, limits.clone()),
            limits,
            config,
            clock,
            stop,
            websockets: Arc::default(),
            requests: Arc::default(),
            verifier,
            api_keys,
            page_reads: pages::PageReads::default(),
        }
    }

    /// Counts a WebSocket connection while the guard lives.
    fn track_connection(&self) -> ConnectionGuard {
        self.metrics.connections.inc();
        self.metrics.connections_total.inc();
        ConnectionGuard {
            metrics: self.metrics.clone(),
            _open: self.websockets.track(),
        }
    }

    /// Whether the server is stopping.
    pub(crate) fn stopping(&self) -> bool {
        *self.stop.borrow() >= Stop::Closing
    }
}

struct ConnectionGuard {
    metrics: Arc<Metrics>,
    _open: edge::Tracked,
}

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.metrics.connections.dec();
    }
}

/// Serves `listener` until `shutdown` asks to stop (see [`Shutdown`]): then stops accepting,
/// closes every WebSocket with 1001 and waits, at most `shutdown_timeout`, for the requests in
/// flight and the close handshakes; drops what is left, and returns once the store has
/// committed what it holds. A second request cuts the wait short.
///
/// Before serving, sessions whose idle deadline is pending in the store are loaded, so the
/// idle transitions that fell due while the server was down are applied at once.
pub async fn run(
    listener: TcpListener,
    config: ServerConfig,
    engine: Engine,
    store: Arc<dyn Store>,
    shutdown: impl Into<Shutdown>,
) -> std::io::Result<()> {
    run_with_clock(listener, config, engine, store, Clock::System, shutdown).await
}

/// Reads and checks the configured keys (the token key, the API keys file): the command calls
/// it before it opens anything, so a bad key leaves nothing behind.
pub fn check_credentials(config: &ServerConfig) -> Result<(), String> {
    credentials(config).map(|_| ())
}

/// The token verifier and the API keys the configuration asks for, if any.
fn credentials(
    config: &ServerConfig,
) -> Result<(Option<auth::Verifier>, Option<auth::ApiKeys>), String> {
    let api_keys = match &config.api_keys_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("api_keys_file: {}: {e}", path.display()))?;
            Some(auth::ApiKeys::parse(&text, &path.display().to_string())?)
        }
        None => None,
    };
    Ok((verifier(config)?, api_keys))
}

/// The token verifier the configuration asks for, if any.
fn verifier(config: &ServerConfig) -> Result<Option<auth::Verifier>, String> {
    let pem = match &config.jwt_public_key {
        Some(path) => Some(
            std::fs::read(path).map_err(|e| format!("jwt_public_key: {}: {e}", path.display()))?,
        ),
        None => None,
    };
    auth::Verifier::from_config(
        config.jwt_secret.as_ref().map(|s| s.0.as_str()),
        pem.as_deref(),
        config.jwt_issuer.as_deref(),
        config.jwt_audience.as_deref(),
    )
}

/// [`run`] with another clock (tests of deadlines use tokio's, with paused time).
pub async fn run_with_clock(
    listener: TcpListener,
    mut config: ServerConfig,
    engine: Engine,
    store: Arc<dyn Store>,
    clock: Clock,
    shutdown: impl Into<Shutdown>,
) -> std::io::Result<()> {
    let (mut requests, driver) = shutdown.into().split();
    let driver = tokio::spawn(driver);
    let (stop_tx, stop_rx) = watch::channel(Stop::Serving);
    let rules = crate::patterns::fingerprint(&engine);
    let (verifier, api_keys) = credentials(&config).map_err(std::io::Error::other)?;
    // The guide answers in the sessions that ask for it: its phrases must fit the engine's
    // slots. Without them, only a server whose default is the guide refuses to start; sessions
    // that ask for it are told it is unavailable.
    let source = crate::patterns::PatternSource::from_option(config.patterns.clone());
    let guide = match crate::assistant::guide::Guide::load(&source, &engine) {
        Ok(guide) => Some(guide),
        Err(e) if config.assistant == crate::assistant::Mode::Guide => {
            return Err(std::io::Error::other(format!("the guide's phrases: {e}")));
        }
        Err(e) => {
            tracing::warn!("the guide is unavailable: its phrases do not fit the patterns: {e}");
            None
        }
    };
    let llm = crate::assistant::llm::Llm::new(&config.llm)
        .map_err(std::io::Error::other)?
        .map(Arc::new);
    if llm.is_some() {
        info!(
            url = config.llm.url.as_deref().unwrap_or_default(),
            model = config.llm.model.as_deref().unwrap_or_default(),
            "the llm assistant calls this model"
        );
    }
    let local = listener.local_addr()?;
    // The address really served (the configured one may say port 0, or be ignored by tests).
    config.listen = local;
    // The one decision on exposure is the configuration's (the command asks it before opening
    // anything); here it holds for the address really bound.
    config.check_exposure().map_err(std::io::Error::other)?;
    let metrics_listener = match config.metrics_listen {
        Some(addr) => Some(TcpListener::bind(addr).await.map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("metrics_listen: cannot listen on {addr}: {e}"),
            )
        })?),
        None => None,
    };
    match &verifier {
        Some(_) => info!("authentication: every connection needs a token"),
        None if local.ip().is_loopback() => info!(
            "authentication is off: serving on loopback only (set jwt_secret or jwt_public_key \
             before serving another address)"
        ),
        None => warn!(
            address = %local,
            "authentication is off on a non-loopback address (--insecure-no-auth): anyone who \
             reaches it can read and write every session whose id they know"
        ),
    }
    let app = Arc::new(App::new(
        config,
        engine,
        store,
        clock,
        stop_rx.clone(),
        (verifier, api_keys),
        (guide, llm),
    ));
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
    // On a store shared by nodes, deadlines are found by the follower's due loop: one node
    // does not load the whole cluster's active sessions at start-up.
    let shared = app.sessions.store().shared();
    match tokio::task::spawn_blocking(move || {
        if shared {
            Ok(0)
        } else {
            recovering.sessions.recover(now)
        }
    })
    .await
    {
        Ok(Ok(n)) if n > 0 => info!(sessions = n, "recovered sessions with a pending deadline"),
        Ok(Ok(_)) => {}
        Ok(Err(e)) => return Err(std::io::Error::other(e)),
        Err(e) => return Err(std::io::Error::other(e)),
    }
    if let Some(metrics_listener) = &metrics_listener {
        info!(metrics_address = %metrics_listener.local_addr()?, "serving /metrics there, without a token");
    }
    info!(address = %listener.local_addr()?, store = %app.sessions.store().describe(), "listening");
    let sweeper = tokio::spawn(sweep(app.clone(), stop_rx.clone()));
    // A store shared with other nodes: their changes reach this node's clients, and deadlines
    // of sessions no node holds are applied.
    let follower = app
        .sessions
        .store()
        .doorbell()
        .map(|bells| tokio::spawn(follow(app.clone(), bells, stop_rx.clone())));
    let purger = tokio::spawn(purge(app.clone(), stop_rx));
    let edge = tokio::spawn(edge::accept(
        listener,
        http::router(app.clone()),
        app.clone(),
    ));
    let metrics_edge = metrics_listener.map(|metrics_listener| {
        tokio::spawn(edge::accept(
            metrics_listener,
            http::metrics_router(app.clone()),
            app.clone(),
        ))
    });

    requests.reached(1).await;
    info!("shutting down");
    let _ = stop_tx.send(Stop::Closing);
    let deadline = app.config.shutdown_timeout;
    tokio::select! {
        _ = async {
            app.websockets.none_open().await;
            app.requests.none_open().await;
        } => {}
        _ = tokio::time::sleep(deadline) => warn!(
            websockets = app.websockets.open(),
            requests = app.requests.open(),
            "shutdown timeout ({}): closing what is still open",
            humantime::format_duration(deadline)
        ),
        _ = requests.reached(2) => warn!(
            websockets = app.websockets.open(),
            requests = app.requests.open(),
            "asked again to stop: closing what is still open"
        ),
    }
    let _ = stop_tx.send(Stop::Now);
    let _ = edge.await;
    if let Some(metrics_edge) = metrics_edge {
        let _ = metrics_edge.await;
    }
    // WebSockets drop their sockets as soon as they see `Now`.
    let _ = tokio::time::timeout(Duration::from_millis(200), app.websockets.none_open()).await;
    driver.abort();
    sweeper.abort();
    purger.abort();
    if let Some(follower) = follower {
        follower.abort();
    }
    let closing = app.clone();
    let _ = tokio::task::spawn_blocking(move || closing.sessions.store().close()).await;
    Ok(())
}

/// Deletes finished sessions past the retention period from the store: at start-up, then every
/// hour (or every retention period when that is shorter).
async fn purge(app: Arc<App>, mut stop: watch::Receiver<Stop>) {
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

/// How often a node of a shared store looks for idle deadlines of sessions no node holds.
const DUE_EVERY: Duration = Duration::from_secs(1);

/// Follows the changes other nodes store (the shared store's doorbell): each session this node
/// holds is brought up to them and its clients here get their frames. Also, every second, loads
/// the sessions whose idle deadline fell due and that nobody here holds, so the deadline is
/// applied even when the node that held the session is gone (two nodes applying the same
/// deadline append the same change: the store takes it once).
async fn follow(
    app: Arc<App>,
    mut bells: tokio::sync::broadcast::Receiver<(Arc<str>, u64)>,
    mut stop: watch::Receiver<Stop>,
) {
    use tokio::sync::broadcast::error::RecvError;
    // Deadlines of sessions nobody here holds, in a task of their own: loading them does not
    // hold up the doorbells.
    let due_loop = tokio::spawn(due(app.clone(), stop.clone()));
    loop {
        let bell = tokio::select! {
            bell = bells.recv() => bell,
            _ = stop.changed() => {
                due_loop.abort();
                return;
            }
        };
        let todo: Vec<(Arc<str>, u64)> = match bell {
            Ok((id, seq)) if !id.is_empty() => vec![(id, seq)],
            // Missed doorbells: every session held here is checked.
            Ok(_) | Err(RecvError::Lagged(_)) => app
                .sessions
                .held()
                .into_iter()
                .map(|id| (id, u64::MAX))
                .collect(),
            Err(RecvError::Closed) => return,
        };
        let following = app.clone();
        let _ = tokio::task::spawn_blocking(move || {
            for (id, seq) in todo {
                if let Err(e) = following.sessions.follow(&id, seq) {
                    sessions::span_of(&id).in_scope(|| tracing::debug!("following: {e}"));
                }
            }
        })
        .await;
    }
}

/// Due deadlines read by the loop below at each tick.
const DUE_PAGE: usize = 256;

/// Every second, loads the sessions whose idle deadline fell due and that this node does not
/// hold (the sweeper then applies it); a session that cannot be loaded is tried again later.
/// The due deadlines are read a page at a time, oldest first, and the next tick reads the next
/// page (from the oldest again after a short page): sessions that cannot be loaded, or that
/// another node holds, never keep the loop from the others.
async fn due(app: Arc<App>, mut stop: watch::Receiver<Stop>) {
    let mut tick = tokio::time::interval(DUE_EVERY);
    let mut skip = 0;
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        let loading = app.clone();
        let now = app.clock.now();
        let read = tokio::task::spawn_blocking(move || {
            let ids = loading.sessions.store().due(now, skip, DUE_PAGE)?;
            let read = ids.len();
            for id in ids {
                if loading.sessions.get(&id).is_none() {
                    let _ = loading.sessions.get_or_load(&id, now);
                }
            }
            Ok::<_, crate::store::StoreError>(read)
        })
        .await;
        // After a full page, the next one; after a short one (or a failure), the oldest again.
        // (Deadlines applied meanwhile leave the index, so a page may skip some: they are read
        // once the loop comes round again.)
        skip = match read {
            Ok(Ok(read)) if read == DUE_PAGE => skip + read,
            _ => 0,
        };
    }
}

/// The sweeper: sleeps until the earliest deadline, then lets the sessions handle what fell
/// due. The engine decides what idleness means; this only decides when to ask.
async fn sweep(app: Arc<App>, mut stop: watch::Receiver<Stop>) {
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
