//! A message as read: its text with the words read as others, and the way back to what the
//! user wrote (a description or a value keeps the user's spelling).

use std::borrow::Cow;
use std::ops::Range;

use smallvec::SmallVec;

/// A word read as another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Correction {
    /// Where the word stands in the original message.
    pub original: Range<usize>,
    /// Where the vocabulary word it is read as stands in the text as read.
    pub read: Range<usize>,
}

/// A message as read: the text with its corrections, and the way back to what was written.
#[derive(Clone, Debug)]
pub struct Said<'a> {
    /// The text the classifier reads.
    pub text: Cow<'a, str>,
    /// What was written.
    pub original: &'a str,
    pub corrections: SmallVec<[Correction; 2]>,
}

impl<'a> Said<'a> {
    /// A text read as written.
    pub fn as_written(text: &'a str) -> Said<'a> {
        Said {
            text: Cow::Borrowed(text),
            original: text,
            corrections: SmallVec::new(),
        }
    }

    /// What was written where `span` of the read text stands: a description or a value keeps
    /// the user's spelling.
    pub fn original_span(&self, span: Range<usize>) -> Range<usize> {
        if self.corrections.is_empty() {
            return span;
        }
        // (An empty span where a word was read as nothing maps its start after the word and
        // its end before it: it stays empty, at its start.)
        let start = self.position(span.start, false);
        start..self.position(span.end, true).max(start)
    }

    pub fn original_text(&self, span: Range<usize>) -> &str {
        &self.original[self.original_span(span)]
    }

    /// What was written where `span` of the read text stands, as a slot value: the words read
    /// as nothing strictly inside it (a hesitation, a spoken value restated) are left out
    /// ("book a table for 7pm i mean 8pm" gives "book a table for 8pm").
    pub fn value_text(&self, span: Range<usize>) -> Cow<'_, str> {
        let whole = self.original_span(span);
        let mut inside = self
            .corrections
            .iter()
            .filter(|c| {
                c.read.is_empty() && whole.start < c.original.start && c.original.end <= whole.end
            })
            .peekable();
        if inside.peek().is_none() {
            return Cow::Borrowed(&self.original[whole]);
        }
        let mut out = String::with_capacity(whole.len());
        let mut at = whole.start;
        for c in inside {
            out.push_str(&self.original[at..c.original.start]);
            at = c.original.end;
        }
        out.push_str(&self.original[at..whole.end]);
        Cow::Owned(out)
    }

    fn position(&self, at: usize, end: bool) -> usize {
        // (The read text's end is the message's, past a word read as nothing there.)
        if end && at == self.text.len() {
            return self.original.len();
        }
        let mut shift: isize = 0;
        for (i, c) in self.corrections.iter().enumerate() {
            // (A start where a word was read as nothing, inside the text, is after that word:
            // "twenty" of "for uh twenty" starts a value without the "uh"; after the last of
            // several read as nothing there, "for uh 12 minutes no wait make it 14".)
            if at == c.read.start && c.read.is_empty() && !end && at > 0 {
                return self.corrections[i..]
                    .iter()
                    .take_while(|d| d.read.start == at && d.read.is_empty())
                    .last()
                    .map_or(c.original.end, |d| d.original.end);
            }
            if at <= c.read.start {
                break;
            }
            if at < c.read.end {
                return if end {
                    c.original.end
                } else {
                    c.original.start
                };
            }
            shift = c.original.end as isize - c.read.end as isize;
        }
        (at as isize + shift) as usize
    }
}
