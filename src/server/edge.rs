//! The edge: accepting TCP connections and serving HTTP on them, with the limits an exposed
//! server needs, and stopping.
//!
//! - Every connection is admitted against the node's cap and its address's cap before a byte
//!   is read; one over a cap is answered at once (503 `server_full` or 429 `rate_limited`) and
//!   closed.
//! - A request header must arrive within `header_timeout` (also the most an idle keep-alive
//!   connection is kept), and its body within another `header_timeout` ([`super::body`]).
//! - A write to a client that makes no progress for `write_timeout` fails, and the connection
//!   with it ([`super::stream`]): a client that does not read a response holds nothing longer.
//! - [`Shutdown`]: the first request stops accepting, closes every WebSocket with 1001 and
//!   waits for the requests in flight and the close handshakes, at most `shutdown_timeout`; a
//!   second request (a second SIGINT or SIGTERM) cuts the wait short. Connections that have no
//!   request in flight (idle, or half-way through a header) are not waited for.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use dashmap::DashMap;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tracing::{debug, warn};

use super::App;
use super::body::Deadline;
use super::rate::RateLimiter;
use super::stop::{Stop, reached};
use super::stream::{Meter, Stream};
use crate::config::ServerConfig;
use crate::protocol::{ErrorCode, ServerFrame};

/// When the server stops: each request (a signal, a future resolving) moves it one step: the
/// first starts a graceful shutdown, the second ends it at once. The store is flushed either
/// way.
pub struct Shutdown {
    requests: watch::Receiver<u32>,
    driver: Pin<Box<dyn Future<Output = ()> + Send>>,
}

impl std::fmt::Debug for Shutdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shutdown")
            .field("requests", &*self.requests.borrow())
            .finish_non_exhaustive()
    }
}

impl<F: Future<Output = ()> + Send + 'static> From<F> for Shutdown {
    /// One request, when `future` resolves.
    fn from(future: F) -> Shutdown {
        let (tx, requests) = watch::channel(0);
        Shutdown {
            requests,
            driver: Box::pin(async move {
                future.await;
                tx.send_modify(|n| *n += 1);
                std::future::pending::<()>().await
            }),
        }
    }
}

impl Shutdown {
    /// A request at every SIGINT (ctrl-c) or SIGTERM. The handlers are installed when this is
    /// called, not when the server starts, so a signal that arrives right after start-up is not
    /// lost to the default action (which would kill the process without flushing the store).
    /// Call it inside the runtime.
    pub fn on_signals() -> Shutdown {
        let (tx, requests) = watch::channel(0);
        #[cfg(unix)]
        let driver = {
            use tokio::signal::unix::{SignalKind, signal};
            let terminate = signal(SignalKind::terminate()).ok();
            let interrupt = signal(SignalKind::interrupt()).ok();
            async move {
                async fn next(s: &mut Option<tokio::signal::unix::Signal>) {
                    match s {
                        Some(s) => {
                            if s.recv().await.is_none() {
                                std::future::pending::<()>().await
                            }
                        }
                        None => std::future::pending::<()>().await,
                    }
                }
                let (mut terminate, mut interrupt) = (terminate, interrupt);
                loop {
                    tokio::select! {
                        _ = next(&mut terminate) => {}
                        _ = next(&mut interrupt) => {}
                    }
                    tx.send_modify(|n| *n += 1);
                }
            }
        };
        #[cfg(not(unix))]
        let driver = async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                tx.send_modify(|n| *n += 1);
            }
            std::future::pending::<()>().await
        };
        Shutdown {
            requests,
            driver: Box::pin(driver),
        }
    }

    /// Splits into what counts the requests and what drives them (to be spawned).
    pub(crate) fn split(self) -> (Requests, Pin<Box<dyn Future<Output = ()> + Send + 'static>>) {
        (Requests(self.requests), self.driver)
    }
}

/// The count of shutdown requests.
pub(crate) struct Requests(watch::Receiver<u32>);

impl Requests {
    /// Resolves once `n` requests were made.
    pub(crate) async fn reached(&mut self, n: u32) {
        if self.0.wait_for(|c| *c >= n).await.is_err() {
            std::future::pending::<()>().await
        }
    }
}

/// A count of things in progress that shutdown waits for.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    open: AtomicUsize,
    none_open: Notify,
}

impl Tracker {
    /// Counts one while the guard lives.
    pub(crate) fn track(self: &Arc<Self>) -> Tracked {
        self.open.fetch_add(1, Ordering::SeqCst);
        Tracked(self.clone())
    }

    pub(crate) fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// Resolves when none is open.
    pub(crate) async fn none_open(&self) {
        loop {
            let notified = self.none_open.notified();
            if self.open.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

#[derive(Debug)]
pub(crate) struct Tracked(Arc<Tracker>);

impl Drop for Tracked {
    fn drop(&mut self) {
        if self.0.open.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.none_open.notify_waiters();
        }
    }
}

/// An address as the per-address limits count it: IPv4 addresses one by one, IPv6 ones by
/// their /64 prefix (what one host usually holds), IPv4-mapped IPv6 as IPv4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Client(IpAddr);

impl Client {
    pub(crate) fn of(ip: IpAddr) -> Client {
        match ip {
            IpAddr::V4(_) => Client(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Client(IpAddr::V4(v4)),
                None => {
                    let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                    Client(IpAddr::V6(prefix.into()))
                }
            },
        }
    }
}

/// The connection caps: the node's and each address's.
#[derive(Debug)]
pub(crate) struct Limits {
    max_connections: usize,
    max_per_ip: usize,
    exempt_loopback: bool,
    open: AtomicUsize,
    per_ip: DashMap<Client, usize>,
    /// Refusals being written: bounded too, past it a connection is just dropped.
    refusing: AtomicUsize,
}

/// Connections being answered with a refusal at once; past this many they are dropped.
const MAX_REFUSING: usize = 1024;

/// Why a connection or a session was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OverCap {
    /// The node's connection cap.
    Connections,
    /// The address's connection cap.
    ConnectionsPerIp,
}

impl Limits {
    pub(crate) fn new(config: &ServerConfig) -> Limits {
        Limits {
            max_connections: config.max_connections,
            max_per_ip: config.max_connections_per_ip,
            exempt_loopback: config.exempt_loopback,
            open: AtomicUsize::new(0),
            per_ip: DashMap::new(),
            refusing: AtomicUsize::new(0),
        }
    }

    /// Whether the per-address limits apply to `ip`.
    pub(crate) fn limits_address(&self, ip: IpAddr) -> bool {
        !(self.exempt_loopback && ip.to_canonical().is_loopback())
    }

    /// Admits a connection from `ip`, or says which cap it is over.
    pub(crate) fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Admitted, OverCap> {
        if self.open.fetch_add(1, Ordering::SeqCst) >= self.max_connections {
            self.open.fetch_sub(1, Ordering::SeqCst);
            return Err(OverCap::Connections);
        }
        let client = if self.limits_address(ip) && self.max_per_ip > 0 {
            let client = Client::of(ip);
            let mut n = self.per_ip.entry(client).or_insert(0);
            if *n >= self.max_per_ip {
                drop(n);
                self.open.fetch_sub(1, Ordering::SeqCst);
                return Err(OverCap::ConnectionsPerIp);
            }
            *n += 1;
            Some(client)
        } else {
            None
        };
        Ok(Admitted {
            limits: self.clone(),
            client,
        })
    }
}

/// New sessions per address: a token bucket each (`ip_session_rate` per minute, bursts of
/// `ip_session_burst`). A bucket that has filled up again is forgotten, so the map holds only
/// the addresses that created sessions lately, and never more than [`MAX_TRACKED`].
#[derive(Debug)]
pub(crate) struct SessionRate {
    rate: f64,
    burst: u32,
    limits: Arc<Limits>,
    buckets: DashMap<Client, RateLimiter>,
    pruned: std::sync::Mutex<Instant>,
}

/// Addresses whose session rate is tracked at once; past it, new addresses are refused until
/// older buckets fill up again (a flood from that many addresses).
const MAX_TRACKED: usize = 100_000;

impl SessionRate {
    pub(crate) fn new(config: &ServerConfig, limits: Arc<Limits>) -> SessionRate {
        SessionRate {
            rate: f64::from(config.ip_session_rate) / 60.0,
            burst: config.ip_session_burst,
            limits,
            buckets: DashMap::new(),
            pruned: std::sync::Mutex::new(Instant::now()),
        }
    }

    /// Whether `ip` may create a session at `now` (and counts it).
    pub(crate) fn allow(&self, ip: IpAddr, now: Instant) -> bool {
        if !self.limits.limits_address(ip) {
            return true;
        }
        let client = Client::of(ip);
        self.prune(now);
        if self.buckets.len() >= MAX_TRACKED && !self.buckets.contains_key(&client) {
            return false;
        }
        self.buckets
            .entry(client)
            .or_insert_with(|| RateLimiter::per_second(self.rate, self.burst, now))
            .allow(now)
    }

    /// Forgets the buckets that are full again, at most once a second (or at once when the
    /// map is at its bound).
    fn prune(&self, now: Instant) {
        {
            let mut pruned = self.pruned.lock().unwrap_or_else(|p| p.into_inner());
            if now.saturating_duration_since(*pruned) < Duration::from_secs(1)
                && self.buckets.len() < MAX_TRACKED
            {
                return;
            }
            *pruned = now;
        }
        self.buckets.retain(|_, bucket| !bucket.full_at(now));
    }
}

/// An admitted connection, counted until dropped (by the HTTP connection, or by the WebSocket
/// it became).
#[derive(Debug)]
pub(crate) struct Admitted {
    limits: Arc<Limits>,
    client: Option<Client>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        if let Some(client) = self.client {
            self.limits.per_ip.remove_if_mut(&client, |_, n| {
                *n -= 1;
                *n == 0
            });
        }
        self.limits.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Accepts connections on `listener` until the server stops closing; then asks each to finish
/// (keep-alive off), and drops them all when it stops `Now`.
pub(crate) async fn accept(listener: TcpListener, router: Router, app: Arc<App>) {
    let mut stop = app.stop.clone();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(app.config.header_timeout)
        .max_buf_size(MAX_HEADER_BUFFER);
    let mut connections = JoinSet::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, most likely: wait a little instead of spinning.
                    warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            Some(_) = connections.join_next() => continue,
            _ = reached(&mut stop, Stop::Closing) => break,
        };
        // Frames go out as soon as they are written: without TCP_NODELAY, a small frame right
        // after another (an ack after its state frame) waits for the peer's delayed ACK, up to
        // 40 ms.
        if let Err(e) = stream.set_nodelay(true) {
            debug!(error = %e, "cannot set TCP_NODELAY");
        }
        // The kernel would grow a send buffer to megabytes for a client that does not read.
        let socket = socket2::SockRef::from(&stream);
        if let Err(e) = socket.set_send_buffer_size(app.config.send_buffer_bytes) {
            debug!(error = %e, "cannot set the send buffer");
        }
        let admitted = match app.limits.admit(peer.ip()) {
            Ok(admitted) => admitted,
            Err(refusal) => {
                app.metrics.refused(refusal);
                refuse(&app, stream, refusal);
                continue;
            }
        };
        let stream = Stream::new(stream, app.config.write_timeout);
        let meter = stream.meter();
        let conn = http
            .serve_connection(
                TokioIo::new(stream),
                Service {
                    router: router.clone(),
                    app: app.clone(),
                    peer,
                    admitted: Arc::new(admitted),
                    meter,
                },
            )
            .with_upgrades();
        let mut stop = app.stop.clone();
        connections.spawn(async move {
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                result = conn.as_mut() => {
                    if let Err(e) = result {
                        debug!(error = %e, "HTTP connection ended");
                    }
                    return;
                }
                _ = reached(&mut stop, Stop::Closing) => {}
            }
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        });
    }
    drop(listener);
    // Closing: each connection finishes the request it has in flight, if any.
    tokio::select! {
        _ = async { while connections.join_next().await.is_some() {} } => {}
        _ = reached(&mut stop, Stop::Now) => {}
    }
    connections.shutdown().await;
}

/// The most a request header may take (hyper's read buffer).
const MAX_HEADER_BUFFER: usize = 64 * 1024;

/// Answers a connection over a cap, without reading its request, and closes it; bounded in
/// time (a second) and in number ([`MAX_REFUSING`]).
fn refuse(app: &Arc<App>, mut stream: TcpStream, refusal: OverCap) {
    let limits = app.limits.clone();
    if limits.refusing.fetch_add(1, Ordering::SeqCst) >= MAX_REFUSING {
        limits.refusing.fetch_sub(1, Ordering::SeqCst);
        return;
    }
    let (status, code, message) = match refusal {
        OverCap::Connections => (
            "503 Service Unavailable",
            ErrorCode::ServerFull,
            format!(
                "the server holds its maximum of {} connections: try again later",
                app.config.max_connections
            ),
        ),
        OverCap::ConnectionsPerIp => (
            "429 Too Many Requests",
            ErrorCode::RateLimited,
            format!(
                "at most {} connections from one address",
                app.config.max_connections_per_ip
            ),
        ),
    };
    let body = ServerFrame::error(code, &message).to_text();
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         retry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    tokio::spawn(async move {
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            stream.write_all(response.as_bytes()).await?;
            stream.shutdown().await?;
            // What the client sent is read and dropped, so the close is not a reset that
            // could discard the answer before the client reads it.
            let mut sink = [0u8; 1024];
            let mut left: usize = 64 * 1024;
            while left > 0 {
                match stream.read(&mut sink).await? {
                    0 => break,
                    n => left = left.saturating_sub(n),
                }
            }
            Ok::<_, std::io::Error>(())
        })
        .await;
        limits.refusing.fetch_sub(1, Ordering::SeqCst);
    });
}

/// The router, for one connection: each request carries the peer's address and the
/// connection's admission (a WebSocket keeps it), and is counted while in flight.
#[derive(Clone)]
struct Service {
    router: Router,
    app: Arc<App>,
    peer: SocketAddr,
    admitted: Arc<Admitted>,
    meter: Arc<Meter>,
}

impl hyper::service::Service<hyper::Request<hyper::body::Incoming>> for Service {
    type Response = axum::response::Response;
    type Error = std::convert::Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn call(&self, mut request: hyper::Request<hyper::body::Incoming>) -> Self::Future {
        use tower_service::Service as _;
        request.extensions_mut().insert(ConnectInfo(self.peer));
        request.extensions_mut().insert(self.admitted.clone());
        request.extensions_mut().insert(self.meter.clone());
        let in_flight = self.app.requests.track();
        let mut router = self.router.clone();
        let (within, stop) = (self.app.config.header_timeout, self.app.stop.clone());
        let request = request.map(|body| {
            use http_body::Body as _;
            if body.is_end_stream() {
                axum::body::Body::new(body)
            } else {
                axum::body::Body::new(Deadline::new(body, within, stop))
            }
        });
        Box::pin(async move {
            let response = router.call(request).await;
            drop(in_flight);
            response
        })
    }
}
