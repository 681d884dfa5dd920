//! The `llm` assistant in a session: after a user's turn is durable, one call to the model,
//! its reply shown to every client of the session as it is written (`assistant_delta`
//! frames), then stored as the assistant's turn (its `state` frame carries it whole).
//!
//! The reply being written lives in the session's tip (`sessions::InFlight`); taking it out and
//! queueing its turn is one step under the tip's lock, so a reply is stored once, and before
//! any turn that follows it. It is taken by this task when the model finishes or fails, by a
//! `stop`, or by the user's next turn (the busy policy), in `Sessions`.

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use tracing::{Instrument, info, warn};

use super::App;
use super::metrics::{REPLY_DONE, REPLY_FAILED, REPLY_REFUSED};
use super::sessions::{Push, Refused, ReplyPlan, Session, Started};
use crate::assistant::llm::{BreakerState, Ended, Failure};
use crate::assistant::prompt::{self, Said};
use crate::protocol::{AssistantStatus, ErrorCode, ServerFrame};
use crate::store::Change;

/// The most recent changes read from the log for a prompt (the budget then cuts them).
const TRANSCRIPT_CHANGES: u64 = 64;

fn breaker(app: &App) -> BreakerState {
    app.sessions.llm().map_or(BreakerState::Closed, |(llm, _)| {
        llm.breaker.state(std::time::Instant::now())
    })
}

/// An `assistant_status` frame of the session.
pub(crate) fn status_frame(
    app: &App,
    session: &Session,
    status: &str,
    reply_id: Option<&str>,
    reason: Option<&str>,
) -> Utf8Bytes {
    ServerFrame::AssistantStatus(AssistantStatus {
        session_id: session.id.as_ref().into(),
        status: status.into(),
        reply_id: reply_id.map(Into::into),
        breaker: breaker(app).as_str().into(),
        reason: reason.map(Into::into),
    })
    .to_text()
    .into()
}

fn tell(app: &App, session: &Session, status: &str, reply_id: Option<&str>, reason: Option<&str>) {
    session.live(Push::Live(status_frame(
        app, session, status, reply_id, reason,
    )));
}

fn error(app: &App, session: &Session, code: ErrorCode, message: &str) {
    app.metrics.error(code);
    session.live(Push::Live(
        ServerFrame::error(code, message).to_text().into(),
    ));
}

/// After a user's turn: starts the reply it planned, or says why there is none.
pub(crate) fn follow(app: &Arc<App>, session: &Arc<Session>, plan: ReplyPlan) {
    match plan {
        ReplyPlan::Started(started) => {
            let (app, session) = (app.clone(), session.clone());
            // One span for the reply's life: its log lines carry the session's id from it.
            let span = tracing::info_span!("reply", session = %session.id);
            tokio::spawn(
                async move {
                    let cancel = started.cancel.clone();
                    tokio::select! {
                        // Whoever cancelled it took the reply and stored it.
                        _ = cancel.notified() => {}
                        _ = write(&app, &session, &started) => {}
                    }
                }
                .instrument(span),
            );
        }
        ReplyPlan::Refused(code, why) => {
            app.metrics.llm_replies[REPLY_REFUSED].inc();
            tell(app, session, "unavailable", None, Some(&why));
            error(app, session, code, &why);
        }
    }
}

/// Says the session is idle once the reply's turn (if one was stored: `ticket`) is durable, so
/// the status follows the turn's `state` frame.
pub(crate) fn idle_after(
    app: &Arc<App>,
    session: &Arc<Session>,
    ticket: Option<u64>,
    reply_id: Arc<str>,
    reason: Option<String>,
) {
    let (app, session) = (app.clone(), session.clone());
    tokio::spawn(async move {
        if let Some(ticket) = ticket {
            let _ = app.sessions.store().committed(ticket).await;
        }
        let status = if breaker(&app) == BreakerState::Open {
            "unavailable"
        } else {
            "idle"
        };
        tell(&app, &session, status, Some(&reply_id), reason.as_deref());
    });
}

/// Stops the reply being written, if any (a `stop`, or the assistant switched): stored as far
/// as it was delivered.
pub(crate) async fn stop(app: &Arc<App>, session: &Arc<Session>) {
    let reply_id = app.sessions.reply_tail(session, None).map(|(id, _, _)| id);
    let now = app.clock.now();
    let mut stopped = app.sessions.stop_reply(session, now);
    if stopped == Err(Refused::Stale) {
        let (reloading, s) = (app.clone(), session.clone());
        let reloaded = tokio::task::spawn_blocking(move || reloading.sessions.reload(&s)).await;
        stopped = match reloaded {
            Ok(Ok(())) => app.sessions.stop_reply(session, app.clock.now()),
            _ => Err(Refused::Stale),
        };
    }
    match (stopped, reply_id) {
        (Ok(ticket), Some(id)) => idle_after(app, session, ticket, id, Some("stopped".into())),
        (Err(e), _) => warn!("the stopped reply was not stored: {e:?}"),
        (Ok(_), None) => {}
    }
}

/// The reply's call, from the user's turn being durable to the reply being stored.
async fn write(app: &Arc<App>, session: &Arc<Session>, started: &Started) {
    let Some((llm, guide)) = app.sessions.llm() else {
        return;
    };
    let id = &started.id;
    // Nothing is answered before the turn it answers is durable.
    if let Err(e) = app.sessions.store().committed(started.ticket).await {
        let _ = app.sessions.end_reply(session, id, true, app.clock.now());
        let why = format!("the turn was not stored: {e}");
        idle_after(app, session, None, id.clone(), Some(why));
        return;
    }
    tell(app, session, "replying", Some(id), None);
    let conv = app.sessions.snapshot(session);
    let transcript = transcript(app, session).await;
    // The transcript's token budget, at 4 bytes a token.
    let budget = llm.config().context_tokens.saturating_mul(4);
    let messages = prompt::messages(guide.llm(), &conv, &transcript, budget);
    // Charged as it goes (4 bytes a token), so a reply stopped midway counts too; corrected by
    // what the API reports at the end.
    let sent: usize = messages.iter().map(|m| m.content.len()).sum();
    let mut estimated = (sent / 4) as u64;
    app.sessions.charge(session, estimated);
    let max = llm.config().max_reply_bytes;
    let (result, usage) = llm
        .reply(&messages, |piece| {
            let taken = app.sessions.grow_reply(session, id, piece, max);
            let tokens = (piece.len() / 4).max(1) as u64;
            estimated += tokens;
            app.sessions.charge(session, tokens);
            taken
        })
        .await;
    let reported = usage.prompt + usage.reply;
    if reported > estimated {
        app.sessions.charge(session, reported - estimated);
    }
    app.metrics.llm_tokens.add(reported.max(estimated));
    let (partial, why) = match &result {
        Ok(Ended::Done) => (false, None),
        Ok(Ended::TooLong) => (
            true,
            Some(format!("the reply reached {max} bytes: cut there")),
        ),
        Err(failure) => (true, Some(failure.to_string())),
    };
    let now = app.clock.now();
    let mut ended = app.sessions.end_reply(session, id, partial, now);
    if ended == Err(Refused::Stale) {
        let (reloading, s) = (app.clone(), session.clone());
        let reloaded = tokio::task::spawn_blocking(move || reloading.sessions.reload(&s)).await;
        ended = match reloaded {
            Ok(Ok(())) => app
                .sessions
                .end_reply(session, id, partial, app.clock.now()),
            _ => Err(Refused::Stale),
        };
    }
    let stored = match ended {
        Ok(stored) => stored,
        Err(e) => {
            warn!("the assistant's reply was not stored: {e:?}");
            None
        }
    };
    let ticket = match stored {
        Some((ticket, text)) => {
            Some(again_if_displaced(app, session, ticket, &text, partial).await)
        }
        None => None,
    };
    app.metrics.llm_replies[if result.is_ok() {
        REPLY_DONE
    } else {
        REPLY_FAILED
    }]
    .inc();
    match result {
        Err(failure) if ticket.is_none() => {
            // Nothing was said: the state is as it was.
            let why = failure.to_string();
            info!("llm: {why}");
            let status = match failure {
                Failure::Unavailable { .. } => "unavailable",
                Failure::Failed(_) if breaker(app) == BreakerState::Open => "unavailable",
                Failure::Failed(_) => "idle",
            };
            tell(app, session, status, Some(id), Some(&why));
            error(app, session, ErrorCode::AssistantUnavailable, &why);
        }
        _ => idle_after(app, session, ticket, id.clone(), why),
    }
}

/// On a store shared by nodes, a reply whose write lost its place to another node's change is
/// stored again on top of it (a few times at most). The ticket of its last write.
async fn again_if_displaced(
    app: &Arc<App>,
    session: &Arc<Session>,
    mut ticket: u64,
    text: &str,
    partial: bool,
) -> u64 {
    if !app.sessions.store().shared() {
        return ticket;
    }
    for _ in 0..5 {
        match app.sessions.store().committed(ticket).await {
            Err(e) if e.kind == crate::store::ErrorKind::Conflict => {}
            _ => return ticket,
        }
        // (Once the session's other writes have settled, a second at most.)
        session
            .writes_settled(std::time::Duration::from_secs(1))
            .await;
        let (reloading, s) = (app.clone(), session.clone());
        let _ = tokio::task::spawn_blocking(move || reloading.sessions.reload(&s)).await;
        match app
            .sessions
            .store_again(session, text, partial, app.clock.now())
        {
            Ok(Some(next)) => ticket = next,
            other => {
                warn!("the assistant's reply was not stored again: {other:?}");
                return ticket;
            }
        }
    }
    ticket
}

/// The session's recent turns, from the log (oldest first); empty if it cannot be read.
async fn transcript(app: &Arc<App>, session: &Arc<Session>) -> Vec<Said> {
    let (app, id) = (app.clone(), session.id.clone());
    let read = tokio::task::spawn_blocking(move || {
        let seq = app.sessions.snapshot_seq(&id);
        // Aligned, so the window of the prompt moves in steps (see `prompt`).
        let after =
            seq.saturating_sub(TRANSCRIPT_CHANGES) / prompt::WINDOW_STEP * prompt::WINDOW_STEP;
        app.sessions.events(&id, after, (seq - after) as usize)
    })
    .await;
    let Ok(Ok(Some(events))) = read else {
        return Vec::new();
    };
    events
        .into_iter()
        .filter_map(|e| match e.change {
            Change::Message { role, text, .. } => Some(Said {
                seq: e.seq,
                role,
                text,
            }),
            _ => None,
        })
        .collect()
}
