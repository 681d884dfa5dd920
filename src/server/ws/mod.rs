//! One task per WebSocket: one `select!` loop over the server's shutdown, the session's pushes,
//! the commit awaited by the oldest unanswered frame, the client's frames and keep-alive pings,
//! each handled by a small method of [`Connection`].
//!
//! Frames reach a client one way: from the session's channel, once the store has committed
//! their change (the sender's own included). Answers to the client's own frames (acks, errors,
//! `get_state`) go out in the order the frames came, each ack once its change is durable and
//! after its `state` frame.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;
use tracing::{Instrument, debug, info};

use super::App;
use super::auth::Access;
use super::edge::Admitted;
use super::rate::RateLimiter;
use super::sessions::{Applied, Push, Pushed, Refused, Session};
use super::stop::{Stop, reached};
use super::stream::Meter;
use crate::protocol::{ClientFrame, ErrorCode, ServerFrame};
use crate::store::{Committed, StoreError};

mod frames;
mod output;
mod unfinished;

use output::*;
use unfinished::*;
/// Frames a client may have sent and not yet had answered (their changes committing); reading
/// pauses at this many, so a client that pipelines cannot queue unbounded work.
const MAX_UNANSWERED: usize = 64;

/// How long an ack may wait for its commit before the client is told the change may not be
/// durable (the store retries a failing commit for well under this).
const ACK_PATIENCE: Duration = Duration::from_secs(10);

/// The close code after `token_expired` (the application's range, as HTTP's 401).
pub(crate) const TOKEN_EXPIRED_CLOSE: u16 = 4001;

/// How long a close frame may take to go out, and the client's answer to come back.
const CLOSE_PATIENCE: Duration = Duration::from_secs(1);

/// How long the close frame to a client closed as too slow may take: it is queued behind what
/// the client did not read, so it rarely arrives; it is not waited for long.
const SLOW_CLOSE_PATIENCE: Duration = Duration::from_millis(100);

/// Why the loop ended.
enum End {
    /// The client closed, or the connection broke.
    Gone,
    /// The server closes with this code and reason.
    Close(u16, &'static str),
    /// A write took longer than `write_timeout` (or the WebSocket's write buffer is full).
    TooSlow,
}

/// An answer to one of the client's frames, sent in the order the frames came.
enum Reply {
    /// An error, ready; `closes`: the connection closes after it, with this code and reason.
    Refused {
        text: Utf8Bytes,
        closes: Option<(u16, &'static str)>,
    },
    /// The state as committed when the answers before it are sent (`get_state`).
    State,
    /// A change waiting for its commit: then its ack (when the frame had an id), or an error if
    /// it failed.
    Commit {
        seq: u64,
        ack: Option<Utf8Bytes>,
        committed: Committed,
        /// [`ACK_PATIENCE`] from when the frame came.
        deadline: Patience,
        /// On a store shared by nodes, the frame, to apply again if another node's change
        /// took its place (a conflict), and how many times it was applied.
        again: Option<(Box<str>, u8)>,
    },
}

/// How long a change may wait for its commit: a time, armed as a timer only if the commit is
/// not there when first asked for (a store that settles at once never needs one). Boxed once
/// armed: a timer is large, and a connection's future would carry one all its life.
enum Patience {
    Until(Instant),
    Armed(Pin<Box<tokio::time::Sleep>>),
}

impl Patience {
    fn poll(&mut self, cx: &mut std::task::Context<'_>) -> Poll<()> {
        if let Patience::Until(at) = *self {
            *self = Patience::Armed(Box::pin(tokio::time::sleep_until(at)));
        }
        match self {
            Patience::Armed(sleep) => sleep.as_mut().poll(cx),
            Patience::Until(_) => Poll::Pending,
        }
    }
}

/// Times a frame is applied when other nodes' changes keep taking its place (each time after
/// a short random pause, so two nodes that keep colliding part).
const CONFLICT_TRIES: u8 = 10;

/// One client of one session.
struct Connection {
    socket: WebSocket,
    app: Arc<App>,
    session: Arc<Session>,
    /// The session's frames, as the store commits them.
    pushes: tokio::sync::broadcast::Receiver<Pushed>,
    /// The highest `seq` the client has: frames at or below it are not sent again.
    sent: u64,
    replies: VecDeque<Reply>,
    limiter: RateLimiter,
    /// What frames over the rate may cost: each refused one takes a token; a client that
    /// empties it (flooding) is closed.
    refusals: RateLimiter,
    last_heard: Instant,
    /// The connection's place under the connection caps, held while it lives.
    _admitted: Option<Arc<Admitted>>,
    /// What its token lets it send; `None`: authentication is off, everything.
    access: Option<Access>,
    /// When its token expires (seconds since the epoch, the leeway included): the connection
    /// is closed then, at its next frame or ping.
    expires: Option<i64>,
    /// A data message the client has not finished (boxed: only on a real socket).
    unfinished: Option<Box<Unfinished>>,
    /// The reply being written that the client has, and up to where (bytes).
    reply_sent: Option<(Arc<str>, usize)>,
    /// The store is shared with other nodes (a change of this client's may lose its place).
    shared_store: bool,
    /// Wakes when the reply being written grows; `None` once the session is gone.
    progress: Option<tokio::sync::watch::Receiver<u64>>,
}

/// What an upgrade decided about the connection it opens.
#[derive(Debug)]
pub(crate) struct Opening {
    pub(crate) session: Arc<Session>,
    /// The frames missed after this `seq` are sent first.
    pub(crate) last_seq: Option<u64>,
    pub(crate) admitted: Option<Arc<Admitted>>,
    /// What its token lets it send, and when the token expires; `None`: authentication is
    /// off.
    pub(crate) access: Option<Access>,
    pub(crate) expires: Option<i64>,
    /// The reply being written that the client has, and up to where (bytes).
    pub(crate) reply: Option<(String, usize)>,
    /// The connection's stream's count of bytes read.
    pub(crate) meter: Option<Arc<Meter>>,
}

/// Serves a connected client of `session` until it leaves or the server stops. With
/// `last_seq`, the client first gets the frames it missed after it.
pub(crate) fn serve(
    socket: WebSocket,
    app: Arc<App>,
    opening: Opening,
) -> impl Future<Output = ()> + Send {
    let Opening {
        session,
        last_seq,
        admitted,
        access,
        expires,
        reply,
        meter,
    } = opening;
    if let Some(meter) = &meter {
        meter.set_websocket();
    }
    // The connection is built here, not in the task: an async fn keeps its arguments for its
    // whole life, so a socket passed in and then moved into the connection would be held twice
    // by every connection's future (368 bytes each).
    let (pushes, progress) = session.subscribe();
    let conn = Connection {
        socket,
        limiter: RateLimiter::new(app.config.rate_limit, app.config.rate_burst),
        refusals: RateLimiter::new(app.config.rate_limit, app.config.rate_burst),
        pushes,
        app,
        session,
        sent: 0,
        replies: VecDeque::new(),
        last_heard: Instant::now(),
        _admitted: admitted,
        access,
        expires,
        unfinished: meter.map(Unfinished::new).map(Box::new),
        reply_sent: reply.map(|(id, offset)| (Arc::from(id), offset)),
        shared_store: false,
        progress: Some(progress),
    };
    let mut conn = conn;
    conn.shared_store = conn.app.sessions.store().shared();
    conn.serve(last_seq)
}

/// Serves a connection that asked for an unknown session: an error, then a close, within the
/// write timeout.
pub(crate) async fn unknown_session(
    mut socket: WebSocket,
    app: Arc<App>,
    id: String,
    _admitted: Option<Arc<Admitted>>,
) {
    let message = format!("no session \"{id}\"");
    app.metrics.error(ErrorCode::UnknownSession);
    let frame = ServerFrame::error(ErrorCode::UnknownSession, &message).to_text();
    let close = CloseFrame {
        code: close_code::POLICY,
        reason: "unknown session".into(),
    };
    let _ = tokio::time::timeout(app.config.write_timeout, async {
        socket.send(Message::Text(frame.into())).await?;
        socket.send(Message::Close(Some(close))).await
    })
    .await;
}

/// What woke the loop.
enum Wake {
    Stop,
    Push(Result<Pushed, RecvError>),
    /// `None`: not settled within [`ACK_PATIENCE`].
    Settled(Option<Result<(), StoreError>>),
    Client(Option<Result<Message, axum::Error>>),
    Ping,
    /// The reply being written changed; `false`: the session is gone.
    Progress(bool),
}

impl Connection {
    /// The connection's whole life. Not an `async fn`: one would keep its `self` argument for
    /// its whole life beside the copy it works on (the connection twice in every connection's
    /// future); the block below owns the one connection, moved into it.
    #[allow(clippy::manual_async_fn)] // on purpose: see above
    fn serve(mut self, last_seq: Option<u64>) -> impl Future<Output = ()> + Send {
        // One span for the connection's life: its log lines carry the session's id from it.
        let span = tracing::info_span!("connection", session = %self.session.id);
        async move {
            let app = self.app.clone();
            let _guard = app.track_connection();
            let end = match self.join(last_seq).await {
                Ok(()) => Some(self.run().await),
                Err(end) => end,
            };
            // `None`: it never joined, and was closed then.
            if let Some(end) = end {
                match end {
                    End::Close(code, reason) => {
                        self.close(code, reason, CLOSE_PATIENCE).await;
                    }
                    End::TooSlow => {
                        self.app.metrics.slow_clients_closed.inc();
                        info!(
                            timeout = ?self.app.config.write_timeout,
                            "client too slow to read: closed"
                        );
                        let reason = "too slow: a write took longer than the write timeout";
                        self.close(close_code::POLICY, reason, SLOW_CLOSE_PATIENCE)
                            .await;
                    }
                    End::Gone => {}
                }
                info!("client left");
            }
            // Its subscriptions go first (and the session's channels with them if it was the
            // last): a session nobody changed and nobody watches is dropped.
            let (app, session) = (self.app.clone(), self.session.clone());
            drop(self);
            app.sessions.left(&session);
        }
        .instrument(span)
    }

    /// Joins the session (after `last_seq`: the frames missed since) and sends the welcome and
    /// what was missed. `Err(None)`: the store could not say, the client was told and the
    /// connection closed. Apart from `run` so that nothing of the join stays in the
    /// connection's future while it runs.
    async fn join(&mut self, last_seq: Option<u64>) -> Result<(), Option<End>> {
        let joined = match last_seq {
            // Rebuilding missed frames reads the log.
            Some(_) => {
                let (app, session) = (self.app.clone(), self.session.clone());
                let joining = tokio::task::spawn_blocking(move || {
                    // A node behind another on a shared store catches up first: the client
                    // may have seen changes from there.
                    if let Some(seq) = last_seq
                        && app.sessions.store().shared()
                    {
                        let _ = app.sessions.follow(&session.id, seq);
                    }
                    app.sessions.join(&session, last_seq)
                });
                Box::pin(joining).await.unwrap_or_else(|e| {
                    Err(StoreError::new(crate::store::ErrorKind::Io, e.to_string()))
                })
            }
            None => self.app.sessions.join(&self.session, None),
        };
        let joined = match joined {
            Ok(joined) => joined,
            Err(e) => {
                let _ = self.error(ErrorCode::StoreUnavailable, &e.message).await;
                self.close(close_code::AGAIN, "store unavailable", CLOSE_PATIENCE)
                    .await;
                return Err(None);
            }
        };
        info!(resumed = joined.resumed, "client joined");
        self.pushes = joined.pushes;
        if joined.deleted {
            let _ = self
                .error(ErrorCode::SessionDeleted, "the session was deleted")
                .await;
            return Err(Some(End::Close(close_code::NORMAL, "session deleted")));
        }
        self.start(joined.welcome, joined.missed, joined.seq)
            .await
            .map_err(Some)
    }

    /// Sends the welcome and the frames the client missed.
    async fn start(
        &mut self,
        welcome: Utf8Bytes,
        missed: Vec<(u64, Utf8Bytes)>,
        seq: u64,
    ) -> Result<(), End> {
        self.send(welcome).await?;
        for (_, frame) in missed {
            self.send(frame).await?;
        }
        self.sent = seq;
        // Mid-reply: the reply as far as it is, from where the client stopped if it says (its
        // `reply_id` and `reply_offset`), and then the rest as it comes.
        if self.session.replying() {
            if let Some((id, _, _)) = self.app.sessions.reply_tail(&self.session, None) {
                let status = super::replies::status_frame(
                    &self.app,
                    &self.session,
                    "replying",
                    Some(&id),
                    None,
                );
                self.send(status).await?;
            }
            self.on_progress().await?;
        } else {
            self.reply_sent = None;
        }
        Ok(())
    }

    async fn run(&mut self) -> End {
        let mut stop = self.app.stop.clone();
        let every = self.app.config.ping_interval;
        let mut ping = tokio::time::interval_at(Instant::now() + every, every);
        // A loop held up past a tick does not make up for it with ticks back to back.
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            // In this order when several are ready: shutdown first, then the session's frames
            // (so a change's frame precedes its ack), then acks, then new client frames.
            let event = tokio::select! {
                biased;
                _ = reached(&mut stop, Stop::Closing) => Wake::Stop,
                push = self.pushes.recv() => Wake::Push(push),
                settled = oldest_commit(&mut self.replies), if waits_for_commit(&self.replies) => {
                    Wake::Settled(settled)
                }
                incoming = self.socket.recv(), if self.replies.len() < MAX_UNANSWERED => {
                    Wake::Client(incoming)
                }
                _ = ping.tick() => Wake::Ping,
                changed = watch_changed(&mut self.progress), if self.progress.is_some() => {
                    Wake::Progress(changed)
                }
            };
            let handled = match event {
                Wake::Stop => Err(End::Close(close_code::AWAY, "server shutting down")),
                Wake::Push(push) => self.on_push(push).await,
                Wake::Settled(settled) => self.on_settled(settled).await,
                Wake::Client(incoming) => self.on_client(incoming).await,
                Wake::Ping => self.on_ping().await,
                Wake::Progress(true) => self.on_progress().await,
                Wake::Progress(false) => {
                    self.progress = None;
                    Ok(())
                }
            };
            let flushed = match handled {
                Ok(()) => self.flush().await,
                Err(end) => Err(end),
            };
            if let Err(end) = flushed {
                return end;
            }
        }
    }

    /// A frame of the session's channel: sent unless the client has it.
    async fn on_push(&mut self, push: Result<Pushed, RecvError>) -> Result<(), End> {
        let push = match push {
            Ok(push) => push,
            // Boxed, here and below: a rare path whose future would otherwise add to every
            // connection's size.
            Err(RecvError::Lagged(_)) => return Box::pin(self.catch_up(None)).await,
            Err(RecvError::Closed) => {
                return Err(End::Close(close_code::NORMAL, "session closed"));
            }
        };
        match &*push {
            Push::Frame { seq, frame } if *seq == self.sent + 1 => {
                self.send(frame.clone()).await?;
                self.sent = *seq;
                Ok(())
            }
            Push::Frame { seq, .. } if *seq <= self.sent => Ok(()),
            // A frame after a gap (never expected): the log fills it.
            Push::Frame { .. } => Box::pin(self.catch_up(None)).await,
            Push::Deleted => {
                let _ = self
                    .error(ErrorCode::SessionDeleted, "the session was deleted")
                    .await;
                Err(End::Close(close_code::NORMAL, "session deleted"))
            }
            Push::Live(frame) => self.send(frame.clone()).await,
        }
    }

    /// The reply being written grew (or started, or ended): what of it the client does not
    /// have yet, in one `assistant_delta` frame. Pieces that came meanwhile go together.
    async fn on_progress(&mut self) -> Result<(), End> {
        let have = self.reply_sent.as_ref().map(|(id, end)| (&**id, *end));
        let Some((id, from, text)) = self.app.sessions.reply_tail(&self.session, have) else {
            return Ok(());
        };
        if text.is_empty() {
            self.reply_sent = Some((id, from));
            return Ok(());
        }
        let frame = ServerFrame::AssistantDelta(crate::protocol::AssistantDelta {
            session_id: std::borrow::Cow::Borrowed(&self.session.id),
            reply_id: std::borrow::Cow::Borrowed(&id),
            offset: from as u64,
            text: std::borrow::Cow::Borrowed(&text),
        })
        .to_text();
        self.reply_sent = Some((id, from + text.len()));
        self.send(frame.into()).await
    }

    /// The client fell behind the session's channel: the frames it missed come from the log
    /// (up to `through`, or to the committed state), or, from too far back, the current state.
    async fn catch_up(&mut self, through: Option<u64>) -> Result<(), End> {
        let (app, session, after) = (self.app.clone(), self.session.clone(), self.sent);
        let frames =
            tokio::task::spawn_blocking(move || app.sessions.catch_up(&session, after, through))
                .await
                .map_err(|e| StoreError::new(crate::store::ErrorKind::Io, e.to_string()))
                .and_then(|r| r);
        match frames {
            Ok(Some(frames)) => {
                for (seq, frame) in frames {
                    if seq > self.sent {
                        self.send(frame).await?;
                        self.sent = seq;
                    }
                }
            }
            Ok(None) | Err(_) => {
                debug!("too far behind to catch up: the current state instead");
                let (seq, frame) = self.app.sessions.current_frame(&self.session);
                self.send(frame).await?;
                self.sent = self.sent.max(seq);
            }
        }
        Ok(())
    }

    /// Sends the frames waiting in the channel and those it missed, up to the committed state;
    /// returns that state as a `state` frame without transitions.
    async fn up_to_now(&mut self) -> Result<Utf8Bytes, End> {
        let up = self.app.sessions.up_to_now(&self.session, &mut self.pushes);
        if up.deleted {
            let _ = self
                .error(ErrorCode::SessionDeleted, "the session was deleted")
                .await;
            return Err(End::Close(close_code::NORMAL, "session deleted"));
        }
        for (seq, frame) in up.frames {
            if seq == self.sent + 1 {
                self.send(frame).await?;
                self.sent = seq;
            }
        }
        for frame in up.live {
            self.send(frame).await?;
        }
        if up.lagged || self.sent < up.seq {
            Box::pin(self.catch_up(Some(up.seq))).await?;
        }
        Ok(up.current)
    }

    /// The oldest change waiting for its commit has settled (or waited too long).
    async fn on_settled(&mut self, settled: Option<Result<(), StoreError>>) -> Result<(), End> {
        let Some(Reply::Commit {
            seq, ack, again, ..
        }) = self.replies.pop_front()
        else {
            return Ok(());
        };
        match settled {
            Some(Err(e))
                if e.kind == crate::store::ErrorKind::Conflict
                    && again
                        .as_ref()
                        .is_some_and(|(_, tries)| *tries < CONFLICT_TRIES) =>
            {
                // Another node stored a change of this session first: the session is read again
                // and the frame applied on top of it (its answer keeps its place in line).
                let Some((text, tries)) = again else {
                    return Ok(());
                };
                // The session's other changes in flight fail the same way: once they have
                // settled, it is read back (at most a second's wait).
                self.session.writes_settled(Duration::from_secs(1)).await;
                let mut jitter = [0u8; 1];
                let _ = getrandom::fill(&mut jitter);
                tokio::time::sleep(Duration::from_millis(u64::from(jitter[0] % 20))).await;
                let reply = Box::pin(self.on_text(&text, tries + 1, Instant::now())).await;
                self.replies.push_front(reply);
                Ok(())
            }
            Some(Ok(())) => {
                if self.sent < seq {
                    // Its frame is still in the channel (or was missed): the frames up to now
                    // precede the ack.
                    Box::pin(self.up_to_now()).await?;
                }
                if let Some(ack) = ack {
                    self.send(ack).await?;
                }
                Ok(())
            }
            Some(Err(e)) => {
                let message = format!("the change was not stored: {e}");
                self.error(ErrorCode::StoreUnavailable, &message).await
            }
            None => {
                let message = format!(
                    "the change was not confirmed durable within {} s: it may or may not be stored",
                    ACK_PATIENCE.as_secs()
                );
                self.error(ErrorCode::StoreUnavailable, &message).await
            }
        }
    }

    async fn on_ping(&mut self) -> Result<(), End> {
        if self.last_heard.elapsed() > self.app.config.ping_interval * 2 {
            debug!("client silent for two ping intervals");
            return Err(End::Gone);
        }
        if self.token_expired() {
            self.replies.push_back(self.refusal(
                ErrorCode::TokenExpired,
                "the connection's token has expired: connect again with a new one",
            ));
            return Ok(());
        }
        // Only while frames are read: paused (waiting for commits), what was read ahead waits.
        if self.replies.len() < MAX_UNANSWERED
            && self.unfinished.as_mut().is_some_and(|u| u.stuck())
        {
            return Err(End::Close(close_code::POLICY, "a message left unfinished"));
        }
        self.write(Message::Ping(Default::default())).await
    }
}

/// Whether the oldest answer waits for a commit.
fn waits_for_commit(replies: &VecDeque<Reply>) -> bool {
    matches!(replies.front(), Some(Reply::Commit { .. }))
}

/// The oldest answer's commit (only polled when [`waits_for_commit`]); `None` past its
/// deadline.
async fn oldest_commit(replies: &mut VecDeque<Reply>) -> Option<Result<(), StoreError>> {
    std::future::poll_fn(|cx| match replies.front_mut() {
        Some(Reply::Commit {
            committed,
            deadline,
            ..
        }) => {
            if let Poll::Ready(outcome) = Pin::new(committed).poll(cx) {
                return Poll::Ready(Some(outcome));
            }
            deadline.poll(cx).map(|()| None)
        }
        _ => Poll::Pending,
    })
    .await
}

/// Waits for the reply's watch to change: `false` once its session is gone.
async fn watch_changed(progress: &mut Option<tokio::sync::watch::Receiver<u64>>) -> bool {
    match progress {
        Some(rx) => rx.changed().await.is_ok(),
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(committed: Committed, came: Instant) -> Reply {
        Reply::Commit {
            seq: 1,
            ack: None,
            committed,
            deadline: Patience::Until(came + ACK_PATIENCE),
            again: None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_commit_waits_at_most_its_patience_and_a_settled_one_needs_no_timer() {
        let waiters = crate::store::Waiters::default();
        // Settled already: answered at once, and no timer was armed.
        waiters.settle(1, Vec::new());
        let mut replies = VecDeque::from([commit(waiters.wait(1), Instant::now())]);
        assert!(matches!(oldest_commit(&mut replies).await, Some(Ok(()))));
        assert!(matches!(
            replies.front(),
            Some(Reply::Commit {
                deadline: Patience::Until(_),
                ..
            })
        ));
        // Never settled: given up ACK_PATIENCE after the frame came, not before.
        let came = Instant::now();
        let mut replies = VecDeque::from([commit(waiters.wait(2), came)]);
        assert!(oldest_commit(&mut replies).await.is_none());
        assert_eq!(Instant::now() - came, ACK_PATIENCE);
        // A frame that came long ago is given up at once.
        let mut replies = VecDeque::from([commit(waiters.wait(3), came - ACK_PATIENCE)]);
        let at = Instant::now();
        assert!(oldest_commit(&mut replies).await.is_none());
        assert_eq!(Instant::now(), at);
    }
}
