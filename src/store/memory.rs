//! The in-process store: the same log and checks as SQLite, committed at once, lost on restart.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use tokio::sync::watch;

use super::{Durable, Event, Store, StoreError, Stored, Write};
use crate::conversation::{Conversation, Phase};

#[derive(Debug)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
    durable: watch::Sender<Durable>,
}

#[derive(Debug, Default)]
struct Inner {
    next_ticket: u64,
    sessions: HashMap<String, Session>,
}

#[derive(Debug)]
struct Session {
    created_at: DateTime<Utc>,
    events: Vec<Event>,
    snapshot: Option<(u64, String)>,
    phase: Phase,
    idle_deadline: Option<DateTime<Utc>>,
    updated: DateTime<Utc>,
}

impl Default for MemoryStore {
    fn default() -> MemoryStore {
        MemoryStore {
            inner: Mutex::default(),
            durable: watch::Sender::new(Durable::default()),
        }
    }
}

impl MemoryStore {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Store for MemoryStore {
    fn write(&self, write: Write) -> Result<u64, StoreError> {
        if let Some(failed) = &self.durable.borrow().failed {
            return Err(StoreError(failed.to_string()));
        }
        let mut inner = self.lock();
        inner.next_ticket += 1;
        let ticket = inner.next_ticket;
        match write {
            Write::Create {
                session,
                created_at,
                idle_deadline,
            } => {
                inner.sessions.insert(
                    session.to_string(),
                    Session {
                        created_at,
                        events: Vec::new(),
                        snapshot: None,
                        phase: Phase::Greeting,
                        idle_deadline,
                        updated: created_at,
                    },
                );
            }
            Write::Append {
                session,
                event,
                phase,
                idle_deadline,
                snapshot,
            } => {
                let Some(s) = inner.sessions.get_mut(&*session) else {
                    return Err(StoreError(format!("append to unknown session {session}")));
                };
                let last = s.events.last().map_or(0, |e| e.seq);
                super::check_append(&session, last, event.seq).map_err(StoreError)?;
                if let Some(state) = snapshot {
                    s.snapshot = Some((event.seq, state));
                }
                s.updated = event.at;
                s.events.push(event);
                s.phase = phase;
                s.idle_deadline = idle_deadline;
            }
            Write::Delete { session } => {
                inner.sessions.remove(&*session);
            }
        }
        drop(inner);
        self.durable.send_modify(|d| d.committed = ticket);
        Ok(ticket)
    }

    fn durable(&self) -> watch::Receiver<Durable> {
        self.durable.subscribe()
    }

    fn queued(&self) -> u64 {
        self.lock().next_ticket
    }

    fn when_committed(
        &self,
        _ticket: u64,
    ) -> tokio::sync::oneshot::Receiver<Result<(), StoreError>> {
        // Every write is committed as it is made.
        let (tx, rx) = tokio::sync::oneshot::channel();
        let _ = tx.send(Ok(()));
        rx
    }

    fn load(&self, session: &str) -> Result<Option<Stored>, StoreError> {
        let inner = self.lock();
        let Some(s) = inner.sessions.get(session) else {
            return Ok(None);
        };
        let snapshot = match &s.snapshot {
            Some((seq, json)) => Some((
                *seq,
                serde_json::from_str::<Conversation>(json)
                    .map_err(|e| StoreError(format!("session {session}: snapshot: {e}")))?,
            )),
            None => None,
        };
        let from = snapshot.as_ref().map_or(0, |(seq, _)| *seq);
        Ok(Some(Stored {
            session_id: session.to_string(),
            created_at: s.created_at,
            snapshot,
            events: s.events.iter().filter(|e| e.seq > from).cloned().collect(),
        }))
    }

    fn events(&self, session: &str, after: u64) -> Result<Option<Vec<Event>>, StoreError> {
        Ok(self.lock().sessions.get(session).map(|s| {
            let from = s.events.partition_point(|e| e.seq <= after);
            s.events[from..].to_vec()
        }))
    }

    fn pending_deadlines(&self) -> Result<Vec<(String, DateTime<Utc>)>, StoreError> {
        Ok(self
            .lock()
            .sessions
            .iter()
            .filter(|(_, s)| s.phase != Phase::Idle)
            .filter_map(|(id, s)| s.idle_deadline.map(|d| (id.clone(), d)))
            .collect())
    }

    fn expired(&self, before: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        Ok(self
            .lock()
            .sessions
            .iter()
            .filter(|(_, s)| {
                matches!(s.phase, Phase::Idle | Phase::Completed) && s.updated < before
            })
            .map(|(id, _)| id.clone())
            .collect())
    }

    fn describe(&self) -> String {
        "memory:".to_string()
    }
}
