//! The words of a message as the reader walks them: runs of characters between white space
//! and hard punctuation.

use std::ops::Range;

/// A word of the text: a run of characters that are not white space or hard punctuation.
pub(super) fn words(text: &str, span: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    // An empty or inverted span (a skip past a sentence's end) has no words.
    let span = span.start.min(span.end)..span.end;
    let base = span.start;
    let slice = &text[span];
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = &slice[at..];
        let skip = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_whitespace() || is_hard(c))
                .len();
        at += skip;
        if at >= slice.len() {
            return None;
        }
        let rest = &slice[at..];
        let len = rest
            .find(|c: char| c.is_whitespace() || is_hard(c))
            .unwrap_or(rest.len());
        let word = at..at + len;
        at += len;
        // A full stop ends a word ("sticky."), not a name ("Node.js").
        let w = &slice[word.clone()];
        let trimmed = w.trim_end_matches('.');
        (!trimmed.is_empty())
            .then(|| base + word.start..base + word.start + trimmed.len())
            .or(Some(base + word.start..base + word.start))
    })
    .filter(|r| !r.is_empty())
}

fn is_hard(c: char) -> bool {
    matches!(
        c,
        ',' | ';' | ':' | '!' | '?' | '(' | ')' | '"' | '[' | ']' | '{' | '}' | '`' | '*'
    )
}
