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

    /// The numbered steps after a context label, where the text has them: the sentences after
    /// one that is labelled as context or is a step, while the one before ends with a list
    /// number ("Steps to reproduce: 1. open settings 2. change the language 3. reload": the
    /// dots after the numbers end sentences). They are the context's, no request of the
    /// user's. One pass over the sentences; a section is one range.
    pub(in crate::conversation) fn context_steps(&self) -> SmallVec<[Range<usize>; 2]> {
        let mut out: SmallVec<[Range<usize>; 2]> = SmallVec::new();
        // (A label has a colon: most messages have none.)
        if !self.text.contains(':') {
            return out;
        }
        let mut open = false;
        for s in sentences(self.text) {
            if open {
                match out.last_mut() {
                    Some(last) if last.end == s.start - 1 || last.end == s.start => {
                        last.end = s.end
                    }
                    _ => out.push(s.clone()),
                }
            }
            let numbered = ends_with_list_number(&self.text[s.clone()]);
            open = numbered && (open || self.context_labelled(s.clone()));
        }
        out
    }
}

/// Whether `sentence` ends with a list's number: one or two digits after a space, a colon or
/// nothing ("Steps to reproduce: 1", "open settings 2").
fn ends_with_list_number(sentence: &str) -> bool {
    let t = sentence.trim_end();
    let digits = t.len() - t.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    (1..=2).contains(&digits)
        && t[..t.len() - digits]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || c == ':')
}
