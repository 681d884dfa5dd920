//! A reason after a request's value ("turn the lights off in the kitchen because i'm going to
//! bed", "move my run to 7 since it's raining") is why it is asked, no part of what changes:
//! the value ends before it. The language file's `reasons` are the reason's opener and its
//! subject ("because i", "since it's"): "since yesterday" tells when and stays.

use super::*;

impl View<'_> {
    /// Where a reason clause starts in `span` (among its first 24 words), if one does.
    pub(super) fn reason_clause(&self, span: Range<usize>) -> Option<usize> {
        let cls = self.cls;
        if cls.words.reasons.is_empty() {
            return None;
        }
        let mut before: Option<Range<usize>> = None;
        for w in words(self.text, span).take(24) {
            if let Some(b) = before.take()
                && self.text[b.end..w.start].bytes().all(|c| c == b' ')
            {
                let pair = &self.text[b.start..w.end];
                // (One space between, as the list writes it.)
                if b.end + 1 == w.start && cls.lower_in(&cls.words.reasons, pair) {
                    return Some(b.start);
                }
            }
            // (The pair is looked up only after a reason's first word.)
            if w.len() <= 7 && cls.lower_in(&cls.words.reason_heads, &self.text[w.clone()]) {
                before = Some(w);
            }
        }
        None
    }
}
