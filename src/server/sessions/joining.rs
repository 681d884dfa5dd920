//! What a client of a session is sent when it joins, resumes or falls behind: the welcome, the
//! frames it missed (rebuilt from the log, shared, within bounds), the state as committed.

use super::*;

impl Sessions {
    /// The frames missed by a client of `session` that has `after` (the session is at
    /// `through`): a rebuild shared with others who asked the same, or a new one within the
    /// session's rate of rebuilds. `None`: the current state instead.
    pub(super) fn rebuild_for(
        &self,
        session: &Session,
        after: u64,
        through: u64,
    ) -> Result<Option<Arc<Rebuilt>>, StoreError> {
        let key: RebuildKey = (session.id.clone(), after, through);
        let kept = |rebuilt: &VecDeque<(RebuildKey, Arc<Rebuilt>)>| {
            rebuilt
                .iter()
                .rev()
                .find(|(k, _)| *k == key)
                .map(|(_, r)| r.clone())
        };
        if let Some(shared) = kept(&self.rebuilt.lock().unwrap_or_else(|p| p.into_inner())) {
            return Ok(Some(shared));
        }
        if !session.may_rebuild() {
            return Ok(None);
        }
        let Some(rebuilt) = self.frames_between(&session.id, after, through)? else {
            return Ok(None);
        };
        let rebuilt = Arc::new(rebuilt);
        let mut kept_now = self.rebuilt.lock().unwrap_or_else(|p| p.into_inner());
        if kept_now.len() >= REBUILDS_KEPT {
            kept_now.pop_front();
        }
        kept_now.push_back((key, rebuilt.clone()));
        Ok(Some(rebuilt))
    }

    /// Subscribes a client to a session. With `last_seq`, the client gets the frames it missed
    /// after it (rebuilt from the log, so this blocks on the store) when they are within
    /// [`RESUME_LIMIT`] changes; otherwise, or without `last_seq`, the current state.
    pub(crate) fn join(
        &self,
        session: &Session,
        last_seq: Option<u64>,
    ) -> Result<Joined, StoreError> {
        let (pushes, current, welcome, deleted) = {
            // A view without a frame (nothing changed since the session was made or loaded)
            // gets its welcome from the tip, and keeps no frame: a client that never speaks
            // costs the session nothing more.
            let tip = session.tip();
            let view = session.view();
            // Subscribed under the view's lock: every frame after `current` reaches `pushes`.
            let pushes = session.subscribe_pushes();
            let resumed = last_seq == Some(view.seq());
            let welcome = match &view.text {
                Some(_) => view.welcome(resumed),
                None => FrameText::state(&tip.conv, view.seq, &[])
                    .welcome(resumed)
                    .into(),
            };
            (pushes, view.seq(), welcome, tip.deleted)
        };
        if deleted {
            return Ok(Joined {
                welcome,
                resumed: false,
                missed: Vec::new(),
                seq: current,
                pushes,
                deleted,
            });
        }
        let missed = match last_seq {
            Some(n) if n == current => Some(None),
            Some(n) if n < current => self.rebuild_for(session, n, current)?.map(Some),
            _ => None,
        };
        let joined = match missed {
            Some(None) => Joined {
                welcome,
                resumed: true,
                missed: Vec::new(),
                seq: current,
                pushes,
                deleted: false,
            },
            Some(Some(rebuilt)) => Joined {
                welcome: rebuilt.start.welcome(true).into(),
                resumed: true,
                missed: rebuilt.frames.clone(),
                seq: current,
                pushes,
                deleted: false,
            },
            None => Joined {
                welcome,
                resumed: false,
                missed: Vec::new(),
                seq: current,
                pushes,
                deleted: false,
            },
        };
        self.metrics
            .resumes
            .record(last_seq.is_some(), joined.resumed);
        Ok(joined)
    }

    /// The frames of the changes after `after` up to `through` (the committed `seq` now if
    /// `None`), for a client that fell behind the live channel (blocks on the store); `None`
    /// when they are too many to rebuild (more than [`RESUME_LIMIT`]).
    pub(crate) fn catch_up(
        &self,
        session: &Session,
        after: u64,
        through: Option<u64>,
    ) -> Result<Option<Vec<(u64, Utf8Bytes)>>, StoreError> {
        let now = session.view().seq();
        let through = through.map_or(now, |t| t.min(now));
        if through <= after {
            return Ok(Some(Vec::new()));
        }
        let rebuilt = self.frames_between(&session.id, after, through)?;
        self.metrics.catch_ups.inc();
        Ok(rebuilt.map(|r| r.frames))
    }

    /// Rebuilds, from the log, the state at `after` and the frames of the changes after it up
    /// to `through`: exactly what was published (the fold is deterministic). `None` when the
    /// log cannot give them within bounds.
    pub(super) fn frames_between(
        &self,
        id: &str,
        after: u64,
        through: u64,
    ) -> Result<Option<Rebuilt>, StoreError> {
        if through - after > RESUME_LIMIT {
            return Ok(None);
        }
        let Some(stored) = self.store.load(id, after, through)? else {
            return Ok(None);
        };
        // Rebuilding reads every message from the snapshot on again: its cost follows their
        // text. Past [`RESUME_TEXT_LIMIT`], the current state instead.
        let text: usize = stored
            .events
            .iter()
            .map(|e| match &e.change {
                Change::Message { text, .. } => text.len(),
                _ => 0,
            })
            .sum();
        if text > RESUME_TEXT_LIMIT {
            return Ok(None);
        }
        let from = stored.snapshot.as_ref().map_or(0, |(seq, _)| *seq);
        if from + stored.events.len() as u64 != through {
            return Ok(None); // not in the log (a snapshot missing, a gap): give up
        }
        let mut start = match &stored.snapshot {
            Some((seq, conv)) if *seq == after => {
                let mut conv = conv.clone();
                self.engine.fit(&mut conv);
                Some(FrameText::state(&conv, after, &[]))
            }
            None if after == 0 => Some(FrameText::state(
                &self.engine.start(id, stored.created_at),
                0,
                &[],
            )),
            _ => None,
        };
        let mut frames = Vec::with_capacity((through - after) as usize);
        let mut bytes = 0;
        // A session that explains itself explains the frames it rebuilds too.
        let explain = self
            .get(id)
            .is_some_and(|s| s.explain.load(Ordering::Relaxed));
        store::fold_with(&self.engine, &stored, explain, |event, conv, stepped| {
            if event.seq == after {
                start = Some(FrameText::state(conv, after, &[]));
            } else if event.seq > after && bytes <= OUTBOUND_LIMIT {
                let text = logged_frame(
                    conv,
                    event,
                    stepped.transitions,
                    stepped.moves,
                    stepped.explanation,
                )
                .text;
                bytes += text.len();
                frames.push((event.seq, Utf8Bytes::from(text)));
            }
        })?;
        if bytes > OUTBOUND_LIMIT {
            return Ok(None); // more than a client is sent at once: the current state instead
        }
        Ok(start.map(|start| Rebuilt { start, frames }))
    }

    /// The frames waiting in a client's subscription and the committed state they lead to, taken
    /// together under the view's lock, so no frame up to that state is left behind and none
    /// after it is taken: a client that sends them, then the state, skips nothing.
    pub(crate) fn up_to_now(
        &self,
        session: &Session,
        pushes: &mut broadcast::Receiver<Pushed>,
    ) -> UpToNow {
        use tokio::sync::broadcast::error::TryRecvError;
        let view = session.written_view();
        let mut up = UpToNow {
            frames: Vec::new(),
            lagged: false,
            deleted: false,
            seq: view.seq(),
            current: {
                let (frame, parts) = view.text();
                parts.current(frame).into()
            },
            live: Vec::new(),
        };
        loop {
            match pushes.try_recv().as_deref() {
                Ok(Push::Frame { seq, frame }) => up.frames.push((*seq, frame.clone())),
                Ok(Push::Deleted) => up.deleted = true,
                Ok(Push::Live(frame)) => up.live.push(frame.clone()),
                Err(TryRecvError::Lagged(_)) => up.lagged = true,
                Err(TryRecvError::Empty | TryRecvError::Closed) => return up,
            }
        }
    }

    /// The committed state as a `state` frame without transitions (for a client that fell too
    /// far behind), with its `seq`.
    pub(crate) fn current_frame(&self, session: &Session) -> (u64, Utf8Bytes) {
        let view = session.written_view();
        let (frame, parts) = view.text();
        (view.seq(), parts.current(frame).into())
    }

    /// The committed state as JSON, and the summary (loading the session if needed).
    pub(crate) fn state_text(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(String, String)>, StoreError> {
        Ok(self.get_or_load(id, now)?.map(|session| {
            let view = session.written_view();
            let (frame, parts) = view.text();
            (
                parts.state_json(frame).to_string(),
                parts.summary_text(frame),
            )
        }))
    }

    /// A session's event log: at most `limit` events after `after`.
    pub(crate) fn events(
        &self,
        id: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Event>>, StoreError> {
        self.store.events(id, after, limit)
    }
}
