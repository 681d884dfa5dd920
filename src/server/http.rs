//! The routes: the WebSocket endpoint, health, metrics and the session API.

use std::sync::Arc;

use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::Utc;
use serde::Deserialize;

use super::{App, ws};
use crate::conversation::Summary;
use crate::protocol::{self, ErrorCode, ErrorFrame};

/// Read buffer of a WebSocket. The library default, 128 KiB allocated up front per
/// connection, would be nearly all of an idle connection's memory; client frames are small,
/// and a large one grows the buffer as it arrives. Measured: 9.1 KB per idle connection at
/// 4 KiB, 6.0 KB at 1 KiB, with no change in turns per second (docs/benchmarks.md).
const READ_BUFFER: usize = 1024;
/// Bytes buffered before a write goes to the socket; every frame is flushed anyway.
const WRITE_BUFFER: usize = 0;

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/ws", get(upgrade))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics))
        .route(
            "/api/sessions/{id}",
            get(session_state).delete(delete_session),
        )
        .route("/api/sessions/{id}/summary", get(session_summary))
        .with_state(app)
}

#[derive(Debug, Deserialize)]
struct WsParams {
    session_id: Option<String>,
    /// The last `seq` the client saw. The `welcome` frame carries the current state and `seq`
    /// either way, so a resuming client is up to date at once.
    #[allow(dead_code)]
    last_seq: Option<u64>,
}

async fn upgrade(
    State(app): State<Arc<App>>,
    Query(params): Query<WsParams>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if let Err(origin) = check_origin(&headers, &app.config.allowed_origins) {
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
    let session = match &params.session_id {
        None => Some(app.sessions.create(Utc::now())),
        Some(id) => app.sessions.get(id),
    };
    match session {
        Some(session) => upgrade.on_upgrade(move |socket| ws::serve(socket, app, session)),
        None => {
            let id = params.session_id.unwrap_or_default();
            upgrade.on_upgrade(move |socket| ws::unknown_session(socket, app, id))
        }
    }
}

/// Browsers send `Origin`; other clients usually do not, and are let in. A browser may connect
/// from the server's own origin, from localhost, or from a configured origin.
fn check_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), String> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or("").trim_end_matches('/');
    if allowed
        .iter()
        .any(|a| a == "*" || a.trim_end_matches('/') == origin)
    {
        return Ok(());
    }
    let host_of = |url: &str| -> Option<String> {
        let rest = url.split_once("://")?.1;
        Some(rest.split('/').next()?.to_ascii_lowercase())
    };
    let Some(origin_host) = host_of(origin) else {
        return Err(origin.to_string());
    };
    let same_origin = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|host| host.eq_ignore_ascii_case(&origin_host));
    let name = origin_host
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(origin_host.as_str(), |(name, _)| name);
    let localhost = matches!(name, "localhost" | "127.0.0.1" | "[::1]");
    if same_origin || localhost {
        Ok(())
    } else {
        Err(origin.to_string())
    }
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    let phases = app.sessions.phases();
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        app.metrics.render(&phases),
    )
        .into_response()
}

fn unknown_session(id: &str) -> Response {
    let message = format!("no session \"{id}\"");
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "application/json")],
        protocol::to_text(&ErrorFrame::new(ErrorCode::UnknownSession, &message)),
    )
        .into_response()
}

async fn session_state(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.sessions.snapshot(&id) {
        Some((conv, _)) => (
            [(header::CONTENT_TYPE, "application/json")],
            protocol::to_text(&conv),
        )
            .into_response(),
        None => unknown_session(&id),
    }
}

async fn session_summary(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.sessions.snapshot(&id) {
        Some((conv, _)) => (
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("{}\n", Summary(&conv)),
        )
            .into_response(),
        None => unknown_session(&id),
    }
}

async fn delete_session(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    if app.sessions.remove(&id) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        unknown_session(&id)
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
        let none: &[String] = &[];
        assert!(check_origin(&headers(None, "chat.example:8080"), none).is_ok());
        assert!(
            check_origin(
                &headers(Some("http://chat.example:8080"), "chat.example:8080"),
                none
            )
            .is_ok()
        );
        assert!(
            check_origin(
                &headers(Some("http://localhost:3000"), "chat.example"),
                none
            )
            .is_ok()
        );
        assert!(
            check_origin(
                &headers(Some("http://127.0.0.1:5173"), "chat.example"),
                none
            )
            .is_ok()
        );
        assert!(
            check_origin(&headers(Some("https://evil.example"), "chat.example"), none).is_err()
        );
        assert!(check_origin(&headers(Some("null"), "chat.example"), none).is_err());
        let allowed = vec!["https://shop.example".to_string()];
        assert!(
            check_origin(
                &headers(Some("https://shop.example"), "chat.example"),
                &allowed
            )
            .is_ok()
        );
        assert!(
            check_origin(
                &headers(Some("https://localhost.evil.example"), "chat.example"),
                &allowed
            )
            .is_err()
        );
    }
}
