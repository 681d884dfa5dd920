//! A move from one thing to another ("switch our CI from travis to github actions"), and "to"
//! before a plain verb, which ends a thing ("I need the ledger export to include ...").

use super::*;

impl View<'_> {
    /// Where in `ws` a "to" stands before a plain verb of `verbs`.
    pub(super) fn to_plain_verb(&self, ws: &[Range<usize>]) -> Option<usize> {
        ws.windows(2).position(|p| {
            self.text[p[0].clone()].eq_ignore_ascii_case("to")
                && self
                    .cls
                    .lower_in(&self.cls.words.verbs, &self.text[p[1].clone()])
        })
    }

    /// The "from" of a move after the thing starting at `start`, up to `end`: "from" with a
    /// value after "to" later, not "to" and a plain verb ("the email template from marketing
    /// to include the code").
    pub(super) fn move_from(&self, start: usize, end: usize) -> Option<Range<usize>> {
        let from = words(self.text, start..end)
            .take(12)
            .find(|w| self.text[w.clone()].eq_ignore_ascii_case("from"))?;
        let after: SmallVec<[Range<usize>; 12]> = words(self.text, from.end..end).collect();
        (from.start > start
            && self.after_to(from.end..end).is_some()
            && self.text[from.end..end].contains(" to ")
            && self.to_plain_verb(&after).is_none())
        .then_some(from)
    }
}
