//! A session's own state: its engine side (the tip), what its clients were last sent (the
//! view), its channels to them, and the ids of its recent changes.

use super::*;

impl Session {
    pub(super) fn new(
        id: Arc<str>,
        owner: Option<Arc<str>>,
        conv: Conversation,
        seq: u64,
        recent_ids: Vec<(String, u64)>,
        assistant: Mode,
    ) -> Arc<Session> {
        Arc::new(Session {
            id,
            owner,
            view: Mutex::new(View::of(&conv, seq)),
            tip: Mutex::new(Tip {
                conv,
                seq,
                recent: RecentIds::from_log(recent_ids),
                scheduled: None,
                deleted: false,
                unstored: false,
                reply: None,
                usage: Usage::default(),
            }),
            in_flight: AtomicU32::new(0),
            settled: tokio::sync::Notify::new(),
            stale: AtomicBool::new(false),
            explain: AtomicBool::new(false),
            assistant: AtomicU8::new(assistant.as_u8()),
            clients: Mutex::new(None),
        })
    }

    /// The session's span: its log lines are written in it, and carry its id from it. Made
    /// when a line is written, not kept: a session at rest holds no span. (A connection's and
    /// a reply's spans are their own, with the same id.)
    pub(crate) fn span(&self) -> tracing::Span {
        span_of(&self.id)
    }

    pub(super) fn clients(&self) -> MutexGuard<'_, Option<Clients>> {
        self.clients.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sends `push` to every client of the session (none: nothing to do).
    pub(super) fn send(&self, push: Push) {
        if let Some(clients) = &*self.clients()
            && clients.tx.receiver_count() > 0
        {
            let _ = clients.tx.send(Arc::new(push));
        }
    }

    /// Whether a client (or one about to join) listens to the session.
    pub(super) fn listened(&self) -> bool {
        self.clients().as_ref().is_some_and(Clients::listened)
    }

    /// The last client left: the channels to clients go, and so does the kept frame when the
    /// tip is the committed state (it is written again from the tip when asked for). A session
    /// held without clients keeps its state only.
    pub(super) fn quiet(&self) {
        let tip = self.tip();
        let mut view = self.view();
        let mut clients = self.clients();
        if clients.as_ref().is_some_and(Clients::listened) {
            return;
        }
        *clients = None;
        if self.in_flight.load(Ordering::SeqCst) == 0
            && !self.stale.load(Ordering::SeqCst)
            && tip.seq == view.seq
        {
            view.text = None;
        }
    }

    pub(super) fn bump(&self) {
        if let Some(clients) = &*self.clients() {
            clients.progress.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// A write of the session settled (or was refused as it was queued): the last one wakes
    /// whoever waits for them all.
    pub(super) fn write_done(&self) {
        if self.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.settled.notify_waiters();
        }
    }

    /// Waits until no write of the session is in flight, `within` at most (a conflict's
    /// retry reads the session back only once its other changes have settled).
    pub(crate) async fn writes_settled(&self, within: std::time::Duration) {
        let until = tokio::time::Instant::now() + within;
        loop {
            let notified = self.settled.notified();
            tokio::pin!(notified);
            // (Registered before the count is read: a wake between the two is not lost.)
            notified.as_mut().enable();
            if self.in_flight.load(Ordering::SeqCst) == 0 {
                return;
            }
            if tokio::time::timeout_at(until, notified).await.is_err() {
                return;
            }
        }
    }

    /// Whether a reply is being written.
    pub(crate) fn replying(&self) -> bool {
        self.tip().reply.is_some()
    }

    /// Sends a frame that is not a change to every client of the session.
    pub(crate) fn live(&self, push: Push) {
        self.send(push);
    }

    /// Who answers as the assistant from now on.
    pub(crate) fn set_assistant(&self, mode: Mode) {
        self.assistant.store(mode.as_u8(), Ordering::Relaxed);
    }

    pub(crate) fn assistant(&self) -> Mode {
        Mode::from_u8(self.assistant.load(Ordering::Relaxed))
    }

    /// Whether its `state` frames carry the inspector's `explain` object from now on.
    pub(crate) fn set_explain(&self, on: bool) {
        self.explain.store(on, Ordering::Relaxed);
    }

    /// A connection's subscriptions: to the session's frames (until it joins: see
    /// [`Sessions::join`]) and to the reply being written (see [`Sessions::reply_tail`]).
    pub(crate) fn subscribe(
        &self,
    ) -> (
        broadcast::Receiver<Pushed>,
        tokio::sync::watch::Receiver<u64>,
    ) {
        let mut clients = self.clients();
        let clients = clients.get_or_insert_with(Clients::new);
        (clients.tx.subscribe(), clients.progress.subscribe())
    }

    /// A subscription to the session's frames.
    /// Whether a client may have its missed frames rebuilt from the log now (and counts it).
    pub(super) fn may_rebuild(&self) -> bool {
        self.clients()
            .get_or_insert_with(Clients::new)
            .rebuilds
            .allow(tokio::time::Instant::now())
    }

    pub(super) fn subscribe_pushes(&self) -> broadcast::Receiver<Pushed> {
        self.clients()
            .get_or_insert_with(Clients::new)
            .tx
            .subscribe()
    }

    /// The tip's lock. A panic while it was held (a bug) leaves the state as the last step
    /// wrote it, which is consistent: the poison is cleared rather than spread. Taken before
    /// the view's lock when both are.
    pub(super) fn tip(&self) -> MutexGuard<'_, Tip> {
        self.tip.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn view(&self) -> MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The view with its frame written: from the tip, if the view has none yet (the tip is then
    /// the committed state: `apply` writes the view before it moves the tip).
    pub(super) fn written_view(&self) -> MutexGuard<'_, View> {
        {
            let view = self.view();
            if view.text.is_some() {
                return view;
            }
        }
        let tip = self.tip();
        let mut view = self.view();
        if view.text.is_none() {
            view.text = Some(kept(FrameText::state(&tip.conv, view.seq, &[])));
        }
        view
    }

    /// A write of this session settled (the store calls this, in the order of the writes):
    /// committed, its frame becomes the view and goes to every client; failed, the session is
    /// stale.
    pub(super) fn settle(
        &self,
        result: Result<(), StoreError>,
        next: View,
        record: StepRecord,
        m: &Metrics,
    ) {
        match result {
            Ok(()) => {
                let mut view = self.view();
                if next.seq() == view.seq() + 1 {
                    let seq = next.seq();
                    let frame = next.text.as_ref().map(|(frame, _)| frame.clone());
                    *view = next;
                    // Sent under the view's lock: a client that subscribes sees the view and
                    // then every frame after it.
                    if let Some(frame) = frame {
                        self.send(Push::Frame { seq, frame });
                    }
                    drop(view);
                    m.record_step(&record);
                } else {
                    self.span().in_scope(|| {
                        tracing::error!(
                            seq = next.seq(),
                            view = view.seq(),
                            "a committed change does not follow the view"
                        )
                    });
                    self.stale.store(true, Ordering::SeqCst);
                }
            }
            Err(e) => {
                self.span()
                    .in_scope(|| tracing::debug!(error = %e, "a change was not stored"));
                self.stale.store(true, Ordering::SeqCst);
            }
        }
        self.write_done();
    }
}
