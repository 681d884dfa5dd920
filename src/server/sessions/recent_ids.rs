//! The change ids a session remembers, for idempotent retries.

use std::collections::VecDeque;

use crate::store::RECENT_IDS;

/// A bounded memory of change ids: the `seq` each produced and the ticket that made it
/// durable. Each id is held once, in arrival order, and looked up by a scan from the newest:
/// at most 256 comparisons, and a third of the memory of a map beside a queue (up to 256 ids
/// of 128 bytes per session, every session of the node).
#[derive(Debug, Default)]
pub(super) struct RecentIds {
    ids: VecDeque<(Box<str>, u64, u64)>,
}

impl RecentIds {
    /// From the log's last ids, oldest first: all committed.
    pub(super) fn from_log(ids: Vec<(String, u64)>) -> RecentIds {
        let mut recent = RecentIds::default();
        let skip = ids.len().saturating_sub(RECENT_IDS);
        for (id, seq) in ids.into_iter().skip(skip) {
            recent.insert(&id, seq, 0);
        }
        recent
    }

    /// How many ids are held.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(super) fn get(&self, id: &str) -> Option<(u64, u64)> {
        self.ids
            .iter()
            .rev()
            .find(|(known, _, _)| **known == *id)
            .map(|&(_, seq, ticket)| (seq, ticket))
    }

    /// The change that answers `id` is a later one (the guide's last answer to a turn).
    pub(super) fn answered(&mut self, id: &str, seq: u64, ticket: u64) {
        if let Some(entry) = self
            .ids
            .iter_mut()
            .rev()
            .find(|(known, _, _)| **known == *id)
        {
            (entry.1, entry.2) = (seq, ticket);
        }
    }

    pub(super) fn insert(&mut self, id: &str, seq: u64, ticket: u64) {
        if self.get(id).is_some() {
            return; // the first change of an id is the one its retries are answered with
        }
        if self.ids.len() == RECENT_IDS {
            self.ids.pop_front();
        }
        self.ids.push_back((id.into(), seq, ticket));
    }
}
