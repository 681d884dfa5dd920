//! The WebSocket upgrade: its parameters checked, the caller authorized, the session found,
//! made or refused, and the connection handed to `ws`.

use super::*;

/// Read buffer of a WebSocket. The library default, 128 KiB allocated up front per
/// connection, would be nearly all of an idle connection's memory; client frames are small,
/// and a large one grows the buffer as it arrives. Measured: 9.1 KB per idle connection at
/// 4 KiB, 6.0 KB at 1 KiB, with no change in turns per second (docs/benchmarks.md).
pub(super) const READ_BUFFER: usize = 1024;
/// Bytes buffered before a write goes to the socket; every frame is flushed anyway.
pub(super) const WRITE_BUFFER: usize = 0;

#[derive(Debug, Deserialize)]
pub(super) struct WsParams {
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
pub(super) fn flow_settings(
    text: &str,
) -> Result<std::collections::BTreeMap<String, String>, String> {
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

pub(super) async fn upgrade(
    State(app): State<Arc<App>>,
    params: Result<Query<WsParams>, QueryRejection>,
    headers: HeaderMap,
    admitted: Option<Extension<Arc<Admitted>>>,
    meter: Option<Extension<Arc<crate::server::stream::Meter>>>,
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
                return try_again(
                    StatusCode::TOO_MANY_REQUESTS,
                    ErrorCode::RateLimited,
                    &message,
                );
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
            Err(crate::server::sessions::Refused::Store(e)) => Err(e),
            Err(crate::server::sessions::Refused::Invalid(invalid)) => {
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
