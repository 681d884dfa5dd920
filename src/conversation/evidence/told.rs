//! A sentence of the user's read by its evidence alone (no lead): past its fillers and the role
//! it speaks in, and past a setup it opens with ("our team uses github actions, and jobs sit in
//! the queue for ages"); a setup alone is context unless it is the last sentence.

use super::*;

impl View<'_> {
    /// The goal `evidence_of` finds in sentence `s` at `strength`; `last` when `s` is the
    /// message's last sentence of the user's own.
    pub(super) fn told(&self, s: Range<usize>, strength: Strength, last: bool) -> Option<GoalLead> {
        let mut start = self.skip(s.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
        start = self.after_role(start..s.end).unwrap_or(start);
        if start < s.end && self.setup(start..s.end) {
            match self.text[start..s.end].find(',') {
                Some(c) => start = self.skip(start + c + 1, |m| m == Meaning::Conjunction),
                None if !last => return None,
                None => {}
            }
        }
        (start < s.end && !self.about_assistant(start..s.end))
            .then(|| self.evidence_of(start..s.end, strength))
            .flatten()
    }

    /// Whether the goal's predicate says where its thing runs or lives: "runs under
    /// supervisor", "lives on a NAS", "sits behind nginx".
    pub(super) fn tells_where_it_runs(&self, g: &GoalLead) -> bool {
        let lead = &self.text[g.lead.clone()];
        [
            "runs", "run", "running", "lives", "sits", "hosted", "deployed",
        ]
        .iter()
        .any(|v| lead.eq_ignore_ascii_case(v))
            && words(self.text, g.lead.end..self.text.len())
                .next()
                .is_some_and(|w| {
                    self.word_in(&w, &["on", "under", "in", "inside", "behind", "via", "as"])
                })
    }
}
