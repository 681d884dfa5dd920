//! `convstate export` and `convstate import`: sessions moved between stores (SQLite, Redis) as
//! JSON Lines. Each session is a header line, `{"session":ID,"created_at":...,"owner":...,
//! "events":N}`, followed by its N events as the log keeps them (`{"seq":1,"at":...,"type":...}`).
//! Importing folds each session's events with the engine, as the server does, so the target
//! store's indexes (phase, idle deadline, snapshots, history) are its own.

use std::io::BufRead;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::conversation::Engine;
use crate::store::{Append, Event, SNAPSHOT_EVERY, Store, StoreError, Write};

/// Events read from the source store at once.
const PAGE: usize = 1000;
/// Sessions listed from the source store at once.
const SESSIONS_PAGE: usize = 1000;
/// Writes an import queues before it waits for them.
const WINDOW: usize = 1024;
/// The longest line an import reads (a session's event is at most a message of 16 MiB).
const MAX_LINE: usize = 32 << 20;

/// A session's header line.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    session: String,
    created_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    owner: Option<String>,
    events: u64,
}

/// Writes the sessions of `store` (all of them, or `only`) to `out`; returns how many.
pub fn export(
    store: &dyn Store,
    only: &[String],
    out: &mut dyn std::io::Write,
) -> Result<u64, String> {
    let mut count = 0;
    let mut write_one = |id: &str| -> Result<(), String> {
        let Some(stored) = store.load(id, 0, 0).map_err(|e| e.to_string())? else {
            return Err(format!("no session \"{id}\" in {}", store.describe()));
        };
        // Two passes over the log, a page at a time: one counts the events (the header says
        // how many follow), one writes them, up to that count. Memory stays one page.
        let pages = |visit: &mut dyn FnMut(&[Event]) -> Result<bool, String>| {
            let mut after = 0;
            loop {
                let page = store
                    .events(id, after, PAGE)
                    .map_err(|e| e.to_string())?
                    .unwrap_or_default();
                after = page.last().map_or(after, |e| e.seq);
                if !visit(&page)? || page.len() < PAGE {
                    return Ok::<_, String>(());
                }
            }
        };
        let mut total = 0u64;
        pages(&mut |page| {
            total += page.len() as u64;
            Ok(true)
        })?;
        let header = Header {
            session: id.to_string(),
            created_at: stored.created_at,
            owner: stored.owner,
            events: total,
        };
        let json = |v: Result<String, serde_json::Error>| v.map_err(|e| e.to_string());
        writeln!(out, "{}", json(serde_json::to_string(&header))?).map_err(|e| e.to_string())?;
        let mut written = 0u64;
        pages(&mut |page| {
            for event in page {
                if written == total {
                    return Ok(false);
                }
                writeln!(out, "{}", json(serde_json::to_string(event))?)
                    .map_err(|e| e.to_string())?;
                written += 1;
            }
            Ok(written < total)
        })?;
        if written != total {
            return Err(format!(
                "session {id}: {total} events counted, {written} read (was it deleted meanwhile?)"
            ));
        }
        count += 1;
        Ok(())
    };
    if only.is_empty() {
        let mut after = String::new();
        loop {
            let ids = store
                .session_ids(&after, SESSIONS_PAGE)
                .map_err(|e| e.to_string())?;
            for id in &ids {
                write_one(id)?;
            }
            match ids.last() {
                Some(last) if ids.len() == SESSIONS_PAGE => after = last.clone(),
                _ => break,
            }
        }
    } else {
        for id in only {
            write_one(id)?;
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    Ok(count)
}

/// What an import did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub sessions: u64,
    pub events: u64,
    /// Sessions the target already had: left as they were.
    pub skipped: Vec<String>,
}

/// Where an import is: checking the whole input, or writing it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Check,
    Write,
}

/// Reads sessions from the input `open` opens (twice) into `store`, folding them with
/// `engine`. The whole input is checked first, as the server would read it (ids, owners,
/// every event's sequence, time and type, each flow's events taken by the flow): nothing is
/// written unless every session is sound. A session the store already holds is skipped (never
/// overwritten). Blocks until the store has committed all.
pub fn import(
    store: &Arc<dyn Store>,
    engine: &Engine,
    open: &mut dyn FnMut() -> Result<Box<dyn BufRead>, String>,
) -> Result<Imported, String> {
    read(store, engine, &mut *open()?, Pass::Check)?;
    read(store, engine, &mut *open()?, Pass::Write)
}

/// Why a session's id is not one the server would serve, if it is not.
fn check_session_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > crate::protocol::MAX_ID_BYTES {
        return Err(format!(
            "a session id is 1 to {} bytes; this one has {}",
            crate::protocol::MAX_ID_BYTES,
            id.len()
        ));
    }
    if id.chars().any(char::is_control) {
        return Err("a session id holds no control characters".to_string());
    }
    Ok(())
}

/// The longest owner (a token's `sub`).
const MAX_OWNER_BYTES: usize = 256;

fn read(
    store: &Arc<dyn Store>,
    engine: &Engine,
    input: &mut dyn BufRead,
    pass: Pass,
) -> Result<Imported, String> {
    let mut done = Imported::default();
    let mut tickets = Vec::new();
    let mut line_no = 0;
    let mut line = String::new();
    // The session being read: its state, and whether it is written (not skipped).
    let mut current: Option<(Header, crate::conversation::Conversation, u64, bool)> = None;
    let finish =
        |current: &Option<(Header, crate::conversation::Conversation, u64, bool)>| match current {
            Some((h, _, seq, _)) if *seq != h.events => Err(format!(
                "session {}: {} events announced, {seq} read",
                h.session, h.events
            )),
            _ => Ok(()),
        };
    loop {
        line.clear();
        let n = std::io::Read::take(&mut *input, MAX_LINE as u64 + 1)
            .read_line(&mut line)
            .map_err(|e| format!("line {}: {e}", line_no + 1))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if line.len() > MAX_LINE {
            return Err(format!("line {line_no}: longer than {MAX_LINE} bytes"));
        }
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("line {line_no}: {e}"))?;
        if value.get("session").is_some() {
            finish(&current)?;
            let header: Header =
                serde_json::from_value(value).map_err(|e| format!("line {line_no}: {e}"))?;
            check_session_id(&header.session)
                .map_err(|e| format!("line {line_no}: session {:?}: {e}", header.session))?;
            if header
                .owner
                .as_ref()
                .is_some_and(|o| o.is_empty() || o.len() > MAX_OWNER_BYTES)
            {
                return Err(format!(
                    "line {line_no}: session {}: an owner is 1 to {MAX_OWNER_BYTES} bytes",
                    header.session
                ));
            }
            let exists = store
                .load(&header.session, 0, 0)
                .map_err(|e| e.to_string())?
                .is_some();
            if exists {
                // Left as it is only when it holds the same number of events (a rerun after a
                // complete import); one cut short by an interrupted import is said.
                let last = header.events.saturating_sub(1);
                let there = store
                    .events(&header.session, last, 2)
                    .map_err(|e| e.to_string())?
                    .unwrap_or_default();
                if header.events > 0 && there.len() != 1 {
                    return Err(format!(
                        "line {line_no}: session {} is in the target with another log than the file's {} events (an interrupted import?): not overwritten; delete it there first",
                        header.session, header.events
                    ));
                }
            }
            let conv = engine.start(header.session.as_str(), header.created_at);
            if exists {
                done.skipped.push(header.session.clone());
            } else if pass == Pass::Write {
                let create = Write::Create {
                    session: Arc::from(header.session.as_str()),
                    created_at: header.created_at,
                    idle_deadline: conv.idle_deadline,
                    owner: header.owner.as_deref().map(Arc::from),
                };
                tickets.push(store.write(create, None).map_err(|e| e.to_string())?);
                done.sessions += 1;
            }
            current = Some((header, conv, 0, !exists));
            continue;
        }
        let Some((header, conv, seq, writing)) = current.as_mut() else {
            return Err(format!("line {line_no}: an event before any session line"));
        };
        let event: Event =
            serde_json::from_value(value).map_err(|e| format!("line {line_no}: {e}"))?;
        if event.seq != *seq + 1 {
            return Err(format!(
                "line {line_no}: session {}: event {} follows {seq}",
                header.session, event.seq
            ));
        }
        if event
            .id
            .as_ref()
            .is_some_and(|id| id.len() > crate::protocol::MAX_ID_BYTES)
        {
            return Err(format!(
                "line {line_no}: session {}: an event's id is at most {} bytes",
                header.session,
                crate::protocol::MAX_ID_BYTES
            ));
        }
        let step = engine.step(conv, event.change.input(), event.at);
        // As the server reads a log: a flow's start or event its flow does not take makes the
        // session unreadable.
        if !step.changed
            && matches!(
                event.change,
                crate::store::Change::Start { .. } | crate::store::Change::Event { .. }
            )
        {
            return Err(format!(
                "line {line_no}: session {}: event {} is refused by its flow (unknown flow, event or data)",
                header.session, event.seq
            ));
        }
        *seq = event.seq;
        if *writing && pass == Pass::Write {
            let append = Append {
                session: Arc::from(header.session.as_str()),
                phase: conv.phase,
                idle_deadline: conv.idle_deadline,
                snapshot: event
                    .seq
                    .is_multiple_of(SNAPSHOT_EVERY)
                    .then(|| crate::protocol::to_text(&*conv)),
                finished: step.finished.iter().map(crate::protocol::to_text).collect(),
                goals_total: conv.completed_goals_total,
                event,
            };
            tickets.push(
                store
                    .write(Write::Append(Box::new(append)), None)
                    .map_err(|e| e.to_string())?,
            );
            // Bounded: at most this many writes queued at once.
            if tickets.len() >= WINDOW {
                wait(store, &tickets)
                    .map_err(|e| format!("the store did not take the import: {e}"))?;
                tickets.clear();
            }
            done.events += 1;
        }
    }
    finish(&current)?;
    wait(store, &tickets).map_err(|e| format!("the store did not take the import: {e}"))?;
    Ok(done)
}

/// Blocks until every write of `tickets` is committed; the first error otherwise.
fn wait(store: &Arc<dyn Store>, tickets: &[u64]) -> Result<(), StoreError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StoreError::new(crate::store::ErrorKind::Io, e.to_string()))?;
    runtime.block_on(async {
        for ticket in tickets {
            store.committed(*ticket).await?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_longer_than_a_page_goes_out_and_back_whole() {
        // 2,500 events: three pages each way.
        let at = "2026-01-01T00:00:00Z";
        let mut lines = vec![format!(
            r#"{{"session":"long","created_at":"{at}","events":2500}}"#
        )];
        for seq in 1..=2500 {
            let text = if seq % 2 == 1 { "Build a form" } else { "bye" };
            lines.push(format!(
                r#"{{"seq":{seq},"at":"{at}","type":"message","role":"user","text":"{text}"}}"#
            ));
        }
        let input = lines.join("\n") + "\n";
        let store = crate::store::open("memory:", &crate::store::Options::default()).unwrap();
        let engine = crate::patterns::builtin();
        let mut open =
            || Ok(Box::new(std::io::Cursor::new(input.clone().into_bytes())) as Box<dyn BufRead>);
        let done = import(&store, &engine, &mut open).unwrap();
        assert_eq!((done.sessions, done.events), (1, 2500));
        let mut out = Vec::new();
        assert_eq!(export(&*store, &[], &mut out).unwrap(), 1);
        let exported = String::from_utf8(out).unwrap();
        let (first, rest) = exported.split_once('\n').unwrap();
        let header: serde_json::Value = serde_json::from_str(first).unwrap();
        assert_eq!(header["events"], 2500);
        let seqs: Vec<u64> = rest
            .lines()
            .map(|l| serde_json::from_str::<Event>(l).unwrap().seq)
            .collect();
        assert_eq!(seqs, (1..=2500).collect::<Vec<_>>());
    }
}
