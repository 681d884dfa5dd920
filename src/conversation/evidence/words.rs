//! The words of a message as the reader walks them: runs of characters between white space
//! and hard punctuation.

use std::ops::Range;

/// A word of the text: a run of characters that are not white space or hard punctuation.
pub(in crate::conversation) fn words(
    text: &str,
    span: Range<usize>,
) -> impl Iterator<Item = Range<usize>> + '_ {
    // An empty or inverted span (a skip past a sentence's end) has no words.
    let span = span.start.min(span.end)..span.end;
    let base = span.start;
    let slice = &text[span];
    let bytes = slice.as_bytes();
    let mut at = 0;
    // (Byte by byte: most text is ASCII, decided by a table; a character of several bytes is
    // decoded and asked whether it is white space.)
    let separator = move |at: usize| -> Option<usize> {
        let b = bytes[at];
        if b < 0x80 {
            return SEPARATORS[b as usize].then_some(1);
        }
        let c = slice[at..].chars().next()?;
        c.is_whitespace().then(|| c.len_utf8())
    };
    let width = move |at: usize| -> usize {
        if bytes[at] < 0x80 {
            1
        } else {
            slice[at..].chars().next().map_or(1, char::len_utf8)
        }
    };
    std::iter::from_fn(move || {
        while at < bytes.len() {
            if bytes[at] < 0x80 {
                if !SEPARATORS[bytes[at] as usize] {
                    break;
                }
                at += 1;
                continue;
            }
            match separator(at) {
                Some(n) => at += n,
                None => break,
            }
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        loop {
            // (A run of ASCII letters in one tight loop: the usual case.)
            while at < bytes.len() && bytes[at] < 0x80 && !SEPARATORS[bytes[at] as usize] {
                at += 1;
            }
            if at >= bytes.len() || bytes[at] < 0x80 || separator(at).is_some() {
                break;
            }
            at += width(at);
        }
        // A full stop ends a word ("sticky."), not a name ("Node.js").
        let mut end = at;
        while end > start && bytes[end - 1] == b'.' {
            end -= 1;
        }
        Some(base + start..base + end)
    })
    .filter(|r| !r.is_empty())
}

/// White space and hard punctuation among the ASCII bytes.
static SEPARATORS: [bool; 128] = {
    let mut t = [false; 128];
    let marks = b" \t\n\x0b\x0c\r,;:!?()\"[]{}`*";
    let mut i = 0;
    while i < marks.len() {
        t[marks[i] as usize] = true;
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The words as first written: by characters.
    fn by_characters(text: &str) -> Vec<Range<usize>> {
        let hard = |c: char| {
            matches!(
                c,
                ',' | ';' | ':' | '!' | '?' | '(' | ')' | '"' | '[' | ']' | '{' | '}' | '`' | '*'
            )
        };
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let rest = &text[at..];
            at += rest.len()
                - rest
                    .trim_start_matches(|c: char| c.is_whitespace() || hard(c))
                    .len();
            if at >= text.len() {
                return out;
            }
            let rest = &text[at..];
            let len = rest
                .find(|c: char| c.is_whitespace() || hard(c))
                .unwrap_or(rest.len());
            let trimmed = text[at..at + len].trim_end_matches('.').len();
            if trimmed > 0 {
                out.push(at..at + trimmed);
            }
            at += len;
        }
    }

    #[test]
    fn words_are_the_runs_between_white_space_and_hard_punctuation() {
        let text = "Fix the (Node.js) build... now!\u{a0}caf\u{e9} \u{2003}x\x0by `a`*b";
        assert_eq!(
            words(text, 0..text.len()).collect::<Vec<_>>(),
            by_characters(text)
        );
    }

    proptest::proptest! {
        #[test]
        fn words_by_bytes_are_the_words_by_characters(text in "[ a-z.,:;!?()\t\n\x0b\u{a0}\u{2003}\u{e9}\u{1F600}`*\"]{0,40}") {
            proptest::prop_assert_eq!(words(&text, 0..text.len()).collect::<Vec<_>>(), by_characters(&text));
        }
    }
}
