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
use crate::protocol::json::FrameText;
use crate::store::{
    self, Append, Change, Event, RESUME_LIMIT, SNAPSHOT_EVERY, Store, StoreError, Write,
};

mod applying;
mod joining;
mod recent_ids;
mod reloading;
mod replying;
mod session;
mod sweeping;
mod view;

use recent_ids::RecentIds;
use view::{View, kept};

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
    /// Woken when the last write in flight settles ([`Session::writes_settled`]).
    settled: tokio::sync::Notify,
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
            session.span().in_scope(|| {
                tracing::debug!("a session without changes dropped as its client left")
            });
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

    /// The engine sessions step with.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
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
/// The span of the session `id`'s log lines (see [`Session::span`]). At the error level: a span
/// is written only where its level is enabled, and the id must be on every line, a warning's
/// with the log at `warn` too.
pub(crate) fn span_of(id: &str) -> tracing::Span {
    tracing::error_span!("session", session = %id)
}

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
mod tests;
