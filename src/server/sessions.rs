//! The session registry: the live sessions, a cache over the store.
//!
//! A session has two sides. The *tip* is the engine's: the state every change is stepped from,
//! which runs ahead of the store by the changes in flight. The *view* is what the store holds:
//! the state frame of the last committed change, which is all that clients and the HTTP API
//! ever see. A change goes one way: stepped on the tip and queued to the store under the
//! tip's lock ([`Sessions::apply`]); when the store has committed it, its receipt moves the
//! view on and publishes the frame to the session's channel, in `seq` order. A change whose
//! write fails is never published; the session is marked stale, and its tip is reloaded from
//! the log before the next change ([`Sessions::reload`]).
//!
//! All methods are synchronous and return owned values: no map guard or session lock is ever
//! held across an `.await`. Store reads (loading a session, rebuilding missed frames) block:
//! async callers run them with `spawn_blocking`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use axum::extract::ws::Utf8Bytes;
use chrono::{DateTime, TimeDelta, Utc};
use dashmap::DashMap;
use tokio::sync::broadcast;

use super::deadlines::{Deadlines, Due};
use super::metrics::{Metrics, StepRecord};
use super::rate::RateLimiter;
use crate::assistant::Mode;
use crate::assistant::guide::Guide;
use crate::conversation::{Conversation, Engine, Input, Phase, Role, Transitions};
use crate::protocol::ErrorCode;
use crate::protocol::json::{FrameParts, FrameText};
use crate::store::{
    self, Append, Change, Event, RECENT_IDS, RESUME_LIMIT, SNAPSHOT_EVERY, Store, StoreError, Write,
};

/// Frames a slow client may fall behind before it is caught up from the log. Small on purpose:
/// a channel allocates its slots up front, for every session.
const CHANNEL_CAPACITY: usize = 16;

/// How soon work the store refused (an idle sweep, a reload after a failed change) is tried
/// again.
const RETRY: TimeDelta = TimeDelta::seconds(1);

/// What a session's channel carries, shared: the channel keeps its [`CHANNEL_CAPACITY`] slots
/// from the first client on, and a slot of a pointer is a third of a slot of a `Push`.
pub(crate) type Pushed = Arc<Push>;

/// What a session's channel carries.
#[derive(Debug)]
pub(crate) enum Push {
    /// A committed change's `state` frame, written once for every client.
    Frame { seq: u64, frame: Utf8Bytes },
    /// The session was deleted: clients are told and disconnected.
    Deleted,
    /// A frame about the session's assistant (`assistant_status`, an error): not a change.
    Live(Utf8Bytes),
}

/// The `llm` assistant's reply being written in a session (in its tip: taking it out and
/// storing it is one step under the tip's lock, so it is stored once and in order).
#[derive(Debug)]
struct InFlight {
    id: Arc<str>,
    /// What was delivered so far.
    text: String,
    /// Stops the call.
    cancel: Arc<tokio::sync::Notify>,
    /// Its place under `llm.max_concurrent`.
    _permit: tokio::sync::OwnedSemaphorePermit,
}

/// A reply the caller starts: the task that writes it (`replies::spawn`).
#[derive(Debug)]
pub(crate) struct Started {
    pub id: Arc<str>,
    pub cancel: Arc<tokio::sync::Notify>,
    /// The user's turn it answers: the call waits for it to be durable.
    pub ticket: u64,
}

/// What a user's turn did about the `llm` assistant.
#[derive(Debug)]
pub(crate) enum ReplyPlan {
    Started(Started),
    /// No reply: why, to tell the session's clients.
    Refused(ErrorCode, String),
}

/// What a session used of its model.
#[derive(Clone, Copy, Debug, Default)]
struct Usage {
    tokens: u64,
    replies: u32,
}

/// One live session.
#[derive(Debug)]
pub(crate) struct Session {
    pub id: Arc<str>,
    /// The subject (`sub`) whose token created it, stored with it; `None` when it was created
    /// with authentication off. See [`Session::may_join`].
    pub owner: Option<Arc<str>>,
    tip: Mutex<Tip>,
    view: Mutex<View>,
    /// The channels to its clients, while it has any (see [`Clients`]). Taken after the view's
    /// lock when both are.
    clients: Mutex<Option<Clients>>,
    /// Writes of this session queued and not settled yet.
    in_flight: AtomicU32,
    /// A write failed: the tip is ahead of the log, and is reloaded from it before the next
    /// change.
    stale: AtomicBool,
    /// Its `state` frames carry the inspector's `explain` object (`?explain=1`, `configure`);
    /// kept in memory only.
    explain: AtomicBool,
    /// Who answers as the assistant ([`Mode`], as its `u8`): the server's default, or what a
    /// client chose (`?assistant=`, `configure`); kept in memory only.
    assistant: AtomicU8,
}

/// A session's channels to its clients: made by the first client to subscribe, dropped when
/// the last one leaves (a session held without a client, for hours perhaps, keeps neither:
/// about 1.5 KB less for each).
#[derive(Debug)]
struct Clients {
    /// The session's frames, to every client.
    tx: broadcast::Sender<Pushed>,
    /// Rebuilds of missed frames its clients asked of the log ([`REBUILDS_PER_SECOND`]).
    rebuilds: RateLimiter,
    /// Bumped whenever the reply being written grows, starts or ends: connections then send
    /// their clients what they lack of it.
    progress: tokio::sync::watch::Sender<u64>,
}

impl Clients {
    fn new() -> Clients {
        Clients {
            tx: broadcast::channel(CHANNEL_CAPACITY).0,
            rebuilds: RateLimiter::new(REBUILDS_PER_SECOND, 2 * REBUILDS_PER_SECOND),
            progress: tokio::sync::watch::Sender::new(0),
        }
    }

    fn listened(&self) -> bool {
        self.tx.receiver_count() > 0 || self.progress.receiver_count() > 0
    }
}

/// The engine's side of a session.
#[derive(Debug)]
struct Tip {
    conv: Conversation,
    /// The `seq` of the last change stepped (committed or in flight).
    seq: u64,
    /// Ids of recent changes, the `seq` they produced and the ticket that makes it durable.
    recent: RecentIds,
    /// The idle deadline currently in the deadline queue, if any.
    scheduled: Option<DateTime<Utc>>,
    deleted: bool,
    /// Not in the store yet: created by a connection and not changed since. Its first change
    /// creates it in the store; if its last client leaves first, it is dropped.
    unstored: bool,
    /// The `llm` assistant's reply being written, if any.
    reply: Option<InFlight>,
    /// What the session used of its model (in memory: a restart starts it again).
    usage: Usage,
}

/// What the store holds of a session, as clients see it.
#[derive(Debug)]
struct View {
    /// The last committed change.
    seq: u64,
    /// Its `state` frame and where the frame's parts are. `None` until the session's first
    /// change after it was created or loaded: the tip, which nothing has moved ahead yet, is
    /// then the committed state, and the frame is written from it when it is asked for. A
    /// session that is only watched keeps no frame.
    text: Option<(Utf8Bytes, FrameParts)>,
    phase: Phase,
    last_updated: DateTime<Utc>,
}

impl View {
    fn new(text: FrameText, phase: Phase, last_updated: DateTime<Utc>) -> View {
        View {
            seq: text.parts.seq,
            text: Some(kept(text)),
            phase,
            last_updated,
        }
    }

    /// The view of a state that is also the tip's (a new or loaded session).
    fn of(conv: &Conversation, seq: u64) -> View {
        View {
            seq,
            text: None,
            phase: conv.phase,
            last_updated: conv.last_updated,
        }
    }

    fn seq(&self) -> u64 {
        self.seq
    }

    /// The frame and its parts (see [`Session::written_view`]).
    fn text(&self) -> (&str, &FrameParts) {
        match &self.text {
            Some((frame, parts)) => (frame.as_str(), parts),
            None => unreachable!("a view is written before it is read"),
        }
    }

    fn welcome(&self, resumed: bool) -> Utf8Bytes {
        let (frame, parts) = self.text();
        parts.welcome(frame, resumed).into()
    }
}

/// A frame as a view keeps it: until the session's next change (for an idle session, hours),
/// so without the writer's spare capacity (2 KiB per session less, measured per idle
/// connection).
fn kept(text: FrameText) -> (Utf8Bytes, FrameParts) {
    let mut frame = text.text;
    frame.shrink_to_fit();
    (Utf8Bytes::from(frame), text.parts)
}

/// The outcome of an applied frame: its change's `seq`, and the store ticket that makes it
/// durable (an ack waits for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Applied {
    pub seq: u64,
    pub ticket: u64,
    /// The id was seen before: nothing was applied; `seq` and `ticket` are the first change's.
    pub duplicate: bool,
}

/// Where a change comes from.
#[derive(Clone, Copy, Debug)]
enum Origin {
    /// A client's frame, and when it arrived (for the latency histogram).
    Client(Option<Instant>),
    /// The server's own assistant turn (the guide's answer, the model's reply), `partial` when
    /// it was cut short.
    Server { partial: bool },
}

/// Why a frame could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The session was deleted while the frame was on its way.
    Deleted,
    /// The store cannot take the change: it was not applied.
    Store(StoreError),
    /// An earlier change of the session failed to commit: reload the session from the log
    /// ([`Sessions::reload`], blocking) and apply again.
    Stale,
    /// A user's turn while the model writes a reply, with `llm.busy = "refuse"`.
    Busy,
    /// Not an input the session takes now (a hosted flow's event its state does not allow, a
    /// turn in a flow, an event in a conversation): nothing was applied.
    Invalid(crate::flow::Invalid),
}

/// A client's start in a session: its welcome, the frames it missed, and its subscription.
#[derive(Debug)]
pub(crate) struct Joined {
    pub welcome: Utf8Bytes,
    /// Whether the client's `last_seq` was honoured.
    pub resumed: bool,
    /// The frames after `last_seq`, in order (empty unless resumed).
    pub missed: Vec<(u64, Utf8Bytes)>,
    /// The `seq` the client is up to once it has `welcome` and `missed`.
    pub seq: u64,
    pub pushes: broadcast::Receiver<Pushed>,
    /// The session was deleted before the client joined (its `Deleted` push went to the
    /// subscribers of then): nothing else here is to be sent.
    pub deleted: bool,
}

/// The most bytes of frames rebuilt from the log for one client at once (a resume, or a
/// catch-up after falling behind the live channel): a client further behind gets the current
/// state instead, as one more than [`RESUME_LIMIT`] changes behind does.
pub(crate) const OUTBOUND_LIMIT: usize = 1 << 20;

/// The most message text a rebuild of missed frames reads again (1 MiB: a few milliseconds
/// of reading); a resume that would read more gets the current state.
pub(crate) const RESUME_TEXT_LIMIT: usize = 1 << 20;

/// Every live session.
#[derive(Debug)]
pub(crate) struct Sessions {
    map: DashMap<Arc<str>, Arc<Session>>,
    engine: Engine,
    /// The built-in guide, if its phrases fit the engine (the `llm` assistant's instructions
    /// are among them).
    guide: Option<Guide>,
    /// The `llm` assistant's upstream, if one is configured.
    llm: Option<Arc<crate::assistant::llm::Llm>>,
    /// The assistant of a session nobody chose one for.
    assistant: Mode,
    store: Arc<dyn Store>,
    deadlines: Arc<Deadlines>,
    metrics: Arc<Metrics>,
    /// Finished sessions without activity for this long are deleted from the store.
    retention: TimeDelta,
    /// Sessions without a client and without activity for this long are evicted from memory.
    evict_after: TimeDelta,
    /// Most sessions in memory.
    max_sessions: usize,
    /// Held while a session is loaded from the store or finished sessions are purged from it,
    /// so a purge never deletes a session being loaded.
    loading: Mutex<()>,
    /// The last rebuilds of missed frames, newest last: the clients of a session that reconnect
    /// together after the same frame share one ([`REBUILDS_KEPT`], each at most
    /// [`OUTBOUND_LIMIT`] of frames).
    rebuilt: Mutex<VecDeque<(RebuildKey, Arc<Rebuilt>)>>,
}

/// A rebuild's session and its range of changes.
type RebuildKey = (Arc<str>, u64, u64);

/// Rebuilds kept to be shared.
const REBUILDS_KEPT: usize = 8;

/// Rebuilds of missed frames one session may ask of the log per second, in bursts of twice
/// that (shared ones not counted); past it, a resume gets the current state.
const REBUILDS_PER_SECOND: u32 = 10;

impl Sessions {
    pub(crate) fn new(
        engine: Engine,
        guide: Option<Guide>,
        llm: Option<Arc<crate::assistant::llm::Llm>>,
        store: Arc<dyn Store>,
        metrics: Arc<Metrics>,
        config: &crate::config::ServerConfig,
    ) -> Sessions {
        Sessions {
            map: DashMap::new(),
            engine,
            guide,
            llm,
            assistant: config.assistant,
            store,
            deadlines: Arc::default(),
            metrics,
            retention: config.retention,
            evict_after: config.evict_after,
            max_sessions: config.max_sessions,
            loading: Mutex::new(()),
            rebuilt: Mutex::new(VecDeque::new()),
        }
    }

    /// The frames missed by a client of `session` that has `after` (the session is at
    /// `through`): a rebuild shared with others who asked the same, or a new one within the
    /// session's rate of rebuilds. `None`: the current state instead.
    fn rebuild_for(
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

    /// Whether a session may have `mode` as its assistant here, or why not.
    pub(crate) fn offers(&self, mode: Mode) -> Result<(), String> {
        match mode {
            Mode::Guide if self.guide.is_none() => Err(
                "the guide is unavailable on this server: its phrases do not fit the patterns (see the server's log)"
                    .to_string(),
            ),
            Mode::Llm if self.llm.is_none() => Err(
                "no model is configured on this server (llm.url and llm.model): the llm assistant is unavailable"
                    .to_string(),
            ),
            Mode::Llm if self.guide.is_none() => Err(
                "the llm assistant is unavailable on this server: its instructions (assistant.toml) do not fit the patterns"
                    .to_string(),
            ),
            _ => Ok(()),
        }
    }

    pub(crate) fn llm(&self) -> Option<(&Arc<crate::assistant::llm::Llm>, &Guide)> {
        self.llm.as_ref().zip(self.guide.as_ref())
    }

    /// The `seq` of a live session's last change (0 for none).
    pub(crate) fn snapshot_seq(&self, id: &str) -> u64 {
        self.get(id).map_or(0, |s| s.tip().seq)
    }

    /// The state of the session's tip (changes queued included).
    pub(crate) fn snapshot(&self, session: &Session) -> Conversation {
        session.tip().conv.clone()
    }

    pub(crate) fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub(crate) fn deadlines(&self) -> &Deadlines {
        &self.deadlines
    }

    /// A new session in `greeting`, in memory only: its first change creates it in the store
    /// (see [`Tip::unstored`]). `None` when this node holds its maximum of sessions, or when
    /// the system's randomness cannot give it an id.
    pub(crate) fn create(
        &self,
        now: DateTime<Utc>,
        owner: Option<Arc<str>>,
    ) -> Option<Arc<Session>> {
        if self.full() {
            return None;
        }
        let Some(id) = session_id_from(getrandom::fill) else {
            tracing::error!("the system's randomness is unavailable: no session id can be made");
            return None;
        };
        let id: Arc<str> = id.into();
        let conv = self.engine.start(&*id, now);
        let session = Session::new(id, owner, conv, 0, Vec::new(), self.assistant);
        session.tip().unstored = true;
        self.metrics.sessions_created.inc();
        Some(self.insert(session, now))
    }

    /// Whether this node holds its maximum of sessions.
    pub(crate) fn full(&self) -> bool {
        self.map.len() >= self.max_sessions
    }

    fn insert(&self, session: Arc<Session>, now: DateTime<Utc>) -> Arc<Session> {
        // A concurrent load of the same session may have won: keep the first.
        let session = self
            .map
            .entry(session.id.clone())
            .or_insert(session)
            .value()
            .clone();
        self.schedule(&session, &mut session.tip());
        self.deadlines
            .push(now + self.evict_after, Due::Evict, session.id.clone());
        session
    }

    /// A client of `session` left (its subscription dropped): a session that was never stored
    /// and has no client left is dropped, unless someone else holds it right now (a client
    /// joining: then it stays, and the sweeper evicts it later if that client leaves too).
    pub(crate) fn left(&self, session: &Arc<Session>) {
        if !session.tip().unstored {
            session.quiet();
            return;
        }
        let dropped = self.map.remove_if(&session.id, |_, s| {
            // Under the map's lock nobody can take a new reference: the registry's and ours
            // are the only ones, or someone is about to join.
            Arc::ptr_eq(s, session)
                && Arc::strong_count(s) == 2
                && !session.listened()
                && session.tip().unstored
        });
        if dropped.is_some() {
            tracing::debug!(session = %session.id, "a session without changes dropped as its client left");
        }
    }

    /// A session in memory.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.map.get(id).map(|entry| entry.value().clone())
    }

    /// A session, loaded from the store if it is not in memory (blocks on the store).
    pub(crate) fn get_or_load(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Arc<Session>>, StoreError> {
        Ok(self.load(id, now, true)?.map(|(session, _)| session))
    }

    /// [`Sessions::get_or_load`], with the ticket of the idle sweep applied on loading (0 for
    /// none). With `wait`, that sweep is committed before the session is in the registry for
    /// anyone to see; without, the caller waits (recovery, before the server listens).
    fn load(
        &self,
        id: &str,
        now: DateTime<Utc>,
        wait: bool,
    ) -> Result<Option<(Arc<Session>, u64)>, StoreError> {
        if let Some(session) = self.get(id) {
            return Ok(Some((session, 0)));
        }
        let _loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(session) = self.get(id) {
            return Ok(Some((session, 0)));
        }
        if self.full() {
            return Err(StoreError::new(
                store::ErrorKind::Full,
                format!(
                    "this node holds its maximum of {} sessions in memory",
                    self.max_sessions
                ),
            ));
        }
        let Some(folded) = self.fold_latest(id)? else {
            return Ok(None);
        };
        let owner = folded.owner.map(Arc::from);
        let session = Session::new(
            id.into(),
            owner,
            folded.conv,
            folded.seq,
            folded.recent_ids,
            self.assistant,
        );
        // A deadline that passed while the session was not in memory (the server was down) is
        // applied before anyone sees the session. If the store cannot take it now, the session
        // is still served: the sweeper tries again.
        let mut ticket = 0;
        let stored = self
            .apply_blocking(&session, Input::Tick, None, now)
            .and_then(|applied| {
                ticket = applied.ticket;
                if wait {
                    self.wait_committed(applied.ticket)
                } else {
                    Ok(())
                }
            });
        if let Err(e) = stored {
            tracing::warn!(session = id, error = %e, "a passed idle deadline could not be stored");
        }
        Ok(Some((self.insert(session, now), ticket)))
    }

    /// Folds a session's log from its latest snapshot, and gives the store the goals of its
    /// history it lacks (a file from before the history was stored).
    fn fold_latest(&self, id: &str) -> Result<Option<store::Folded>, StoreError> {
        let Some(stored) = self.store.load(id, u64::MAX, u64::MAX)? else {
            return Ok(None);
        };
        let folded = store::fold(&self.engine, &stored)?;
        let total = folded.conv.completed_goals_total;
        let held = self.store.goals_stored(id)?;
        if total > held {
            let missing = (total - held) as usize;
            match folded.finished.len().checked_sub(missing) {
                Some(from) => {
                    let goals = folded.finished[from..]
                        .iter()
                        .map(crate::protocol::to_text)
                        .collect();
                    let history = Write::History {
                        session: id.into(),
                        first: held + 1,
                        goals,
                    };
                    // Best effort: the next load tries again if the store cannot take it now.
                    if let Err(e) = self.store.write(history, None) {
                        tracing::warn!(session = id, error = %e, "the history could not be completed");
                    }
                }
                None => tracing::warn!(
                    session = id,
                    missing,
                    "goals of this session's history are not in the store and cannot be rebuilt"
                ),
            }
        }
        Ok(Some(folded))
    }

    /// Blocks until the write of `ticket` has settled (at most 10 s). Call it off the
    /// runtime's workers (in `spawn_blocking`), inside the runtime.
    fn wait_committed(&self, ticket: u64) -> Result<(), StoreError> {
        self.wait_settled(self.store.committed(ticket))
    }

    /// Blocks until `committed` resolves (at most 10 s), as [`Sessions::wait_committed`].
    fn wait_settled(&self, committed: store::Committed) -> Result<(), StoreError> {
        let patience = std::time::Duration::from_secs(10);
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => handle
                .block_on(tokio::time::timeout(patience, committed))
                .unwrap_or_else(|_| {
                    Err(StoreError::new(
                        store::ErrorKind::Io,
                        "not committed within 10 s",
                    ))
                }),
            Err(_) => Err(StoreError::new(
                store::ErrorKind::Closed,
                "no runtime to wait in",
            )),
        }
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
    fn frames_between(
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

    /// The engine sessions step with.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

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
                        tracing::warn!(session = %session.id, "the guide's answer was not stored: {e:?}");
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

    /// Whether the model may answer now (its budget, its breaker, the node's cap), and if so
    /// the reply, in the tip.
    fn plan_reply(&self, session: &Session, tip: &mut Tip, ticket: u64) -> ReplyPlan {
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
    fn stop_locked(
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
        self.metrics.llm_replies[super::replies::REPLY_STOPPED].inc();
        self.store_reply(session, tip, &reply.text, true, now)
    }

    fn store_reply(
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

    /// Steps one input on the locked tip and queues its change to the store (see
    /// [`Sessions::apply`]); the change's transitions with it.
    fn queue(
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
                session.in_flight.fetch_sub(1, Ordering::SeqCst);
                session.stale.store(true, Ordering::SeqCst);
                self.deadlines
                    .push(now + RETRY, Due::Reload, session.id.clone());
                Err(Refused::Store(e))
            }
        }
    }

    /// Brings a stale session's tip back to what the log holds (blocks on the store). Does
    /// nothing while its failed writes are still settling, or if it is not stale.
    pub(crate) fn reload(&self, session: &Session) -> Result<(), StoreError> {
        // The log does not change while the session is stale and has nothing in flight (its
        // changes are refused meanwhile), but it may have between the fold and the lock: a
        // fold that no longer matches what is committed is done again.
        for _ in 0..3 {
            let seen = session.view().seq();
            let Some(folded) = self.fold_latest(&session.id)? else {
                // Deleted meanwhile, or its creation was never committed: then it starts over
                // as new (its clients saw no change of it: none was committed).
                let mut tip = session.tip();
                if !tip.deleted
                    && session.stale.load(Ordering::SeqCst)
                    && session.in_flight.load(Ordering::SeqCst) == 0
                {
                    let created_at = tip.conv.created_at;
                    tip.conv = self.engine.start(&*session.id, created_at);
                    tip.seq = 0;
                    tip.recent = RecentIds::default();
                    tip.unstored = true;
                    *session.view() = View::of(&tip.conv, 0);
                    session.stale.store(false, Ordering::SeqCst);
                }
                return Ok(());
            };
            let mut tip = session.tip();
            if !session.stale.load(Ordering::SeqCst) || session.in_flight.load(Ordering::SeqCst) > 0
            {
                return Ok(());
            }
            // Changes another node stored meanwhile (a shared store): their frames, rebuilt
            // from the log, go to this node's clients, in order, as the view moves past them.
            let missed = if folded.seq > seen && self.store.shared() {
                drop(tip);
                let rebuilt = match self.frames_between(&session.id, seen, folded.seq) {
                    Ok(rebuilt) => rebuilt,
                    Err(e) => {
                        tracing::warn!(session = %session.id, "the frames of changes stored by another node cannot be read: clients here get the current state instead: {e}");
                        None
                    }
                };
                tip = session.tip();
                rebuilt.map(|r| r.frames)
            } else {
                Some(Vec::new())
            };
            if !session.stale.load(Ordering::SeqCst) || session.in_flight.load(Ordering::SeqCst) > 0
            {
                return Ok(());
            }
            let mut view = session.view();
            if folded.seq < view.seq() {
                continue;
            }
            if view.seq() != folded.seq {
                *view = View::of(&folded.conv, folded.seq);
                if view.seq() > seen {
                    match missed {
                        Some(frames) => {
                            for (seq, frame) in frames {
                                session.send(Push::Frame { seq, frame });
                            }
                        }
                        // Not rebuilt (the log could not be read, or too far back): the
                        // current state, as its seq; a client further behind catches up from
                        // the log itself, or takes it.
                        None => {
                            let (frame, parts) =
                                kept(FrameText::state(&folded.conv, folded.seq, &[]));
                            session.send(Push::Frame {
                                seq: folded.seq,
                                frame: frame.clone(),
                            });
                            view.text = Some((frame, parts));
                        }
                    }
                }
            }
            drop(view);
            tip.conv = folded.conv;
            tip.seq = folded.seq;
            tip.recent = RecentIds::from_log(folded.recent_ids);
            tip.scheduled = None;
            self.schedule(session, &mut tip);
            session.stale.store(false, Ordering::SeqCst);
            tracing::info!(session = %session.id, seq = tip.seq, "session reloaded from the log after a failed write");
            return Ok(());
        }
        Err(StoreError::new(
            store::ErrorKind::Busy,
            format!(
                "session {}: the log kept moving while it was reloaded",
                session.id
            ),
        ))
    }

    /// Brings a session this node holds up to a change another node stored (a doorbell of a
    /// shared store: `upto`, or `u64::MAX` to check): its missing events are read from the log,
    /// stepped on the tip, and their `state` frames published to its clients here, in order.
    /// Blocks on the store. Nothing to do for a session not held, already there, or with
    /// changes of its own in flight (they will conflict, and the session is reloaded).
    pub(crate) fn follow(&self, id: &str, upto: u64) -> Result<(), StoreError> {
        let Some(session) = self.get(id) else {
            return Ok(());
        };
        if upto == 0 {
            // Another node deleted it (or its retention ended there): so here too.
            if self.store.load(id, 0, 0)?.is_none() && !session.tip().unstored {
                self.forget(&session);
            }
            return Ok(());
        }
        if session.in_flight.load(Ordering::SeqCst) > 0 && session.tip().seq < upto {
            // Its own changes in flight may land before or after the other node's: once they
            // have settled, the log says which.
            self.deadlines.push(
                Utc::now() + TimeDelta::milliseconds(50),
                Due::Follow,
                session.id.clone(),
            );
            return Ok(());
        }
        let quiet = |tip: &Tip| {
            !tip.deleted
                && !tip.unstored
                && !session.stale.load(Ordering::SeqCst)
                && session.in_flight.load(Ordering::SeqCst) == 0
        };
        let after = {
            let tip = session.tip();
            if tip.seq >= upto || !quiet(&tip) {
                return Ok(());
            }
            tip.seq
        };
        let Some(events) = self.store.events(id, after, RESUME_LIMIT as usize)? else {
            return Ok(());
        };
        if events.is_empty() {
            return Ok(());
        }
        let mut tip = session.tip();
        if tip.seq != after || !quiet(&tip) {
            return Ok(());
        }
        let mut view = session.view();
        if view.seq() != after {
            return Ok(());
        }
        let explain = session.explain.load(Ordering::Relaxed);
        for event in &events {
            if event.seq != tip.seq + 1 {
                break;
            }
            let input = event.change.input();
            let (step, explanation) = if explain {
                let (step, e) = self.engine.step_explained(&mut tip.conv, input, event.at);
                (step, Some(e))
            } else {
                (self.engine.step(&mut tip.conv, input, event.at), None)
            };
            let frame = logged_frame(
                &tip.conv,
                event,
                &step.transitions,
                &step.moves,
                explanation.as_ref(),
            );
            tip.seq = event.seq;
            if let Some(client_id) = &event.id {
                tip.recent.insert(client_id, event.seq, 0);
            }
            let (bytes, parts) = kept(frame);
            *view = View {
                seq: event.seq,
                text: Some((bytes.clone(), parts)),
                phase: tip.conv.phase,
                last_updated: tip.conv.last_updated,
            };
            session.send(Push::Frame {
                seq: event.seq,
                frame: bytes,
            });
        }
        drop(view);
        tip.scheduled = None;
        self.schedule(&session, &mut tip);
        Ok(())
    }

    /// Drops a session another node deleted: its clients here are told and disconnected.
    fn forget(&self, session: &Arc<Session>) {
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
                    tracing::error!(session = %id, error = %e, "a session cannot be read: skipped");
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
                        tracing::debug!(session = %id, error = %e, "idle sweep of an evicted session tried again");
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
                            tracing::debug!(session = %session.id, error = %e, "idle sweep not stored; tried again");
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
                            tracing::debug!(session = %session.id, error = %e, "reload tried again");
                            self.deadlines
                                .push(now + RETRY, Due::Reload, session.id.clone());
                        }
                    }
                }
                Due::Follow => {
                    if let Err(e) = self.follow(&session.id, u64::MAX) {
                        tracing::debug!(session = %session.id, "following: {e}");
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
    fn evict(&self, session: &Arc<Session>) -> bool {
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
    fn schedule(&self, session: &Session, tip: &mut Tip) {
        let Some(deadline) = tip.conv.idle_deadline else {
            return;
        };
        if tip.scheduled.is_none_or(|s| deadline < s) {
            tip.scheduled = Some(deadline);
            self.deadlines.push(deadline, Due::Idle, session.id.clone());
        }
    }
}

/// See [`Sessions::up_to_now`].
#[derive(Debug)]
pub(crate) struct UpToNow {
    /// The frames that were waiting, in order.
    pub(crate) frames: Vec<(u64, Utf8Bytes)>,
    /// Some were missed: the rest comes from the log.
    pub(crate) lagged: bool,
    pub(crate) deleted: bool,
    /// The committed `seq`, and its state as a `state` frame without transitions.
    pub(crate) seq: u64,
    pub(crate) current: Utf8Bytes,
    /// Frames about the assistant that were waiting.
    pub(crate) live: Vec<Utf8Bytes>,
}

/// The state at a `seq` and the frames after it, rebuilt from the log.
#[derive(Debug)]
struct Rebuilt {
    start: FrameText,
    frames: Vec<(u64, Utf8Bytes)>,
}

impl Session {
    fn new(
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
            stale: AtomicBool::new(false),
            explain: AtomicBool::new(false),
            assistant: AtomicU8::new(assistant.as_u8()),
            clients: Mutex::new(None),
        })
    }

    fn clients(&self) -> MutexGuard<'_, Option<Clients>> {
        self.clients.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sends `push` to every client of the session (none: nothing to do).
    fn send(&self, push: Push) {
        if let Some(clients) = &*self.clients()
            && clients.tx.receiver_count() > 0
        {
            let _ = clients.tx.send(Arc::new(push));
        }
    }

    /// Whether a client (or one about to join) listens to the session.
    fn listened(&self) -> bool {
        self.clients().as_ref().is_some_and(Clients::listened)
    }

    /// The last client left: the channels to clients go, and so does the kept frame when the
    /// tip is the committed state (it is written again from the tip when asked for). A session
    /// held without clients keeps its state only.
    fn quiet(&self) {
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

    fn bump(&self) {
        if let Some(clients) = &*self.clients() {
            clients.progress.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Changes of the session queued to the store and not settled yet.
    pub(crate) fn writes_in_flight(&self) -> u32 {
        self.in_flight.load(Ordering::SeqCst)
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
    fn may_rebuild(&self) -> bool {
        self.clients()
            .get_or_insert_with(Clients::new)
            .rebuilds
            .allow(tokio::time::Instant::now())
    }

    fn subscribe_pushes(&self) -> broadcast::Receiver<Pushed> {
        self.clients()
            .get_or_insert_with(Clients::new)
            .tx
            .subscribe()
    }

    /// The tip's lock. A panic while it was held (a bug) leaves the state as the last step
    /// wrote it, which is consistent: the poison is cleared rather than spread. Taken before
    /// the view's lock when both are.
    fn tip(&self) -> MutexGuard<'_, Tip> {
        self.tip.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn view(&self) -> MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The view with its frame written: from the tip, if the view has none yet (the tip is then
    /// the committed state: `apply` writes the view before it moves the tip).
    fn written_view(&self) -> MutexGuard<'_, View> {
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
    fn settle(&self, result: Result<(), StoreError>, next: View, record: StepRecord, m: &Metrics) {
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
                    tracing::error!(session = %self.id, seq = next.seq(), view = view.seq(), "a committed change does not follow the view");
                    self.stale.store(true, Ordering::SeqCst);
                }
            }
            Err(e) => {
                tracing::debug!(session = %self.id, error = %e, "a change was not stored");
                self.stale.store(true, Ordering::SeqCst);
            }
        }
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A bounded memory of change ids: the `seq` each produced and the ticket that made it
/// durable. Each id is held once, in arrival order, and looked up by a scan from the newest:
/// at most 256 comparisons, and a third of the memory of a map beside a queue (up to 256 ids
/// of 128 bytes per session, every session of the node).
#[derive(Debug, Default)]
struct RecentIds {
    ids: VecDeque<(Box<str>, u64, u64)>,
}

impl RecentIds {
    /// From the log's last ids, oldest first: all committed.
    fn from_log(ids: Vec<(String, u64)>) -> RecentIds {
        let mut recent = RecentIds::default();
        let skip = ids.len().saturating_sub(RECENT_IDS);
        for (id, seq) in ids.into_iter().skip(skip) {
            recent.insert(&id, seq, 0);
        }
        recent
    }

    fn get(&self, id: &str) -> Option<(u64, u64)> {
        self.ids
            .iter()
            .rev()
            .find(|(known, _, _)| **known == *id)
            .map(|&(_, seq, ticket)| (seq, ticket))
    }

    /// The change that answers `id` is a later one (the guide's last answer to a turn).
    fn answered(&mut self, id: &str, seq: u64, ticket: u64) {
        if let Some(entry) = self
            .ids
            .iter_mut()
            .rev()
            .find(|(known, _, _)| **known == *id)
        {
            (entry.1, entry.2) = (seq, ticket);
        }
    }

    fn insert(&mut self, id: &str, seq: u64, ticket: u64) {
        if self.get(id).is_some() {
            return; // the first change of an id is the one its retries are answered with
        }
        if self.ids.len() == RECENT_IDS {
            self.ids.pop_front();
        }
        self.ids.push_back((id.into(), seq, ticket));
    }
}

/// The `state` frame of a change read from the log: its transitions, the inspector's notes
/// when asked for, and the turn that made it.
fn logged_frame(
    conv: &Conversation,
    event: &Event,
    transitions: &[crate::conversation::Transition],
    moves: &[crate::flow::Move],
    explanation: Option<&crate::conversation::explain::Explanation>,
) -> FrameText {
    let mut frame = match &conv.flow {
        Some(run) => FrameText::flow(conv, run, event.seq, moves),
        None => FrameText::state(conv, event.seq, transitions),
    };
    if let Some(e) = explanation {
        frame = frame.with_explain(e);
    }
    if let Change::Message {
        role,
        text,
        artifact,
        partial,
    } = &event.change
    {
        frame = frame.with_message(*role, text, *artifact, *partial);
    }
    frame
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

/// `s-` and 24 hex digits of the system's randomness (`fill`), or none: an id that could be
/// guessed would let anyone who guesses it into the session.
fn session_id_from<E>(fill: impl FnOnce(&mut [u8]) -> Result<(), E>) -> Option<String> {
    let mut bytes = [0u8; 12];
    fill(&mut bytes).ok()?;
    let mut id = String::with_capacity(26);
    id.push_str("s-");
    for b in bytes {
        id.push_str(&format!("{b:02x}"));
    }
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_ids_are_bounded() {
        let mut r = RecentIds::default();
        for i in 0..(RECENT_IDS as u64 + 10) {
            r.insert(&format!("c-{i}"), i, i);
        }
        assert_eq!(r.get("c-0"), None);
        let last = RECENT_IDS as u64 + 9;
        assert_eq!(r.get(&format!("c-{last}")), Some((last, last)));
        assert_eq!(r.ids.len(), RECENT_IDS);
        // A retry of a remembered id keeps its first answer.
        r.insert(&format!("c-{last}"), 0, 0);
        assert_eq!(r.get(&format!("c-{last}")), Some((last, last)));
        assert_eq!(r.ids.len(), RECENT_IDS);
    }

    /// Sessions on a memory store, with the built-in patterns and the default settings.
    fn memory_sessions() -> Sessions {
        Sessions::new(
            crate::patterns::builtin(),
            None,
            None,
            Arc::new(store::memory::MemoryStore::default()),
            Arc::new(Metrics::default()),
            &crate::config::ServerConfig::default(),
        )
    }

    /// A session whose last client left keeps its state only: no channels, no frame; a client
    /// that comes back gets the same frame, written again from the state.
    #[test]
    fn a_session_without_clients_keeps_its_state_only() {
        let sessions = memory_sessions();
        let now = Utc::now();
        let session = sessions.create(now, None).unwrap();
        let (pushes, progress) = session.subscribe();
        let text = "I want to build a todo app in React";
        let input = Input::Message {
            role: Role::User,
            text,
            artifact: false,
        };
        sessions.apply(&session, input, None, now, None).unwrap();
        assert!(session.listened());
        let (seq, frame) = sessions.current_frame(&session);
        assert_eq!(seq, 1);
        assert!(session.view().text.is_some());

        // One subscription still held: the channels stay.
        drop(pushes);
        sessions.left(&session);
        assert!(session.clients().is_some());
        drop(progress);
        sessions.left(&session);
        assert!(session.clients().is_none() && !session.listened());
        assert!(session.view().text.is_none());
        // A change that changes nothing (an idle sweep before the deadline, as on loading)
        // leaves it so.
        sessions
            .apply(&session, Input::Tick, None, now, None)
            .unwrap();
        assert!(session.view().text.is_none());

        // A client again: its welcome is written from the state and not kept; channels and
        // frames as before.
        let (_first, _progress) = session.subscribe();
        let joined = sessions.join(&session, Some(seq)).unwrap();
        assert!(joined.resumed && joined.welcome.as_str().contains(r#""type":"welcome""#));
        assert!(session.view().text.is_none());
        assert_eq!(sessions.current_frame(&session), (seq, frame));
        let mut pushes = joined.pushes;
        let input = Input::Message {
            role: Role::User,
            text: "it should track tasks",
            artifact: false,
        };
        sessions.apply(&session, input, None, now, None).unwrap();
        match pushes.try_recv().as_deref() {
            Ok(Push::Frame { seq, .. }) => assert_eq!(*seq, 2),
            other => panic!("expected the frame of change 2, got {other:?}"),
        }
    }

    /// A client that joins a session deleted since it was looked up is told so: the deletion's
    /// push went to the subscribers of then.
    #[test]
    fn joining_a_deleted_session_says_so() {
        let sessions = memory_sessions();
        let now = Utc::now();
        let session = sessions.create(now, None).unwrap();
        let input = Input::Message {
            role: Role::User,
            text: "hello",
            artifact: false,
        };
        sessions.apply(&session, input, None, now, None).unwrap();
        assert!(!sessions.join(&session, None).unwrap().deleted);
        // Removed from memory and marked deleted at once; the store's deletion is waited for
        // in a runtime, which this test has not (the error says so).
        let _ = sessions.remove(&session.id);
        assert!(sessions.join(&session, None).unwrap().deleted);
    }

    #[test]
    fn session_ids_are_random_hex() {
        let new_session_id = || session_id_from(getrandom::fill).unwrap();
        let a = new_session_id();
        let b = new_session_id();
        // Without randomness, no id.
        assert_eq!(session_id_from(|_| Err(())), None);
        assert_ne!(a, b);
        assert_eq!(a.len(), 26);
        assert!(a.starts_with("s-") && a[2..].chars().all(|c| c.is_ascii_hexdigit()));
    }
}
