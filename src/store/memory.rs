//! The in-process store: the same log, index and checks as SQLite, committed as it is written,
//! lost on restart. A session's log and history grow in memory as its file would on disk:
//! retention bounds them as it bounds the file.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use chrono::{DateTime, Utc};

use super::{
    Append, Committed, ErrorKind, Event, Health, RECENT_IDS, Receipt, SNAPSHOTS_KEPT, Store,
    StoreError, Stored, Waiters, Write,
};
use crate::conversation::{Conversation, Goal, Phase};

#[derive(Debug, Default)]
pub(crate) struct MemoryStore {
    inner: Mutex<Inner>,
    waiters: Waiters,
}

#[derive(Debug, Default)]
struct Inner {
    next_ticket: u64,
    sessions: HashMap<String, Session>,
}

#[derive(Debug)]
struct Session {
    created_at: DateTime<Utc>,
    owner: Option<String>,
    events: Vec<Event>,
    /// The last event's `seq` (0: none), kept beside the log: reading it from the log's end
    /// was a cache miss on every append.
    last_seq: u64,
    /// The last [`SNAPSHOTS_KEPT`] snapshots, oldest first.
    snapshots: VecDeque<(u64, String)>,
    recent_ids: VecDeque<(String, u64)>,
    goals: Vec<String>,
    phase: Phase,
    idle_deadline: Option<DateTime<Utc>>,
    updated: DateTime<Utc>,
}

impl MemoryStore {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn unknown(session: &str) -> StoreError {
    StoreError::new(ErrorKind::Conflict, format!("unknown session {session}"))
}

impl Inner {
    fn apply(&mut self, write: Write) -> Result<(), StoreError> {
        match write {
            Write::Create {
                session,
                created_at,
                idle_deadline,
                owner,
            } => {
                self.sessions.insert(
                    session.to_string(),
                    Session {
                        created_at,
                        owner: owner.map(|o| o.to_string()),
                        events: Vec::new(),
                        last_seq: 0,
                        snapshots: VecDeque::new(),
                        recent_ids: VecDeque::new(),
                        goals: Vec::new(),
                        phase: Phase::Greeting,
                        idle_deadline,
                        updated: created_at,
                    },
                );
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
                } = *append;
                let s = self
                    .sessions
                    .get_mut(&*session)
                    .ok_or_else(|| unknown(&session))?;
                super::check_append(&session, s.last_seq, event.seq)?;
                if let Some(state) = snapshot {
                    s.snapshots.push_back((event.seq, state));
                    if s.snapshots.len() as u64 > SNAPSHOTS_KEPT {
                        s.snapshots.pop_front();
                    }
                }
                if let Some(id) = &event.id {
                    s.recent_ids.push_back((id.clone(), event.seq));
                    if s.recent_ids.len() > RECENT_IDS {
                        s.recent_ids.pop_front();
                    }
                }
                if matches!(event.change, super::Change::Reset) {
                    s.goals.clear();
                }
                let first = goals_total.saturating_sub(finished.len() as u64);
                s.goals.truncate(first as usize);
                s.goals.extend(finished);
                s.updated = event.at;
                s.last_seq = event.seq;
                s.events.push(event);
                s.phase = phase;
                s.idle_deadline = idle_deadline;
            }
            Write::History {
                session,
                first,
                goals,
            } => {
                let s = self
                    .sessions
                    .get_mut(&*session)
                    .ok_or_else(|| unknown(&session))?;
                s.goals.truncate(first.saturating_sub(1) as usize);
                s.goals.extend(goals);
            }
            Write::Delete { session } => {
                self.sessions.remove(&*session);
            }
        }
        Ok(())
    }
}

impl Store for MemoryStore {
    fn write(&self, write: Write, receipt: Option<Receipt>) -> Result<u64, StoreError> {
        let mut inner = self.lock();
        inner.next_ticket += 1;
        let ticket = inner.next_ticket;
        let outcome = inner.apply(write);
        // Settled at once, still under the lock so that tickets settle in their order.
        let failures = match &outcome {
            Ok(()) => Vec::new(),
            Err(e) => vec![(ticket, e.clone())],
        };
        if let Some(receipt) = receipt {
            receipt(outcome);
        }
        self.waiters.settle(ticket, failures);
        drop(inner);
        Ok(ticket)
    }

    fn committed(&self, ticket: u64) -> Committed {
        self.waiters.wait(ticket)
    }

    fn committed_all(&self) -> Committed {
        let queued = self.lock().next_ticket;
        self.waiters.wait(queued)
    }

    fn health(&self) -> Health {
        Health::Ready
    }

    fn load(&self, session: &str, at: u64, through: u64) -> Result<Option<Stored>, StoreError> {
        let inner = self.lock();
        let Some(s) = inner.sessions.get(session) else {
            return Ok(None);
        };
        let snapshot = match s.snapshots.iter().rev().find(|(seq, _)| *seq <= at) {
            Some((seq, json)) => Some((
                *seq,
                serde_json::from_str::<Conversation>(json).map_err(|e| {
                    StoreError::new(
                        ErrorKind::Corrupt,
                        format!("session {session}: snapshot: {e}"),
                    )
                })?,
            )),
            None => None,
        };
        let from = snapshot.as_ref().map_or(0, |(seq, _)| *seq);
        let start = s.events.partition_point(|e| e.seq <= from);
        let end = s.events.partition_point(|e| e.seq <= through);
        Ok(Some(Stored {
            session_id: session.to_string(),
            created_at: s.created_at,
            owner: s.owner.clone(),
            snapshot,
            events: s.events[start..end.max(start)].to_vec(),
            recent_ids: s.recent_ids.iter().cloned().collect(),
        }))
    }

    fn events(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Event>>, StoreError> {
        Ok(self.lock().sessions.get(session).map(|s| {
            let from = s.events.partition_point(|e| e.seq <= after);
            s.events[from..].iter().take(limit).cloned().collect()
        }))
    }

    fn goals(
        &self,
        session: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<Goal>>, StoreError> {
        let inner = self.lock();
        let Some(s) = inner.sessions.get(session) else {
            return Ok(None);
        };
        let from = usize::try_from(after)
            .unwrap_or(usize::MAX)
            .min(s.goals.len());
        s.goals[from..]
            .iter()
            .take(limit)
            .map(|g| {
                serde_json::from_str(g).map_err(|e| {
                    StoreError::new(ErrorKind::Corrupt, format!("session {session}: goal: {e}"))
                })
            })
            .collect::<Result<Vec<Goal>, _>>()
            .map(Some)
    }

    fn goals_stored(&self, session: &str) -> Result<u64, StoreError> {
        Ok(self
            .lock()
            .sessions
            .get(session)
            .map_or(0, |s| s.goals.len() as u64))
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

    fn session_ids(&self, after: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut ids: Vec<String> = self
            .lock()
            .sessions
            .keys()
            .filter(|id| id.as_str() > after)
            .cloned()
            .collect();
        ids.sort();
        ids.truncate(limit);
        Ok(ids)
    }
}
