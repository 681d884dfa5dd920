//! One task per WebSocket: a single `select!` loop over the client's frames, the session's
//! pushes, keep-alive pings and the server's shutdown.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use chrono::Utc;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tracing::{debug, info};

use super::App;
use super::sessions::{Push, Refused, Session};
use crate::protocol::{self, AckFrame, ClientFrame, ErrorCode, ErrorFrame};

/// Why the loop ended.
enum End {
    /// The client closed, or the connection broke.
    Gone,
    /// The server closes with this code and reason.
    Close(u16, &'static str),
}

/// Serves a connected client of `session` until it leaves or the server stops.
pub async fn serve(mut socket: WebSocket, app: Arc<App>, session: Arc<Session>) {
    let _guard = app.track_connection();
    let (welcome, mut pushes) = app.sessions.join(&session);
    info!(session = %session.id, "client joined");
    let mut limiter = RateLimiter::new(app.config.rate_limit, app.config.rate_burst);
    let mut stop = app.stop.clone();
    let ping_every = app.config.ping_interval;
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
    let mut last_heard = Instant::now();

    let end = if socket.send(Message::Text(welcome)).await.is_err() {
        End::Gone
    } else {
        loop {
            tokio::select! {
                incoming = socket.recv() => {
                    let Some(Ok(message)) = incoming else { break End::Gone };
                    last_heard = Instant::now();
                    match message {
                        Message::Text(text) => {
                            let received = Instant::now();
                            match handle_text(&app, &session, &mut limiter, &text) {
                                Reply::Applied { ack, ticket } => {
                                    // The state frame of this change goes out before its ack.
                                    if forward_pending(&mut socket, &app, &session, &mut pushes).await.is_err() {
                                        break End::Gone;
                                    }
                                    app.metrics.turn_latency.observe(received.elapsed());
                                    if let Some(ack) = ack {
                                        // An ack promises the change is durable: wait for the
                                        // commit that holds it.
                                        let committed = matches!(
                                            app.sessions.store().when_committed(ticket).await,
                                            Ok(Ok(()))
                                        );
                                        let sent = if committed {
                                            socket.send(Message::Text(ack)).await
                                        } else {
                                            send_error(&mut socket, &app, ErrorCode::StoreUnavailable, "the change could not be made durable").await
                                        };
                                        if sent.is_err() {
                                            break End::Gone;
                                        }
                                    }
                                }
                                Reply::Frame(frame) => {
                                    if socket.send(Message::Text(frame)).await.is_err() {
                                        break End::Gone;
                                    }
                                }
                                Reply::Error(code, message) => {
                                    if send_error(&mut socket, &app, code, &message).await.is_err() {
                                        break End::Gone;
                                    }
                                    if code.closes() {
                                        break End::Close(close_code::NORMAL, "session deleted");
                                    }
                                }
                            }
                        }
                        Message::Binary(_) => {
                            let message = "binary frames are not supported: send JSON text frames";
                            if send_error(&mut socket, &app, ErrorCode::BadRequest, message).await.is_err() {
                                break End::Gone;
                            }
                        }
                        Message::Close(_) => break End::Gone,
                        // Pings are answered by the WebSocket layer; pongs only prove life.
                        Message::Ping(_) | Message::Pong(_) => {}
                    }
                }
                push = pushes.recv() => {
                    let frame = match push {
                        Ok(Push::Frame(frame)) => frame,
                        Ok(Push::Deleted) => {
                            let _ = send_error(&mut socket, &app, ErrorCode::SessionDeleted, "the session was deleted").await;
                            break End::Close(close_code::NORMAL, "session deleted");
                        }
                        // Fell behind: the current state replaces the frames it missed.
                        Err(RecvError::Lagged(_)) => app.sessions.state_frame(&session),
                        Err(RecvError::Closed) => break End::Close(close_code::NORMAL, "session closed"),
                    };
                    if socket.send(Message::Text(frame)).await.is_err() {
                        break End::Gone;
                    }
                }
                _ = ping.tick() => {
                    if last_heard.elapsed() > ping_every * 2 {
                        debug!(session = %session.id, "client silent for two ping intervals");
                        break End::Gone;
                    }
                    if socket.send(Message::Ping(Default::default())).await.is_err() {
                        break End::Gone;
                    }
                }
                _ = stop.changed() => break End::Close(close_code::AWAY, "server shutting down"),
            }
        }
    };
    if let End::Close(code, reason) = end {
        let frame = CloseFrame {
            code,
            reason: reason.into(),
        };
        let _ = socket.send(Message::Close(Some(frame))).await;
        // Give the close handshake a moment; a client that never answers does not hold us.
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            while let Some(Ok(m)) = socket.recv().await {
                if matches!(m, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
    info!(session = %session.id, "client left");
}

/// Serves a connection that asked for an unknown session: an error, then a close.
pub async fn unknown_session(mut socket: WebSocket, app: Arc<App>, id: String) {
    let message = format!("no session \"{id}\"");
    let _ = send_error(&mut socket, &app, ErrorCode::UnknownSession, &message).await;
    let frame = CloseFrame {
        code: close_code::POLICY,
        reason: "unknown session".into(),
    };
    let _ = socket.send(Message::Close(Some(frame))).await;
}

enum Reply {
    /// A change was applied (or acknowledged again): forward pending pushes, then, once the
    /// store has committed `ticket`, the ack.
    Applied {
        ack: Option<Utf8Bytes>,
        ticket: u64,
    },
    /// A frame for this client only.
    Frame(Utf8Bytes),
    Error(ErrorCode, String),
}

fn handle_text(app: &App, session: &Session, limiter: &mut RateLimiter, text: &str) -> Reply {
    if text.len() > app.config.max_frame_bytes {
        return Reply::Error(
            ErrorCode::TooLarge,
            format!(
                "frame of {} bytes; at most {} are accepted",
                text.len(),
                app.config.max_frame_bytes
            ),
        );
    }
    if !limiter.allow(Instant::now()) {
        return Reply::Error(
            ErrorCode::RateLimited,
            format!(
                "more than {} frames per second: this frame was not applied",
                app.config.rate_limit
            ),
        );
    }
    let frame = match ClientFrame::parse(text) {
        Ok(frame) => frame,
        Err(refusal) => return Reply::Error(refusal.code, refusal.message),
    };
    let Some(input) = frame.input() else {
        return Reply::Frame(app.sessions.state_frame(session));
    };
    match app.sessions.apply(session, input, frame.id(), Utc::now()) {
        Ok(applied) => Reply::Applied {
            ack: frame
                .id()
                .map(|id| protocol::to_text(&AckFrame::new(id, applied.seq)).into()),
            ticket: applied.ticket,
        },
        Err(Refused::Deleted) => Reply::Error(
            ErrorCode::SessionDeleted,
            "the session was deleted".to_string(),
        ),
        Err(Refused::Store(e)) => Reply::Error(
            ErrorCode::StoreUnavailable,
            format!("the change was not applied: {e}"),
        ),
    }
}

/// Sends the pushes already waiting, so a sender sees its state frame before its ack.
async fn forward_pending(
    socket: &mut WebSocket,
    app: &App,
    session: &Session,
    pushes: &mut tokio::sync::broadcast::Receiver<Push>,
) -> Result<(), axum::Error> {
    loop {
        let frame = match pushes.try_recv() {
            Ok(Push::Frame(frame)) => frame,
            Ok(Push::Deleted) | Err(TryRecvError::Empty) | Err(TryRecvError::Closed) => {
                return Ok(());
            }
            Err(TryRecvError::Lagged(_)) => app.sessions.state_frame(session),
        };
        socket.send(Message::Text(frame)).await?;
    }
}

async fn send_error(
    socket: &mut WebSocket,
    app: &App,
    code: ErrorCode,
    message: &str,
) -> Result<(), axum::Error> {
    app.metrics.error(code);
    let frame = protocol::to_text(&ErrorFrame::new(code, message));
    socket.send(Message::Text(frame.into())).await
}

/// A token bucket: `rate` frames per second on average, `burst` at once.
#[derive(Debug)]
struct RateLimiter {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl RateLimiter {
    fn new(rate: u32, burst: u32) -> RateLimiter {
        RateLimiter {
            rate: f64::from(rate),
            burst: f64::from(burst),
            tokens: f64::from(burst),
            last: Instant::now(),
        }
    }

    fn allow(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_limiter_allows_bursts_then_the_rate() {
        let t = Instant::now();
        let mut l = RateLimiter::new(10, 3);
        l.last = t;
        assert!(l.allow(t) && l.allow(t) && l.allow(t));
        assert!(!l.allow(t));
        assert!(l.allow(t + Duration::from_millis(100)));
        assert!(!l.allow(t + Duration::from_millis(120)));
        assert!(l.allow(t + Duration::from_secs(10)));
    }
}
