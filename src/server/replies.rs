//! The `llm` assistant in a session: after a user's turn is durable, one call to the model,
//! its reply streamed to every client of the session as `assistant_delta` frames, then stored
//! as the assistant's turn (its `state` frame carries it whole).
//!
//! A session has at most one reply being written ([`InFlight`]). Whoever takes it out of the
//! session stores it, once: the task when the model finishes or fails; a `stop` frame; a new
//! turn of the user, which interrupts it (the busy policy: the reply stops where it is, is
//! stored as far as it was delivered, marked partial, and the new turn is answered).

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use tracing::{info, warn};

use super::App;
use super::sessions::{InFlight, Push, Session};
use crate::assistant::Mode;
use crate::assistant::llm::{Ended, Failure};
use crate::assistant::prompt::{self, Said};
use crate::conversation::{Input, Role};
use crate::protocol::{AssistantStatus, ErrorCode, ServerFrame};
use crate::store::Change;

/// The most recent changes read from the log for a prompt (the budget then cuts them).
const TRANSCRIPT_CHANGES: u64 = 64;

/// Whether the session's model answers `input`: a user's turn in an `llm` session.
pub(crate) fn answers(session: &Session, input: &Input<'_>) -> bool {
    session.assistant() == Mode::Llm
        && match input {
            Input::Message { role, .. } => *role == Role::User,
            Input::Signal(signal) => signal.sender() == Role::User,
            Input::Reset | Input::Tick => false,
        }
}

/// An `assistant_status` frame of the session.
pub(crate) fn status_frame(
    app: &App,
    session: &Session,
    status: &str,
    reply_id: Option<&str>,
    reason: Option<&str>,
) -> Utf8Bytes {
    let breaker = app.sessions.llm().map_or("closed", |(llm, _)| {
        llm.breaker.state(std::time::Instant::now()).as_str()
    });
    ServerFrame::AssistantStatus(AssistantStatus {
        session_id: session.id.as_ref().into(),
        status: status.into(),
        reply_id: reply_id.map(Into::into),
        breaker: breaker.into(),
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

/// Stops the reply being written, if any, and stores it as far as it was delivered.
pub(crate) fn stop(app: &Arc<App>, session: &Arc<Session>) {
    interrupt(app, session);
}

/// The same, before a new turn of the user.
pub(crate) fn interrupt(app: &Arc<App>, session: &Arc<Session>) {
    if let Some(reply) = session.take_reply(None) {
        // The call is dropped at once: its connection closes.
        reply.cancel.notify_one();
        app.metrics.llm_replies[REPLY_STOPPED].inc();
        finish(app, session, &reply, true, Some("stopped"));
    }
}

/// Stores `reply` as the assistant's turn (unless nothing was delivered) and says the session
/// is idle again. Does not block: the store's queue takes the change.
fn finish(
    app: &Arc<App>,
    session: &Arc<Session>,
    reply: &InFlight,
    partial: bool,
    why: Option<&str>,
) {
    if !reply.text.is_empty() {
        let now = app.clock.now();
        match app.sessions.apply_reply(session, &reply.text, partial, now) {
            Ok(_) => {}
            Err(e) => warn!(session = %session.id, "the assistant's reply was not stored: {e}"),
        }
    }
    tell(app, session, "idle", Some(&reply.id), why);
}

pub(crate) const REPLY_DONE: usize = 0;
pub(crate) const REPLY_STOPPED: usize = 1;
pub(crate) const REPLY_FAILED: usize = 2;
pub(crate) const REPLY_REFUSED: usize = 3;
/// The outcomes of replies, as `/metrics` names them.
pub(crate) const REPLY_OUTCOMES: [&str; 4] = ["done", "stopped", "failed", "refused"];

/// Starts the answer to the user's turn whose change is queued as `ticket`: it is called once
/// that change is durable.
pub(crate) fn start(app: &Arc<App>, session: &Arc<Session>, ticket: u64) {
    let Some((llm, _)) = app.sessions.llm() else {
        error(
            app,
            session,
            ErrorCode::AssistantUnavailable,
            "no model is configured on this server",
        );
        return;
    };
    let config = llm.config();
    let used = *session.usage();
    let exhausted = if used.replies >= config.session_replies {
        Some(format!(
            "this session had its {} replies: it is not answered any more",
            config.session_replies
        ))
    } else if used.tokens >= config.session_tokens {
        Some(format!(
            "this session used its {} tokens: it is not answered any more",
            config.session_tokens
        ))
    } else {
        None
    };
    if let Some(why) = exhausted {
        app.metrics.llm_replies[REPLY_REFUSED].inc();
        tell(app, session, "unavailable", None, Some(&why));
        error(app, session, ErrorCode::BudgetExhausted, &why);
        return;
    }
    // While the breaker is open nothing is called: said at once.
    if let Err(retry_in) = llm.breaker.check(std::time::Instant::now()) {
        app.metrics.llm_replies[REPLY_REFUSED].inc();
        let why = Failure::Unavailable { retry_in }.to_string();
        tell(app, session, "unavailable", None, Some(&why));
        error(app, session, ErrorCode::AssistantUnavailable, &why);
        return;
    }
    let Ok(permit) = llm.slots.clone().try_acquire_owned() else {
        app.metrics.llm_replies[REPLY_REFUSED].inc();
        let why = format!(
            "{} replies are being written on this server: try again shortly",
            config.max_concurrent
        );
        tell(app, session, "unavailable", None, Some(&why));
        error(app, session, ErrorCode::AssistantUnavailable, &why);
        return;
    };
    let id: Arc<str> = Arc::from(new_reply_id());
    let cancel = Arc::new(tokio::sync::Notify::new());
    *session.reply_slot() = Some(InFlight {
        id: id.clone(),
        text: String::new(),
        cancel: cancel.clone(),
    });
    tell(app, session, "replying", Some(&id), None);
    let (app, session) = (app.clone(), session.clone());
    tokio::spawn(async move {
        let _permit = permit;
        tokio::select! {
            // Whoever cancelled it took the reply and stored it.
            _ = cancel.notified() => {}
            _ = write(&app, &session, &id, ticket) => {}
        }
    });
}

/// The reply's call, from the user's turn being durable to the reply being stored.
async fn write(app: &Arc<App>, session: &Arc<Session>, id: &Arc<str>, ticket: u64) {
    let Some((llm, guide)) = app.sessions.llm() else {
        return;
    };
    // Nothing is answered before the turn it answers is durable.
    if let Err(e) = app.sessions.store().committed(ticket).await {
        if let Some(reply) = session.take_reply(Some(id)) {
            let why = format!("the turn was not stored: {e}");
            finish(app, session, &reply, true, Some(&why));
        }
        return;
    }
    let conv = app.sessions.snapshot(session);
    let transcript = transcript(app, session).await;
    let messages = prompt::messages(guide.llm(), &conv, &transcript, llm.config().context_bytes);
    let max = llm.config().max_reply_bytes;
    let (result, usage) = llm
        .reply(&messages, |piece| {
            let mut slot = session.reply_slot();
            let Some(reply) = slot.as_mut().filter(|r| r.id == *id) else {
                return false; // taken meanwhile
            };
            // Cut at a character boundary within the bound.
            let room = max.saturating_sub(reply.text.len());
            let mut take = piece.len().min(room);
            while !piece.is_char_boundary(take) {
                take -= 1;
            }
            let offset = reply.text.len();
            reply.text.push_str(&piece[..take]);
            drop(slot);
            if take > 0 {
                session.live(Push::Delta {
                    reply_id: id.clone(),
                    offset,
                    text: Arc::from(&piece[..take]),
                });
            }
            take == piece.len()
        })
        .await;
    {
        let mut used = session.usage();
        used.tokens = used.tokens.saturating_add(usage.prompt + usage.reply);
        used.replies = used.replies.saturating_add(1);
    }
    app.metrics
        .llm_tokens
        .add(usage.prompt.saturating_add(usage.reply));
    let Some(reply) = session.take_reply(Some(id)) else {
        return; // stopped or interrupted meanwhile: stored by whoever did
    };
    match result {
        Ok(Ended::Done) => {
            app.metrics.llm_replies[REPLY_DONE].inc();
            finish(app, session, &reply, false, None);
        }
        Ok(Ended::TooLong) => {
            app.metrics.llm_replies[REPLY_DONE].inc();
            let why = format!("the reply reached {max} bytes: cut there");
            finish(app, session, &reply, true, Some(&why));
        }
        Err(failure) => {
            app.metrics.llm_replies[REPLY_FAILED].inc();
            let why = failure.to_string();
            info!(session = %session.id, "llm: {why}");
            if reply.text.is_empty() {
                // Nothing was said: the state is untouched.
                let status = match failure {
                    Failure::Unavailable { .. } => "unavailable",
                    Failure::Failed(_) => "idle",
                };
                tell(app, session, status, Some(id), Some(&why));
                error(app, session, ErrorCode::AssistantUnavailable, &why);
            } else {
                finish(app, session, &reply, true, Some(&why));
            }
        }
    }
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

/// `r-` and 16 random hex digits.
fn new_reply_id() -> String {
    let mut bytes = [0u8; 8];
    let _ = getrandom::fill(&mut bytes);
    let mut id = String::with_capacity(18);
    id.push_str("r-");
    for b in bytes {
        id.push_str(&format!("{b:02x}"));
    }
    id
}
