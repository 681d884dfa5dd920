//! The file itself: its schema and migrations, its lock, and the checks that refuse a file
//! that is not ours, damaged, newer, or in the wrong place.

use super::*;

/// `PRAGMA application_id` of convstate's files ("CSTA").
pub(super) const APPLICATION_ID: i32 = 0x4353_5441;
/// `PRAGMA user_version`: the schema this code writes. 1 had one snapshot per session and no
/// index of client ids or goals; 2 had no owner per session; 3 kept an index of every event's
/// client id (one more page written per change). All are migrated in place.
pub(super) const SCHEMA_VERSION: i32 = 4;

pub(super) const SCHEMA: &str = "
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
pub(super) const MIGRATE_1_TO_2: &str = "
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
pub(super) const MIGRATE_2_TO_3: &str = "
ALTER TABLE sessions ADD COLUMN owner TEXT;
PRAGMA user_version = 3;
";

/// Schema 3 to 4: the last client ids of a session are kept with each snapshot (JSON
/// `[[id, seq], ...]`, oldest first, as of its `seq`) instead of in an index of every event,
/// which cost a page written per change. Snapshots written before have none: loading such a
/// session reads the ids from its log, once, until its next snapshot.
pub(super) const MIGRATE_3_TO_4: &str = "
ALTER TABLE snapshots ADD COLUMN recent_ids TEXT;
DROP INDEX IF EXISTS events_client_ids;
PRAGMA user_version = 4;
";

/// After a failed commit, the store probes the disk after this long, then twice as long after
/// each failed probe, up to [`PROBE_MAX`].
pub(super) fn lock(path: &Path) -> Result<std::fs::File, StoreError> {
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
pub(super) fn check_header(path: &Path) -> Result<(), StoreError> {
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

pub(super) fn configure(conn: &Connection, path: &Path) -> Result<(), StoreError> {
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
pub(super) fn check_or_create(
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
pub(super) fn check_ours(conn: &Connection, path: &Path, app: i32) -> Result<i32, StoreError> {
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
pub(super) fn check_place(
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
