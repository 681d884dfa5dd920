//! Rule 8 for a title line above a body ("CSV import silently skips rows with quoted
//! commas", then a paragraph): the title states the post, read by every pass that reads a
//! sentence without a lead, before the body's sentences.

use super::*;

/// The most words of a title line.
const TITLE_WORDS: usize = 14;

impl View<'_> {
    /// The first of the user's sentences `owns` when it is a title line: alone on its line,
    /// of three to fourteen words, with more of the user's text after it.
    pub(super) fn title_line(&self, owns: &[Range<usize>]) -> Option<Range<usize>> {
        let first = owns.first()?.clone();
        let rest = self.text.get(first.end..)?;
        let gap = rest.trim_start_matches([' ', '\t', '\r', '.', '!', '?', ':']);
        if !gap.starts_with('\n') || owns.len() < 2 {
            return None;
        }
        let n = words(self.text, first.clone())
            .take(TITLE_WORDS + 1)
            .count();
        // (A line that breaks off is no title: "swapped in the renewed cert and now" runs on
        // into what follows.)
        let broken = words(self.text, first.clone()).last().is_some_and(|w| {
            let w = &self.text[w];
            self.cls.lower_in(&self.cls.words.ends, w)
                || ["now", "then", "but", "or"]
                    .iter()
                    .any(|x| w.eq_ignore_ascii_case(x))
        });
        (!broken && (3..=TITLE_WORDS).contains(&n)).then_some(first)
    }

    /// The goal a title line states without a lead: a problem title, a noun-phrase request,
    /// a plain verb, then a report read by its predicate.
    pub(super) fn title_line_goal(&self, line: Range<usize>) -> Option<GoalLead> {
        let start = self.skip(line.start, |m| matches!(m, Meaning::Filler | Meaning::Ack));
        if start >= line.end || self.context_labelled(start..line.end) {
            return None;
        }
        // (After a label: "Feature idea: split the bill by item, not just evenly".)
        let start = match self.title(start..line.end) {
            Some((after, _)) => self.skip(after, |m| matches!(m, Meaning::Filler | Meaning::Ack)),
            None => start,
        };
        if start >= line.end {
            return None;
        }
        let span = start..line.end;
        self.problem_title(self.missing_title(span.clone()))
            .or_else(|| self.nominal(span.clone()))
            .or_else(|| self.imperative(span.clone()))
            .or_else(|| self.evidence_of(span.clone(), Strength::Predicate))
            .or_else(|| self.evidence_of(span, Strength::Suffix))
    }
}
