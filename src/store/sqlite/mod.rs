//! The embedded store: one SQLite file in WAL mode with `synchronous=FULL`.
//!
//! Writes are queued, in order, to one writer thread, which commits everything waiting in a
//! single transaction (group commit): while one commit waits for the disk, the next batch
//! gathers. Readers use their own connection; WAL lets them read while the writer writes.
//!
//! A file that is not a SQLite database, belongs to another application, is damaged or was
//! written by a newer version is refused at start-up with an error naming it: the server never
//! starts empty over a user's data.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::file_identity::{self, Identity};
use super::tickets::Tickets;

use super::{
    Append, Committed, ErrorKind, Event, Health, HealthCell, Options, RECENT_IDS, Receipt,
    SNAPSHOT_EVERY, SNAPSHOTS_KEPT, Store, StoreError, Stored, Waiters, Write,
};
use crate::conversation::{Conversation, Goal, Phase};

mod schema;
mod writer;

pub(crate) use schema::peek;
use schema::*;
use writer::*;

const PROBE_FIRST: Duration = Duration::from_millis(100);
const PROBE_MAX: Duration = Duration::from_secs(5);

/// Sessions whose last `seq` the writer remembers, so appends are checked without a read.
const LAST_SEQS_KEPT: usize = 100_000;

/// A store without writes or reads for this long gives its caches back: the page caches of its
/// writer and reader (up to 64 MiB each, refilled from the file as needed) and the writer's
/// last seqs. A node at rest then holds little more than its sessions in memory.
const QUIET: Duration = Duration::from_secs(1);

/// A failed commit of a transient kind (busy, full, I/O) is tried again after these pauses
/// before its writes are given up: a passing hiccup costs latency, not turns.
const RETRY_PAUSES: [Duration; 2] = [Duration::from_millis(20), Duration::from_millis(100)];

#[derive(Debug)]
pub(crate) struct SqliteStore {
    path: PathBuf,
    /// Ticket numbering and the writer's queue.
    queue: Tickets<mpsc::Sender<Queued>>,
    shared: Arc<Shared>,
    /// Shared with the writer thread, which shrinks its cache when the store is quiet.
    reader: Arc<Mutex<Connection>>,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The checkpointing thread (it ends after the writer: joined at close).
    checkpoints: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Holds the file's exclusive lock while the store is open.
    _lock: std::fs::File,
}

/// What the writer thread shares with the store's callers.
#[derive(Debug, Default)]
struct Shared {
    waiters: Waiters,
    health: HealthCell,
    /// Read since the writer last looked: the store is not quiet yet.
    read: AtomicBool,
    /// How many times the caches were given back (for the tests).
    releases: AtomicU64,
}

/// A write on its way to the writer thread, with its event already encoded (JSON) for an
/// append: encoding is the caller's work, not the one writer's.
type Queued = (u64, Write, Option<String>, Option<Receipt>);

fn fail(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::new(ErrorKind::Io, format!("{}: {e}", path.display()))
}

/// The kind of a SQLite error.
fn kind_of(e: &rusqlite::Error) -> ErrorKind {
    use rusqlite::ErrorCode as C;
    // A value of another type than its column's (a row written by hand): the row is bad.
    if matches!(
        e,
        rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::IntegralValueOutOfRange(..)
    ) {
        return ErrorKind::Corrupt;
    }
    match e.sqlite_error_code() {
        Some(C::DatabaseBusy | C::DatabaseLocked) => ErrorKind::Busy,
        Some(C::DiskFull) => ErrorKind::Full,
        Some(C::DatabaseCorrupt | C::NotADatabase) => ErrorKind::Corrupt,
        _ => ErrorKind::Io,
    }
}

fn sql_error(path: &Path, e: &rusqlite::Error) -> StoreError {
    StoreError::new(kind_of(e), format!("{}: {e}", path.display()))
}

impl SqliteStore {
    /// Opens (or creates) the file, checks it (migrating an older schema), and starts the
    /// writer.
    ///
    /// `shard` is this file's place in a sharded store, `(index, count)` (`(0, 1)` for a store
    /// of one file): recorded in a new file, and checked against an existing one, so a file is
    /// never served as a shard it is not.
    pub(crate) fn open(
        path: &Path,
        options: &Options,
        shard: (usize, usize),
    ) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| fail(dir, format!("cannot create: {e}")))?;
        }
        let lock = lock(path)?;
        check_header(path)?;
        // Check before configuring: switching a file to WAL writes to it, and a file that is
        // not ours must be left exactly as it was.
        let writer = Connection::open(path).map_err(|e| fail(path, e))?;
        check_or_create(&writer, path, shard)?;
        configure(&writer, path)?;
        // Checkpoints copy the log into the database file. Inside the writer they held up every
        // commit behind them (the tail of the ack latency); on another thread alone they can
        // never complete while the writer writes, and the log grew without bound. So a thread
        // copies the log after commits, at most every `options.checkpoint` (2 ms by default),
        // without blocking anyone, and the writer's own checkpoint, every 16,000 pages (64 MiB of log at most),
        // finds little left to copy and lets the log restart.
        writer
            .execute_batch("PRAGMA wal_autocheckpoint = 16000;")
            .map_err(|e| fail(path, e))?;
        if let Some(max) = options.max_bytes {
            // SQLite's own limit: a transaction that would grow the file past it fails with
            // SQLITE_FULL, as a full disk does (the write-ahead log is outside it).
            let page: i64 = writer
                .query_row("PRAGMA page_size", [], |r| r.get(0))
                .map_err(|e| fail(path, e))?;
            let pages = (max / page.max(512) as u64).max(1);
            let set: i64 = writer
                .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |r| {
                    r.get(0)
                })
                .map_err(|e| fail(path, e))?;
            if (set as u64) < pages {
                tracing::warn!(
                    file = %path.display(),
                    pages = set,
                    "the file is already larger than --store-max-bytes: it takes no more writes \
                     until sessions are deleted"
                );
            }
        }
        let reader = Connection::open(path).map_err(|e| fail(path, e))?;
        configure(&reader, path)?;
        let checkpointer = Connection::open(path).map_err(|e| fail(path, e))?;
        configure(&checkpointer, path)?;
        // It only copies the log into the file: SQLite's default cache is enough.
        checkpointer
            .execute_batch("PRAGMA cache_size = -2000;")
            .map_err(|e| fail(path, e))?;
        let reader = Arc::new(Mutex::new(reader));
        let shared = Arc::new(Shared::default());
        let (tx, rx) = mpsc::channel();
        // The writer wakes the checkpointer after its commits (an idle server checkpoints
        // nothing); the checkpointer stops when the writer is gone.
        let (wake, wakes) = mpsc::sync_channel::<()>(1);
        let thread = {
            let shared = shared.clone();
            let owned = path.to_path_buf();
            let batch = options.batch.max(1);
            let reader = reader.clone();
            std::thread::Builder::new()
                .name("convstate-store".into())
                .spawn(move || Writer::new(writer, shared, batch, owned, wake, reader).run(rx))
                .map_err(|e| fail(path, format!("cannot start the writer: {e}")))?
        };
        let spacing = options.checkpoint;
        let checkpoints = std::thread::Builder::new()
            .name("convstate-checkpoint".into())
            .spawn(move || {
                while wakes.recv().is_ok() {
                    // PASSIVE never waits for, nor blocks, the writer.
                    let _ = checkpointer.execute_batch("PRAGMA wal_checkpoint(PASSIVE);");
                    std::thread::sleep(spacing);
                }
            })
            .map_err(|e| fail(path, format!("cannot start the checkpointer: {e}")))?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            checkpoints: Mutex::new(Some(checkpoints)),
            queue: Tickets::new(tx),
            shared,
            reader,
            writer: Mutex::new(Some(thread)),
            _lock: lock,
        })
    }

    fn read<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        let conn = self.reader.lock().unwrap_or_else(|p| p.into_inner());
        self.shared.read.store(true, Ordering::Relaxed);
        f(&conn).map_err(|e| sql_error(&self.path, &e))
    }

    /// A page of a session's JSON rows (`sql` takes the session, the number after which to
    /// start, and the page's size), each read back as a `T`; `None` for an unknown session.
    /// `what` names the row in a corruption's error.
    fn page<T: serde::de::DeserializeOwned>(
        &self,
        session: &str,
        sql: &str,
        after: u64,
        limit: usize,
        what: &str,
    ) -> Result<Option<Vec<T>>, StoreError> {
        let rows = self.read(|c| {
            if !exists(c, session)? {
                return Ok(None);
            }
            // Numbers are stored as signed integers: past i64::MAX nothing is newer.
            let after = i64::try_from(after).unwrap_or(i64::MAX);
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = c
                .prepare_cached(sql)?
                .query_map(params![session, after, limit], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(Some(rows))
        })?;
        rows.map(|rows| {
            rows.iter()
                .map(|e| serde_json::from_str(e).map_err(|err| self.corrupt(session, what, err)))
                .collect()
        })
        .transpose()
    }

    fn corrupt(&self, session: &str, what: &str, e: impl std::fmt::Display) -> StoreError {
        StoreError::new(
            ErrorKind::Corrupt,
            format!("{}: session {session}: {what}: {e}", self.path.display()),
        )
    }

    /// Stops queueing and waits until the writer has committed everything queued.
    pub(crate) fn close(&self) {
        self.queue.close();
        if let Some(thread) = self.writer.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = thread.join();
        }
        if let Some(thread) = self
            .checkpoints
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = thread.join();
        }
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.close();
    }
}

/// One server per file: a second one would append the same `seq`s as the first, whose writer
/// would then stop on the conflict. The lock is the operating system's (`flock`, apart from
/// SQLite's own locks), so a killed server leaves none behind. Taking it writes nothing.
impl Store for SqliteStore {
    fn write(&self, write: Write, receipt: Option<Receipt>) -> Result<u64, StoreError> {
        if !write.taken_while_failing()
            && let Some(cause) = self.refusing()
        {
            return Err(StoreError::new(
                cause.kind,
                format!("the store is failing: {cause}"),
            ));
        }
        // Encoded here, by the caller, before the queue's lock: the writer thread, the ceiling
        // of a file's durable rate, only binds it.
        let body = match &write {
            Write::Append(append) => Some(serde_json::to_string(&append.event).map_err(|e| {
                StoreError::new(ErrorKind::Io, format!("cannot encode the event: {e}"))
            })?),
            _ => None,
        };
        self.queue.queue(
            &self.path.display().to_string(),
            &self.shared.waiters,
            &self.shared.health,
            |ticket| (ticket, write, body, receipt),
        )
    }

    fn committed(&self, ticket: u64) -> Committed {
        self.shared.waiters.wait(ticket)
    }

    fn committed_all(&self) -> Committed {
        self.shared.waiters.wait(self.queue.last())
    }

    fn health(&self) -> Health {
        self.shared.health.get()
    }

    fn refusing(&self) -> Option<StoreError> {
        self.shared.health.refusing()
    }

    fn load(&self, session: &str, at: u64, through: u64) -> Result<Option<Stored>, StoreError> {
        // seq is stored as a signed integer: past i64::MAX means everything.
        let at = i64::try_from(at).unwrap_or(i64::MAX);
        let through = i64::try_from(through).unwrap_or(i64::MAX);
        let found = self.read(|c| {
            let Some((created, owner)) = c
                .query_row(
                    "SELECT created_at, owner FROM sessions WHERE id = ?1",
                    [session],
                    |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)),
                )
                .optional()?
            else {
                return Ok(None);
            };
            let snapshot = c
                .prepare_cached(
                    "SELECT seq, state, recent_ids FROM snapshots WHERE session_id = ?1 AND seq <= ?2 ORDER BY seq DESC LIMIT 1",
                )?
                .query_row(params![session, at], |r| {
                    Ok((
                        r.get::<_, i64>(0)? as u64,
                        r.get::<_, String>(1)?,
                        r.get::<_, Option<String>>(2)?,
                    ))
                })
                .optional()?;
            let from = snapshot.as_ref().map_or(0, |(seq, _, _)| *seq);
            let events = c
                .prepare_cached(
                    "SELECT event FROM events WHERE session_id = ?1 AND seq > ?2 AND seq <= ?3 ORDER BY seq",
                )?
                .query_map(params![session, from as i64, through], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            // The client ids as of the snapshot; the fold adds those of the events after it.
            let ids = match &snapshot {
                Some((_, _, Some(ids))) => Ids::Json(ids.clone()),
                Some((seq, _, None)) => Ids::Read(ids_from_log(c, session, *seq)?),
                None => Ids::Read(Vec::new()),
            };
            let snapshot = snapshot.map(|(seq, state, _)| (seq, state));
            Ok(Some((created, owner, snapshot, events, ids)))
        })?;
        let Some((created, owner, snapshot, events, ids)) = found else {
            return Ok(None);
        };
        let recent_ids = match ids {
            Ids::Read(ids) => ids,
            Ids::Json(json) => serde_json::from_str::<Vec<(String, u64)>>(&json)
                .map_err(|e| self.corrupt(session, "client ids", e))?,
        };
        let created_at = created
            .parse::<DateTime<Utc>>()
            .map_err(|e| self.corrupt(session, "creation time", e))?;
        let snapshot = match snapshot {
            Some((seq, json)) => Some((
                seq,
                serde_json::from_str::<Conversation>(&json)
                    .map_err(|e| self.corrupt(session, "snapshot", e))?,
            )),
            None => None,
        };
        let events = events
            .iter()
            .map(|e| {
                serde_json::from_str::<Event>(e).map_err(|err| self.corrupt(session, "event", err))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(Stored {
            session_id: session.to_string(),
            created_at,
            owner,
            snapshot,
            events,
            recent_ids,
        }))
    }

    fn record_rules(&self, fingerprint: &str) -> Result<Option<String>, StoreError> {
        self.read(|c| {
            let before: Option<String> = c
                .query_row("SELECT value FROM meta WHERE key = 'rules'", [], |r| {
                    r.get(0)
                })
                .optional()?;
            c.execute(
                "INSERT INTO meta (key, value) VALUES ('rules', ?1) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [fingerprint],
            )?;
            Ok(before.filter(|b| b != fingerprint))
        })
    }

    fn events(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Event>>, StoreError> {
        self.page(
            session,
            "SELECT event FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
            after,
            limit,
            "event",
        )
    }

    fn goals(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Goal>>, StoreError> {
        self.page(
            session,
            "SELECT goal FROM goals WHERE session_id = ?1 AND n > ?2 ORDER BY n LIMIT ?3",
            after,
            limit,
            "goal",
        )
    }

    fn goals_stored(&self, session: &str) -> Result<u64, StoreError> {
        self.read(|c| {
            c.query_row(
                "SELECT coalesce(max(n), 0) FROM goals WHERE session_id = ?1",
                [session],
                |r| r.get::<_, i64>(0),
            )
        })
        .map(|n| n as u64)
    }

    fn pending_deadlines(&self) -> Result<Vec<(String, DateTime<Utc>)>, StoreError> {
        self.read(|c| {
            let mut stmt = c.prepare(
                "SELECT id, idle_deadline_ms FROM sessions WHERE idle_deadline_ms IS NOT NULL",
            )?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows
                .into_iter()
                .filter_map(|(id, ms)| DateTime::from_timestamp_millis(ms).map(|t| (id, t)))
                .collect())
        })
    }

    fn expired(&self, before: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        self.read(|c| {
            let mut stmt = c.prepare(
                "SELECT id FROM sessions WHERE phase IN ('idle', 'completed') AND updated_ms < ?1",
            )?;
            let rows = stmt
                .query_map([millis(&before)], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    fn close(&self) {
        SqliteStore::close(self);
    }

    fn describe(&self) -> String {
        format!("sqlite:{}", self.path.display())
    }

    fn session_ids(&self, after: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.read(|c| {
            let mut stmt =
                c.prepare_cached("SELECT id FROM sessions WHERE id > ?1 ORDER BY id LIMIT ?2")?;
            let rows = stmt.query_map(rusqlite::params![after, limit], |r| r.get(0))?;
            rows.collect()
        })
    }
}

fn exists(c: &Connection, session: &str) -> rusqlite::Result<bool> {
    Ok(c.query_row(
        "SELECT 1 FROM sessions WHERE id = ?1",
        [session],
        |_| Ok(()),
    )
    .optional()?
    .is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn releases(store: &SqliteStore) -> u64 {
        store.shared.releases.load(Ordering::Relaxed)
    }

    /// Whether `done` comes true within 10 s.
    fn within_10s(done: impl Fn() -> bool) -> bool {
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            if done() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Waits (up to 10 s) until the store has given its caches back more than `after` times.
    fn released_after(store: &SqliteStore, after: u64) -> bool {
        within_10s(|| releases(store) > after)
    }

    /// A session whose newest snapshot predates schema 4 (no ids with it): its client ids are
    /// read from its last [`IDS_LOOK_BACK`] events only, the newest [`RECENT_IDS`] of them.
    #[test]
    fn ids_of_an_old_snapshot_come_from_the_last_events_of_the_log_only() {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(SCHEMA).unwrap();
        let last = 1_100u64;
        for seq in 1..=last {
            let id = (seq <= 50 || seq > 1_000).then(|| format!("c-{seq}"));
            c.execute(
                "INSERT INTO events (session_id, seq, event, client_id) VALUES ('s', ?1, '{}', ?2)",
                params![seq as i64, id],
            )
            .unwrap();
        }
        c.execute(
            "INSERT INTO snapshots (session_id, seq, state, recent_ids) VALUES ('s', 1024, '{}', NULL)",
            [],
        )
        .unwrap();
        let ids = ids_as_of(&c, "s", last).unwrap();
        let seqs: Vec<u64> = ids.iter().map(|(_, seq)| *seq).collect();
        // Seqs 1 to 50 lie more than 1,024 events back: not read.
        assert_eq!(seqs, (1_001..=last).collect::<Vec<_>>());
        assert_eq!(ids[0].0, "c-1001");
        // Within reach, only the newest RECENT_IDS are kept.
        let ids = ids_from_log(&c, "s", 1_050).unwrap();
        let seqs: Vec<u64> = ids.iter().map(|(_, seq)| *seq).collect();
        let reach: Vec<u64> = (27..=50).chain(1_001..=1_050).collect();
        assert_eq!(seqs, reach, "1,024 events back from 1,050: from seq 27 on");
        for seq in 301..=1_000u64 {
            c.execute(
                "UPDATE events SET client_id = ?1 WHERE session_id = 's' AND seq = ?2",
                params![format!("c-{seq}"), seq as i64],
            )
            .unwrap();
        }
        let ids = ids_from_log(&c, "s", last).unwrap();
        assert_eq!(ids.len(), RECENT_IDS);
        assert_eq!(ids.last().map(|(_, seq)| *seq), Some(last));
        assert_eq!(ids[0].1, last + 1 - RECENT_IDS as u64);
    }

    #[test]
    fn a_quiet_store_gives_its_caches_back_once_until_it_is_used_again() {
        let dir = std::env::temp_dir().join(format!("convstate-quiet-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = SqliteStore::open(&dir.join("q.db"), &Options::default(), (0, 1)).unwrap();
        let ticket = store
            .write(
                Write::Create {
                    session: "s-1".into(),
                    created_at: Utc::now(),
                    idle_deadline: None,
                    owner: None,
                },
                None,
            )
            .unwrap();
        assert!(
            within_10s(|| store.load("s-1", u64::MAX, u64::MAX).unwrap().is_some()),
            "ticket {ticket} never committed"
        );
        assert!(
            released_after(&store, 0),
            "released after a write and a read"
        );
        let once = releases(&store);
        // Quiet since: nothing more to give back.
        std::thread::sleep(QUIET * 3);
        assert_eq!(releases(&store), once, "released again without use");
        // A read alone warms the reader's cache: it is given back too.
        assert!(store.load("s-1", u64::MAX, u64::MAX).unwrap().is_some());
        assert!(released_after(&store, once), "released after a read");
        store.close();
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A writer held up (another process holds the file's write lock) while writes keep
    /// coming: past [`MAX_QUEUED`](super::super::MAX_QUEUED) waiting, a write is refused at
    /// once as busy; once the writer goes on, every write taken is committed.
    #[test]
    fn the_write_queue_is_bounded() {
        let dir = std::env::temp_dir().join(format!("convstate-queue-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("q.db");
        let store = SqliteStore::open(&path, &Options::default(), (0, 1)).unwrap();
        let create = |n: usize| Write::Create {
            session: format!("s-{n}").into(),
            created_at: Utc::now(),
            idle_deadline: None,
            owner: None,
        };
        let first = store.write(create(0), None).unwrap();
        assert!(within_10s(|| store.shared.waiters.settled() >= first));
        // Another connection takes the write lock: the writer waits (its busy timeout, 5 s).
        let blocker = Connection::open(&path).unwrap();
        blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
        let mut taken = Vec::new();
        let mut refused = None;
        for n in 1..=super::super::MAX_QUEUED + 10 {
            match store.write(create(n), None) {
                Ok(ticket) => taken.push(ticket),
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        let refused = refused.expect("a write past the bound is refused");
        assert_eq!(refused.kind, ErrorKind::Busy, "{refused}");
        assert!(
            refused.message.contains("waiting for the disk"),
            "{refused}"
        );
        assert!(taken.len() <= super::super::MAX_QUEUED + 1);
        blocker.execute_batch("ROLLBACK").unwrap();
        let last = *taken.last().unwrap();
        assert!(within_10s(|| store.shared.waiters.settled() >= last));
        assert_eq!(
            store.session_ids("", usize::MAX).unwrap().len(),
            taken.len() + 1
        );
        store.close();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
