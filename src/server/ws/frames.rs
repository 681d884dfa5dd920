//! A client's frames on a connection: read, checked against its access, applied to the
//! session, answered.

use super::*;

impl Connection {
    /// A frame from the client.
    pub(super) async fn on_client(
        &mut self,
        incoming: Option<Result<Message, axum::Error>>,
    ) -> Result<(), End> {
        let message = match incoming {
            Some(Ok(message)) => message,
            // A frame that cannot be read is answered with the close code that says why, never
            // just dropped: past the hard limit it is not even read whole (1009).
            Some(Err(e)) => match unreadable(&e) {
                Some((code, reason)) => {
                    if code == close_code::SIZE {
                        self.app.metrics.error(ErrorCode::TooLarge);
                    }
                    return Err(End::Close(code, reason));
                }
                None => return Err(End::Gone),
            },
            None => return Err(End::Gone),
        };
        let came = Instant::now();
        self.last_heard = came;
        if let Some(unfinished) = &mut self.unfinished {
            unfinished.on_message(&message);
        }
        if matches!(message, Message::Close(_)) {
            return Err(End::Gone);
        }
        if self.token_expired() {
            let reply = self.refusal(
                ErrorCode::TokenExpired,
                "the connection's token has expired: connect again with a new one (this frame was not applied)",
            );
            self.replies.push_back(reply);
            return Ok(());
        }
        // Every frame counts against the rate, whatever it is, pings and pongs included; a
        // client that goes on sending far over it is closed.
        if !self.limiter.allow(came) {
            if !self.refusals.allow(came) {
                self.app.metrics.error(ErrorCode::RateLimited);
                return Err(End::Close(
                    close_code::POLICY,
                    "flooding: far over the rate limit",
                ));
            }
            if matches!(message, Message::Text(_) | Message::Binary(_)) {
                let message = format!(
                    "more than {} frames per second: this frame was not applied",
                    self.app.config.rate_limit
                );
                let reply = self.refusal(ErrorCode::RateLimited, &message);
                self.replies.push_back(reply);
            }
            return Ok(());
        }
        let reply = match message {
            Message::Text(text) => self.on_text(&text, 1, came).await,
            Message::Binary(_) => self.refusal(
                ErrorCode::BadRequest,
                "binary frames are not supported: send JSON text frames",
            ),
            // Pings are answered by the WebSocket layer; pongs only prove life.
            Message::Close(_) | Message::Ping(_) | Message::Pong(_) => return Ok(()),
        };
        self.replies.push_back(reply);
        Ok(())
    }

    /// A text frame: checked, parsed, applied.
    /// `came`: when the frame came (the ack's patience runs from then).
    pub(super) async fn on_text(&mut self, text: &str, tries: u8, came: Instant) -> Reply {
        let received = std::time::Instant::now();
        let max = self.app.config.max_frame_bytes;
        if text.len() > max {
            let message = format!("frame of {} bytes; at most {max} are accepted", text.len());
            return self.refusal(ErrorCode::TooLarge, &message);
        }
        let frame = match ClientFrame::parse(text) {
            Ok(frame) => frame,
            Err(refusal) => return self.refusal(refusal.code, &refusal.message),
        };
        if let Some(access) = self.access
            && let Err(message) = allowed(access, &frame)
        {
            return self.refusal(ErrorCode::Forbidden, &message);
        }
        if let ClientFrame::Configure { explain, assistant } = frame {
            if let Some(mode) = assistant
                && let Err(message) = self.app.sessions.offers(mode)
            {
                return self.refusal(ErrorCode::BadRequest, &message);
            }
            if let Some(explain) = explain {
                self.session.set_explain(explain);
            }
            if let Some(mode) = assistant {
                if mode != crate::assistant::Mode::Llm {
                    // Nobody writes a reply in the session any more.
                    crate::server::replies::stop(&self.app, &self.session).await;
                }
                self.session.set_assistant(mode);
            }
        }
        if let ClientFrame::Stop {} = frame {
            crate::server::replies::stop(&self.app, &self.session).await;
            return Reply::State;
        }
        let Some(input) = frame.input() else {
            return Reply::State;
        };
        let sessions = &self.app.sessions;
        let now = self.app.clock.now();
        let mut applied =
            sessions.apply_turn(&self.session, input, frame.id(), now, Some(received), true);
        if matches!(applied, Err(Refused::Stale)) {
            // An earlier change failed to commit: the session is reloaded from the log first.
            let (app, session) = (self.app.clone(), self.session.clone());
            let reloading = tokio::task::spawn_blocking(move || app.sessions.reload(&session));
            let reloaded = Box::pin(reloading).await.unwrap_or_else(|e| {
                Err(StoreError::new(crate::store::ErrorKind::Io, e.to_string()))
            });
            applied = match reloaded {
                Ok(()) => {
                    let now = self.app.clock.now();
                    sessions.apply_turn(&self.session, input, frame.id(), now, Some(received), true)
                }
                Err(e) => Err(Refused::Store(e)),
            };
        }
        let applied = applied.map(|(applied, plan)| {
            if let Some(plan) = plan {
                crate::server::replies::follow(&self.app, &self.session, plan);
            }
            applied
        });
        match applied {
            Ok(Applied { seq, ticket, .. }) => Reply::Commit {
                seq,
                ack: frame
                    .id()
                    .map(|id| ServerFrame::ack(id, seq).to_text().into()),
                committed: sessions.store().committed(ticket),
                deadline: Patience::Until(came + ACK_PATIENCE),
                again: self.shared_store.then(|| (Box::from(text), tries)),
            },
            Err(Refused::Deleted) => {
                self.refusal(ErrorCode::SessionDeleted, "the session was deleted")
            }
            Err(Refused::Store(e)) => {
                let message = format!("the change was not applied: {e}");
                self.refusal(ErrorCode::StoreUnavailable, &message)
            }
            Err(Refused::Stale) => self.refusal(
                ErrorCode::StoreUnavailable,
                "the change was not applied: the session is being reloaded; try again",
            ),
            Err(Refused::Busy) => self.refusal(
                ErrorCode::AssistantBusy,
                "the assistant is writing a reply: send stop, or wait for it (this frame was not applied)",
            ),
            Err(Refused::Invalid(invalid)) => {
                self.app.metrics.error(ErrorCode::InvalidTransition);
                let message = format!("{} (nothing was applied)", invalid.message);
                Reply::Refused {
                    text: ServerFrame::invalid_transition(&message, &invalid.allowed)
                        .to_text()
                        .into(),
                    closes: None,
                }
            }
        }
    }

    /// Whether the connection's token has expired.
    pub(super) fn token_expired(&self) -> bool {
        self.expires
            .is_some_and(|at| self.app.clock.now().timestamp() > at)
    }

    /// An error frame for the answers' queue, counted.
    pub(super) fn refusal(&self, code: ErrorCode, message: &str) -> Reply {
        self.app.metrics.error(code);
        Reply::Refused {
            text: ServerFrame::error(code, message).to_text().into(),
            closes: match code {
                ErrorCode::TokenExpired => Some((TOKEN_EXPIRED_CLOSE, "token expired")),
                code if code.closes() => Some((close_code::NORMAL, "session deleted")),
                _ => None,
            },
        }
    }
}

/// Whether `access` may send `frame`, or why not.
pub(super) fn allowed(access: Access, frame: &ClientFrame) -> Result<(), String> {
    let ok = match frame {
        ClientFrame::Message { role, .. } => access.may_speak_as(*role),
        ClientFrame::Signal { signal, .. } => access.may_signal(*signal),
        // A flow's events drive it as a user's turns drive a conversation.
        ClientFrame::Reset { .. } | ClientFrame::Stop {} | ClientFrame::Event { .. } => {
            access.may_reset()
        }
        // Who answers in the session: the user's choice, or an admin's.
        ClientFrame::Configure {
            assistant: Some(_), ..
        } => access.may_reset(),
        // Options of the session, not of the conversation: whoever may open it.
        ClientFrame::GetState {} | ClientFrame::Configure { .. } => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("a {access:?} token cannot send this frame: it was not applied").to_lowercase())
    }
}
