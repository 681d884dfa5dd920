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
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, TimeDelta, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use tokio::sync::watch;

use super::{Durable, Event, Store, StoreError, Stored, Write};
use crate::conversation::{Conversation, Phase};

/// `PRAGMA application_id` of convstate's files ("CSTA").
const APPLICATION_ID: i32 = 0x4353_5441;
/// `PRAGMA user_version`: the schema this code writes.
const SCHEMA_VERSION: i32 = 1;

const SCHEMA: &str = "
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    last_seq INTEGER NOT NULL,
    phase TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    idle_deadline_ms INTEGER
) WITHOUT ROWID;
CREATE INDEX sessions_pending ON sessions (idle_deadline_ms) WHERE idle_deadline_ms IS NOT NULL;
CREATE TABLE events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE snapshots (
    session_id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    state TEXT NOT NULL
) WITHOUT ROWID;
";

#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    /// Ticket numbering and the queue, under one lock so tickets reach the writer in order.
    queue: Mutex<Queue>,
    durable: Arc<watch::Sender<Durable>>,
    waiters: Arc<super::Waiters>,
    reader: Mutex<Connection>,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Stops and joins the checkpointing thread.
    checkpoints: Mutex<Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>>,
    /// Holds the file's exclusive lock while the store is open.
    _lock: std::fs::File,
}

/// The last ticket given, and the writer's queue (`None` once closed).
type Queue = (u64, Option<mpsc::Sender<(u64, Write)>>);

fn fail(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("{}: {e}", path.display()))
}

impl SqliteStore {
    /// Opens (or creates) the file, checks it, and starts the writer. `batch` is the most writes
    /// one transaction holds.
    pub fn open(
        path: &Path,
        _retention: TimeDelta,
        batch: usize,
    ) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| fail(dir, format!("cannot create: {e}")))?;
        }
        let lock = lock(path)?;
        check_header(path)?;
        // Check before configuring: switching a file to WAL writes to it, and a file that is
        // not ours must be left exactly as it was.
        let writer = Connection::open(path).map_err(|e| fail(path, e))?;
        check_or_create(&writer, path)?;
        configure(&writer, path)?;
        // Checkpoints copy the log into the database file. Inside the writer they held up every
        // commit behind them (the tail of the ack latency); on another thread alone they can
        // never complete while the writer writes, and the log grew without bound. So a thread
        // copies most of the log every 50 ms without blocking anyone, and the writer's own
        // checkpoint, every 16,000 pages (64 MiB of log at most), finds little left to copy and
        // lets the log restart; rare enough to stay out of the 99th percentile of acks.
        writer
            .execute_batch("PRAGMA wal_autocheckpoint = 16000;")
            .map_err(|e| fail(path, e))?;
        let reader = Connection::open(path).map_err(|e| fail(path, e))?;
        configure(&reader, path)?;
        let checkpointer = Connection::open(path).map_err(|e| fail(path, e))?;
        configure(&checkpointer, path)?;
        let durable = Arc::new(watch::Sender::new(Durable::default()));
        let waiters = Arc::new(super::Waiters::default());
        let (tx, rx) = mpsc::channel();
        let thread = {
            let durable = durable.clone();
            let waiters = waiters.clone();
            let owned = path.to_path_buf();
            let batch = batch.max(1);
            std::thread::Builder::new()
                .name("convstate-store".into())
                .spawn(move || write_loop(writer, rx, durable, waiters, batch, &owned))
                .map_err(|e| fail(path, format!("cannot start the writer: {e}")))?
        };
        let (stop_checkpoints, stopped) = mpsc::channel::<()>();
        let checkpoints = std::thread::Builder::new()
            .name("convstate-checkpoint".into())
            .spawn(move || {
                // PASSIVE never waits for, nor blocks, the writer.
                while let Err(mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(std::time::Duration::from_millis(50))
                {
                    let _ = checkpointer.execute_batch("PRAGMA wal_checkpoint(PASSIVE);");
                }
            })
            .map_err(|e| fail(path, format!("cannot start the checkpointer: {e}")))?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            checkpoints: Mutex::new(Some((stop_checkpoints, checkpoints))),
            queue: Mutex::new((0, Some(tx))),
            durable,
            waiters,
            reader: Mutex::new(reader),
            writer: Mutex::new(Some(thread)),
            _lock: lock,
        })
    }

    fn read<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        let conn = self.reader.lock().unwrap_or_else(|p| p.into_inner());
        f(&conn).map_err(|e| fail(&self.path, e))
    }

    /// Stops queueing and waits until the writer has committed everything queued.
    pub fn close(&self) {
        let sender = self
            .queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .1
            .take();
        drop(sender);
        if let Some(thread) = self.writer.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = thread.join();
        }
        if let Some((stop, thread)) = self
            .checkpoints
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            drop(stop);
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
fn lock(path: &Path) -> Result<std::fs::File, StoreError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| fail(path, format!("cannot open: {e}")))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(fail(
            path,
            "in use by another convstate server; stop it, or name another file with \
             --store sqlite:PATH",
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(fail(path, format!("cannot lock: {e}"))),
    }
}

/// A non-empty file must start as SQLite files do.
fn check_header(path: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(()); // a new file
    };
    let mut header = [0u8; 16];
    let n = file.read(&mut header).map_err(|e| fail(path, e))?;
    if n == 0 {
        return Ok(());
    }
    if n < 16 || &header != b"SQLite format 3\0" {
        return Err(fail(
            path,
            "not a SQLite database; refusing to serve from it (move it away or name another \
             file with --store sqlite:PATH)",
        ));
    }
    Ok(())
}

fn configure(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(|e| fail(path, e))?;
    // WAL: readers do not wait for the writer. FULL: a commit is on disk before it returns.
    // secure_delete: deleted sessions are overwritten, not just unlinked. A 64 MiB page cache
    // and memory-mapped reads: with SQLite's default 2 MB cache, the writer re-read index
    // pages from the file on every transaction (half its time under load).
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;
         PRAGMA cache_size = -65536; PRAGMA mmap_size = 268435456;",
    )
    .map_err(|e| fail(path, e))?;
    Ok(())
}

/// Creates the schema in an empty file; checks that a non-empty one is ours, current and whole.
fn check_or_create(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(|e| fail(path, format!("{e}; refusing to serve from it")))?;
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| fail(path, e))?;
    if tables == 0 && app == 0 {
        conn.execute_batch(&format!(
            "BEGIN; PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION}; {SCHEMA} COMMIT;"
        ))
        .map_err(|e| fail(path, e))?;
        return Ok(());
    }
    if app != APPLICATION_ID {
        return Err(fail(
            path,
            "a SQLite database of another application; refusing to serve from it",
        ));
    }
    let version: i32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| fail(path, e))?;
    if version > SCHEMA_VERSION {
        return Err(fail(
            path,
            format!(
                "written by a newer convstate (schema {version}, this one reads {SCHEMA_VERSION})"
            ),
        ));
    }
    let check: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| fail(path, format!("{e}; refusing to serve from it")))?;
    if check != "ok" {
        return Err(fail(
            path,
            format!("damaged ({check}); refusing to serve from it"),
        ));
    }
    Ok(())
}

/// The writer thread: takes everything queued, commits it in one transaction, publishes the
/// last ticket committed. Stops for good at the first failure.
fn write_loop(
    mut conn: Connection,
    rx: mpsc::Receiver<(u64, Write)>,
    durable: Arc<watch::Sender<Durable>>,
    waiters: Arc<super::Waiters>,
    batch: usize,
    path: &Path,
) {
    let mut last_seqs: HashMap<Arc<str>, u64> = HashMap::new();
    let mut writes = Vec::with_capacity(batch.min(4096));
    while let Ok(first) = rx.recv() {
        writes.clear();
        writes.push(first);
        while writes.len() < batch {
            match rx.try_recv() {
                Ok(w) => writes.push(w),
                Err(_) => break,
            }
        }
        let ticket = writes.last().map_or(0, |(t, _)| *t);
        match commit(&mut conn, &writes, &mut last_seqs) {
            Ok(deleted) => {
                if deleted {
                    // Erasure: deleted rows must leave the write-ahead log too, before the
                    // deletion is reported done.
                    let _ = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
                }
                durable.send_modify(|d| d.committed = ticket);
                waiters.committed(ticket);
            }
            Err(e) => {
                let message = format!("{}: {e}", path.display());
                tracing::error!(error = %message, "the store stopped writing");
                durable.send_modify(|d| d.failed = Some(message.clone().into()));
                waiters.failed(StoreError(message));
                return;
            }
        }
    }
    // Queue closed: everything was committed.
    let _ = conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE);");
}

fn millis(t: &DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn time_text(t: &DateTime<Utc>) -> String {
    let mut buf = [0u8; crate::conversation::time::MAX_LEN];
    crate::conversation::time::format(t, &mut buf).to_string()
}

/// One transaction. Returns whether it deleted a session.
fn commit(
    conn: &mut Connection,
    writes: &[(u64, Write)],
    last_seqs: &mut HashMap<Arc<str>, u64>,
) -> Result<bool, String> {
    let tx = conn.transaction().map_err(|e| e.to_string())?;
    let mut deleted = false;
    // The sessions index is updated once per session per batch, with its latest values.
    let mut index: HashMap<Arc<str>, (u64, Phase, i64, Option<i64>)> = HashMap::new();
    for (_, write) in writes {
        match write {
            Write::Create {
                session,
                created_at,
                idle_deadline,
            } => {
                tx.prepare_cached(
                    "INSERT INTO sessions (id, created_at, last_seq, phase, updated_ms, idle_deadline_ms) VALUES (?1, ?2, 0, 'greeting', ?3, ?4)",
                )
                .and_then(|mut s| {
                    s.execute(params![
                        &**session,
                        time_text(created_at),
                        millis(created_at),
                        idle_deadline.as_ref().map(millis)
                    ])
                })
                .map_err(|e| format!("session {session}: {e}"))?;
                last_seqs.insert(session.clone(), 0);
            }
            Write::Append {
                session,
                event,
                phase,
                idle_deadline,
                snapshot,
            } => {
                let last = match last_seqs.get(session) {
                    Some(seq) => *seq,
                    None => tx
                        .query_row(
                            "SELECT last_seq FROM sessions WHERE id = ?1",
                            [&**session],
                            |r| r.get::<_, i64>(0),
                        )
                        .optional()
                        .map_err(|e| e.to_string())?
                        .map(|s| s as u64)
                        .ok_or_else(|| format!("append to unknown session {session}"))?,
                };
                super::check_append(session, last, event.seq)?;
                let body = serde_json::to_string(event).map_err(|e| e.to_string())?;
                tx.prepare_cached(
                    "INSERT INTO events (session_id, seq, event) VALUES (?1, ?2, ?3)",
                )
                .and_then(|mut s| s.execute(params![&**session, event.seq as i64, body]))
                .map_err(|e| format!("session {session}: {e}"))?;
                if let Some(state) = snapshot {
                    tx.prepare_cached(
                        "INSERT OR REPLACE INTO snapshots (session_id, seq, state) VALUES (?1, ?2, ?3)",
                    )
                    .and_then(|mut s| s.execute(params![&**session, event.seq as i64, state]))
                    .map_err(|e| format!("session {session}: {e}"))?;
                }
                last_seqs.insert(session.clone(), event.seq);
                index.insert(
                    session.clone(),
                    (
                        event.seq,
                        *phase,
                        millis(&event.at),
                        idle_deadline.as_ref().map(millis),
                    ),
                );
            }
            Write::Delete { session } => {
                index.remove(session);
                last_seqs.remove(session);
                for sql in [
                    "DELETE FROM events WHERE session_id = ?1",
                    "DELETE FROM snapshots WHERE session_id = ?1",
                    "DELETE FROM sessions WHERE id = ?1",
                ] {
                    tx.prepare_cached(sql)
                        .and_then(|mut s| s.execute([&**session]))
                        .map_err(|e| e.to_string())?;
                }
                deleted = true;
            }
        }
    }
    for (session, (seq, phase, updated, deadline)) in index {
        tx.prepare_cached(
            "UPDATE sessions SET last_seq = ?2, phase = ?3, updated_ms = ?4, idle_deadline_ms = ?5 WHERE id = ?1",
        )
        .and_then(|mut s| s.execute(params![&*session, seq as i64, phase.as_str(), updated, deadline]))
        .map_err(|e| e.to_string())?;
    }
    tx.commit().map_err(|e| e.to_string())?;
    Ok(deleted)
}

impl Store for SqliteStore {
    fn write(&self, write: Write) -> Result<u64, StoreError> {
        if let Some(failed) = &self.durable.borrow().failed {
            return Err(StoreError(failed.to_string()));
        }
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let ticket = queue.0 + 1;
        let Some(tx) = &queue.1 else {
            return Err(fail(&self.path, "the store is closed"));
        };
        tx.send((ticket, write))
            .map_err(|_| fail(&self.path, "the store stopped writing"))?;
        queue.0 = ticket;
        Ok(ticket)
    }

    fn durable(&self) -> watch::Receiver<Durable> {
        self.durable.subscribe()
    }

    fn queued(&self) -> u64 {
        self.queue.lock().unwrap_or_else(|p| p.into_inner()).0
    }

    fn when_committed(
        &self,
        ticket: u64,
    ) -> tokio::sync::oneshot::Receiver<Result<(), StoreError>> {
        self.waiters.wait(ticket)
    }

    fn load(&self, session: &str) -> Result<Option<Stored>, StoreError> {
        let found = self.read(|c| {
            let Some(created) = c
                .query_row(
                    "SELECT created_at FROM sessions WHERE id = ?1",
                    [session],
                    |r| r.get::<_, String>(0),
                )
                .optional()?
            else {
                return Ok(None);
            };
            let snapshot = c
                .query_row(
                    "SELECT seq, state FROM snapshots WHERE session_id = ?1",
                    [session],
                    |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?)),
                )
                .optional()?;
            let from = snapshot.as_ref().map_or(0, |(seq, _)| *seq);
            let mut stmt = c.prepare_cached(
                "SELECT event FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq",
            )?;
            let events = stmt
                .query_map(params![session, from as i64], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(Some((created, snapshot, events)))
        })?;
        let Some((created, snapshot, events)) = found else {
            return Ok(None);
        };
        let bad = |what: &str, e: &dyn std::fmt::Display| {
            fail(&self.path, format!("session {session}: {what}: {e}"))
        };
        let created_at = created
            .parse::<DateTime<Utc>>()
            .map_err(|e| bad("creation time", &e))?;
        let snapshot = match snapshot {
            Some((seq, json)) => Some((
                seq,
                serde_json::from_str::<Conversation>(&json).map_err(|e| bad("snapshot", &e))?,
            )),
            None => None,
        };
        let events = events
            .iter()
            .map(|e| serde_json::from_str::<Event>(e).map_err(|err| bad("event", &err)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(Stored {
            session_id: session.to_string(),
            created_at,
            snapshot,
            events,
        }))
    }

    fn record_rules(&self, fingerprint: &str) -> Result<Option<String>, StoreError> {
        self.read(|c| {
            // Files written before this table existed get it here (schema 1 either way).
            c.execute_batch(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) \
                 WITHOUT ROWID;",
            )?;
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

    fn events(&self, session: &str, after: u64) -> Result<Option<Vec<Event>>, StoreError> {
        let rows = self.read(|c| {
            let exists = c
                .query_row(
                    "SELECT 1 FROM sessions WHERE id = ?1",
                    [session],
                    |_| Ok(()),
                )
                .optional()?;
            if exists.is_none() {
                return Ok(None);
            }
            let mut stmt = c.prepare_cached(
                "SELECT event FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq",
            )?;
            // seq is stored as a signed integer: past i64::MAX nothing is newer.
            let after = i64::try_from(after).unwrap_or(i64::MAX);
            let rows = stmt
                .query_map(rusqlite::params![session, after], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(Some(rows))
        })?;
        rows.map(|rows| {
            rows.iter()
                .map(|e| {
                    serde_json::from_str(e)
                        .map_err(|err| fail(&self.path, format!("session {session}: event: {err}")))
                })
                .collect()
        })
        .transpose()
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
}
