//! The assistant's reply being written: planned after a turn, grown piece by piece, stopped,
//! stored as a turn, and charged to the session's budget.

use super::*;

impl Sessions {
    /// Whether the model may answer now (its budget, its breaker, the node's cap), and if so
    /// the reply, in the tip.
    pub(super) fn plan_reply(&self, session: &Session, tip: &mut Tip, ticket: u64) -> ReplyPlan {
        let Some(llm) = &self.llm else {
            return ReplyPlan::Refused(
                ErrorCode::AssistantUnavailable,
                "no model is configured on this server".into(),
            );
        };
        let config = llm.config();
        if tip.usage.replies >= config.session_replies {
            return ReplyPlan::Refused(
                ErrorCode::BudgetExhausted,
                format!(
                    "this session had its {} replies: it is not answered any more",
                    config.session_replies
                ),
            );
        }
        if tip.usage.tokens >= config.session_tokens {
            return ReplyPlan::Refused(
                ErrorCode::BudgetExhausted,
                format!(
                    "this session used its {} tokens: it is not answered any more",
                    config.session_tokens
                ),
            );
        }
        // While the breaker is open nothing is called: said at once.
        if let Err(retry_in) = llm.breaker.check(Instant::now()) {
            let why = crate::assistant::llm::Failure::Unavailable { retry_in }.to_string();
            return ReplyPlan::Refused(ErrorCode::AssistantUnavailable, why);
        }
        let Ok(permit) = llm.slots.clone().try_acquire_owned() else {
            return ReplyPlan::Refused(
                ErrorCode::AssistantUnavailable,
                format!(
                    "{} replies are being written on this server: try again shortly",
                    config.max_concurrent
                ),
            );
        };
        // Counted when it starts: a reply stopped or cut short counts too.
        tip.usage.replies = tip.usage.replies.saturating_add(1);
        let id: Arc<str> = Arc::from(new_reply_id());
        let cancel = Arc::new(tokio::sync::Notify::new());
        tip.reply = Some(InFlight {
            id: id.clone(),
            text: String::new(),
            cancel: cancel.clone(),
            _permit: permit,
        });
        session.bump();
        ReplyPlan::Started(Started { id, cancel, ticket })
    }

    /// Takes the reply being written out of the locked tip, cancels its call, and queues what
    /// was delivered as the assistant's turn, marked partial. The ticket of that change, if
    /// anything was delivered.
    pub(super) fn stop_locked(
        &self,
        session: &Arc<Session>,
        tip: &mut Tip,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, Refused> {
        let Some(reply) = tip.reply.take() else {
            return Ok(None);
        };
        reply.cancel.notify_one();
        session.bump();
        self.metrics.llm_replies[super::super::metrics::REPLY_STOPPED].inc();
        self.store_reply(session, tip, &reply.text, true, now)
    }

    pub(super) fn store_reply(
        &self,
        session: &Arc<Session>,
        tip: &mut Tip,
        text: &str,
        partial: bool,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, Refused> {
        if text.is_empty() {
            return Ok(None);
        }
        let input = Input::Message {
            role: Role::Assistant,
            text,
            artifact: false,
        };
        let (applied, _) =
            self.queue(session, tip, input, None, now, Origin::Server { partial })?;
        Ok(Some(applied.ticket))
    }

    /// Stops the reply being written (a `stop` frame, a switch of the assistant): stored as far
    /// as it was delivered. The ticket of its turn, if anything was delivered.
    pub(crate) fn stop_reply(
        &self,
        session: &Arc<Session>,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, Refused> {
        let mut tip = session.tip();
        if tip.reply.is_none() {
            return Ok(None);
        }
        if tip.deleted {
            return Err(Refused::Deleted);
        }
        if session.stale.load(Ordering::SeqCst) {
            return Err(Refused::Stale);
        }
        self.stop_locked(session, &mut tip, now)
    }

    /// Adds a piece to reply `id` if it is still being written, within `max` bytes (cut at a
    /// character boundary). Returns whether the whole piece was taken; false also when the
    /// reply was taken meanwhile.
    pub(crate) fn grow_reply(&self, session: &Session, id: &str, piece: &str, max: usize) -> bool {
        let mut tip = session.tip();
        let Some(reply) = tip.reply.as_mut().filter(|r| &*r.id == id) else {
            return false;
        };
        let mut take = piece.len().min(max.saturating_sub(reply.text.len()));
        while !piece.is_char_boundary(take) {
            take -= 1;
        }
        reply.text.push_str(&piece[..take]);
        drop(tip);
        if take > 0 {
            session.bump();
        }
        take == piece.len()
    }

    /// Ends reply `id` if it is still being written: what was delivered is stored as the
    /// assistant's turn (`partial` when cut short). `Ok(None)`: it was taken meanwhile, or
    /// nothing was delivered.
    pub(crate) fn end_reply(
        &self,
        session: &Arc<Session>,
        id: &str,
        partial: bool,
        now: DateTime<Utc>,
    ) -> Result<Option<(u64, String)>, Refused> {
        let mut tip = session.tip();
        if tip.reply.as_ref().is_none_or(|r| &*r.id != id) {
            return Ok(None);
        }
        if tip.deleted {
            tip.reply = None;
            return Err(Refused::Deleted);
        }
        if session.stale.load(Ordering::SeqCst) {
            return Err(Refused::Stale);
        }
        let Some(reply) = tip.reply.take() else {
            return Ok(None);
        };
        session.bump();
        Ok(self
            .store_reply(session, &mut tip, &reply.text, partial, now)?
            .map(|ticket| (ticket, reply.text)))
    }

    /// Stores an assistant's reply again, after its first write lost its place to another
    /// node's change (a shared store). The ticket of the new write.
    pub(crate) fn store_again(
        &self,
        session: &Arc<Session>,
        text: &str,
        partial: bool,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, Refused> {
        let mut tip = session.tip();
        if tip.deleted {
            return Err(Refused::Deleted);
        }
        if session.stale.load(Ordering::SeqCst) {
            return Err(Refused::Stale);
        }
        self.store_reply(session, &mut tip, text, partial, now)
    }

    /// Counts tokens against the session's budget.
    pub(crate) fn charge(&self, session: &Session, tokens: u64) {
        let mut tip = session.tip();
        tip.usage.tokens = tip.usage.tokens.saturating_add(tokens);
    }

    /// What a client lacks of the reply being written: its id, where the missing part starts
    /// and the part, given what the client has (`have`: a reply id and a byte offset, which
    /// may come from the client and is checked here). `None`: no reply, or nothing missing.
    pub(crate) fn reply_tail(
        &self,
        session: &Session,
        have: Option<(&str, usize)>,
    ) -> Option<(Arc<str>, usize, String)> {
        let tip = session.tip();
        let reply = tip.reply.as_ref()?;
        let mut from = match have {
            Some((id, offset)) if id == &*reply.id => offset.min(reply.text.len()),
            _ => 0,
        };
        while !reply.text.is_char_boundary(from) {
            from -= 1;
        }
        Some((reply.id.clone(), from, reply.text[from..].to_string()))
    }
}
