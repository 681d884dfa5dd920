//! Applying an input to a session: stepped by the engine, queued to the store, published to
//! the session's clients once committed.

use super::*;

impl Sessions {
    /// Applies one input, reloading the session from the log first if an earlier change
    /// failed. For callers that may block (the sweeper, a load).
    pub(crate) fn apply_blocking(
        &self,
        session: &Arc<Session>,
        input: Input<'_>,
        id: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Applied, StoreError> {
        match self.apply(session, input, id, now, None) {
            Err(Refused::Stale) => {
                self.reload(session)?;
                self.apply(session, input, id, now, None)
            }
            other => other,
        }
        .map_err(|e| match e {
            Refused::Store(e) => e,
            Refused::Invalid(invalid) => StoreError::new(
                store::ErrorKind::Conflict,
                format!("session {}: {}", session.id, invalid.message),
            ),
            Refused::Deleted | Refused::Stale | Refused::Busy => StoreError::new(
                store::ErrorKind::Conflict,
                format!("session {} is gone, reloading or busy", session.id),
            ),
        })
    }

    /// Steps one input on the session's tip and queues its change to the store; the change is
    /// published to the session's clients once the store has committed it. With an `id` seen
    /// before, nothing is applied and the first change's `seq` and ticket are returned.
    /// `received` is when the frame arrived, for the latency histogram.
    pub(crate) fn apply(
        &self,
        session: &Arc<Session>,
        input: Input<'_>,
        id: Option<&str>,
        now: DateTime<Utc>,
        received: Option<Instant>,
    ) -> Result<Applied, Refused> {
        self.apply_turn(session, input, id, now, received, false)
            .map(|(applied, _)| applied)
    }

    /// [`Sessions::apply`] for a client's frame: in a session whose assistant is the model
    /// (`llm`), a user's turn also stops the reply being written (the busy policy) and plans
    /// the next one, which the caller starts.
    pub(crate) fn apply_turn(
        &self,
        session: &Arc<Session>,
        input: Input<'_>,
        id: Option<&str>,
        now: DateTime<Utc>,
        received: Option<Instant>,
        answered_by_model: bool,
    ) -> Result<(Applied, Option<ReplyPlan>), Refused> {
        let mut tip = session.tip();
        if tip.deleted {
            return Err(Refused::Deleted);
        }
        if session.stale.load(Ordering::SeqCst) {
            // Its writes after the failed one fail too; once they have all settled the tip can
            // be reloaded from the log.
            return if session.in_flight.load(Ordering::SeqCst) == 0 {
                Err(Refused::Stale)
            } else {
                Err(Refused::Store(StoreError::new(
                    store::ErrorKind::Io,
                    "an earlier change of this session could not be stored; try again",
                )))
            };
        }
        if let Some((seq, ticket)) = id.and_then(|id| tip.recent.get(id)) {
            return Ok((
                Applied {
                    seq,
                    ticket,
                    duplicate: true,
                },
                None,
            ));
        }
        if let Some(cause) = self.store.refusing() {
            // Refused before it is stepped: nothing to undo.
            return Err(Refused::Store(cause));
        }
        let user_turn = match input {
            Input::Message { role, .. } => role == Role::User,
            Input::Signal(signal) => signal.sender() == Role::User,
            Input::Reset | Input::Tick | Input::Start { .. } | Input::Event { .. } => false,
        };
        let model_turn = answered_by_model && user_turn && session.assistant() == Mode::Llm;
        if tip.reply.is_some() && (model_turn || matches!(input, Input::Reset)) {
            if model_turn
                && self
                    .llm
                    .as_ref()
                    .is_some_and(|l| l.config().busy == crate::config::BusyPolicy::Refuse)
            {
                return Err(Refused::Busy);
            }
            // The busy policy: the reply stops where it is and is stored first.
            self.stop_locked(session, &mut tip, now)?;
        }
        if tip.unstored {
            // Its first change: the store creates it first, in the same order of writes.
            let create = Write::Create {
                session: session.id.clone(),
                created_at: tip.conv.created_at,
                idle_deadline: tip.conv.idle_deadline,
                owner: session.owner.clone(),
            };
            self.store.write(create, None).map_err(Refused::Store)?;
            tip.unstored = false;
        }
        let (mut applied, transitions) =
            self.queue(session, &mut tip, input, id, now, Origin::Client(received))?;
        if model_turn {
            let plan = self.plan_reply(session, &mut tip, applied.ticket);
            return Ok((applied, Some(plan)));
        }
        // The guide answers a user's turn, in the same order of changes: nobody else's change
        // comes between the turn and its answers. The turn's ack then waits for the last
        // answer and names its `seq`, so a client that has its ack has the answers too.
        if user_turn
            && !applied.duplicate
            && session.assistant() == Mode::Guide
            && let Some(guide) = &self.guide
        {
            for reply in guide.replies(&self.engine, &tip.conv, &transitions) {
                let answer = Input::Message {
                    role: Role::Assistant,
                    text: &reply.text,
                    artifact: reply.artifact,
                };
                match self.queue(
                    session,
                    &mut tip,
                    answer,
                    None,
                    now,
                    Origin::Server { partial: false },
                ) {
                    Ok((answered, _)) if answered.ticket != 0 => {
                        applied.seq = answered.seq;
                        applied.ticket = answered.ticket;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        // The user's turn stands; the session is reloaded before its next change.
                        session.span().in_scope(|| {
                            tracing::warn!("the guide's answer was not stored: {e:?}")
                        });
                        break;
                    }
                }
            }
            if let Some(id) = id {
                tip.recent.answered(id, applied.seq, applied.ticket);
            }
        }
        Ok((applied, None))
    }

    /// Steps one input on the locked tip and queues its change to the store (see
    /// [`Sessions::apply`]); the change's transitions with it.
    pub(super) fn queue(
        &self,
        session: &Arc<Session>,
        tip: &mut Tip,
        input: Input<'_>,
        id: Option<&str>,
        now: DateTime<Utc>,
        origin: Origin,
    ) -> Result<(Applied, Transitions), Refused> {
        let (received, partial) = match origin {
            Origin::Client(received) => (received, false),
            Origin::Server { partial } => (None, partial),
        };
        if let Err(invalid) = self.engine.check(&tip.conv, &input, now) {
            return Err(Refused::Invalid(invalid));
        }
        // The tip may move ahead of the store: a view still to be written from it is written
        // now. Its frame is the session's latest: the new one takes its finished goals from it
        // while they are the same.
        let (previous, written) = {
            let mut view = session.view();
            let written = view.text.is_none();
            if written {
                view.text = Some(kept(FrameText::state(&tip.conv, view.seq, &[])));
            }
            (view.text.clone(), written)
        };
        let (step, explanation) = if session.explain.load(Ordering::Relaxed) {
            let (step, explanation) = self.engine.step_explained(&mut tip.conv, input, now);
            (step, Some(explanation))
        } else {
            (self.engine.step(&mut tip.conv, input, now), None)
        };
        if !step.changed {
            if written {
                // The tip did not move: it is still the committed state, and the view goes back
                // to keeping no frame (a session loaded, or swept, without a client).
                session.view().text = None;
            }
            return Ok((
                Applied {
                    seq: tip.seq,
                    ticket: 0,
                    duplicate: false,
                },
                Transitions::new(),
            ));
        }
        let seq = tip.seq + 1;
        let conv = &tip.conv;
        let previous = previous
            .as_ref()
            .map(|(text, parts)| (text.as_str(), parts));
        let mut frame = FrameText::stepped(conv, seq, &step, previous);
        if let Some(explanation) = &explanation {
            frame = frame.with_explain(explanation);
        }
        if let Input::Message {
            role,
            text,
            artifact,
        } = input
        {
            frame = frame.with_message(role, text, artifact, partial);
        }
        let append = Append {
            session: session.id.clone(),
            event: Event {
                seq,
                at: now,
                change: match Change::from_input(&input) {
                    Change::Message {
                        role,
                        text,
                        artifact,
                        ..
                    } => Change::Message {
                        role,
                        text,
                        artifact,
                        partial,
                    },
                    change => change,
                },
                id: id.map(str::to_string),
            },
            phase: conv.phase,
            idle_deadline: conv.idle_deadline,
            snapshot: seq
                .is_multiple_of(SNAPSHOT_EVERY)
                .then(|| crate::protocol::to_text(conv)),
            finished: step
                .finished
                .iter()
                .map(crate::protocol::json::goal_text)
                .collect(),
            goals_total: conv.completed_goals_total,
        };
        let record = StepRecord::new(&input, &step, received);
        let transitions = step.transitions;
        let (phase, last_updated) = (conv.phase, conv.last_updated);
        let publish = {
            let session = session.clone();
            let metrics = self.metrics.clone();
            let deadlines = self.deadlines.clone();
            move |result: Result<(), StoreError>| {
                let failed = result.is_err();
                let next = View::new(frame, phase, last_updated);
                session.settle(result, next, record, &metrics);
                if failed {
                    // Not left to the session's next client frame, which may never come.
                    deadlines.push(now + RETRY, Due::Reload, session.id.clone());
                }
            }
        };
        session.in_flight.fetch_add(1, Ordering::SeqCst);
        match self
            .store
            .write(Write::Append(Box::new(append)), Some(Box::new(publish)))
        {
            Ok(ticket) => {
                tip.seq = seq;
                if let Some(id) = id {
                    tip.recent.insert(id, seq, ticket);
                }
                self.schedule(session, tip);
                Ok((
                    Applied {
                        seq,
                        ticket,
                        duplicate: false,
                    },
                    transitions,
                ))
            }
            Err(e) => {
                // Refused as it was queued (the store began failing since the check above):
                // the tip has the change the log has not.
                session.write_done();
                session.stale.store(true, Ordering::SeqCst);
                self.deadlines
                    .push(now + RETRY, Due::Reload, session.id.clone());
                Err(Refused::Store(e))
            }
        }
    }
}
