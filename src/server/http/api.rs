//! The HTTP API of a session: its state, summary, STATUS.md, log (paged and streamed) and
//! history of goals, its deletion; and the list of hosted flows.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::*;

/// The committed state (JSON) and summary of a session, loading it if needed.
pub(super) async fn state_text(
    app: &Arc<App>,
    id: &str,
) -> Result<Option<(String, String)>, StoreError> {
    let (app, id, now) = (app.clone(), id.to_string(), app.clock.now());
    blocking(move || app.sessions.state_text(&id, now)).await
}

/// The path's session, its committed state (JSON) and summary, loaded once for the handler:
/// a 400 for an id over the limit, a 404 for an unknown session, a 503 when the store cannot
/// answer.
pub(super) struct Committed {
    id: String,
    state: String,
    summary: String,
}

impl FromRequestParts<Arc<App>> for Committed {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Self, Response> {
        let Path(id) = Path::<String>::from_request_parts(parts, app)
            .await
            .map_err(IntoResponse::into_response)?;
        check_id(&id)?;
        match state_text(app, &id).await {
            Ok(Some((state, summary))) => Ok(Committed { id, state, summary }),
            Ok(None) => Err(unknown_session(&id)),
            Err(e) => Err(store_unavailable(&e)),
        }
    }
}

pub(super) async fn session_state(session: Committed) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], session.state).into_response()
}

/// A `conductor-ui` session as its STATUS.md (docs/flows.md).
pub(super) async fn session_status_md(session: Committed) -> Response {
    use crate::flow::{FlowRun, status};
    match serde_json::from_str::<FlowRun>(&session.state) {
        Ok(run) if run.flow == status::FLOW => (
            [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
            status::render(&run),
        )
            .into_response(),
        _ => bad_request(&format!(
            "session {} does not run the {} flow: it has no STATUS.md",
            session.id,
            status::FLOW
        )),
    }
}

/// The hosted flows this server runs: their states, events (with their data) and settings, for
/// clients that draw them (the demo page).
pub(super) async fn list_flows(State(app): State<Arc<App>>) -> Response {
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

pub(super) async fn session_summary(session: Committed) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{}\n", session.summary),
    )
        .into_response()
}

/// The most events or goals one request returns, and the default for events.
pub(super) const PAGE_MAX: usize = 1000;
/// The default number of goals per request.
pub(super) const GOALS_PAGE: usize = 100;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PageParams {
    /// Only what comes after this (an event's `seq`; a number of goals).
    #[serde(default)]
    after: u64,
    /// At most this many (1 to 1,000).
    limit: Option<usize>,
}

/// The paging parameters, or what is wrong with them (answered with a 400).
pub(super) fn page(
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

/// The session's event log: the transcript, as the store keeps it, including every change made
/// before this request; with `?after=SEQ`, only what came after that change; at most `limit`
/// events (1,000 and by default 1,000): a client pages with `after` = the last `seq` it got.
pub(super) async fn session_events(
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
        return try_again(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ServerFull,
            &message,
        );
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
pub(super) async fn session_goals(
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
pub(super) async fn committed(app: &App) -> Result<(), StoreError> {
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
pub(super) async fn delete_session(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Response {
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
