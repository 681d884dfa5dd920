//! What happens to sessions over time: idle deadlines and evictions fall due, finished sessions
//! are purged, sessions are recovered at start-up and removed on request.

use super::*;

impl Sessions {
    /// Drops a session another node deleted: its clients here are told and disconnected.
    pub(super) fn forget(&self, session: &Arc<Session>) {
        let _loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        self.map
            .remove_if(&session.id, |_, s| Arc::ptr_eq(s, session));
        let mut tip = session.tip();
        tip.deleted = true;
        if let Some(reply) = tip.reply.take() {
            reply.cancel.notify_one();
        }
        drop(tip);
        session.send(Push::Deleted);
    }

    /// The ids of the sessions this node holds.
    pub(crate) fn held(&self) -> Vec<Arc<str>> {
        self.map.iter().map(|e| e.key().clone()).collect()
    }

    /// Deletes a session and its log: its clients are told and disconnected. Returns the store
    /// ticket of the deletion (wait for it before saying it is done), or `None` when there was
    /// no such session.
    pub(crate) fn remove(&self, id: &str) -> Result<Option<u64>, StoreError> {
        let _loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        let in_memory = self.map.remove(id).map(|(_, session)| {
            let mut tip = session.tip();
            tip.deleted = true;
            if let Some(reply) = tip.reply.take() {
                reply.cancel.notify_one();
            }
            drop(tip);
            session.send(Push::Deleted);
        });
        if in_memory.is_none() && self.store.load(id, 0, 0)?.is_none() {
            return Ok(None);
        }
        let ticket = self
            .store
            .write(Write::Delete { session: id.into() }, None)?;
        // Committed before the lock is released: a load meanwhile would find the session in
        // the store and bring it back.
        self.wait_committed(ticket)?;
        Ok(Some(ticket))
    }

    /// Sessions that were not idle when the store last saw them are loaded, so deadlines that
    /// fell due meanwhile are applied now. Returns how many were loaded.
    pub(crate) fn recover(&self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let pending = self.store.pending_deadlines()?;
        // One wait for all their idle sweeps, not a commit each.
        let mut swept = false;
        for (id, _) in &pending {
            if self.full() {
                // The rest are loaded when their deadline falls due, or a client asks.
                tracing::warn!(
                    max_sessions = self.max_sessions,
                    "more sessions with a pending deadline than max_sessions: the rest are loaded as their deadlines fall due"
                );
                for (id, at) in &pending {
                    if self.get(id).is_none() {
                        self.deadlines.push(*at, Due::Idle, id.as_str().into());
                    }
                }
                break;
            }
            match self.load(id, now, false) {
                Ok(Some((_, ticket))) => swept |= ticket != 0,
                Ok(None) => {}
                // One session that cannot be read does not keep the others from being served:
                // it is said, counted, and refused when asked for.
                Err(e) if e.kind == store::ErrorKind::Corrupt => {
                    span_of(id).in_scope(
                        || tracing::error!(error = %e, "a session cannot be read: skipped"),
                    );
                    self.metrics.sessions_unreadable.inc();
                }
                Err(e) => return Err(e),
            }
        }
        if swept && let Err(e) = self.wait_settled(self.store.committed_all()) {
            tracing::warn!(error = %e, "idle sweeps at start-up not stored");
        }
        Ok(pending.len())
    }

    /// Deletes from the store the finished sessions without activity for the retention period
    /// that are not in memory (those in memory are evicted by the sweeper first). Returns how
    /// many were deleted.
    pub(crate) fn purge(&self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let _loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        let mut n = 0;
        for id in self.store.expired(now - self.retention)? {
            if !self.map.contains_key(id.as_str()) {
                self.store.write(
                    Write::Delete {
                        session: id.as_str().into(),
                    },
                    None,
                )?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// Runs what fell due at `now`: idle transitions and evictions (blocks on the store when a
    /// session must be reloaded). Returns how many entries were handled.
    pub(crate) fn run_due(&self, now: DateTime<Utc>) -> usize {
        let due = self.deadlines.pop_due(now);
        for (at, kind, id) in &due {
            let Some(session) = self.get(id) else {
                if *kind == Due::Idle {
                    // Evicted with a deadline pending: loading it applies what fell due.
                    if let Err(e) = self.load(id, now, false) {
                        span_of(id).in_scope(|| tracing::debug!(error = %e, "idle sweep of an evicted session tried again"));
                        self.deadlines.push(now + RETRY, Due::Idle, id.clone());
                    }
                }
                continue;
            };
            match kind {
                Due::Idle => {
                    {
                        let mut tip = session.tip();
                        if tip.scheduled != Some(*at) {
                            continue; // an earlier deadline replaced this entry
                        }
                        tip.scheduled = None;
                    }
                    // The engine decides whether the session is idle; a deadline that moved
                    // later is put back in the queue. One the store refuses is tried again in a
                    // second (not at once: the deadline has passed).
                    match self.apply_blocking(&session, Input::Tick, None, now) {
                        Ok(_) => {
                            let mut tip = session.tip();
                            if tip.scheduled.is_none() {
                                self.schedule(&session, &mut tip);
                            }
                        }
                        Err(e) => {
                            session.span().in_scope(|| tracing::debug!(error = %e, "idle sweep not stored; tried again"));
                            let retry = now + RETRY;
                            session.tip().scheduled = Some(retry);
                            self.deadlines.push(retry, Due::Idle, session.id.clone());
                        }
                    }
                }
                Due::Reload => {
                    if !session.stale.load(Ordering::SeqCst) {
                        continue; // reloaded meanwhile, by a client's next change
                    }
                    let reloaded = if session.in_flight.load(Ordering::SeqCst) > 0 {
                        Err(StoreError::new(
                            store::ErrorKind::Busy,
                            "writes still settling",
                        ))
                    } else {
                        self.reload(&session)
                    };
                    match reloaded {
                        // A deadline that passed meanwhile is applied by the idle entry that
                        // `reload` scheduled.
                        Ok(()) => {}
                        Err(e) => {
                            session
                                .span()
                                .in_scope(|| tracing::debug!(error = %e, "reload tried again"));
                            self.deadlines
                                .push(now + RETRY, Due::Reload, session.id.clone());
                        }
                    }
                }
                Due::Follow => {
                    if let Err(e) = self.follow(&session.id, u64::MAX) {
                        session
                            .span()
                            .in_scope(|| tracing::debug!("following: {e}"));
                    }
                }
                Due::Evict => {
                    let last = session.view().last_updated;
                    let next = if now >= last + self.evict_after {
                        now + self.evict_after
                    } else {
                        last + self.evict_after
                    };
                    if now < last + self.evict_after || !self.evict(&session) {
                        self.deadlines.push(next, Due::Evict, session.id.clone());
                    }
                }
            }
        }
        due.len()
    }

    /// Drops `session` from memory if nobody holds it (no client, no request) and its writes
    /// have settled; the store keeps it (a session never stored is just dropped). Returns
    /// whether it was evicted.
    pub(super) fn evict(&self, session: &Arc<Session>) -> bool {
        let evicted = self.map.remove_if(&session.id, |_, s| {
            // Under the map's lock nobody can take a new reference: the registry's and ours
            // are the only ones.
            Arc::ptr_eq(s, session)
                && Arc::strong_count(s) == 2
                && !session.listened()
                && session.in_flight.load(Ordering::SeqCst) == 0
                && !session.stale.load(Ordering::SeqCst)
        });
        if evicted.is_some() {
            self.metrics.sessions_evicted.inc();
        }
        evicted.is_some()
    }

    /// Every session's phase (as committed), for the metrics.
    pub(crate) fn phases(&self) -> Vec<Phase> {
        let sessions: Vec<Arc<Session>> = self.map.iter().map(|e| e.value().clone()).collect();
        sessions.iter().map(|s| s.view().phase).collect()
    }

    /// Puts the session's idle deadline in the queue unless an earlier or equal one is there.
    pub(super) fn schedule(&self, session: &Session, tip: &mut Tip) {
        let Some(deadline) = tip.conv.idle_deadline else {
            return;
        };
        if tip.scheduled.is_none_or(|s| deadline < s) {
            tip.scheduled = Some(deadline);
            self.deadlines.push(deadline, Due::Idle, session.id.clone());
        }
    }
}
