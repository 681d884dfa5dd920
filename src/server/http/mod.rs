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

mod api;
mod status_import;
mod ws_upgrade;

use api::*;
use status_import::*;
use ws_upgrade::*;

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
    try_again(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::ServerFull,
        &message,
    )
}

/// A refusal the client may retry in a second: the error with `Retry-After: 1`.
fn try_again(status: StatusCode, code: ErrorCode, message: &str) -> Response {
    let mut response = error_response(status, code, message);
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

fn bad_request(message: &str) -> Response {
    error_response(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
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
