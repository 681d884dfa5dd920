//! The session registry: the live sessions, a cache over the store, each with its
//! conversation, its `seq`, and the channel that pushes its changes to every connected client.
//!
//! All methods are synchronous and return owned values: no map guard or session lock is ever
//! held across an `.await`. A change is applied, serialised, sent to the session's channel and
//! queued to the store under the session's lock, so every client receives the frames in `seq`
//! order and the log holds them in the same order. Store reads (loading a session that is not
//! in memory) block: async callers run them with `spawn_blocking`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::ws::Utf8Bytes;
use chrono::{DateTime, TimeDelta, Utc};
use dashmap::DashMap;
use tokio::sync::broadcast;

use super::deadlines::{Deadlines, Due};
use super::metrics::Metrics;
use crate::conversation::{Conversation, Engine, Input};
use crate::protocol;
use crate::store::{self, Change, Event, Store, StoreError, Write};

/// Frames a slow client may fall behind before it is resynchronised with the current state.
/// Small on purpose: a channel allocates its slots up front, for every session.
const CHANNEL_CAPACITY: usize = 16;

/// Turn ids remembered per session for idempotent retries.
const RECENT_IDS: usize = 256;

/// A snapshot of the state goes with every this many events, so recovery replays at most
/// this many.
const SNAPSHOT_EVERY: u64 = 64;

/// What a session's channel carries.
#[derive(Clone, Debug)]
pub enum Push {
    /// A `state` frame, serialised once for every client.
    Frame(Utf8Bytes),
    /// The session was deleted: clients are told and disconnected.
    Deleted,
}

/// One live session.
#[derive(Debug)]
pub struct Session {
    pub id: Arc<str>,
    inner: Mutex<Inner>,
    tx: broadcast::Sender<Push>,
}

#[derive(Debug)]
struct Inner {
    conv: Conversation,
    /// Grows by one per change.
    seq: u64,
    /// Ids of recent turns and the `seq` they produced.
    recent: RecentIds,
    /// The idle deadline currently in the deadline queue, if any.
    scheduled: Option<DateTime<Utc>>,
    /// The store ticket of the session's latest write.
    last_ticket: u64,
    deleted: bool,
}

/// The outcome of an applied frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The session's `seq` after the frame.
    pub seq: u64,
    /// The id was seen before: the frame was acknowledged again, not applied again.
    pub duplicate: bool,
    /// The store ticket that makes this `seq` durable: acks wait for it.
    pub ticket: u64,
}

/// Why a frame could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The session was deleted while the frame was on its way.
    Deleted,
    /// The store cannot take the change: it was not applied.
    Store(String),
}

/// Every live session.
#[derive(Debug)]
pub struct Sessions {
    map: DashMap<Arc<str>, Arc<Session>>,
    engine: Engine,
    store: Arc<dyn Store>,
    deadlines: Deadlines,
    metrics: Arc<Metrics>,
    /// Sessions without activity for this long are evicted from memory, and deleted from the
    /// store once finished.
    retention: TimeDelta,
    /// Held while a session is loaded from the store or finished sessions are purged from it,
    /// so a purge never deletes a session being loaded.
    loading: Mutex<()>,
}

impl Sessions {
    pub fn new(
        engine: Engine,
        store: Arc<dyn Store>,
        metrics: Arc<Metrics>,
        retention: TimeDelta,
    ) -> Sessions {
        Sessions {
            map: DashMap::new(),
            engine,
            store,
            deadlines: Deadlines::default(),
            metrics,
            retention,
            loading: Mutex::new(()),
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub fn deadlines(&self) -> &Deadlines {
        &self.deadlines
    }

    /// A new session in `greeting`, and the store ticket of its creation.
    pub fn create(&self, now: DateTime<Utc>) -> Result<(Arc<Session>, u64), StoreError> {
        let id: Arc<str> = new_session_id().into();
        let conv = self.engine.start(&*id, now);
        let ticket = self.store.write(Write::Create {
            session: id.clone(),
            created_at: now,
            idle_deadline: conv.idle_deadline,
        })?;
        let session = self.insert(id, conv, 0, Vec::new(), ticket, now);
        self.metrics.sessions_created.inc();
        Ok((session, ticket))
    }

    fn insert(
        &self,
        id: Arc<str>,
        conv: Conversation,
        seq: u64,
        recent_ids: Vec<(String, u64)>,
        last_ticket: u64,
        now: DateTime<Utc>,
    ) -> Arc<Session> {
        let (tx, _) = broadcast::channel(CHANNEL_CAPACITY);
        let mut recent = RecentIds::default();
        let skip = recent_ids.len().saturating_sub(RECENT_IDS);
        for (client_id, seq) in recent_ids.into_iter().skip(skip) {
            recent.insert(&client_id, seq);
        }
        let session = Arc::new(Session {
            id: id.clone(),
            inner: Mutex::new(Inner {
                conv,
                seq,
                recent,
                scheduled: None,
                last_ticket,
                deleted: false,
            }),
            tx,
        });
        // A concurrent load of the same session may have won: keep the first.
        let session = self
            .map
            .entry(id.clone())
            .or_insert(session)
            .value()
            .clone();
        self.schedule(&session, &mut session.lock());
        self.deadlines.push(now + self.retention, Due::Evict, id);
        session
    }

    /// A session in memory.
    pub fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.map.get(id).map(|entry| entry.value().clone())
    }

    /// A session, loaded from the store if it is not in memory (blocks on the store).
    pub fn get_or_load(&self, id: &str) -> Result<Option<Arc<Session>>, StoreError> {
        if let Some(session) = self.get(id) {
            return Ok(Some(session));
        }
        let _loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(session) = self.get(id) {
            return Ok(Some(session));
        }
        let Some(stored) = self.store.load(id)? else {
            return Ok(None);
        };
        let folded = store::fold(&self.engine, &stored)?;
        let ticket = self.store.durable().borrow().committed;
        let now = Utc::now();
        let session = self.insert(
            id.into(),
            folded.conv,
            folded.seq,
            folded.recent_ids,
            ticket,
            now,
        );
        // A deadline that passed while the session was not in memory (the server was down) is
        // applied before anyone sees the session.
        self.apply(&session, Input::Tick, None, now)
            .map_err(|e| match e {
                Refused::Store(e) => StoreError(e),
                Refused::Deleted => StoreError(format!("session {id} was deleted")),
            })?;
        Ok(Some(session))
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Subscribes to a session's changes and returns its `welcome` frame: the state and `seq`
    /// the subscription starts after.
    pub fn join(&self, session: &Session) -> (Utf8Bytes, broadcast::Receiver<Push>) {
        let inner = session.lock();
        let rx = session.tx.subscribe();
        let welcome = protocol::welcome_frame_text(&inner.conv, inner.seq);
        (welcome.into(), rx)
    }

    /// The current state as a `state` frame without transitions (for `get_state`, and for a
    /// client that fell behind).
    pub fn state_frame(&self, session: &Session) -> Utf8Bytes {
        let inner = session.lock();
        protocol::state_frame_text(&inner.conv, inner.seq, &[]).into()
    }

    /// A copy of the state and its `seq` (loading the session if needed).
    pub fn snapshot(&self, id: &str) -> Result<Option<(Conversation, u64)>, StoreError> {
        Ok(self.get_or_load(id)?.map(|session| {
            let inner = session.lock();
            (inner.conv.clone(), inner.seq)
        }))
    }

    /// A session's event log.
    pub fn events(&self, id: &str, after: u64) -> Result<Option<Vec<Event>>, StoreError> {
        self.store.events(id, after)
    }

    /// Applies one input. With an `id` seen before, nothing is applied and the `seq` of the
    /// first application is returned again.
    pub fn apply(
        &self,
        session: &Session,
        input: Input<'_>,
        id: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Applied, Refused> {
        let mut inner = session.lock();
        if inner.deleted {
            return Err(Refused::Deleted);
        }
        if let Some(seq) = id.and_then(|id| inner.recent.get(id)) {
            return Ok(Applied {
                seq,
                duplicate: true,
                ticket: inner.last_ticket,
            });
        }
        if let Some(failed) = &self.store.durable().borrow().failed {
            return Err(Refused::Store(failed.to_string()));
        }
        let step = self.engine.step(&mut inner.conv, input, now);
        if step.changed {
            inner.seq += 1;
            let seq = inner.seq;
            if let Some(id) = id {
                inner.recent.insert(id, seq);
            }
            let frame = protocol::state_frame_text(&inner.conv, seq, &step.transitions);
            // State frames may go out before the change is durable; acks may not.
            let _ = session.tx.send(Push::Frame(frame.into()));
            let snapshot = seq
                .is_multiple_of(SNAPSHOT_EVERY)
                .then(|| serde_json::to_string(&inner.conv).ok())
                .flatten();
            let write = Write::Append {
                session: session.id.clone(),
                event: Event {
                    seq,
                    at: now,
                    change: Change::from_input(&input),
                    id: id.map(str::to_string),
                },
                phase: inner.conv.phase,
                idle_deadline: inner.conv.idle_deadline,
                snapshot,
            };
            match self.store.write(write) {
                Ok(ticket) => inner.last_ticket = ticket,
                Err(e) => return Err(Refused::Store(e.0)),
            }
            self.metrics.record_step(&input, &step, &inner.conv);
            self.schedule(session, &mut inner);
        }
        Ok(Applied {
            seq: inner.seq,
            duplicate: false,
            ticket: inner.last_ticket,
        })
    }

    /// Deletes a session and its log: its clients are told and disconnected. Returns the store
    /// ticket of the deletion (wait for it before saying it is done), or `None` when there was
    /// no such session.
    pub fn remove(&self, id: &str) -> Result<Option<u64>, StoreError> {
        let _loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        let in_memory = self.map.remove(id).map(|(_, session)| {
            session.lock().deleted = true;
            let _ = session.tx.send(Push::Deleted);
        });
        if in_memory.is_none() && self.store.load(id)?.is_none() {
            return Ok(None);
        }
        self.store
            .write(Write::Delete { session: id.into() })
            .map(Some)
    }

    /// Sessions that were not idle when the store last saw them are loaded, so deadlines that
    /// fell due meanwhile are applied now. Returns how many were loaded.
    pub fn recover(&self) -> Result<usize, StoreError> {
        let pending = self.store.pending_deadlines()?;
        for (id, _) in &pending {
            self.get_or_load(id)?;
        }
        Ok(pending.len())
    }

    /// Deletes from the store the finished sessions without activity for the retention period
    /// that are not in memory (those in memory are evicted by the sweeper first). Returns how
    /// many were deleted.
    pub fn purge(&self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let _loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        let mut n = 0;
        for id in self.store.expired(now - self.retention)? {
            if !self.map.contains_key(id.as_str()) {
                self.store.write(Write::Delete {
                    session: id.as_str().into(),
                })?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// Runs what fell due at `now`: idle transitions and evictions. Returns how many entries
    /// were handled.
    pub fn run_due(&self, now: DateTime<Utc>) -> usize {
        let due = self.deadlines.pop_due(now);
        for (at, kind, id) in &due {
            let Some(session) = self.get(id) else {
                continue;
            };
            match kind {
                Due::Idle => {
                    {
                        let mut inner = session.lock();
                        if inner.scheduled != Some(*at) {
                            continue; // an earlier deadline replaced this entry
                        }
                        inner.scheduled = None;
                    }
                    if !self.store.claim_deadline(id, *at) {
                        continue; // another node applies it
                    }
                    // The engine decides whether the session is idle; a deadline that moved
                    // later is put back in the queue.
                    if self.apply(&session, Input::Tick, None, now).is_ok() {
                        let mut inner = session.lock();
                        self.schedule(&session, &mut inner);
                    }
                }
                Due::Evict => {
                    let (last, connected) = {
                        let inner = session.lock();
                        (inner.conv.last_updated, session.tx.receiver_count() > 0)
                    };
                    if connected {
                        self.deadlines
                            .push(now + self.retention, Due::Evict, session.id.clone());
                    } else if now >= last + self.retention {
                        self.map.remove(id);
                        self.metrics.sessions_evicted.inc();
                    } else {
                        self.deadlines
                            .push(last + self.retention, Due::Evict, session.id.clone());
                    }
                }
            }
        }
        due.len()
    }

    /// Every session's phase, for the metrics.
    pub fn phases(&self) -> Vec<crate::conversation::Phase> {
        let sessions: Vec<Arc<Session>> = self.map.iter().map(|e| e.value().clone()).collect();
        sessions.iter().map(|s| s.lock().conv.phase).collect()
    }

    /// Puts the session's idle deadline in the queue unless an earlier or equal one is there.
    fn schedule(&self, session: &Session, inner: &mut Inner) {
        let Some(deadline) = inner.conv.idle_deadline else {
            return;
        };
        if inner.scheduled.is_none_or(|s| deadline < s) {
            inner.scheduled = Some(deadline);
            self.deadlines.push(deadline, Due::Idle, session.id.clone());
        }
    }
}

impl Session {
    /// The session's lock. A panic while it was held (a bug) leaves the state as the last step
    /// wrote it, which is consistent: the poison is cleared rather than spread.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Clients connected to the session.
    pub fn clients(&self) -> usize {
        self.tx.receiver_count()
    }
}

/// A bounded memory of turn ids.
#[derive(Debug, Default)]
struct RecentIds {
    seqs: HashMap<String, u64>,
    order: VecDeque<String>,
}

impl RecentIds {
    fn get(&self, id: &str) -> Option<u64> {
        self.seqs.get(id).copied()
    }

    fn insert(&mut self, id: &str, seq: u64) {
        if self.order.len() == RECENT_IDS
            && let Some(old) = self.order.pop_front()
        {
            self.seqs.remove(&old);
        }
        self.order.push_back(id.to_string());
        self.seqs.insert(id.to_string(), seq);
    }
}

/// `s-` and 24 random hex digits.
fn new_session_id() -> String {
    let mut bytes = [0u8; 12];
    if getrandom::fill(&mut bytes).is_err() {
        // No system randomness: fall back on time and a counter, still unique per process.
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let t = Utc::now().timestamp_nanos_opt().unwrap_or_default() as u64;
        bytes[..8].copy_from_slice(&t.to_le_bytes());
        bytes[8..].copy_from_slice(&(n as u32).to_le_bytes());
    }
    let mut id = String::with_capacity(26);
    id.push_str("s-");
    for b in bytes {
        id.push_str(&format!("{b:02x}"));
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_ids_are_bounded() {
        let mut r = RecentIds::default();
        for i in 0..(RECENT_IDS as u64 + 10) {
            r.insert(&format!("c-{i}"), i);
        }
        assert_eq!(r.get("c-0"), None);
        assert_eq!(
            r.get(&format!("c-{}", RECENT_IDS + 9)),
            Some(RECENT_IDS as u64 + 9)
        );
        assert_eq!(r.seqs.len(), RECENT_IDS);
    }

    #[test]
    fn session_ids_are_random_hex() {
        let a = new_session_id();
        let b = new_session_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 26);
        assert!(a.starts_with("s-") && a[2..].chars().all(|c| c.is_ascii_hexdigit()));
    }
}
