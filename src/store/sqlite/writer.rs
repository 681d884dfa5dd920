//! The writer thread: everything queued committed in one transaction (group commit), each
//! write settled after; a commit that fails for a transient reason tried again, and the store
//! refusing writes until a probe of the disk succeeds.

use super::*;

/// The writer thread's state: takes everything queued, commits it in one transaction, and
/// settles each write (its receipt, then the waiters). A commit that fails for a transient
/// reason is tried again; one that still fails gives up its writes, and the store refuses
/// writes until a probe of the disk succeeds.
pub(super) struct Writer {
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
    pub(super) fn new(
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

    pub(super) fn run(mut self, rx: mpsc::Receiver<Queued>) {
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

pub(super) fn millis(t: &DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

pub(super) fn time_text(t: &DateTime<Utc>) -> String {
    let mut buf = [0u8; crate::protocol::time::MAX_LEN];
    crate::protocol::time::format(t, &mut buf).to_string()
}

/// What a committed transaction did besides its writes.
pub(super) struct Batch {
    /// Writes refused one by one (appends that do not follow their session's log), with why;
    /// in ticket order. The others are committed.
    refused: Vec<(u64, StoreError)>,
    /// It deleted a session.
    deleted: bool,
}

/// A snapshot's client ids: as stored, or read from the log.
pub(super) enum Ids {
    Json(String),
    Read(Vec<(String, u64)>),
}

/// The last [`RECENT_IDS`] client ids of a session's log up to `seq`, with their `seq`, oldest
/// first: the ones its newest snapshot before `seq` holds, then those of the events after it
/// (at most [`SNAPSHOT_EVERY`] rows).
pub(super) fn ids_as_of(
    c: &Connection,
    session: &str,
    seq: u64,
) -> rusqlite::Result<Vec<(String, u64)>> {
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
pub(super) const IDS_LOOK_BACK: u64 = 4 * RECENT_IDS as u64;

/// The last [`RECENT_IDS`] client ids up to `seq` among the [`IDS_LOOK_BACK`] events up to it,
/// read from the log: for sessions whose snapshots predate schema 4.
pub(super) fn ids_from_log(
    c: &Connection,
    session: &str,
    seq: u64,
) -> rusqlite::Result<Vec<(String, u64)>> {
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
pub(super) fn commit(
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
                    Some(last) => crate::store::check_append(session, last, event.seq),
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
                if matches!(event.change, crate::store::Change::Reset) {
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
