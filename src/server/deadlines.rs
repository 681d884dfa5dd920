//! The deadline queue of the sweeper: a min-heap of (time, kind, session). The sweeper sleeps
//! until the earliest entry, so its work is proportional to the entries that fall due — each
//! session has at most one idle and one eviction entry — never a scan of all sessions.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use tokio::sync::Notify;

/// What falls due.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Due {
    /// The session's idle deadline: the engine decides whether it goes idle.
    Idle,
    /// The session's retention ends: it is evicted from memory if nobody is connected.
    Evict,
    /// A change of the session failed to commit: its state is reloaded from the log (and a
    /// passed idle deadline applied), even if no client sends anything.
    Reload,
    /// Another node stored changes while this one had its own in flight (a shared store):
    /// they are followed once those have settled.
    Follow,
}

type Entry = Reverse<(DateTime<Utc>, Due, Arc<str>)>;

#[derive(Debug, Default)]
pub(crate) struct Deadlines {
    heap: Mutex<BinaryHeap<Entry>>,
    /// Wakes the sweeper when an entry earlier than all others arrives.
    changed: Notify,
}

impl Deadlines {
    pub(crate) fn push(&self, at: DateTime<Utc>, kind: Due, session: Arc<str>) {
        let mut heap = self.heap.lock().unwrap_or_else(|p| p.into_inner());
        let earliest = heap.peek().is_none_or(|Reverse((t, _, _))| at < *t);
        heap.push(Reverse((at, kind, session)));
        drop(heap);
        if earliest {
            self.changed.notify_one();
        }
    }

    /// The earliest time in the queue.
    pub(crate) fn next(&self) -> Option<DateTime<Utc>> {
        let heap = self.heap.lock().unwrap_or_else(|p| p.into_inner());
        heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Removes and returns every entry due at `now`.
    pub(crate) fn pop_due(&self, now: DateTime<Utc>) -> Vec<(DateTime<Utc>, Due, Arc<str>)> {
        let mut heap = self.heap.lock().unwrap_or_else(|p| p.into_inner());
        let mut due = Vec::new();
        while heap.peek().is_some_and(|Reverse((t, _, _))| *t <= now) {
            if let Some(Reverse(entry)) = heap.pop() {
                due.push(entry);
            }
        }
        due
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.heap.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Resolves when an entry earlier than the others was pushed.
    pub(crate) async fn changed(&self) {
        self.changed.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_fall_due_in_time_order() {
        let d = Deadlines::default();
        let t: DateTime<Utc> = "2026-11-21T10:00:00Z".parse().unwrap();
        d.push(t + chrono::TimeDelta::seconds(5), Due::Idle, "b".into());
        d.push(t + chrono::TimeDelta::seconds(1), Due::Idle, "a".into());
        d.push(t + chrono::TimeDelta::seconds(9), Due::Evict, "c".into());
        assert_eq!(d.next(), Some(t + chrono::TimeDelta::seconds(1)));
        let due = d.pop_due(t + chrono::TimeDelta::seconds(5));
        let ids: Vec<&str> = due.iter().map(|(_, _, id)| &**id).collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(d.len(), 1);
    }
}
