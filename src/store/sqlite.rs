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

/// `PRAGMA application_id` of convstate's files ("CSTA").
const APPLICATION_ID: i32 = 0x4353_5441;
/// `PRAGMA user_version`: the schema this code writes. 1 had one snapshot per session and no
/// index of client ids or goals; 2 had no owner per session; 3 kept an index of every event's
/// client id (one more page written per change). All are migrated in place.
const SCHEMA_VERSION: i32 = 4;

const SCHEMA: &str = "
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    last_seq INTEGER NOT NULL,
    phase TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    idle_deadline_ms INTEGER,
    owner TEXT
) WITHOUT ROWID;
CREATE INDEX sessions_pending ON sessions (idle_deadline_ms) WHERE idle_deadline_ms IS NOT NULL;
CREATE TABLE events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    client_id TEXT,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE snapshots (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    recent_ids TEXT,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE goals (
    session_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    goal TEXT NOT NULL,
    PRIMARY KEY (session_id, n)
) WITHOUT ROWID;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE probe (x BLOB);
";

/// Schema 1 to 2, in one transaction: the client id of each event gets a column and an index;
/// snapshots are kept several per session; the goals each snapshot holds start the history
/// table (goals finished after a session's snapshot are added when the session is next
/// loaded, by the fold of its log); snapshots gain the history totals.
const MIGRATE_1_TO_2: &str = "
ALTER TABLE events ADD COLUMN client_id TEXT;
UPDATE events SET client_id = json_extract(event, '$.id');
CREATE INDEX events_client_ids ON events (session_id, seq) WHERE client_id IS NOT NULL;
CREATE TABLE snapshots_2 (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
INSERT INTO snapshots_2 (session_id, seq, state)
    SELECT session_id, seq, json_set(state,
        '$.completed_goals_total', json_array_length(state, '$.completed_goals'),
        '$.abandoned_goals_total', (SELECT count(*) FROM json_each(state, '$.completed_goals')
                                    WHERE json_extract(value, '$.status') = 'abandoned'))
    FROM snapshots;
DROP TABLE snapshots;
ALTER TABLE snapshots_2 RENAME TO snapshots;
CREATE TABLE goals (
    session_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    goal TEXT NOT NULL,
    PRIMARY KEY (session_id, n)
) WITHOUT ROWID;
INSERT INTO goals (session_id, n, goal)
    SELECT s.session_id, g.key + 1, g.value FROM snapshots s, json_each(s.state, '$.completed_goals') g;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE probe (x BLOB);
PRAGMA user_version = 2;
";

/// Schema 2 to 3: sessions gain their owner (the subject of the token that created them).
/// Sessions created before have none: only an admin or a token naming them opens them.
const MIGRATE_2_TO_3: &str = "
ALTER TABLE sessions ADD COLUMN owner TEXT;
PRAGMA user_version = 3;
";

/// Schema 3 to 4: the last client ids of a session are kept with each snapshot (JSON
/// `[[id, seq], ...]`, oldest first, as of its `seq`) instead of in an index of every event,
/// which cost a page written per change. Snapshots written before have none: loading such a
/// session reads the ids from its log, once, until its next snapshot.
const MIGRATE_3_TO_4: &str = "
ALTER TABLE snapshots ADD COLUMN recent_ids TEXT;
DROP INDEX IF EXISTS events_client_ids;
PRAGMA user_version = 4;
";

/// After a failed commit, the store probes the disk after this long, then twice as long after
/// each failed probe, up to [`PROBE_MAX`].
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
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::new(
            ErrorKind::Busy,
            format!(
                "{}: in use by another convstate server; stop it, or name another file with \
                 --store sqlite:PATH",
                path.display()
            ),
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
    conn.busy_timeout(Duration::from_secs(5))
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

/// Creates the schema in an empty file; checks that a non-empty one is ours, current (or
/// migrates it from an older schema) and whole.
fn check_or_create(
    conn: &Connection,
    path: &Path,
    (index, count): (usize, usize),
) -> Result<(), StoreError> {
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(|e| fail(path, format!("{e}; refusing to serve from it")))?;
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| fail(path, e))?;
    if tables == 0 && app == 0 {
        conn.execute_batch(&format!(
            "BEGIN; PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION}; {SCHEMA}
             INSERT INTO meta (key, value) VALUES ('shard', '{index}/{count}'); COMMIT;"
        ))
        .map_err(|e| fail(path, e))?;
        return Ok(());
    }
    let version = check_ours(conn, path, app)?;
    let check: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| fail(path, format!("{e}; refusing to serve from it")))?;
    if check != "ok" {
        return Err(fail(
            path,
            format!("damaged ({check}); refusing to serve from it"),
        ));
    }
    // Before any migration, which would change a file refused here.
    check_place(conn, path, (index, count))?;
    if version < SCHEMA_VERSION {
        // Every step from the file's schema to ours, in one transaction: all or nothing.
        let steps = [
            (1, MIGRATE_1_TO_2),
            (2, MIGRATE_2_TO_3),
            (3, MIGRATE_3_TO_4),
        ];
        let script: String = steps
            .iter()
            .filter(|(from, _)| *from >= version)
            .map(|(_, sql)| *sql)
            .collect();
        conn.execute_batch(&format!("BEGIN; {script} COMMIT;"))
            .map_err(|e| {
                let _ = conn.execute_batch("ROLLBACK;");
                fail(
                    path,
                    format!("cannot migrate schema {version} to {SCHEMA_VERSION}: {e}"),
                )
            })?;
        tracing::info!(file = %path.display(), "migrated the store from schema {version} to {SCHEMA_VERSION}");
    }
    Ok(())
}

/// A file that is ours (`app`: its application id) and not newer than this code: its schema
/// version.
fn check_ours(conn: &Connection, path: &Path, app: i32) -> Result<i32, StoreError> {
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
    Ok(version)
}

/// The file records the place `(index, count)` in a sharded store.
fn check_place(
    conn: &Connection,
    path: &Path,
    (index, count): (usize, usize),
) -> Result<(), StoreError> {
    // Files written before stores were sharded record nothing (schema 1 has no meta table): a
    // store of one file.
    let meta: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get(0),
        )
        .map_err(|e| fail(path, e))?;
    let recorded: Option<String> = if meta == 0 {
        None
    } else {
        conn.query_row("SELECT value FROM meta WHERE key = 'shard'", [], |r| {
            r.get(0)
        })
        .optional()
        .map_err(|e| fail(path, e))?
    };
    let recorded = recorded.unwrap_or_else(|| "0/1".to_string());
    let expected = format!("{index}/{count}");
    if recorded != expected {
        let (i, n) = recorded.split_once('/').unwrap_or((&recorded, "?"));
        let i = i
            .parse::<usize>()
            .map_or_else(|_| i.to_string(), |i| (i + 1).to_string());
        return Err(fail(
            path,
            format!(
                "file {i} of a store of {n} file(s), opened as file {} of {count}; start the \
                 server with --store-shards {n}, or move the files to another store with \
                 convstate export and import (docs/storage.md)",
                index + 1
            ),
        ));
    }
    Ok(())
}

/// Reads, changing nothing, whether an existing file is ours, not newer, and recorded at
/// `shard`; returns how many sessions it holds. For a sharded store to check every file of
/// its set before opening (and perhaps migrating) any.
pub(crate) fn peek(path: &Path, shard: (usize, usize)) -> Result<u64, StoreError> {
    check_header(path)?;
    let conn = Connection::open(path).map_err(|e| fail(path, e))?;
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| fail(path, format!("{e}; refusing to serve from it")))?;
    check_ours(&conn, path, app)?;
    check_place(&conn, path, shard)?;
    conn.query_row("SELECT count(*) FROM sessions", [], |r| r.get::<_, i64>(0))
        .map(|n| n as u64)
        .map_err(|e| fail(path, format!("{e}; refusing to serve from it")))
}

/// The writer thread's state: takes everything queued, commits it in one transaction, and
/// settles each write (its receipt, then the waiters). A commit that fails for a transient
/// reason is tried again; one that still fails gives up its writes, and the store refuses
/// writes until a probe of the disk succeeds.
struct Writer {
    conn: Connection,
    shared: Arc<Shared>,
    batch: usize,
    path: PathBuf,
    /// The last `seq` of sessions appended to, so appends are checked without a read.
    last_seqs: HashMap<Arc<str>, u64>,
    /// While failing: when to probe next, and the pause after that.
    probe: Option<(Instant, Duration)>,
    /// Wakes the checkpointer.
    wake: mpsc::SyncSender<()>,
    /// The store's reader, whose cache is released with the writer's.
    reader: Arc<Mutex<Connection>>,
    /// Written to or read since the caches were last released.
    warm: bool,
    /// The file's identity when it was opened; `gone` once it was deleted or replaced.
    identity: Option<Identity>,
    gone: bool,
}

impl Writer {
    fn new(
        conn: Connection,
        shared: Arc<Shared>,
        batch: usize,
        path: PathBuf,
        wake: mpsc::SyncSender<()>,
        reader: Arc<Mutex<Connection>>,
    ) -> Writer {
        Writer {
            conn,
            shared,
            batch,
            last_seqs: HashMap::new(),
            probe: None,
            wake,
            reader,
            warm: false,
            identity: Identity::of(&path),
            gone: false,
            path,
        }
    }

    /// Whether the file was deleted or replaced under the server. The first time: what the
    /// connection holds is saved to a new file, and writes are refused from then on (until a
    /// restart, which opens the file at the path).
    fn file_gone(&mut self) -> bool {
        if self.gone {
            return true;
        }
        let Some(identity) = self.identity else {
            return false;
        };
        if Identity::of(&self.path) == Some(identity) {
            return false;
        }
        self.gone = true;
        let saved = match file_identity::rescue(&self.conn, &self.path) {
            Ok(to) => format!("everything acknowledged was saved to {}", to.display()),
            Err(e) => format!("saving what was acknowledged failed ({e})"),
        };
        let cause = StoreError::new(
            ErrorKind::Io,
            format!(
                "{}: the database file was deleted or replaced while the server ran; writes \
                 are refused until a restart; {saved}",
                self.path.display()
            ),
        );
        tracing::error!(error = %cause, "the store's file is gone");
        self.failing(cause);
        true
    }

    fn run(mut self, rx: mpsc::Receiver<Queued>) {
        let mut writes: Vec<Queued> = Vec::with_capacity(self.batch.min(4096));
        loop {
            let first = match self.probe {
                // Awake every QUIET: a second without writes and reads releases the caches.
                None => match rx.recv_timeout(QUIET) {
                    Ok(w) => Some(w),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        // A quiet server notices a vanished file within a second too.
                        self.file_gone();
                        if self.shared.read.swap(false, Ordering::Relaxed) {
                            self.warm = true;
                        } else if self.warm {
                            self.release();
                        }
                        None
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                },
                Some((at, _)) => {
                    match rx.recv_timeout(at.saturating_duration_since(Instant::now())) {
                        Ok(w) => Some(w),
                        Err(mpsc::RecvTimeoutError::Timeout) => None,
                        Err(mpsc::RecvTimeoutError::Disconnected) => break,
                    }
                }
            };
            if self.probe.is_some_and(|(at, _)| Instant::now() >= at) {
                self.probe_disk();
            }
            let Some(first) = first else { continue };
            writes.push(first);
            while writes.len() < self.batch {
                match rx.try_recv() {
                    Ok(w) => writes.push(w),
                    Err(_) => break,
                }
            }
            self.commit_batch(&mut writes);
        }
        // Queue closed: everything was committed.
        let _ = self.conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE);");
    }

    /// The store has been quiet (no write, no read) for [`QUIET`]: the page caches of the
    /// writer and the reader go back to the allocator, and so do the last seqs (each holds a
    /// session's id). A reader busy right now is released at the next quiet second.
    fn release(&mut self) {
        let _ = self.conn.release_memory();
        self.last_seqs = HashMap::new();
        let reader = match self.reader.try_lock() {
            Ok(reader) => reader,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        let _ = reader.release_memory();
        self.warm = false;
        self.shared.releases.fetch_add(1, Ordering::Relaxed);
    }

    /// Commits `writes` (trying a transient failure again) and settles each of them.
    fn commit_batch(&mut self, writes: &mut Vec<Queued>) {
        self.warm = true;
        let last = writes.last().map_or(0, |(t, _, _, _)| *t);
        if self.last_seqs.len() > LAST_SEQS_KEPT {
            // A cache: sessions no longer written to leave it; a miss reads the index.
            self.last_seqs.clear();
        }
        let mut attempt = 0;
        let outcome = loop {
            if self.file_gone() {
                break Err(self.shared.health.refusing().unwrap_or_else(|| {
                    StoreError::new(ErrorKind::Io, "the database file is gone")
                }));
            }
            match commit(&mut self.conn, writes, &mut self.last_seqs) {
                Ok(outcome) => break Ok(outcome),
                Err(e) => {
                    // What the failed transaction appended is not there: read seqs anew.
                    self.last_seqs.clear();
                    let kind = kind_of(&e);
                    match RETRY_PAUSES.get(attempt) {
                        Some(pause) if kind.is_transient() => {
                            attempt += 1;
                            std::thread::sleep(*pause);
                        }
                        _ => break Err(sql_error(&self.path, &e)),
                    }
                }
            }
        };
        let failures = match outcome {
            Ok(Batch { refused, deleted }) => {
                if deleted {
                    self.erase();
                }
                let mut refused = refused.into_iter().peekable();
                let mut failures = Vec::new();
                for (ticket, _, _, receipt) in writes.drain(..) {
                    let outcome = match refused.next_if(|(t, _)| *t == ticket) {
                        Some((_, e)) => {
                            failures.push((ticket, e.clone()));
                            Err(e)
                        }
                        None => Ok(()),
                    };
                    if let Some(receipt) = receipt {
                        receipt(outcome);
                    }
                }
                failures
            }
            Err(e) => {
                tracing::error!(error = %e, writes = writes.len(), "a commit failed: its changes were refused");
                self.failing(e.clone());
                let mut failures = Vec::new();
                for (ticket, _, _, receipt) in writes.drain(..) {
                    if let Some(receipt) = receipt {
                        receipt(Err(e.clone()));
                    }
                    failures.push((ticket, e.clone()));
                }
                failures
            }
        };
        self.shared.waiters.settle(last, failures);
        // Full: the checkpointer is awake already.
        let _ = self.wake.try_send(());
    }

    /// Erasure: the deleted rows (overwritten, `secure_delete`) must reach the database file
    /// and leave the write-ahead log before a deletion is reported done. A checkpoint that
    /// meets the checkpointing thread's own returns busy with the file still holding old
    /// pages, so it is tried again (for up to 2 s).
    fn erase(&mut self) {
        for _ in 0..200 {
            let busy: rusqlite::Result<i64> =
                self.conn
                    .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0));
            if matches!(busy, Ok(0)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        tracing::warn!(file = %self.path.display(), "the write-ahead log could not be truncated after a deletion");
    }

    /// Writes are refused from now on, until a probe of the disk succeeds.
    fn failing(&mut self, cause: StoreError) {
        self.shared.health.set_failing(cause);
        if self.probe.is_none() {
            self.probe = Some((Instant::now() + PROBE_FIRST, PROBE_FIRST));
        }
    }

    fn recovered(&mut self) {
        self.probe = None;
        self.shared.health.set_ready();
        tracing::info!(file = %self.path.display(), "the store takes writes again");
    }

    /// A small transaction that allocates pages and writes them through the write-ahead log,
    /// as appends do: when it commits, the fault has passed.
    fn probe_disk(&mut self) {
        if self.gone {
            self.probe = Some((Instant::now() + PROBE_MAX, PROBE_MAX));
            return;
        }
        let result = (|| {
            let tx = self.conn.transaction()?;
            tx.execute("INSERT INTO probe (x) VALUES (zeroblob(65536))", [])?;
            tx.execute("DELETE FROM probe", [])?;
            tx.commit()
        })();
        match result {
            Ok(()) => self.recovered(),
            Err(e) => {
                let pause = self
                    .probe
                    .map_or(PROBE_FIRST, |(_, p)| (p * 2).min(PROBE_MAX));
                self.probe = Some((Instant::now() + pause, pause));
                self.shared.health.set_failing(sql_error(&self.path, &e));
            }
        }
    }
}

fn millis(t: &DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn time_text(t: &DateTime<Utc>) -> String {
    let mut buf = [0u8; crate::protocol::time::MAX_LEN];
    crate::protocol::time::format(t, &mut buf).to_string()
}

/// What a committed transaction did besides its writes.
struct Batch {
    /// Writes refused one by one (appends that do not follow their session's log), with why;
    /// in ticket order. The others are committed.
    refused: Vec<(u64, StoreError)>,
    /// It deleted a session.
    deleted: bool,
}

/// A snapshot's client ids: as stored, or read from the log.
enum Ids {
    Json(String),
    Read(Vec<(String, u64)>),
}

/// The last [`RECENT_IDS`] client ids of a session's log up to `seq`, with their `seq`, oldest
/// first: the ones its newest snapshot before `seq` holds, then those of the events after it
/// (at most [`SNAPSHOT_EVERY`] rows).
fn ids_as_of(c: &Connection, session: &str, seq: u64) -> rusqlite::Result<Vec<(String, u64)>> {
    let before: Option<(i64, Option<String>)> = c
        .prepare_cached(
            "SELECT seq, recent_ids FROM snapshots WHERE session_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT 1",
        )?
        .query_row(params![session, seq as i64], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let (mut ids, from) = match before {
        None => (Vec::new(), 0),
        Some((from, Some(json))) => (
            serde_json::from_str::<Vec<(String, u64)>>(&json).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    0,
                    rusqlite::types::Type::Text,
                    Box::new(e),
                )
            })?,
            from,
        ),
        // A snapshot of schema 3 or before: the log itself, once.
        Some((_, None)) => return ids_from_log(c, session, seq),
    };
    let mut stmt = c.prepare_cached(
        "SELECT client_id, seq FROM events WHERE session_id = ?1 AND seq > ?2 AND seq <= ?3 \
         AND client_id IS NOT NULL ORDER BY seq",
    )?;
    let rows = stmt.query_map(params![session, from, seq as i64], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
    })?;
    for row in rows {
        ids.push(row?);
    }
    let skip = ids.len().saturating_sub(RECENT_IDS);
    ids.drain(..skip);
    Ok(ids)
}

/// How far back the log is read for the client ids of a session whose snapshots predate
/// schema 4: its last events, not its whole log.
const IDS_LOOK_BACK: u64 = 4 * RECENT_IDS as u64;

/// The last [`RECENT_IDS`] client ids up to `seq` among the [`IDS_LOOK_BACK`] events up to it,
/// read from the log: for sessions whose snapshots predate schema 4.
fn ids_from_log(c: &Connection, session: &str, seq: u64) -> rusqlite::Result<Vec<(String, u64)>> {
    let mut ids = c
        .prepare_cached(
            "SELECT client_id, seq FROM events WHERE session_id = ?1 AND seq <= ?2 AND seq > ?3 \
             AND client_id IS NOT NULL ORDER BY seq DESC LIMIT ?4",
        )?
        .query_map(
            params![
                session,
                seq as i64,
                seq.saturating_sub(IDS_LOOK_BACK) as i64,
                RECENT_IDS as i64
            ],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64)),
        )?
        .collect::<rusqlite::Result<Vec<(String, u64)>>>()?;
    ids.reverse();
    Ok(ids)
}

/// One transaction for `writes`.
fn commit(
    conn: &mut Connection,
    writes: &[Queued],
    last_seqs: &mut HashMap<Arc<str>, u64>,
) -> rusqlite::Result<Batch> {
    let tx = conn.transaction()?;
    let mut batch = Batch {
        refused: Vec::new(),
        deleted: false,
    };
    // The sessions index is updated once per session per batch, with its latest values.
    let mut index: HashMap<Arc<str>, (u64, Phase, i64, Option<i64>)> = HashMap::new();
    for (ticket, write, body, _) in writes {
        match write {
            Write::Create {
                session,
                created_at,
                idle_deadline,
                owner,
            } => {
                tx.prepare_cached(
                    "INSERT INTO sessions (id, created_at, last_seq, phase, updated_ms, idle_deadline_ms, owner) VALUES (?1, ?2, 0, 'greeting', ?3, ?4, ?5)",
                )?
                .execute(params![
                    &**session,
                    time_text(created_at),
                    millis(created_at),
                    idle_deadline.as_ref().map(millis),
                    owner.as_deref()
                ])?;
                last_seqs.insert(session.clone(), 0);
            }
            Write::Append(append) => {
                let Append {
                    session,
                    event,
                    phase,
                    idle_deadline,
                    snapshot,
                    finished,
                    goals_total,
                } = &**append;
                let last = match last_seqs.get(session) {
                    Some(seq) => Some(*seq),
                    None => tx
                        .query_row(
                            "SELECT last_seq FROM sessions WHERE id = ?1",
                            [&**session],
                            |r| r.get::<_, i64>(0),
                        )
                        .optional()?
                        .map(|s| s as u64),
                };
                let checked = match last {
                    Some(last) => super::check_append(session, last, event.seq),
                    None => Err(StoreError::new(
                        ErrorKind::Conflict,
                        format!("append to unknown session {session}"),
                    )),
                };
                if let Err(e) = checked {
                    batch.refused.push((*ticket, e));
                    continue;
                }
                let Some(body) = body else {
                    // Never: `write` encodes every append. Refused alone, not the batch.
                    batch.refused.push((
                        *ticket,
                        StoreError::new(ErrorKind::Io, "an append without its encoded event"),
                    ));
                    continue;
                };
                tx.prepare_cached(
                    "INSERT INTO events (session_id, seq, event, client_id) VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute(params![&**session, event.seq as i64, body, event.id])?;
                if let Some(state) = snapshot {
                    let ids = ids_as_of(&tx, session, event.seq)?;
                    let ids = serde_json::to_string(&ids)
                        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
                    tx.prepare_cached(
                        "INSERT OR REPLACE INTO snapshots (session_id, seq, state, recent_ids) VALUES (?1, ?2, ?3, ?4)",
                    )?
                    .execute(params![&**session, event.seq as i64, state, ids])?;
                    let oldest = event.seq.saturating_sub(SNAPSHOTS_KEPT * SNAPSHOT_EVERY);
                    tx.prepare_cached("DELETE FROM snapshots WHERE session_id = ?1 AND seq <= ?2")?
                        .execute(params![&**session, oldest as i64])?;
                }
                if matches!(event.change, super::Change::Reset) {
                    tx.prepare_cached("DELETE FROM goals WHERE session_id = ?1")?
                        .execute([&**session])?;
                }
                let first = goals_total.saturating_sub(finished.len() as u64) + 1;
                for (i, goal) in finished.iter().enumerate() {
                    tx.prepare_cached(
                        "INSERT OR REPLACE INTO goals (session_id, n, goal) VALUES (?1, ?2, ?3)",
                    )?
                    .execute(params![
                        &**session,
                        (first + i as u64) as i64,
                        goal
                    ])?;
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
            Write::History {
                session,
                first,
                goals,
            } => {
                // Only for a session still there (one deleted meanwhile keeps no history).
                for (i, goal) in goals.iter().enumerate() {
                    tx.prepare_cached(
                        "INSERT OR REPLACE INTO goals (session_id, n, goal) \
                         SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?1)",
                    )?
                    .execute(params![
                        &**session,
                        (first + i as u64) as i64,
                        goal
                    ])?;
                }
            }
            Write::Delete { session } => {
                index.remove(session);
                last_seqs.remove(session);
                for sql in [
                    "DELETE FROM events WHERE session_id = ?1",
                    "DELETE FROM snapshots WHERE session_id = ?1",
                    "DELETE FROM goals WHERE session_id = ?1",
                    "DELETE FROM sessions WHERE id = ?1",
                ] {
                    tx.prepare_cached(sql)?.execute([&**session])?;
                }
                batch.deleted = true;
            }
        }
    }
    for (session, (seq, phase, updated, deadline)) in index {
        tx.prepare_cached(
            "UPDATE sessions SET last_seq = ?2, phase = ?3, updated_ms = ?4, idle_deadline_ms = ?5 WHERE id = ?1",
        )?
        .execute(params![&*session, seq as i64, phase.as_str(), updated, deadline])?;
    }
    tx.commit()?;
    Ok(batch)
}

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
        let rows = self.read(|c| {
            if !exists(c, session)? {
                return Ok(None);
            }
            // seq is stored as a signed integer: past i64::MAX nothing is newer.
            let after = i64::try_from(after).unwrap_or(i64::MAX);
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = c
                .prepare_cached(
                    "SELECT event FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
                )?
                .query_map(params![session, after, limit], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(Some(rows))
        })?;
        rows.map(|rows| {
            rows.iter()
                .map(|e| serde_json::from_str(e).map_err(|err| self.corrupt(session, "event", err)))
                .collect()
        })
        .transpose()
    }

    fn goals(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Goal>>, StoreError> {
        let rows = self.read(|c| {
            if !exists(c, session)? {
                return Ok(None);
            }
            let after = i64::try_from(after).unwrap_or(i64::MAX);
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = c
                .prepare_cached(
                    "SELECT goal FROM goals WHERE session_id = ?1 AND n > ?2 ORDER BY n LIMIT ?3",
                )?
                .query_map(params![session, after, limit], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            Ok(Some(rows))
        })?;
        rows.map(|rows| {
            rows.iter()
                .map(|g| serde_json::from_str(g).map_err(|err| self.corrupt(session, "goal", err)))
                .collect()
        })
        .transpose()
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
