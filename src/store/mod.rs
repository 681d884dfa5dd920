//! Where sessions live: an ordered log of events per session, the state being a deterministic
//! fold of it (with snapshots, so neither loading a session nor resuming a client replays a long
//! history), and the index the server and its HTTP API read: the sessions' phases and
//! deadlines, the last client ids of each session, the whole history of finished goals.
//!
//! - `memory`: in the process, lost on restart;
//! - `sqlite`: an embedded SQLite file (the default): WAL, `synchronous=FULL`, one writer
//!   thread committing the changes of all sessions together (group commit); or several such
//!   files, each with its writer, sessions spread over them (`sharded`).
//!
//! Writes are queued ([`Store::write`]) and settle in the order they were queued (a sharded
//! store: in that order within each file, so a session's writes always do): each is committed
//! or fails, and its [`Receipt`] is called then, before anyone waiting on
//! [`Store::committed`] is woken. This is how a change reaches clients only once the store holds
//! it: the server publishes it from its receipt.

mod committed;
pub(crate) mod file_identity;
mod fold;
pub(crate) mod memory;
pub(crate) mod redis;
pub(crate) mod sharded;
pub(crate) mod sqlite;
mod tickets;

pub use committed::Committed;
pub(crate) use committed::Waiters;
pub use fold::{Folded, Stepped, fold, fold_with};

use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::conversation::{Conversation, Engine, Goal, Phase};

/// A snapshot of the state is stored with every this many events, so loading a session folds at
/// most this many.
pub const SNAPSHOT_EVERY: u64 = 64;

/// Snapshots kept per session: with one every 64 events, any `seq` among the last 256 has a
/// snapshot at or before it, so a client resuming from there is rebuilt from at most 319
/// events.
pub const SNAPSHOTS_KEPT: u64 = 5;

/// The most changes a resuming (or lagging) client is sent from the log; from further back it
/// gets the current state instead (see `docs/protocol.md`).
pub const RESUME_LIMIT: u64 = 256;

/// Client ids remembered per session (with the `seq` of their change), across restarts.
pub const RECENT_IDS: usize = 256;

// The log's record, also the events API's JSON (`GET /api/sessions/{id}/events`): the
// protocol's.
pub use crate::protocol::log::{Change, Event};

/// One change appended to a session's log, with what the store's index needs of the state
/// after it.
#[derive(Clone, Debug)]
pub struct Append {
    pub session: Arc<str>,
    pub event: Event,
    pub phase: Phase,
    pub idle_deadline: Option<DateTime<Utc>>,
    /// Every [`SNAPSHOT_EVERY`] events, the state after this one (JSON), so loading replays
    /// only what follows it.
    pub snapshot: Option<String>,
    /// Goals this change finished (JSON), in order: the end of the session's history.
    pub finished: Vec<String>,
    /// The history's length after this change: the last finished goal is number
    /// `goals_total` (a reset starts the history over).
    pub goals_total: u64,
}

/// A write to the store, queued in order.
#[derive(Clone, Debug)]
pub enum Write {
    Create {
        session: Arc<str>,
        created_at: DateTime<Utc>,
        idle_deadline: Option<DateTime<Utc>>,
        /// The subject (`sub`) of the token that created it; `None` with authentication off.
        owner: Option<Arc<str>>,
    },
    Append(Box<Append>),
    /// Goals of a session's history the store lacks, numbered from `first` (a file written
    /// before the history was stored: the fold of the log finds them).
    History {
        session: Arc<str>,
        first: u64,
        goals: Vec<String>,
    },
    Delete {
        session: Arc<str>,
    },
}

impl Write {
    /// Whether a failing store still takes it: deletions free space and erase data, so they
    /// are tried whatever the store's health.
    fn taken_while_failing(&self) -> bool {
        matches!(self, Write::Delete { .. })
    }
}

/// Called once a write has settled: `Ok` once it is committed, the error once it failed. Called
/// exactly once, in the order writes were queued (the writes of a session, at least: see
/// [`Store::write`]), and before the waiters of
/// [`Store::committed`] are woken. A write that [`Store::write`] refuses drops its receipt
/// uncalled.
pub type Receipt = Box<dyn FnOnce(Result<(), StoreError>) + Send>;

/// A session as stored: what its state is folded from, and its index entries.
#[derive(Clone, Debug, PartialEq)]
pub struct Stored {
    pub session_id: String,
    pub created_at: DateTime<Utc>,
    /// The subject that created it (see [`Write::Create`]).
    pub owner: Option<String>,
    /// A snapshot: its `seq` and the state after that event.
    pub snapshot: Option<(u64, Conversation)>,
    /// The events after the snapshot (all of them without one), in order.
    pub events: Vec<Event>,
    /// The last [`RECENT_IDS`] client ids of the session with their `seq`, oldest first: of
    /// its whole log, or as of its snapshot (the fold adds those of the events after it).
    pub recent_ids: Vec<(String, u64)>,
}

/// What went wrong, for callers that branch on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Another process holds the file's locks: may pass.
    Busy,
    /// The disk, or the store's size limit, is full: passes when space is freed.
    Full,
    /// The disk failed a read or a write: may pass.
    Io,
    /// The file is damaged: does not pass by itself.
    Corrupt,
    /// An append that does not follow its session's last `seq`, or to an unknown session: this
    /// write is refused, others go on.
    Conflict,
    /// The store is closed (the server is stopping).
    Closed,
}

impl ErrorKind {
    /// Whether the same write may succeed if tried again a little later.
    pub fn is_transient(self) -> bool {
        matches!(self, ErrorKind::Busy | ErrorKind::Full | ErrorKind::Io)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Busy => "busy",
            ErrorKind::Full => "full",
            ErrorKind::Io => "I/O error",
            ErrorKind::Corrupt => "corrupt",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Closed => "closed",
        }
    }
}

/// A store error: its kind, and a message naming the store (a file, for SQLite).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    pub kind: ErrorKind,
    pub message: String,
}

impl StoreError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> StoreError {
        StoreError {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

/// Whether the store takes writes.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Health {
    #[default]
    Ready,
    /// Writes failed and are refused until a probe succeeds (retried with a growing pause).
    Failing {
        cause: StoreError,
        since: DateTime<Utc>,
    },
}

/// Writes a store's queue holds (taken by its writer, not yet committed); a write past it is
/// refused at once (`Busy`: try again), so a writer slower than its callers cannot make the
/// queue hold unbounded memory.
pub(crate) const MAX_QUEUED: usize = 65_536;

/// The refusal of a write that finds the queue full.
pub(crate) fn queue_full(store: &str) -> StoreError {
    StoreError::new(
        ErrorKind::Busy,
        format!(
            "{store}: {MAX_QUEUED} writes are waiting for the disk: this one was refused; try again"
        ),
    )
}

/// Whether a store takes writes, shared by its callers and its writer: read on every write,
/// so the refusal is an atomic first.
#[derive(Debug, Default)]
pub(crate) struct HealthCell {
    failing: std::sync::atomic::AtomicBool,
    health: std::sync::Mutex<Health>,
}

impl HealthCell {
    /// Writes are refused from now on, with `cause` (since the first failure of a run).
    pub(crate) fn set_failing(&self, cause: StoreError) {
        let mut health = self.health.lock().unwrap_or_else(|p| p.into_inner());
        let since = match &*health {
            Health::Failing { since, .. } => *since,
            Health::Ready => Utc::now(),
        };
        *health = Health::Failing { cause, since };
        self.failing
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    pub(crate) fn set_ready(&self) {
        *self.health.lock().unwrap_or_else(|p| p.into_inner()) = Health::Ready;
        self.failing
            .store(false, std::sync::atomic::Ordering::SeqCst);
    }

    pub(crate) fn get(&self) -> Health {
        self.health
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Why writes are refused now, if they are (the cheap check of [`Store::refusing`]).
    pub(crate) fn refusing(&self) -> Option<StoreError> {
        if !self.failing.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        match self.get() {
            Health::Ready => None,
            Health::Failing { cause, .. } => Some(cause),
        }
    }
}

pub trait Store: Send + Sync + std::fmt::Debug {
    /// Queues a write; never waits for the disk. Writes settle in the order they were queued
    /// (within a file, for a sharded store: a session's writes in their order), each calling
    /// its `receipt` (see [`Receipt`]). Returns the ticket to wait for with
    /// [`Store::committed`]. While the store is failing, writes other than deletions are
    /// refused here at once, with the cause.
    fn write(&self, write: Write, receipt: Option<Receipt>) -> Result<u64, StoreError>;

    /// Resolves once the write of `ticket` is committed, or with the error it failed with.
    /// Ticket 0 stands for no write (a change read back from the log): committed.
    fn committed(&self, ticket: u64) -> Committed;

    /// Resolves once every write queued so far has settled (committed or failed: a read
    /// after it sees them all).
    fn committed_all(&self) -> Committed;

    /// Whether writes are taken, and if not, why.
    fn health(&self) -> Health;

    /// Why writes are refused now, if they are: the cheap check made before every change (a
    /// change refused here was never applied).
    fn refusing(&self) -> Option<StoreError> {
        match self.health() {
            Health::Ready => None,
            Health::Failing { cause, .. } => Some(cause),
        }
    }

    /// A session's newest snapshot at or before `at` and its events after that snapshot up to
    /// `through` (`u64::MAX` for both: the latest state), with its recent client ids; `None`
    /// for an unknown session.
    fn load(&self, session: &str, at: u64, through: u64) -> Result<Option<Stored>, StoreError>;

    /// At most `limit` events of a session's log from `seq` `after + 1` on, or `None` for an
    /// unknown session.
    fn events(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Event>>, StoreError>;

    /// At most `limit` goals of a session's history (since its last reset), oldest first,
    /// skipping the first `after`; `None` for an unknown session.
    fn goals(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Goal>>, StoreError>;

    /// How many goals of its history the store holds for a session.
    fn goals_stored(&self, session: &str) -> Result<u64, StoreError>;

    /// Sessions with an idle deadline still to apply (not idle yet), with the deadline.
    fn pending_deadlines(&self) -> Result<Vec<(String, DateTime<Utc>)>, StoreError>;

    /// Finished sessions (idle or completed) last changed before `before`: retention deletes them.
    fn expired(&self, before: DateTime<Utc>) -> Result<Vec<String>, StoreError>;

    /// Commits everything queued and stops writing (at shutdown).
    fn close(&self) {}

    /// Records the fingerprint of the rules this server folds logs with
    /// ([`crate::patterns::fingerprint`]), and returns the one recorded before when it was
    /// another. A store that keeps nothing across restarts has nothing to compare.
    fn record_rules(&self, _fingerprint: &str) -> Result<Option<String>, StoreError> {
        Ok(None)
    }

    /// `memory:` or `sqlite:PATH`, for logs.
    fn describe(&self) -> String;

    /// A store shared by several nodes rings a doorbell after each change, its own included:
    /// `(session, seq)`; `("", 0)` after a reconnection, when doorbells may have been missed.
    /// `None` for a store only this node writes.
    fn doorbell(&self) -> Option<tokio::sync::broadcast::Receiver<(Arc<str>, u64)>> {
        None
    }

    /// Whether other nodes write this store too.
    fn shared(&self) -> bool {
        false
    }

    /// Every session's id, sorted, after `after` (at most `limit`), for `convstate export`.
    fn session_ids(&self, after: &str, limit: usize) -> Result<Vec<String>, StoreError>;

    /// Sessions whose idle deadline is at or before `now`, oldest first, skipping the first
    /// `skip`, at most `limit`: for a node to apply deadlines of sessions no node has loaded (a
    /// shared store only).
    fn due(
        &self,
        _now: DateTime<Utc>,
        _skip: usize,
        _limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }
}

/// The append rule every store keeps: a session's events are numbered 1, 2, 3, ... with no gap
/// and no repeat, so an append must carry the seq after the last one.
pub(crate) fn check_append(session: &str, last: u64, seq: u64) -> Result<(), StoreError> {
    if seq == last + 1 {
        Ok(())
    } else {
        Err(StoreError::new(
            ErrorKind::Conflict,
            format!("session {session}: append of seq {seq} after {last} refused"),
        ))
    }
}

/// The least `--store-max-bytes` a SQLite file may get (each file's share, for a sharded
/// store): room for the schema and for the probe that finds out whether a full store takes
/// writes again (it writes 64 KiB); a smaller quota could never pass it.
pub const MIN_STORE_BYTES: u64 = 1 << 20;

/// How a store is opened.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Most writes one SQLite transaction holds (1: a transaction per write).
    pub batch: usize,
    /// The least time between two checkpoints of the SQLite store's log.
    pub checkpoint: std::time::Duration,
    /// The largest the SQLite file may grow, in bytes; `None` for no limit but the disk's.
    pub max_bytes: Option<u64>,
    /// The prefix of every Redis key, so several deployments can share one Redis.
    pub prefix: String,
    /// How many files (each with its writer) a SQLite store spreads its sessions over.
    pub shards: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            batch: 4096,
            checkpoint: std::time::Duration::from_millis(2),
            max_bytes: None,
            prefix: "convstate".to_string(),
            shards: 1,
        }
    }
}

/// Opens the store a URL names: `memory:` or `sqlite:PATH` (PATH relative to the working
/// directory; its directory is created if missing).
pub fn open(url: &str, options: &Options) -> Result<Arc<dyn Store>, StoreError> {
    if url == "memory:" {
        return Ok(Arc::new(memory::MemoryStore::default()));
    }
    if let Some(path) = url.strip_prefix("sqlite:") {
        if path.is_empty() {
            return Err(StoreError::new(
                ErrorKind::Io,
                "store \"sqlite:\" needs a path: sqlite:data/convstate.db",
            ));
        }
        let path = std::path::Path::new(path);
        if options.shards > 1 {
            return Ok(Arc::new(sharded::ShardedStore::open(path, options)?));
        }
        return Ok(Arc::new(sqlite::SqliteStore::open(path, options, (0, 1))?));
    }
    if options.shards > 1 {
        return Err(StoreError::new(
            ErrorKind::Io,
            format!("store \"{url}\": only a sqlite: store is sharded (--store-shards 1)"),
        ));
    }
    if url.starts_with("redis://") || url.starts_with("rediss://") {
        return Ok(Arc::new(redis::RedisStore::open(url, options)?));
    }
    Err(StoreError::new(
        ErrorKind::Io,
        format!("store \"{url}\": expected memory:, sqlite:PATH or redis://HOST:PORT[/DB]"),
    ))
}

/// Opens a store that must be there already (to read from it: `convstate export`): a
/// `sqlite:` file, or any file of a sharded set, that is missing is refused with its path
/// instead of being created empty.
pub fn open_existing(url: &str, options: &Options) -> Result<Arc<dyn Store>, StoreError> {
    if let Some(path) = url.strip_prefix("sqlite:")
        && !path.is_empty()
    {
        for i in 0..options.shards.max(1) {
            let file = sharded::shard_path(std::path::Path::new(path), i);
            if let Err(e) = std::fs::metadata(&file) {
                return Err(StoreError::new(
                    ErrorKind::Io,
                    format!("{}: {e}: export reads an existing store", file.display()),
                ));
            }
        }
    }
    open(url, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    fn now(c: &mut Committed) -> Option<Result<(), StoreError>> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match Pin::new(c).poll(&mut cx) {
            Poll::Ready(outcome) => Some(outcome),
            Poll::Pending => None,
        }
    }

    #[test]
    fn waiting_for_all_resolves_once_every_one_has_with_the_first_error() {
        let (one, two) = (Waiters::default(), Waiters::default());
        let mut all = Committed::all(vec![one.wait(1), two.wait(2)]);
        assert_eq!(now(&mut all), None);
        let full = StoreError::new(ErrorKind::Full, "disk full");
        two.settle(2, vec![(2, full.clone())]);
        assert_eq!(now(&mut all), None, "one still waits");
        one.settle(1, Vec::new());
        assert_eq!(now(&mut all), Some(Err(full)));
        let mut none = Committed::all(Vec::new());
        assert_eq!(now(&mut none), Some(Ok(())));
    }

    #[test]
    fn waiters_wake_when_their_ticket_settles() {
        let w = Waiters::default();
        let mut a = w.wait(1);
        let mut b = w.wait(3);
        w.settle(2, Vec::new());
        assert_eq!(now(&mut a), Some(Ok(())));
        assert_eq!(now(&mut b), None, "not yet");
        let full = StoreError::new(ErrorKind::Full, "disk full");
        let mut c = w.wait(4);
        w.settle(4, vec![(3, full.clone())]);
        assert_eq!(now(&mut b), Some(Err(full.clone())));
        assert_eq!(now(&mut c), Some(Ok(())), "a later write can succeed");
        let mut d = w.wait(2);
        assert_eq!(now(&mut d), Some(Ok(())), "already committed");
        let mut e = w.wait(3);
        assert_eq!(now(&mut e), Some(Err(full)), "already failed");
    }
}
