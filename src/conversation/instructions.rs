//! Negated instructions (rule 4 with a negation): "don't add a comment on every line" is a
//! standing instruction, "do not merge until QA signs off" an action held back.

use std::ops::Range;

use smallvec::SmallVec;

use super::reading::{Detail, GoalLead};
use super::view::View;

impl View<'_> {
    /// A negation of `negated_instructions` opening the sentence at `start`, as written.
    pub(super) fn negated_instruction(&self, start: usize, end: usize) -> Option<Range<usize>> {
        let rest = self.text.get(start..end)?;
        let first = rest.bytes().next()?.to_ascii_lowercase();
        if !first.is_ascii_lowercase() || self.cls.negated_firsts & (1 << (first - b'a')) == 0 {
            return None;
        }
        self.cls.negated_instructions.iter().find_map(|n| {
            let head = rest.get(..n.len())?;
            (head.eq_ignore_ascii_case(n)
                && rest[n.len()..].starts_with(' ')
                && rest[n.len()..]
                    .trim_start()
                    .starts_with(|c: char| c.is_alphabetic()))
            .then(|| start..start + n.len())
        })
    }

    /// A task's lead after a negation is a standing instruction whose change keeps the
    /// negation ("don't add a comment on every line", "stop adding emojis"); a lead of
    /// another goal after one states nothing ("don't explain, just fix it"). After "don't" or
    /// "do not", one thing named or pointed at is spared a single action, no standing
    /// instruction: "please don't cancel the order", "don't change anything".
    pub(super) fn standing_instruction(
        &self,
        negation: Range<usize>,
        mut g: GoalLead,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        if cls.goals[g.goal].goal_type != crate::conversation::GoalType::TaskExecution {
            return None;
        }
        let negation_text = self.text[negation.clone()].to_ascii_lowercase();
        let once = negation_text.contains("don") || negation_text.contains("do not");
        if once
            && self.text[g.lead.end..]
                .split_whitespace()
                .next()
                .is_some_and(|w| {
                    let w = w.trim_matches(|c: char| !c.is_alphanumeric());
                    [
                        "the", "my", "our", "your", "this", "that", "his", "her", "their",
                    ]
                    .iter()
                    .chain(["anything", "everything", "nothing", "it", "them"].iter())
                    .any(|x| w.eq_ignore_ascii_case(x))
                })
        {
            return None;
        }
        // (Nor is an action held back for a time, a deferral: "don't deploy yet", "do not
        // merge until QA signs off", "don't restart it right now".)
        if once
            && self.text[g.lead.end..]
                .split_whitespace()
                .next()
                .is_none_or(|w| {
                    let w = w.trim_matches(|c: char| !c.is_alphanumeric());
                    [
                        "yet", "now", "until", "till", "til", "before", "today", "tonight",
                        "tomorrow", "right", "just",
                    ]
                    .iter()
                    .any(|x| w.eq_ignore_ascii_case(x))
                })
        {
            return None;
        }
        let end = g
            .details
            .iter()
            .flat_map(|d| d.spans.iter().map(|s| s.end))
            .chain([g.lead.end])
            .max()
            .unwrap_or(g.lead.end);
        let change = cls.clean(self.text, negation.start..end, false);
        g.details.retain(|d| d.slot != 1);
        g.details.push(Detail {
            slot: 1,
            prefix: "",
            spans: SmallVec::from_iter([change]),
        });
        Some(g)
    }
}
