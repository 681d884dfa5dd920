//! `POST /api/sessions/status.md`: a new `conductor-ui` session in the state a STATUS.md holds,
//! its body read only after the caller is known, within its size and its deadline.

use super::*;

/// The longest STATUS.md read back.
pub(super) const STATUS_MD_LIMIT: usize = 64 * 1024;

/// A new `conductor-ui` session in the state a STATUS.md holds: `201` with its id and `seq`.
pub(super) async fn import_status_md(
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
                Some(crate::server::body::CutOff::TooSlow) => {
                    (StatusCode::REQUEST_TIMEOUT, ErrorCode::BadRequest)
                }
                Some(crate::server::body::CutOff::Stopping) => {
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
        Err(crate::server::sessions::Refused::Store(e)) => Err(e),
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
pub(super) fn cut_off(e: &axum::Error) -> Option<crate::server::body::CutOff> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(cut) = err.downcast_ref::<crate::server::body::CutOff>() {
            return Some(*cut);
        }
        source = err.source();
    }
    None
}

/// Whether reading a body failed for its size.
pub(super) fn is_length_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = err.source();
    }
    false
}
