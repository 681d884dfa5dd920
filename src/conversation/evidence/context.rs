//! Rule 9 for context under a label: a sentence under a label that introduces context, and the
//! numbered steps that follow it (an issue's "Steps to reproduce: 1. open settings 2. reload").

use super::*;

impl View<'_> {
    /// A sentence under a label that introduces context (`context_labels`: "Context: b2b saas,
    /// 200 customers.", "Steps to reproduce: 1. open settings"): it states no goal; the next
    /// one may.
    pub(in crate::conversation) fn context_labelled(&self, sentence: Range<usize>) -> bool {
        let start = skip_soft(self.text, sentence.start).min(sentence.end);
        // (A label is short: its colon is looked for in the first 24 bytes.)
        self.text.as_bytes()[start..sentence.end.min(start + 24)]
            .iter()
            .position(|&b| b == b':')
            .is_some_and(|colon| {
                self.cls.lower_in(
                    &self.cls.words.context_labels,
                    self.text[start..start + colon].trim(),
                )
            })
    }

    /// The numbered steps after a context label, where the text has them: a labelled sentence
    /// that ends with "1", then each sentence while the one before ends with the next number
    /// ("Steps to reproduce: 1. open settings 2. change the language 3. reload": the dots
    /// after the numbers end sentences). They are the context's, no request of the user's.
    /// ("Environment: Ubuntu 22.04, Node 18." numbers no step.) One pass over the sentences; a
    /// section is one range.
    pub(in crate::conversation) fn context_steps(&self) -> SmallVec<[Range<usize>; 2]> {
        let mut out: SmallVec<[Range<usize>; 2]> = SmallVec::new();
        // (A label has a colon: most messages have none.)
        if !self.text.contains(':') {
            return out;
        }
        // The number the last sentence ended with, while in a section.
        let mut last: Option<u32> = None;
        for s in sentences(self.text) {
            if last.is_some() {
                match out.last_mut() {
                    Some(section) if section.end + 1 >= s.start => section.end = s.end,
                    _ => out.push(s.clone()),
                }
            }
            let number = list_number(&self.text[s.clone()]);
            last = match (last, number) {
                (Some(n), Some(m)) if m == n + 1 => Some(m),
                (None, Some(1)) if self.context_labelled(s.clone()) => Some(1),
                _ => None,
            };
        }
        out
    }
}

/// The list number `sentence` ends with: one or two digits after a space, a colon or nothing
/// ("Steps to reproduce: 1", "open settings 2").
fn list_number(sentence: &str) -> Option<u32> {
    let t = sentence.trim_end();
    let digits = t.len() - t.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let before = &t[..t.len() - digits];
    ((1..=2).contains(&digits)
        && before
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || c == ':'))
    .then(|| t[before.len()..].parse().ok())
    .flatten()
}
