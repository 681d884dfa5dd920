//! A database file's identity (its device and inode): a file deleted or replaced while the
//! server runs is noticed, where writing on would go to a file nobody will open again.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// What names a file on its file system; `None` where it cannot be read (no such file) or the
/// platform has no inodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Identity(u64, u64);

impl Identity {
    #[cfg(unix)]
    pub(crate) fn of(path: &Path) -> Option<Identity> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path)
            .ok()
            .map(|m| Identity(m.dev(), m.ino()))
    }

    #[cfg(not(unix))]
    pub(crate) fn of(_path: &Path) -> Option<Identity> {
        None
    }
}

/// Copies everything `conn` holds (the file it opened, deleted or not, and its write-ahead
/// log) into a new file: at `path` again if nothing is there (a restart finds it as it was),
/// next to it otherwise. Returns where, or why it could not.
pub(crate) fn rescue(conn: &Connection, path: &Path) -> Result<PathBuf, String> {
    // The log is emptied into the (deleted) file first: a log left beside the new file must
    // not be replayed onto it. If it could not be emptied, the copy goes beside the path.
    let emptied = conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })
        .is_ok_and(|(busy, log, copied)| busy == 0 && log == copied);
    let target = if path.exists() || !emptied {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".rescued-{stamp}"));
        PathBuf::from(name)
    } else {
        path.to_path_buf()
    };
    let text = target
        .to_str()
        .ok_or_else(|| format!("{}: not a UTF-8 path", target.display()))?;
    conn.execute("VACUUM INTO ?1", [text])
        .map_err(|e| format!("{}: {e}", target.display()))?;
    Ok(target)
}
