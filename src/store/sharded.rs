//! A SQLite store spread over several files, each with its own writer thread: the sessions are
//! divided among the files by a hash of their id, so the files commit side by side and no one
//! writer is the ceiling of the durable path.
//!
//! A session lives wholly in one file (its log, snapshots, history and index row), so each
//! change is one transaction in one file, as in a store of one file, and a crash is recovered
//! file by file by SQLite's own log: nothing spans two files. Each file records its place
//! (`shard` = `index/count` in its `meta` table) and is checked against it when opened; a set
//! with a file missing is refused, so a server never starts with some sessions gone.
//!
//! Tickets: a write's ticket is its file's own ticket times the number of files plus the
//! file's index, so [`Store::committed`] finds the file again. Writes settle in order within a
//! file, so a session's writes settle in the order they were queued; writes of sessions in
//! different files settle independently.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::sqlite::{self, SqliteStore};
use super::{
    Committed, ErrorKind, Event, Health, Options, Receipt, Store, StoreError, Stored, Write,
};
use crate::conversation::Goal;

/// The most files a store is spread over.
pub(crate) const MAX_SHARDS: usize = 64;

/// The least share of `--store-max-bytes` a file may get.
const MIN_SHARE: u64 = super::MIN_STORE_BYTES;

#[derive(Debug)]
pub(crate) struct ShardedStore {
    path: PathBuf,
    shards: Vec<SqliteStore>,
}

/// The file of shard `index`: the store's own path for the first, `PATH.shardN` for the others.
pub(crate) fn shard_path(path: &Path, index: usize) -> PathBuf {
    if index == 0 {
        return path.to_path_buf();
    }
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".shard{index}"));
    PathBuf::from(name)
}

/// The shard of a session: FNV-1a (64 bits) of its id, modulo the number of shards. Fixed
/// here, never a hasher of the standard library (whose output may change between versions):
/// a session must be found in the file it was written to by every later version.
pub(crate) fn shard_of(session: &str, count: usize) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in session.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (hash % count as u64) as usize
}

fn written(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
}

impl ShardedStore {
    pub(crate) fn open(path: &Path, options: &Options) -> Result<ShardedStore, StoreError> {
        let count = options.shards;
        if !(2..=MAX_SHARDS).contains(&count) {
            return Err(StoreError::new(
                ErrorKind::Io,
                format!("--store-shards {count}: expected 1 to {MAX_SHARDS}"),
            ));
        }
        let paths: Vec<PathBuf> = (0..count).map(|i| shard_path(path, i)).collect();
        // Every file there is checked first, changing nothing (so a refused start migrates
        // none of them): ours, not newer, and at its place in a set of this count.
        let mut missing = Vec::new();
        let mut sessions = 0;
        for (i, p) in paths.iter().enumerate() {
            if written(p) {
                sessions += sqlite::peek(p, (i, count))?;
            } else {
                missing.push(p.display().to_string());
            }
        }
        // Files missing from a set that holds sessions: theirs would be gone. A set without
        // any (a first start that stopped half-way) is completed.
        if !missing.is_empty() && sessions > 0 {
            return Err(StoreError::new(
                ErrorKind::Io,
                format!(
                    "{}: a store of {count} files with {} missing ({}); refusing to serve \
                     without their sessions (put them back, or start with the store's own \
                     --store-shards)",
                    path.display(),
                    missing.len(),
                    missing.join(", ")
                ),
            ));
        }
        // Each file may grow to its share of the limit, which must leave it room to work.
        if let Some(max) = options.max_bytes {
            let share = max / count as u64;
            if share < MIN_SHARE {
                return Err(StoreError::new(
                    ErrorKind::Io,
                    format!(
                        "--store-max-bytes {max} over {count} files leaves each {share} bytes, \
                         below {MIN_SHARE}: raise it, or use fewer files"
                    ),
                ));
            }
        }
        let options = Options {
            max_bytes: options.max_bytes.map(|b| b / count as u64),
            ..options.clone()
        };
        let mut shards = Vec::with_capacity(count);
        for (i, p) in paths.iter().enumerate() {
            shards.push(SqliteStore::open(p, &options, (i, count))?);
        }
        Ok(ShardedStore {
            path: path.to_path_buf(),
            shards,
        })
    }

    fn shard(&self, session: &str) -> &SqliteStore {
        &self.shards[shard_of(session, self.shards.len())]
    }
}

impl Store for ShardedStore {
    fn write(&self, write: Write, receipt: Option<Receipt>) -> Result<u64, StoreError> {
        let session = match &write {
            Write::Create { session, .. }
            | Write::History { session, .. }
            | Write::Delete { session } => session,
            Write::Append(append) => &append.session,
        };
        let count = self.shards.len();
        let index = shard_of(session, count);
        let ticket = self.shards[index].write(write, receipt)?;
        Ok(ticket * count as u64 + index as u64)
    }

    fn committed(&self, ticket: u64) -> Committed {
        let count = self.shards.len() as u64;
        self.shards[(ticket % count) as usize].committed(ticket / count)
    }

    fn committed_all(&self) -> Committed {
        Committed::all(self.shards.iter().map(|s| s.committed_all()).collect())
    }

    /// Failing while any file fails: the sessions of the others could take writes, but one
    /// health for the store keeps `/readyz` and the refusals plain.
    fn health(&self) -> Health {
        self.shards
            .iter()
            .map(|s| s.health())
            .find(|h| *h != Health::Ready)
            .unwrap_or(Health::Ready)
    }

    fn refusing(&self) -> Option<StoreError> {
        self.shards.iter().find_map(|s| s.refusing())
    }

    fn load(&self, session: &str, at: u64, through: u64) -> Result<Option<Stored>, StoreError> {
        self.shard(session).load(session, at, through)
    }

    fn events(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Event>>, StoreError> {
        self.shard(session).events(session, after, limit)
    }

    fn goals(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Goal>>, StoreError> {
        self.shard(session).goals(session, after, limit)
    }

    fn goals_stored(&self, session: &str) -> Result<u64, StoreError> {
        self.shard(session).goals_stored(session)
    }

    fn pending_deadlines(&self) -> Result<Vec<(String, DateTime<Utc>)>, StoreError> {
        let mut all = Vec::new();
        for shard in &self.shards {
            all.extend(shard.pending_deadlines()?);
        }
        Ok(all)
    }

    fn expired(&self, before: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        let mut all = Vec::new();
        for shard in &self.shards {
            all.extend(shard.expired(before)?);
        }
        Ok(all)
    }

    fn close(&self) {
        for shard in &self.shards {
            shard.close();
        }
    }

    /// Recorded in every file; the first fingerprint recorded before that differs.
    fn record_rules(&self, fingerprint: &str) -> Result<Option<String>, StoreError> {
        let mut before = None;
        for shard in &self.shards {
            let recorded = shard.record_rules(fingerprint)?;
            before = before.or(recorded);
        }
        Ok(before)
    }

    fn describe(&self) -> String {
        format!(
            "sqlite:{} ({} shards)",
            self.path.display(),
            self.shards.len()
        )
    }

    /// The first `limit` ids after `after` of every file, merged.
    fn session_ids(&self, after: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut all = Vec::new();
        for shard in &self.shards {
            all.extend(shard.session_ids(after, limit)?);
        }
        all.sort_unstable();
        all.truncate(limit);
        Ok(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shard_of_a_session_never_changes() {
        // FNV-1a's published test vectors: the hash must stay this one, or sessions written
        // before would be looked for in the wrong file.
        assert_eq!(
            shard_of("", 1 << 20),
            (0xcbf2_9ce4_8422_2325u64 % (1 << 20)) as usize
        );
        assert_eq!(
            shard_of("a", 1 << 20),
            (0xaf63_dc4c_8601_ec8cu64 % (1 << 20)) as usize
        );
        assert_eq!(
            shard_of("foobar", 1 << 20),
            (0x8594_4171_f739_67e8u64 % (1 << 20)) as usize
        );
        // Random session ids spread evenly.
        let mut counts = [0usize; 4];
        for i in 0..4000u32 {
            counts[shard_of(
                &format!(
                    "{:032x}",
                    u128::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
                ),
                4,
            )] += 1;
        }
        assert!(
            counts.iter().all(|&n| (800..1200).contains(&n)),
            "{counts:?}"
        );
    }

    #[test]
    fn shard_files_sit_beside_the_first() {
        assert_eq!(
            shard_path(Path::new("data/c.db"), 0),
            PathBuf::from("data/c.db")
        );
        assert_eq!(
            shard_path(Path::new("data/c.db"), 3),
            PathBuf::from("data/c.db.shard3")
        );
    }
}
