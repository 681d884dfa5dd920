//! A reason after a request's value ("turn the lights off in the kitchen because i'm going to
//! bed", "move my run to 7 since it's raining") is why it is asked, no part of what changes:
//! the value ends before it. The language file's `reasons` are the reason's opener and its
//! subject ("because i", "since it's"): "since yesterday" tells when and stays.

use super::*;

impl View<'_> {
    /// Where a reason clause starts in `span` (among its first 24 words), if one does.
    pub(super) fn reason_clause(&self, span: Range<usize>) -> Option<usize> {
        let reasons = &self.cls.words.reasons;
        if reasons.is_empty() {
            return None;
        }
        let mut before: Option<Range<usize>> = None;
        let mut pair = String::new();
        for w in words(self.text, span).take(24) {
            if let Some(b) = before.take()
                && self.text[b.end..w.start].bytes().all(|c| c == b' ')
            {
                pair.clear();
                pair.push_str(&self.text[b.clone()]);
                pair.push(' ');
                pair.push_str(&self.text[w.clone()]);
                if self.cls.lower_in(reasons, &pair) {
                    return Some(b.start);
                }
            }
            // (Only a short word opens one: the pair is looked up after it.)
            if w.len() <= 7 {
                before = Some(w);
            }
        }
        None
    }
}
