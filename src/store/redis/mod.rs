//! The shared store of a cluster of nodes: Redis (or Valkey).
//!
//! Per session, under `PREFIX:s:ID:` (one hash tag, `{ID}`, so a session's keys sit together):
//! `meta` (a hash: created, owner, seq, phase, updated), `log` (a stream, one entry per event,
//! its id `SEQ-1`), `snaps` (a hash of state snapshots by seq, the last few), `ids` (a list of
//! the recent client ids), `goals` (a list, the history since the last reset). Across sessions:
//! `PREFIX:deadlines` (a sorted set of idle deadlines), `PREFIX:finished` (finished sessions
//! by their last change, for retention), `PREFIX:sessions` (every id, for export), `PREFIX:rules`.
//!
//! Each change is one Lua script, atomic: it checks the session's `seq` (an append that does not
//! follow the last one is refused as a conflict: a change is never applied twice or lost), adds
//! the event to the stream, keeps the snapshots, ids, history and indexes, and publishes
//! `ID SEQ` on `PREFIX:changed` (the doorbell other nodes listen to). Writes are sent in the
//! order they were queued by one writer task (the redis crate's connection manager, which
//! reconnects), and settle in that order once Redis has answered. Reads go through a
//! connection manager of their own (multiplexed: the reads of many sessions share it, in
//! flight together).

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use redis::{FromRedisValue, Script};

use super::tickets::Tickets;
use super::{
    Append, Committed, ErrorKind, Event, Health, HealthCell, Options, RECENT_IDS, Receipt,
    SNAPSHOT_EVERY, SNAPSHOTS_KEPT, Store, StoreError, Stored, Waiters, Write,
};
use crate::conversation::{Conversation, Goal};

mod doorbell;
mod writer;

use doorbell::*;
use writer::*;

/// Doorbells a node may fall behind by before it checks every session it holds.
const BELLS: usize = 4096;

/// How long a command may take before the store counts Redis as unreachable.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);
/// Between two pings of the doorbell's connection (one that does not answer is replaced).
const HEARTBEAT_EVERY: Duration = Duration::from_secs(5);
/// Between two probes of an unreachable Redis.
const PROBE_EVERY: Duration = Duration::from_millis(500);

/// The Lua script `create.lua` beside this file; its keys and arguments are listed at its top.
const CREATE: &str = include_str!("create.lua");

/// The Lua script `append.lua` beside this file; its keys and arguments are listed at its top.
const APPEND: &str = include_str!("append.lua");

/// The Lua script `history.lua` beside this file; its keys and arguments are listed at its top.
const HISTORY: &str = include_str!("history.lua");

/// The Lua script `delete.lua` beside this file; its keys and arguments are listed at its top.
const DELETE: &str = include_str!("delete.lua");

/// Writes sent to Redis together (one round trip; with `appendfsync always`, one fsync).
const BATCH: usize = 256;

/// Key names.
#[derive(Clone, Debug)]
struct Keys {
    prefix: String,
}

impl Keys {
    fn session(&self, id: &str, part: &str) -> String {
        format!("{}:s:{{{id}}}:{part}", self.prefix)
    }
    fn all(&self, id: &str) -> [String; 5] {
        ["meta", "log", "snaps", "ids", "goals"].map(|p| self.session(id, p))
    }
    fn deadlines(&self) -> String {
        format!("{}:deadlines", self.prefix)
    }
    fn finished(&self) -> String {
        format!("{}:finished", self.prefix)
    }
    /// Every session's id (a sorted set of equal scores: listed in order, by pages).
    fn sessions(&self) -> String {
        format!("{}:sessions", self.prefix)
    }
    fn rules(&self) -> String {
        format!("{}:rules", self.prefix)
    }
    /// The doorbell: `ID SEQ` after each change.
    pub(crate) fn changed(&self) -> String {
        format!("{}:changed", self.prefix)
    }
}

#[derive(Debug)]
struct Shared {
    waiters: Waiters,
    health: HealthCell,
}

type Queued = (u64, Write, Option<Receipt>);

/// The Redis store.
pub(crate) struct RedisStore {
    url: String,
    keys: Keys,
    client: redis::Client,
    /// The runtime of the store's thread: its writer, its doorbell and its reads run there.
    runtime: tokio::runtime::Handle,
    /// Reads' own connection manager, opened at the first read, and again after a read that
    /// timed out (the manager reconnects by itself after a dropped connection, but not from
    /// one that went silent).
    reads: Reads,
    shared: Arc<Shared>,
    /// Ticket numbering and the writer's queue.
    queue: Tickets<tokio::sync::mpsc::UnboundedSender<Queued>>,
    /// The doorbells heard on `PREFIX:changed`.
    bells: tokio::sync::broadcast::Sender<(Arc<str>, u64)>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("url", &self.url)
            .finish()
    }
}

/// `url` without its password (`redis://user:secret@host` → `redis://user:***@host`): store
/// URLs are shown in logs, errors and `/healthz`.
fn redacted(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((userinfo, host)) => {
                let user = userinfo.split(':').next().unwrap_or("");
                format!("{scheme}://{user}:***@{host}")
            }
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

fn unreachable(url: &str, e: &redis::RedisError) -> StoreError {
    StoreError::new(ErrorKind::Io, format!("{url}: {e}"))
}

fn error_of(url: &str, e: &redis::RedisError) -> StoreError {
    // Conflicts are answers of the scripts ({0, why}), never errors: every error is the
    // store's.
    if e.is_io_error() || e.is_connection_dropped() || e.is_timeout() || e.is_connection_refusal() {
        return unreachable(url, e);
    }
    match e.code() {
        Some("OOM") => StoreError::new(ErrorKind::Full, format!("{url}: {e}")),
        Some("MISCONF") | Some("READONLY") | Some("LOADING") | Some("BUSY") => {
            StoreError::new(ErrorKind::Io, format!("{url}: {e}"))
        }
        _ => StoreError::new(ErrorKind::Io, format!("{url}: {e}")),
    }
}

fn millis(t: &DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn from_millis(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}

impl RedisStore {
    /// Connects to `url` (`redis://HOST:PORT[/DB]`), keys under `options.prefix`.
    pub(crate) fn open(url: &str, options: &Options) -> Result<RedisStore, StoreError> {
        let shown = redacted(url);
        let client = redis::Client::open(url)
            .map_err(|e| StoreError::new(ErrorKind::Io, format!("store \"{shown}\": {e}")))?;
        let keys = Keys {
            prefix: options.prefix.clone(),
        };
        let shared = Arc::new(Shared {
            waiters: Waiters::default(),
            health: HealthCell::default(),
        });
        let bells = tokio::sync::broadcast::channel(BELLS).0;
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        // The store's thread: a runtime of its own, which runs until the writer's queue is
        // dropped (the store closed or dropped).
        let (handle_tx, handle_rx) = std::sync::mpsc::sync_channel(1);
        let (thread_shared, writer_url) = (shared.clone(), shown.clone());
        let (thread_bells, channel, thread_keys) = (bells.clone(), keys.changed(), keys.clone());
        let thread_client = client.clone();
        let reads: Reads = Arc::new(tokio::sync::Mutex::new(None));
        let thread_reads = reads.clone();
        std::thread::Builder::new()
            .name("convstate-redis".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = handle_tx.send(Err(e.to_string()));
                        return;
                    }
                };
                let _ = handle_tx.send(Ok(runtime.handle().clone()));
                runtime.block_on(async move {
                    let listening = listen(
                        thread_client.clone(),
                        channel,
                        thread_bells,
                        thread_reads,
                        writer_url.clone(),
                    );
                    tokio::select! {
                        _ = writer(thread_client, thread_keys, writer_url, thread_shared, rx) => {}
                        _ = listening => {}
                    }
                });
            })
            .map_err(|e| StoreError::new(ErrorKind::Io, format!("{shown}: {e}")))?;
        let runtime = match handle_rx.recv() {
            Ok(Ok(handle)) => handle,
            Ok(Err(e)) => {
                return Err(StoreError::new(
                    ErrorKind::Io,
                    format!("{shown}: cannot start the store's thread: {e}"),
                ));
            }
            Err(_) => {
                return Err(StoreError::new(
                    ErrorKind::Io,
                    format!("{shown}: the store's thread stopped"),
                ));
            }
        };
        let store = RedisStore {
            url: shown,
            keys,
            client,
            runtime,
            reads,
            shared,
            queue: Tickets::new(tx),
            bells,
        };
        // Reachable now, or the server does not start: a typo in the URL is said at once.
        store.query::<String>(redis::cmd("PING"))?;
        store.warn_unless_durable();
        Ok(store)
    }

    /// One command's answer (blocks the calling thread; the command runs on the store's).
    fn query<T: FromRedisValue + Send + 'static>(&self, cmd: redis::Cmd) -> Result<T, StoreError> {
        self.ask(Read::Cmd(cmd))
    }

    /// The answers of commands sent together.
    fn query_pipe<T: FromRedisValue + Send + 'static>(
        &self,
        pipe: redis::Pipeline,
    ) -> Result<T, StoreError> {
        self.ask(Read::Pipe(pipe))
    }

    fn ask<T: FromRedisValue + Send + 'static>(&self, read: Read) -> Result<T, StoreError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let (reads, client) = (self.reads.clone(), self.client.clone());
        self.runtime.spawn(async move {
            let answer = tokio::time::timeout(RESPONSE_TIMEOUT * 2, async {
                let mut conn = {
                    let mut slot = reads.lock().await;
                    match &*slot {
                        Some(conn) => conn.clone(),
                        None => {
                            let conn = redis::aio::ConnectionManager::new_with_config(
                                client,
                                manager_config(),
                            )
                            .await?;
                            *slot = Some(conn.clone());
                            conn
                        }
                    }
                };
                match read {
                    Read::Cmd(c) => c.query_async::<T>(&mut conn).await,
                    Read::Pipe(p) => p.query_async::<T>(&mut conn).await,
                }
            })
            .await;
            let silent = match &answer {
                Ok(Ok(_)) => false,
                Ok(Err(e)) => e.is_timeout(),
                Err(_) => true,
            };
            if silent {
                *reads.lock().await = None;
            }
            let _ = tx.send(answer);
        });
        // The runtime answers within its timeout; this one only guards a stopped runtime.
        match rx.recv_timeout(RESPONSE_TIMEOUT * 3) {
            Ok(Ok(Ok(value))) => Ok(value),
            Ok(Ok(Err(e))) => Err(error_of(&self.url, &e)),
            Ok(Err(_)) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(StoreError::new(
                ErrorKind::Io,
                format!(
                    "{}: no answer in {} s",
                    self.url,
                    RESPONSE_TIMEOUT.as_secs()
                ),
            )),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(StoreError::new(
                ErrorKind::Closed,
                format!("{}: the store is closed", self.url),
            )),
        }
    }

    /// Says so at start-up when Redis does not fsync each change before it answers: an
    /// acknowledged change can then be lost if Redis (or its machine) stops (storage.md).
    fn warn_unless_durable(&self) {
        let mut info = redis::cmd("INFO");
        info.arg("persistence");
        let info: String = self.query(info).unwrap_or_default();
        let aof = info
            .lines()
            .find_map(|l| l.strip_prefix("aof_enabled:"))
            .map(str::trim);
        let mut get = redis::cmd("CONFIG");
        get.arg("GET").arg("appendfsync");
        let fsync: Option<String> = self
            .query::<Vec<String>>(get)
            .ok()
            .and_then(|v| v.get(1).cloned());
        let mut waitaof = redis::cmd("COMMAND");
        waitaof.arg("INFO").arg("WAITAOF");
        let has_waitaof = matches!(self.query::<redis::Value>(waitaof), Ok(redis::Value::Array(v))
            if v.first().is_some_and(|c| !matches!(c, redis::Value::Nil)));
        match (aof, fsync.as_deref()) {
            (Some("1"), Some("always")) => {}
            // Each ack waits for WAITAOF (see the writer).
            (Some("1"), Some(_)) if has_waitaof => {}
            (Some("1"), Some(other)) => tracing::warn!(
                store = self.url,
                appendfsync = other,
                "redis fsyncs its append-only file every second, not before it answers: an \
                 acknowledged change can be lost if Redis's machine stops (set appendfsync always)"
            ),
            (Some("0"), _) => tracing::warn!(
                store = self.url,
                "redis has no append-only file: acknowledged changes are lost if Redis stops \
                 (set appendonly yes and appendfsync always)"
            ),
            _ => tracing::info!(
                store = self.url,
                "redis's persistence settings cannot be read here: check appendonly yes and \
                 appendfsync always for durable acknowledgements"
            ),
        }
    }

    fn corrupt(&self, session: &str, what: &str, e: impl std::fmt::Display) -> StoreError {
        StoreError::new(
            ErrorKind::Corrupt,
            format!("{}: session {session}: {what}: {e}", self.url),
        )
    }

    fn exists(&self, session: &str) -> Result<bool, StoreError> {
        let mut exists = redis::cmd("EXISTS");
        exists.arg(self.keys.session(session, "meta"));
        self.query(exists)
    }
}

/// The reads' connection manager, opened when first needed.
type Reads = Arc<tokio::sync::Mutex<Option<redis::aio::ConnectionManager>>>;

/// A read sent to the store's thread.
enum Read {
    Cmd(redis::Cmd),
    Pipe(redis::Pipeline),
}

fn manager_config() -> redis::aio::ConnectionManagerConfig {
    redis::aio::ConnectionManagerConfig::new()
        .set_response_timeout(RESPONSE_TIMEOUT)
        .set_connection_timeout(RESPONSE_TIMEOUT)
        .set_number_of_retries(2)
}

impl Store for RedisStore {
    fn write(&self, write: Write, receipt: Option<Receipt>) -> Result<u64, StoreError> {
        if !write.taken_while_failing()
            && let Some(cause) = self.refusing()
        {
            return Err(StoreError::new(
                cause.kind,
                format!("the store is failing: {cause}"),
            ));
        }
        self.queue.queue(
            &self.url,
            &self.shared.waiters,
            &self.shared.health,
            |ticket| (ticket, write, receipt),
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
        let [meta, log, snaps, ids, _] = self.keys.all(session);
        let (fields, snap_seqs, recent): (
            std::collections::HashMap<String, String>,
            Vec<String>,
            Vec<String>,
        ) = {
            let mut pipe = redis::pipe();
            pipe.hgetall(&meta).hkeys(&snaps).lrange(&ids, 0, -1);
            self.query_pipe(pipe)?
        };
        if fields.is_empty() {
            return Ok(None);
        }
        let created = fields
            .get("created")
            .and_then(|v| DateTime::parse_from_rfc3339(v).ok())
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| self.corrupt(session, "meta", "no creation time"))?;
        let best = snap_seqs
            .iter()
            .filter_map(|s| s.parse::<u64>().ok())
            .filter(|s| *s <= at)
            .max();
        let snapshot = match best {
            Some(seq) => {
                let mut get = redis::cmd("HGET");
                get.arg(&snaps).arg(seq);
                let json: String = self.query(get)?;
                let conv: Conversation = serde_json::from_str(&json)
                    .map_err(|e| self.corrupt(session, "snapshot", e))?;
                Some((seq, conv))
            }
            None => None,
        };
        let from = snapshot.as_ref().map_or(0, |(seq, _)| *seq);
        let events = if through <= from {
            Vec::new()
        } else {
            self.range(session, &log, from, through, usize::MAX)?
        };
        let recent_ids = recent
            .iter()
            .filter_map(|line| {
                let (seq, id) = line.split_once(' ')?;
                Some((id.to_string(), seq.parse().ok()?))
            })
            .collect();
        Ok(Some(Stored {
            session_id: session.to_string(),
            created_at: created,
            owner: fields.get("owner").cloned(),
            snapshot,
            events,
            recent_ids,
        }))
    }

    fn events(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Event>>, StoreError> {
        if !self.exists(session)? {
            return Ok(None);
        }
        let log = self.keys.session(session, "log");
        self.range(session, &log, after, u64::MAX, limit).map(Some)
    }

    fn goals(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Goal>>, StoreError> {
        if !self.exists(session)? || limit == 0 {
            return Ok(if limit == 0 { Some(Vec::new()) } else { None });
        }
        let key = self.keys.session(session, "goals");
        let start = after.min(i64::MAX as u64) as isize;
        let stop = start.saturating_add(limit.min(isize::MAX as usize) as isize - 1);
        let mut range = redis::cmd("LRANGE");
        range.arg(&key).arg(start).arg(stop);
        let raw: Vec<String> = self.query(range)?;
        raw.iter()
            .map(|g| serde_json::from_str(g).map_err(|e| self.corrupt(session, "goal", e)))
            .collect::<Result<Vec<Goal>, _>>()
            .map(Some)
    }

    fn goals_stored(&self, session: &str) -> Result<u64, StoreError> {
        let mut len = redis::cmd("LLEN");
        len.arg(self.keys.session(session, "goals"));
        self.query(len)
    }

    fn pending_deadlines(&self) -> Result<Vec<(String, DateTime<Utc>)>, StoreError> {
        let mut range = redis::cmd("ZRANGE");
        range
            .arg(self.keys.deadlines())
            .arg(0)
            .arg(-1)
            .arg("WITHSCORES");
        let all: Vec<(String, i64)> = self.query(range)?;
        Ok(all
            .into_iter()
            .map(|(id, ms)| (id, from_millis(ms)))
            .collect())
    }

    fn expired(&self, before: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        let mut range = redis::cmd("ZRANGEBYSCORE");
        range
            .arg(self.keys.finished())
            .arg("-inf")
            .arg(format!("({}", millis(&before)));
        self.query(range)
    }

    fn record_rules(&self, fingerprint: &str) -> Result<Option<String>, StoreError> {
        let mut set = redis::cmd("SET");
        set.arg(self.keys.rules()).arg(fingerprint).arg("GET");
        let before: Option<String> = self.query(set)?;
        Ok(before.filter(|b| b != fingerprint))
    }

    fn close(&self) {
        // Dropping the queue lets the writer finish what was queued and stop.
        let last = self.queue.close();
        let deadline = std::time::Instant::now() + RESPONSE_TIMEOUT;
        while self.shared.waiters.settled() < last && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn describe(&self) -> String {
        self.url.clone()
    }

    fn doorbell(&self) -> Option<tokio::sync::broadcast::Receiver<(Arc<str>, u64)>> {
        Some(self.bells.subscribe())
    }

    fn shared(&self) -> bool {
        true
    }

    fn session_ids(&self, after: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        // Sessions by id from the index the scripts keep: one page per call.
        let key = self.keys.sessions();
        let from = if after.is_empty() {
            "-".to_string()
        } else {
            format!("({after}")
        };
        let mut range = redis::cmd("ZRANGEBYLEX");
        range
            .arg(&key)
            .arg(&from)
            .arg("+")
            .arg("LIMIT")
            .arg(0)
            .arg(limit);
        self.query(range)
    }

    fn due(
        &self,
        now: DateTime<Utc>,
        skip: usize,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let key = self.keys.deadlines();
        let ms = millis(&now);
        let mut range = redis::cmd("ZRANGEBYSCORE");
        range
            .arg(&key)
            .arg("-inf")
            .arg(ms)
            .arg("LIMIT")
            .arg(skip)
            .arg(limit);
        self.query(range)
    }
}

impl RedisStore {
    /// The events of `log` after `after` up to `through`, at most `limit`, checked in order.
    fn range(
        &self,
        session: &str,
        log: &str,
        after: u64,
        through: u64,
        limit: usize,
    ) -> Result<Vec<Event>, StoreError> {
        let start = format!("{}-1", after.saturating_add(1));
        let end = if through >= i64::MAX as u64 {
            "+".to_string()
        } else {
            format!("{through}-1")
        };
        let count = limit.min(1 << 20);
        let mut range = redis::cmd("XRANGE");
        range.arg(log).arg(&start).arg(&end).arg("COUNT").arg(count);
        let reply: redis::streams::StreamRangeReply = self.query(range)?;
        reply
            .ids
            .iter()
            .map(|entry| {
                let json: String = entry
                    .get("e")
                    .ok_or_else(|| self.corrupt(session, "log", "an entry without its event"))?;
                serde_json::from_str::<Event>(&json).map_err(|e| self.corrupt(session, "log", e))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ack_waits_for_waitaof_to_count_the_local_fsync() {
        let answer =
            |local| redis::Value::Array(vec![redis::Value::Int(local), redis::Value::Int(0)]);
        assert!(fsynced("r", &answer(1)).is_ok());
        let late = fsynced("r", &answer(0)).unwrap_err();
        assert_eq!(late.kind, ErrorKind::Io);
        assert!(late.message.contains("not fsynced within 2 s"), "{late}");
        assert!(fsynced("r", &redis::Value::Nil).is_err());
    }

    #[test]
    fn urls_are_shown_without_their_password() {
        assert_eq!(redacted("redis://u:secret@h:1/2"), "redis://u:***@h:1/2");
        assert_eq!(redacted("redis://h:1"), "redis://h:1");
    }
}
