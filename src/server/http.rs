//! The routes: the WebSocket endpoint, health, metrics and the session API.

use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::ws::WebSocketUpgrade;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Extension, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use super::edge::Admitted;
use super::{App, auth, pages, web, ws};
use crate::assistant::Mode;
use crate::config::ServerConfig;
use crate::protocol::{self, ErrorCode, ServerFrame};
use crate::store::{ErrorKind, Health, StoreError};

/// Read buffer of a WebSocket. The library default, 128 KiB allocated up front per
/// connection, would be nearly all of an idle connection's memory; client frames are small,
/// and a large one grows the buffer as it arrives. Measured: 9.1 KB per idle connection at
/// 4 KiB, 6.0 KB at 1 KiB, with no change in turns per second (docs/benchmarks.md).
const READ_BUFFER: usize = 1024;
/// Bytes buffered before a write goes to the socket; every frame is flushed anyway.
const WRITE_BUFFER: usize = 0;

pub(crate) fn router(app: Arc<App>) -> Router {
    // With a metrics address of their own, the metrics are served there only.
    let mut metrics_route = Router::new();
    if app.config.metrics_listen.is_none() {
        metrics_route = metrics_route.route("/metrics", get(metrics)).route_layer(
            axum::middleware::from_fn_with_state(app.clone(), admin_only),
        );
    }
    Router::new()
        .route("/", get(web::index))
        .route("/demo", get(web::index))
        .route("/demo/app.js", get(web::app))
        .route("/demo/style.css", get(web::style))
        .route("/embed.js", get(web::embed))
        .route("/ws", get(upgrade))
        .route(
            "/api/sessions/status.md",
            axum::routing::post(import_status_md),
        )
        .route("/api/flows", get(list_flows))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        // The node's figures: an admin's, when authentication is on.
        .merge(metrics_route)
        .merge(
            // A session's state, summary, log and history: an admin's, and read by whoever
            // may open the session (its owner: the widget shows its transcript); deleting
            // it: an admin's.
            Router::new()
                .route(
                    "/api/sessions/{id}",
                    get(session_state).delete(delete_session),
                )
                .route("/api/sessions/{id}/summary", get(session_summary))
                .route("/api/sessions/{id}/events", get(session_events))
                .route("/api/sessions/{id}/goals", get(session_goals))
                .route("/api/sessions/{id}/status.md", get(session_status_md))
                .route_layer(axum::middleware::from_fn_with_state(
                    app.clone(),
                    session_access,
                )),
        )
        .layer(axum::middleware::from_fn_with_state(app.clone(), cors))
        .with_state(app)
}

/// What `metrics_listen` serves: `/metrics` only, without a token (that address is meant for
/// a scraper on an internal network; the figures name no session and hold no text).
pub(crate) fn metrics_router(app: Arc<App>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .with_state(app)
}

/// What browsers may do, before any route: on loopback, a request must name the server by a
/// loopback name or a public origin's host (a DNS name rebound to 127.0.0.1 is refused: with
/// authentication off, it would read and delete sessions); a request that changes something
/// (`DELETE`) from a browser origin not allowed is refused; allowed origins get CORS headers, and
/// their preflights (the widget sends `Authorization` to the API from its host site) an answer.
/// The same allowlist decides who may open a WebSocket.
async fn cors(
    State(app): State<Arc<App>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if let Err(host) = check_host(request.headers(), &app.config) {
        return error_response(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            &format!(
                "host {host} is not served here: on loopback the server answers to localhost, \
                 loopback addresses and its public origins (--public-origin)"
            ),
        );
    }
    let origin = request.headers().get(header::ORIGIN).cloned();
    let allowed = check_origin(request.headers(), &app.config).is_ok();
    let method = request.method().clone();
    let reads = matches!(method, Method::GET | Method::HEAD);
    if origin.is_some() && !allowed && !reads {
        return error_response(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "this origin is not allowed to use the server",
        );
    }
    let mut response = if method == Method::OPTIONS && origin.is_some() {
        let mut preflight = StatusCode::NO_CONTENT.into_response();
        let headers = preflight.headers_mut();
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, DELETE"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("Authorization"),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
        preflight
    } else {
        next.run(request).await
    };
    if let Some(origin) = origin.filter(|_| allowed) {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    response
}

/// On loopback, the `Host` a request names must be a loopback name or address, or the host of a
/// public origin: a page whose DNS name rebinds to 127.0.0.1 names its own. The refused host, if
/// not. A request without `Host` (HTTP/1.0) passes; browsers always send one.
fn check_host(headers: &HeaderMap, config: &ServerConfig) -> Result<(), String> {
    if !config.listen.ip().is_loopback() {
        return Ok(());
    }
    let Some(host) = headers.get(header::HOST) else {
        return Ok(());
    };
    let host = host.to_str().unwrap_or("").to_ascii_lowercase();
    let name = host_name(&host);
    let loopback = name == "localhost"
        || name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    let public = config.public_origins.iter().any(|o| {
        let o = o.to_ascii_lowercase();
        let authority = o.split_once("://").map_or(o.as_str(), |(_, rest)| rest);
        host_name(authority.trim_end_matches('/')) == name
    });
    if loopback || public {
        Ok(())
    } else {
        Err(host)
    }
}

/// `name` of `name:port` (and of `[v6]:port`).
fn host_name(authority: &str) -> &str {
    authority
        .rsplit_once(':')
        .filter(|(name, port)| {
            port.chars().all(|c| c.is_ascii_digit())
                && (!name.starts_with('[') || name.ends_with(']'))
        })
        .map_or(authority, |(name, _)| name)
}

#[derive(Debug, Deserialize)]
struct WsParams {
    session_id: Option<String>,
    /// The last `seq` the client saw: it gets the frames after it (see `ws::serve`).
    last_seq: Option<u64>,
    /// A token, for browsers, which cannot set an `Authorization` header on a WebSocket.
    token: Option<String>,
    /// `1` (or `true`): the session's `state` frames carry the inspector's `explain` object.
    explain: Option<String>,
    /// Who answers as the assistant in the session: `observer`, `guide` or `llm`.
    assistant: Option<String>,
    /// A client that reconnects mid-reply: the reply it was receiving, and how many bytes of it
    /// it has; it gets the rest only.
    reply_id: Option<String>,
    reply_offset: Option<usize>,
    /// A new session of this hosted flow (`conversation` when absent).
    flow: Option<String>,
    /// The flow's settings for this session: `NAME=VALUE,NAME=VALUE`.
    settings: Option<String>,
}

/// `NAME=VALUE,NAME=VALUE` into a map (at most 64 pairs).
fn flow_settings(text: &str) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut out = std::collections::BTreeMap::new();
    for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
        let Some((k, v)) = pair.split_once('=') else {
            return Err(format!("settings: \"{pair}\" is not NAME=VALUE"));
        };
        out.insert(k.trim().to_string(), v.trim().to_string());
        if out.len() > 64 {
            return Err("settings: at most 64".to_string());
        }
    }
    Ok(out)
}

async fn upgrade(
    State(app): State<Arc<App>>,
    params: Result<Query<WsParams>, QueryRejection>,
    headers: HeaderMap,
    admitted: Option<Extension<Arc<Admitted>>>,
    meter: Option<Extension<Arc<super::stream::Meter>>>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let params = match params {
        Ok(Query(params)) => params,
        Err(e) => {
            return bad_request(&format!(
                "{}; expected ?session_id=ID&last_seq=N",
                e.body_text()
            ));
        }
    };
    let admitted = admitted.map(|Extension(a)| a);
    let explain = match params.explain.as_deref() {
        None | Some("0" | "false") => false,
        Some("1" | "true") => true,
        Some(other) => {
            return bad_request(&format!("explain={other}: expected explain=1 or explain=0"));
        }
    };
    if let Some(id) = &params.session_id
        && let Err(refused) = check_id(id)
    {
        return refused;
    }
    // A hosted flow: checked now (its name, its settings), started once the session exists.
    let flow = match (params.flow.as_deref(), &params.session_id) {
        (None | Some("conversation"), _) if params.settings.is_none() => None,
        (None | Some("conversation"), _) => {
            return bad_request("settings= goes with flow=NAME (a hosted flow's settings)");
        }
        (Some(_), Some(_)) => {
            return bad_request(
                "flow= opens a new session of that flow; to join a session, give only session_id",
            );
        }
        (Some(name), None) => {
            let settings = match flow_settings(params.settings.as_deref().unwrap_or("")) {
                Ok(s) => s,
                Err(message) => return bad_request(&message),
            };
            let trial = crate::conversation::Conversation::new("-", app.clock.now());
            let input = crate::conversation::Input::Start {
                flow: name,
                settings: &settings,
                restore: None,
            };
            if let Err(invalid) = app.sessions.engine().check(&trial, &input, app.clock.now()) {
                return bad_request(&invalid.message);
            }
            Some((name.to_string(), settings))
        }
    };
    let assistant = match params.assistant.as_deref().map(str::parse::<Mode>) {
        None => None,
        Some(Ok(mode)) => match app.sessions.offers(mode) {
            Ok(()) => Some(mode),
            Err(message) => return bad_request(&message),
        },
        Some(Err(message)) => return bad_request(&format!("assistant: {message}")),
    };
    let principal = match authorize(&app, &headers, &params) {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    if assistant.is_some()
        && let Some(principal) = &principal
        && !principal.access.may_reset()
    {
        return error_response(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "only a user or an admin token chooses the session's assistant",
        );
    }
    if let Err(origin) = check_origin(&headers, &app.config) {
        return (
            StatusCode::FORBIDDEN,
            format!("origin {origin} is not allowed to connect\n"),
        )
            .into_response();
    }
    // Frames up to the limit are read whole and refused with `too_large`; far larger ones
    // close the connection (1009) before they are buffered.
    let hard_limit = app.config.max_frame_bytes.saturating_mul(4).max(1 << 20);
    let upgrade = upgrade
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_write_buffer_size(4 << 20)
        .max_message_size(hard_limit)
        .max_frame_size(hard_limit);
    let session = match params.session_id.clone() {
        // A new session lives in memory until its first change, which creates it in the store:
        // a connection that says nothing leaves nothing behind.
        None => {
            if let Err(refused) = new_session_rate(&app, peer.as_ref()) {
                return refused;
            }
            // Its first change would be refused: no new session while the store refuses.
            if let Some(cause) = app.sessions.store().refusing() {
                return store_unavailable(&cause);
            }
            let owner = principal.as_ref().map(|p| Arc::from(p.subject.as_str()));
            match app.sessions.create(app.clock.now(), owner) {
                Some(session) => Ok(Some(session)),
                None => return server_full(&app),
            }
        }
        Some(id) => {
            // A resume may rebuild frames from the log: resumes from one address are limited
            // as new sessions are (an admin's are not).
            let admin = principal.as_ref().is_some_and(auth::Principal::is_admin);
            if params.last_seq.is_some()
                && !admin
                && let Some(Extension(ConnectInfo(peer))) = &peer
                && !app.join_rate.allow(peer.ip(), tokio::time::Instant::now())
            {
                app.metrics.error(ErrorCode::RateLimited);
                let message = format!(
                    "more than {} resumes per minute from one address: try again later",
                    app.config.ip_session_rate
                );
                let mut response = error_response(
                    StatusCode::TOO_MANY_REQUESTS,
                    ErrorCode::RateLimited,
                    &message,
                );
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return response;
            }
            let (loading, now) = (app.clone(), app.clock.now());
            blocking(move || loading.sessions.get_or_load(&id, now)).await
        }
    };
    let last_seq = params.last_seq;
    // A session that does not exist is refused as another subject's is, to a token that
    // could not open it either way: ids cannot be probed (the HTTP API does the same).
    let refused = match (&session, &principal, &params.session_id) {
        (Ok(Some(session)), Some(principal), _) => {
            !principal.may_open(&session.id, session.owner.as_deref())
        }
        (Ok(None), Some(principal), Some(id)) => !principal.may_open(id, None),
        _ => false,
    };
    if refused {
        return error_response(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "this session belongs to another subject",
        );
    }
    let (access, expires) = match &principal {
        Some(p) => (Some(p.access), p.expires),
        None => (None, None),
    };
    if let (Some((name, settings)), Ok(Some(session))) = (&flow, &session) {
        // Its first change: stored before the client's welcome.
        let input = crate::conversation::Input::Start {
            flow: name,
            settings,
            restore: None,
        };
        let applied = app
            .sessions
            .apply(session, input, None, app.clock.now(), None);
        let stored = match applied {
            Ok(applied) => app.sessions.store().committed(applied.ticket).await,
            Err(super::sessions::Refused::Store(e)) => Err(e),
            Err(super::sessions::Refused::Invalid(invalid)) => {
                return bad_request(&invalid.message);
            }
            Err(_) => Err(StoreError::new(
                ErrorKind::Io,
                "the flow could not be started",
            )),
        };
        if let Err(e) = stored {
            return store_unavailable(&e);
        }
    }
    if let Ok(Some(session)) = &session {
        if explain {
            session.set_explain(true);
        }
        if let Some(mode) = assistant {
            session.set_assistant(mode);
        }
    }
    match session {
        Ok(Some(session)) => {
            let reply = params.reply_id.zip(params.reply_offset);
            // Boxed: what the callback holds stays in the connection's task for its whole
            // life, after it was handed on (80 bytes inline, 8 boxed).
            let opening = ws::Opening {
                session,
                last_seq,
                admitted,
                access,
                expires,
                reply,
                meter: meter.map(|Extension(m)| m),
            };
            let start = Box::new((app, opening));
            upgrade.on_upgrade(move |socket| {
                let (app, opening) = *start;
                ws::serve(socket, app, opening)
            })
        }
        Ok(None) => {
            let id = params.session_id.unwrap_or_default();
            upgrade.on_upgrade(move |socket| ws::unknown_session(socket, app, id, admitted))
        }
        Err(e) if e.kind == ErrorKind::Full && app.sessions.full() => server_full(&app),
        Err(e) => store_unavailable(&e),
    }
}

/// With authentication on, who a request's token names, or its refusal: 401 without a valid
/// token, 403 when the token is restricted to another session. `None`: authentication is off
/// and the connection may open any session and send everything.
#[allow(clippy::result_large_err)]
fn authorize(
    app: &App,
    headers: &HeaderMap,
    params: &WsParams,
) -> Result<Option<auth::Principal>, Response> {
    let Some(verifier) = &app.verifier else {
        return Ok(None);
    };
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let Some(token) = auth::presented(authorization, params.token.as_deref()) else {
        return Err(unauthorized(
            "a token is needed: Authorization: Bearer TOKEN, or ?token=TOKEN",
        ));
    };
    let principal = verifier
        .verify(token)
        .map_err(|refused| unauthorized(&refused.0))?;
    if let Some(only) = &principal.session
        && params.session_id.as_deref() != Some(only.as_str())
    {
        return Err(error_response(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            &format!("this token opens only session {only}"),
        ));
    }
    Ok(Some(principal))
}

fn unauthorized(message: &str) -> Response {
    let mut response = error_response(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, message);
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// Who is calling the HTTP API, when authentication is on (tokens or API keys).
enum Caller {
    /// Authentication is off.
    Anyone,
    /// One of the API keys: as an admin.
    Key,
    Token(auth::Principal),
}

/// The caller of an HTTP request (`Authorization: Bearer`), or its refusal: 401 without a
/// valid token or key.
#[allow(clippy::result_large_err)]
fn caller(app: &App, headers: &HeaderMap) -> Result<Caller, Response> {
    if app.verifier.is_none() && app.api_keys.is_none() {
        return Ok(Caller::Anyone);
    }
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let Some(token) = auth::presented(authorization, None) else {
        return Err(unauthorized(
            "a token or an API key is needed: Authorization: Bearer TOKEN",
        ));
    };
    if app.api_keys.as_ref().is_some_and(|keys| keys.admits(token)) {
        return Ok(Caller::Key);
    }
    let Some(verifier) = &app.verifier else {
        return Err(unauthorized("not one of the API keys"));
    };
    match verifier.verify(token) {
        Ok(principal) => Ok(Caller::Token(principal)),
        Err(refused) => Err(unauthorized(&refused.0)),
    }
}

fn is_admin(caller: &Caller) -> bool {
    match caller {
        Caller::Anyone | Caller::Key => true,
        Caller::Token(p) => p.is_admin(),
    }
}

/// Lets through only an admin token or an API key (when authentication is on): 401 without a
/// valid one, 403 for another role.
async fn admin_only(
    State(app): State<Arc<App>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    match caller(&app, request.headers()) {
        Err(refused) => refused,
        Ok(c) if is_admin(&c) => next.run(request).await,
        Ok(_) => error_response(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "only an admin token or an API key may read the metrics",
        ),
    }
}

/// A session's routes: an admin token or an API key for everything; a token that opens the
/// session (its owner's, or one naming it in `sid`: see [`auth::Principal::may_open`]) reads
/// it. 401 without a valid token, 403 otherwise; a reader gets 403 for a session that does
/// not exist, so ids cannot be probed.
async fn session_access(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let principal = match caller(&app, request.headers()) {
        Err(refused) => return refused,
        Ok(Caller::Token(p)) if !p.is_admin() => p,
        Ok(_) => return next.run(request).await,
    };
    // An admin token restricted by `sid` is an admin of that one session.
    let admin_here =
        principal.access == auth::Access::Admin && principal.session.as_deref() == Some(&id);
    if admin_here {
        return next.run(request).await;
    }
    if request.method() != Method::GET {
        return error_response(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "only an admin token or an API key may delete a session",
        );
    }
    if let Err(refused) = check_id(&id) {
        return refused;
    }
    if let Some(only) = principal.session.as_deref().filter(|only| *only != id) {
        return error_response(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            &format!("this token opens only session {only}"),
        );
    }
    let (loading, now, wanted) = (app.clone(), app.clock.now(), id.clone());
    let owner = match blocking(move || loading.sessions.get_or_load(&wanted, now)).await {
        Ok(Some(session)) => session.owner.clone(),
        Ok(None) => None,
        Err(e) => return store_unavailable(&e),
    };
    if !principal.may_open(&id, owner.as_deref()) {
        return error_response(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "this session belongs to another subject",
        );
    }
    next.run(request).await
}

/// A session id longer than the protocol allows is refused, never looked up.
#[allow(clippy::result_large_err)]
fn check_id(id: &str) -> Result<(), Response> {
    if id.len() > protocol::MAX_ID_BYTES {
        let message = format!(
            "a session id is at most {} bytes; this one has {}",
            protocol::MAX_ID_BYTES,
            id.len()
        );
        return Err(bad_request(&message));
    }
    Ok(())
}

/// This node holds its maximum of sessions: 503, `server_full`.
fn server_full(app: &App) -> Response {
    app.metrics.error(ErrorCode::ServerFull);
    let message = if app.sessions.full() {
        format!(
            "this node holds its maximum of {} sessions: try again later",
            app.config.max_sessions
        )
    } else {
        "no session id can be made now (the system's randomness is unavailable): try again later"
            .to_string()
    };
    let mut response = error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::ServerFull,
        &message,
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// The rate of new sessions per address (`ip_session_rate`): 429 `rate_limited` over it.
#[allow(clippy::result_large_err)]
fn new_session_rate(
    app: &App,
    peer: Option<&Extension<ConnectInfo<SocketAddr>>>,
) -> Result<(), Response> {
    if let Some(Extension(ConnectInfo(peer))) = peer
        && !app
            .session_rate
            .allow(peer.ip(), tokio::time::Instant::now())
    {
        app.metrics.error(ErrorCode::RateLimited);
        let message = format!(
            "more than {} new sessions per minute from one address: try again later",
            app.config.ip_session_rate
        );
        return Err(error_response(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            &message,
        ));
    }
    Ok(())
}

/// Runs a blocking store call off the runtime's workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(StoreError::new(
            ErrorKind::Io,
            format!("store task failed: {e}"),
        ))
    })
}

/// An HTTP error answered with the protocol's error frame.
fn error_response(status: StatusCode, code: ErrorCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        ServerFrame::error(code, message).to_text(),
    )
        .into_response()
}

fn store_unavailable(e: &StoreError) -> Response {
    tracing::error!(error = %e, "store");
    error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::StoreUnavailable,
        &e.message,
    )
}

/// Liveness: the process answers (200), with the store's state on a second line (a store that
/// refuses writes does not call for a restart).
async fn healthz(State(app): State<Arc<App>>) -> Response {
    let store = app.sessions.store();
    let state = match store.health() {
        Health::Ready => "ready".to_string(),
        Health::Failing { cause, since } => format!(
            "failing since {} ({}): {cause}",
            since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            cause.kind.as_str()
        ),
    };
    (
        StatusCode::OK,
        format!("ok\nstore: {state} ({})\n", store.describe()),
    )
        .into_response()
}

/// Readiness, for a load balancer: 503 naming the cause while the store refuses writes or the
/// server is stopping. `/healthz` is liveness: the process answers.
async fn readyz(State(app): State<Arc<App>>) -> Response {
    if app.stopping() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: shutting down\n",
        )
            .into_response();
    }
    match app.sessions.store().health() {
        Health::Ready => (StatusCode::OK, "ready\n").into_response(),
        Health::Failing { cause, since } => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "not ready: the store refuses writes since {} ({}): {cause}\n",
                since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                cause.kind.as_str()
            ),
        )
            .into_response(),
    }
}

/// Browsers send `Origin`; other clients usually do not, and are let in. A browser may connect
/// from the server's own origin, from localhost, or from a configured origin.
/// Whether a browser's `Origin` may connect or read: one of the server's public origins or of
/// `allowed_origins`, or a localhost origin while the server itself listens on loopback. The
/// request's own `Host` decides nothing: a rebinding DNS name would make any page "same
/// origin".
fn check_origin(headers: &HeaderMap, config: &ServerConfig) -> Result<(), String> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or("").trim_end_matches('/');
    let listed = |list: &[String]| {
        list.iter()
            .any(|a| a == "*" || a.trim_end_matches('/').eq_ignore_ascii_case(origin))
    };
    if listed(&config.allowed_origins) || listed(&config.public_origins) {
        return Ok(());
    }
    let host = origin
        .split_once("://")
        .and_then(|(_, rest)| rest.split('/').next())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let name = host
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(host.as_str(), |(name, _)| name);
    let localhost = matches!(name, "localhost" | "127.0.0.1" | "[::1]");
    if localhost && config.listen.ip().is_loopback() {
        Ok(())
    } else {
        Err(origin.to_string())
    }
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    let phases = app.sessions.phases();
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        app.metrics.render(
            &phases,
            app.sessions
                .llm()
                .map(|(llm, _)| llm.breaker.state(std::time::Instant::now())),
        ),
    )
        .into_response()
}

fn unknown_session(id: &str) -> Response {
    let message = format!("no session \"{id}\"");
    error_response(StatusCode::NOT_FOUND, ErrorCode::UnknownSession, &message)
}

/// The committed state (JSON) and summary of a session, loading it if needed.
async fn state_text(app: &Arc<App>, id: &str) -> Result<Option<(String, String)>, StoreError> {
    let (app, id, now) = (app.clone(), id.to_string(), app.clock.now());
    blocking(move || app.sessions.state_text(&id, now)).await
}

async fn session_state(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    if let Err(refused) = check_id(&id) {
        return refused;
    }
    match state_text(&app, &id).await {
        Ok(Some((state, _))) => {
            ([(header::CONTENT_TYPE, "application/json")], state).into_response()
        }
        Ok(None) => unknown_session(&id),
        Err(e) => store_unavailable(&e),
    }
}

/// A `conductor-ui` session as its STATUS.md (docs/flows.md).
async fn session_status_md(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    use crate::flow::{FlowRun, status};
    if let Err(refused) = check_id(&id) {
        return refused;
    }
    match state_text(&app, &id).await {
        Ok(Some((state, _))) => match serde_json::from_str::<FlowRun>(&state) {
            Ok(run) if run.flow == status::FLOW => (
                [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
                status::render(&run),
            )
                .into_response(),
            _ => bad_request(&format!(
                "session {id} does not run the {} flow: it has no STATUS.md",
                status::FLOW
            )),
        },
        Ok(None) => unknown_session(&id),
        Err(e) => store_unavailable(&e),
    }
}

/// The hosted flows this server runs: their states, events (with their data) and settings, for
/// clients that draw them (the demo page).
async fn list_flows(State(app): State<Arc<App>>) -> Response {
    let flows = app.sessions.engine().flows();
    let list: Vec<serde_json::Value> = flows
        .names()
        .filter_map(|name| flows.get(name))
        .map(|f| {
            serde_json::json!({
                "name": f.name,
                "description": f.description,
                "initial": f.initial,
                "states": f.states.iter().map(|s| serde_json::json!({
                    "name": s.name, "description": s.description, "terminal": s.terminal,
                })).collect::<Vec<_>>(),
                "events": f.events.iter().map(|e| serde_json::json!({
                    "name": e.name,
                    "description": e.description,
                    "internal": e.internal,
                    "data": e.data.iter().map(|f| (f.name.clone(), serde_json::Value::from(f.type_text()))).collect::<serde_json::Map<_, _>>(),
                })).collect::<Vec<_>>(),
                "settings": f.settings,
            })
        })
        .collect();
    (
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::Value::from(list).to_string(),
    )
        .into_response()
}

/// The longest STATUS.md read back.
const STATUS_MD_LIMIT: usize = 64 * 1024;

/// A new `conductor-ui` session in the state a STATUS.md holds: `201` with its id and `seq`.
async fn import_status_md(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    // Not read before the caller is known: a stranger's body is never read.
    body: axum::body::Body,
) -> Response {
    use crate::flow::status;
    // A new session, as an upgrade without session_id makes one: the same origin check and
    // the same rate of new sessions per address.
    if let Err(origin) = check_origin(&headers, &app.config) {
        return (
            StatusCode::FORBIDDEN,
            format!("origin {origin} is not allowed\n"),
        )
            .into_response();
    }
    if let Err(refused) = new_session_rate(&app, peer.as_ref()) {
        return refused;
    }
    let owner = match caller(&app, &headers) {
        Err(refused) => return refused,
        Ok(Caller::Token(p)) if !p.access.may_reset() => {
            return error_response(
                StatusCode::FORBIDDEN,
                ErrorCode::Forbidden,
                "a reader's token does not create sessions",
            );
        }
        Ok(Caller::Token(p)) => Some(Arc::from(p.subject.as_str())),
        Ok(_) => None,
    };
    let too_large = || {
        error_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::TooLarge,
            &format!("a STATUS.md of at most {STATUS_MD_LIMIT} bytes"),
        )
    };
    let announced = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > STATUS_MD_LIMIT as u64) {
        return too_large();
    }
    // Within the body's deadline (`header_timeout`: server/body.rs).
    let body = match axum::body::to_bytes(body, STATUS_MD_LIMIT).await {
        Ok(body) => body,
        Err(e) if is_length_limit(&e) => return too_large(),
        Err(e) => {
            let (status, code) = match cut_off(&e) {
                Some(super::body::CutOff::TooSlow) => {
                    (StatusCode::REQUEST_TIMEOUT, ErrorCode::BadRequest)
                }
                Some(super::body::CutOff::Stopping) => {
                    (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::ServerFull)
                }
                None => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
            };
            return error_response(status, code, &format!("the body could not be read: {e}"));
        }
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return bad_request("a STATUS.md is UTF-8 text");
    };
    let restore = match status::parse(text) {
        Ok(r) => r,
        Err(e) => return bad_request(&format!("STATUS.md: {e}")),
    };
    let settings = std::collections::BTreeMap::new();
    let input = crate::conversation::Input::Start {
        flow: status::FLOW,
        settings: &settings,
        restore: Some(&restore),
    };
    let trial = crate::conversation::Conversation::new("-", app.clock.now());
    if let Err(invalid) = app.sessions.engine().check(&trial, &input, app.clock.now()) {
        return bad_request(&format!("STATUS.md: {}", invalid.message));
    }
    if let Some(cause) = app.sessions.store().refusing() {
        return store_unavailable(&cause);
    }
    let Some(session) = app.sessions.create(app.clock.now(), owner) else {
        return server_full(&app);
    };
    let stored = match app
        .sessions
        .apply(&session, input, None, app.clock.now(), None)
    {
        Ok(applied) => app
            .sessions
            .store()
            .committed(applied.ticket)
            .await
            .map(|()| applied.seq),
        Err(super::sessions::Refused::Store(e)) => Err(e),
        Err(_) => Err(StoreError::new(
            ErrorKind::Io,
            "the session could not be started",
        )),
    };
    match stored {
        Ok(seq) => (
            StatusCode::CREATED,
            [(header::CONTENT_TYPE, "application/json")],
            serde_json::json!({"session_id": &*session.id, "seq": seq, "flow": status::FLOW})
                .to_string(),
        )
            .into_response(),
        Err(e) => store_unavailable(&e),
    }
}

/// Why a body was cut off by its deadline, if it was.
fn cut_off(e: &axum::Error) -> Option<super::body::CutOff> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(cut) = err.downcast_ref::<super::body::CutOff>() {
            return Some(*cut);
        }
        source = err.source();
    }
    None
}

/// Whether reading a body failed for its size.
fn is_length_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = err.source();
    }
    false
}

async fn session_summary(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    if let Err(refused) = check_id(&id) {
        return refused;
    }
    match state_text(&app, &id).await {
        Ok(Some((_, summary))) => (
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("{summary}\n"),
        )
            .into_response(),
        Ok(None) => unknown_session(&id),
        Err(e) => store_unavailable(&e),
    }
}

/// The most events or goals one request returns, and the default for events.
const PAGE_MAX: usize = 1000;
/// The default number of goals per request.
const GOALS_PAGE: usize = 100;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageParams {
    /// Only what comes after this (an event's `seq`; a number of goals).
    #[serde(default)]
    after: u64,
    /// At most this many (1 to 1,000).
    limit: Option<usize>,
}

/// The paging parameters, or what is wrong with them (answered with a 400).
fn page(
    params: Result<Query<PageParams>, QueryRejection>,
    default: usize,
) -> Result<(u64, usize), String> {
    match params {
        Ok(Query(p)) => match p.limit.unwrap_or(default) {
            limit @ 1..=PAGE_MAX => Ok((p.after, limit)),
            limit => Err(format!("limit={limit}: expected 1 to {PAGE_MAX}")),
        },
        Err(e) => Err(format!("{}; expected ?after=N&limit=N", e.body_text())),
    }
}

fn bad_request(message: &str) -> Response {
    error_response(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
}

/// The session's event log: the transcript, as the store keeps it, including every change made
/// before this request; with `?after=SEQ`, only what came after that change; at most `limit`
/// events (1,000 and by default 1,000): a client pages with `after` = the last `seq` it got.
async fn session_events(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    params: Result<Query<PageParams>, QueryRejection>,
) -> Response {
    if let Err(refused) = check_id(&id) {
        return refused;
    }
    let (after, limit) = match page(params, PAGE_MAX) {
        Ok(p) => p,
        Err(message) => return bad_request(&message),
    };
    if let Err(e) = committed(&app).await {
        return store_unavailable(&e);
    }
    let ip = peer
        .map(|Extension(ConnectInfo(peer))| peer.ip())
        .filter(|ip| app.limits.limits_address(*ip));
    let Some(place) = app.page_reads.admit(ip) else {
        app.metrics.error(ErrorCode::ServerFull);
        let message = format!(
            "this node reads at most {} pages of logs at once, {} for one address: try again",
            pages::MAX_PAGE_READS,
            pages::MAX_PAGE_READS_PER_ADDRESS
        );
        let mut response = error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ServerFull,
            &message,
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return response;
    };
    match pages::chunk(&app, &id, after, limit.min(pages::CHUNK)).await {
        Ok(Some(first)) => (
            [(header::CONTENT_TYPE, "application/json")],
            pages::stream(app.clone(), id, first, after, limit, place),
        )
            .into_response(),
        // A session in memory that nothing changed yet has no log.
        Ok(None) if app.sessions.get(&id).is_some() => {
            ([(header::CONTENT_TYPE, "application/json")], "[]").into_response()
        }
        Ok(None) => unknown_session(&id),
        Err(e) => store_unavailable(&e),
    }
}

/// The session's whole history of finished goals (since its last reset), oldest first: the
/// `state` frames carry only the most recent. `?after=N` skips the first N, `limit` (1 to
/// 1,000, default 100) caps the page.
async fn session_goals(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    params: Result<Query<PageParams>, QueryRejection>,
) -> Response {
    if let Err(refused) = check_id(&id) {
        return refused;
    }
    let (after, limit) = match page(params, GOALS_PAGE) {
        Ok(p) => p,
        Err(message) => return bad_request(&message),
    };
    // Loaded first: a session's history is completed from its log when it is loaded.
    match state_text(&app, &id).await {
        Ok(Some(_)) => {}
        Ok(None) => return unknown_session(&id),
        Err(e) => return store_unavailable(&e),
    }
    if let Err(e) = committed(&app).await {
        return store_unavailable(&e);
    }
    let (reading, key) = (app.clone(), id.clone());
    match blocking(move || reading.sessions.store().goals(&key, after, limit)).await {
        Ok(Some(goals)) => (
            [(header::CONTENT_TYPE, "application/json")],
            protocol::to_text(&goals),
        )
            .into_response(),
        // Loaded above: a session nothing changed yet has no history.
        Ok(None) => ([(header::CONTENT_TYPE, "application/json")], "[]").into_response(),
        Err(e) => store_unavailable(&e),
    }
}

/// Waits until every write queued so far has settled, so a read sees them (whether the last
/// one was committed or failed does not matter to a read; 10 s at most).
async fn committed(app: &App) -> Result<(), StoreError> {
    let settled = app.sessions.store().committed_all();
    match tokio::time::timeout(std::time::Duration::from_secs(10), settled).await {
        Ok(Err(e)) if e.kind == ErrorKind::Closed => Err(e),
        Ok(_) => Ok(()),
        Err(_) => Err(StoreError::new(
            ErrorKind::Io,
            "the store did not settle its writes within 10 s",
        )),
    }
}

/// Deletes a session and its log for good; answers once the deletion is committed.
async fn delete_session(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    if let Err(refused) = check_id(&id) {
        return refused;
    }
    let (deleting, key) = (app.clone(), id.clone());
    match blocking(move || deleting.sessions.remove(&key)).await {
        Ok(Some(ticket)) => match app.sessions.store().committed(ticket).await {
            Ok(()) => StatusCode::NO_CONTENT.into_response(),
            Err(e) => store_unavailable(&e),
        },
        Ok(None) => unknown_session(&id),
        Err(e) => store_unavailable(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn origins_are_checked() {
        let loopback = ServerConfig::default();
        let check = |origin: Option<&str>, host: &str, config: &ServerConfig| {
            check_origin(&headers(origin, host), config).is_ok()
        };
        assert!(check(None, "chat.example:8080", &loopback));
        // The Host header decides nothing: a rebinding name is not "same origin".
        assert!(!check(
            Some("http://chat.example:8080"),
            "chat.example:8080",
            &loopback
        ));
        assert!(check(
            Some("http://localhost:3000"),
            "chat.example",
            &loopback
        ));
        assert!(check(
            Some("http://127.0.0.1:5173"),
            "chat.example",
            &loopback
        ));
        assert!(!check(
            Some("https://evil.example"),
            "chat.example",
            &loopback
        ));
        assert!(!check(Some("null"), "chat.example", &loopback));
        let exposed = ServerConfig {
            listen: SocketAddr::from(([0, 0, 0, 0], 8080)),
            public_origins: vec!["https://chat.example".into()],
            allowed_origins: vec!["https://shop.example".into()],
            ..ServerConfig::default()
        };
        assert!(check(Some("https://chat.example"), "x", &exposed));
        assert!(check(Some("https://shop.example/"), "x", &exposed));
        assert!(!check(
            Some("http://localhost:3000"),
            "localhost:3000",
            &exposed
        ));
        assert!(!check(
            Some("https://localhost.evil.example"),
            "x",
            &exposed
        ));
    }
}
