//! Where sessions live: an ordered log of events per session, the state being a deterministic
//! fold of it (with snapshots so recovery does not replay long histories).
//!
//! - [`memory`]: in the process, lost on restart;
//! - [`sqlite`]: an embedded SQLite file (the default): WAL, `synchronous=FULL`, one writer
//!   thread committing the changes of all sessions together (group commit).
//!
//! The [`Store`] trait is shaped for several server nodes sharing one store: appends carry the
//! sequence number they expect to follow (an append that does not follow is refused, so two
//! nodes can never both write `seq` N), idle deadlines are claimed by one node before it acts on
//! them, and [`Store::changes`] is where changes made by other nodes arrive.

pub mod memory;
pub mod sqlite;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::conversation::{Conversation, Engine, Input, Phase, Role, Signal};

/// One change of a session, as the log keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The session's `seq` after this change (1 for the first).
    pub seq: u64,
    #[serde(with = "crate::conversation::time")]
    pub at: DateTime<Utc>,
    #[serde(flatten)]
    pub change: Change,
    /// The client's id of the frame, for idempotent retries across restarts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// What changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Change {
    Message {
        role: Role,
        text: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        artifact: bool,
    },
    Signal {
        signal: Signal,
    },
    Reset,
    /// The sweeper found the session idle.
    Idle,
}

impl Change {
    pub fn from_input(input: &Input<'_>) -> Change {
        match *input {
            Input::Message {
                role,
                text,
                artifact,
            } => Change::Message {
                role,
                text: text.to_string(),
                artifact,
            },
            Input::Signal(signal) => Change::Signal { signal },
            Input::Reset => Change::Reset,
            Input::Tick => Change::Idle,
        }
    }

    pub fn input(&self) -> Input<'_> {
        match self {
            Change::Message {
                role,
                text,
                artifact,
            } => Input::Message {
                role: *role,
                text,
                artifact: *artifact,
            },
            Change::Signal { signal } => Input::Signal(*signal),
            Change::Reset => Input::Reset,
            Change::Idle => Input::Tick,
        }
    }
}

/// A write to the store, queued in order.
#[derive(Clone, Debug)]
pub enum Write {
    Create {
        session: Arc<str>,
        created_at: DateTime<Utc>,
        idle_deadline: Option<DateTime<Utc>>,
    },
    Append {
        session: Arc<str>,
        event: Event,
        /// The state after the event, as the store's index needs it.
        phase: Phase,
        idle_deadline: Option<DateTime<Utc>>,
        /// Every few events, the state after this one, so recovery replays only what follows.
        snapshot: Option<String>,
    },
    Delete {
        session: Arc<str>,
    },
}

/// A session as stored: what its state is folded from.
#[derive(Clone, Debug, PartialEq)]
pub struct Stored {
    pub session_id: String,
    pub created_at: DateTime<Utc>,
    /// The latest snapshot: its `seq` and the state after that event.
    pub snapshot: Option<(u64, Conversation)>,
    /// The events after the snapshot (all of them without one), in order.
    pub events: Vec<Event>,
}

/// How far the store's writes have gone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Durable {
    /// Every write with a ticket up to this one is committed.
    pub committed: u64,
    /// The store stopped writing (I/O error, conflict): nothing after `committed` will be.
    pub failed: Option<Arc<str>>,
}

/// A store error, naming the store (a file, for SQLite).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

/// Change notifications from other nodes: `(session, seq)` appended elsewhere.
pub type ChangeFeed = tokio::sync::broadcast::Receiver<(Arc<str>, u64)>;

pub trait Store: Send + Sync + std::fmt::Debug {
    /// Queues a write; never blocks. Writes are applied in the order they were queued. Returns
    /// the ticket that [`Store::durable`] reaches once the write is committed.
    fn write(&self, write: Write) -> Result<u64, StoreError>;

    /// Watches the committed ticket.
    fn durable(&self) -> watch::Receiver<Durable>;

    /// The last ticket given: once `durable` reaches it, reads see every write queued so far.
    fn queued(&self) -> u64;

    /// Resolves once `ticket` is committed, or with the store's error if it never will be. Only
    /// the waiter of a ticket is woken, not every waiter on every commit.
    fn when_committed(&self, ticket: u64)
    -> tokio::sync::oneshot::Receiver<Result<(), StoreError>>;

    /// A session's snapshot and the events after it, or `None` for an unknown session.
    fn load(&self, session: &str) -> Result<Option<Stored>, StoreError>;

    /// A session's log from `seq` `after + 1` on (0: the whole log), or `None` for an unknown
    /// session.
    fn events(&self, session: &str, after: u64) -> Result<Option<Vec<Event>>, StoreError>;

    /// Sessions with an idle deadline still to apply (not idle yet), with the deadline.
    fn pending_deadlines(&self) -> Result<Vec<(String, DateTime<Utc>)>, StoreError>;

    /// Finished sessions (idle or completed) last changed before `before`: retention deletes them.
    fn expired(&self, before: DateTime<Utc>) -> Result<Vec<String>, StoreError>;

    /// Commits everything queued and stops writing (at shutdown).
    fn close(&self) {}

    /// Claims a session's idle deadline for this node. With several nodes, one claim wins; a
    /// store used by one node always grants it.
    fn claim_deadline(&self, _session: &str, _at: DateTime<Utc>) -> bool {
        true
    }

    /// Changes appended by other nodes. A store used by one node has none to report.
    fn changes(&self) -> Option<ChangeFeed> {
        None
    }

    /// Records the fingerprint of the rules this server folds logs with
    /// ([`Engine::fingerprint`](crate::conversation::Engine::fingerprint)), and returns the one
    /// recorded before when it was another. A store that keeps nothing across restarts has
    /// nothing to compare.
    fn record_rules(&self, _fingerprint: &str) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    /// `memory:` or `sqlite:PATH`, for logs.
    fn describe(&self) -> String;
}

/// The append rule every store keeps: a session's events are numbered 1, 2, 3, ... with no gap
/// and no repeat, so an append must carry the seq after the last one.
pub fn check_append(session: &str, last: u64, seq: u64) -> Result<(), String> {
    if seq == last + 1 {
        Ok(())
    } else {
        Err(format!(
            "session {session}: append of seq {seq} after {last} refused"
        ))
    }
}

/// Opens the store a URL names: `memory:` or `sqlite:PATH` (PATH relative to the working
/// directory; its directory is created if missing). `batch` is the most events one SQLite
/// transaction holds (1: a transaction per event).
pub fn open(
    url: &str,
    retention: chrono::TimeDelta,
    batch: usize,
) -> Result<Arc<dyn Store>, StoreError> {
    if url == "memory:" {
        return Ok(Arc::new(memory::MemoryStore::default()));
    }
    if let Some(path) = url.strip_prefix("sqlite:") {
        if path.is_empty() {
            return Err(StoreError(
                "store \"sqlite:\" needs a path: sqlite:data/convstate.db".into(),
            ));
        }
        return Ok(Arc::new(sqlite::SqliteStore::open(
            std::path::Path::new(path),
            retention,
            batch,
        )?));
    }
    Err(StoreError(format!(
        "store \"{url}\": expected memory: or sqlite:PATH"
    )))
}

/// A state folded from a log.
#[derive(Clone, Debug, PartialEq)]
pub struct Folded {
    pub conv: Conversation,
    pub seq: u64,
    /// The last client ids with their `seq`, oldest first, for idempotent retries.
    pub recent_ids: Vec<(String, u64)>,
}

/// Folds a stored session: the snapshot (or a fresh start), then each event at its time.
pub fn fold(engine: &Engine, stored: &Stored) -> Result<Folded, StoreError> {
    let (mut conv, mut seq) = match &stored.snapshot {
        Some((seq, conv)) => (conv.clone(), *seq),
        None => (
            engine.start(stored.session_id.as_str(), stored.created_at),
            0,
        ),
    };
    let mut recent_ids = Vec::new();
    for event in &stored.events {
        if event.seq != seq + 1 {
            return Err(StoreError(format!(
                "session {}: event {} follows {seq}: the log has a gap",
                stored.session_id, event.seq
            )));
        }
        engine.step(&mut conv, event.change.input(), event.at);
        seq = event.seq;
        if let Some(id) = &event.id {
            recent_ids.push((id.clone(), seq));
        }
    }
    Ok(Folded {
        conv,
        seq,
        recent_ids,
    })
}

/// Waiters for tickets, completed as commits come in. Each waiter is woken once, when its
/// ticket is committed (or the store fails), not on every commit.
#[derive(Debug, Default)]
pub struct Waiters {
    inner: std::sync::Mutex<WaitersInner>,
}

type Waiter = tokio::sync::oneshot::Sender<Result<(), StoreError>>;

#[derive(Debug, Default)]
struct WaitersInner {
    committed: u64,
    failed: Option<StoreError>,
    waiting: std::collections::BTreeMap<u64, Vec<Waiter>>,
}

impl Waiters {
    pub fn wait(&self, ticket: u64) -> tokio::sync::oneshot::Receiver<Result<(), StoreError>> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if ticket <= inner.committed {
            let _ = tx.send(Ok(()));
        } else if let Some(e) = &inner.failed {
            let _ = tx.send(Err(e.clone()));
        } else {
            inner.waiting.entry(ticket).or_default().push(tx);
        }
        rx
    }

    /// Every ticket up to `ticket` is committed.
    pub fn committed(&self, ticket: u64) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.committed = inner.committed.max(ticket);
        let later = inner.waiting.split_off(&(ticket + 1));
        let done = std::mem::replace(&mut inner.waiting, later);
        drop(inner);
        for tx in done.into_values().flatten() {
            let _ = tx.send(Ok(()));
        }
    }

    /// Nothing more will be committed.
    pub fn failed(&self, error: StoreError) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.failed = Some(error.clone());
        let all = std::mem::take(&mut inner.waiting);
        drop(inner);
        for tx in all.into_values().flatten() {
            let _ = tx.send(Err(error.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_wake_when_their_ticket_is_committed() {
        let w = Waiters::default();
        let mut a = w.wait(1);
        let mut b = w.wait(3);
        w.committed(2);
        assert_eq!(a.try_recv().unwrap(), Ok(()));
        assert!(b.try_recv().is_err(), "not yet");
        w.committed(3);
        assert_eq!(b.try_recv().unwrap(), Ok(()));
        let mut c = w.wait(2);
        assert_eq!(c.try_recv().unwrap(), Ok(()), "already committed");
        let mut d = w.wait(9);
        w.failed(StoreError("disk full".into()));
        assert_eq!(d.try_recv().unwrap(), Err(StoreError("disk full".into())));
        let mut e = w.wait(10);
        assert!(e.try_recv().unwrap().is_err());
    }
}
