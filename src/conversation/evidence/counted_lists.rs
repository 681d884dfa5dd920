//! Rule 14 for a counted list: a head that counts what follows ("Two issues with 1.4:", "a
//! couple of requests for the invoice module:", "3 things:"), then its items after the colon,
//! numbered ("1) ... 2) ...") or joined by commas and "and". Each item that states a goal is
//! one: the first is the current goal, the others are queued.

use super::*;

/// Words that count the items.
const COUNTS: [&str; 10] = [
    "two", "three", "four", "2", "3", "4", "couple", "few", "several", "some",
];
/// What the items are.
const ITEMS: [&str; 12] = [
    "things",
    "issues",
    "bugs",
    "problems",
    "requests",
    "questions",
    "suggestions",
    "changes",
    "asks",
    "ideas",
    "tasks",
    "regressions",
];
/// The most items read.
const MAX_ITEMS: usize = 4;

impl View<'_> {
    /// The items of a counted list in sentence `s`, when its head counts them: at least two,
    /// each past its number.
    pub(super) fn counted_items(&self, s: Range<usize>) -> Option<SmallVec<[Range<usize>; 4]>> {
        let c = memchr::memchr(b':', &self.text.as_bytes()[s.clone()])?;
        let colon = s.start + c;
        // (The head: a count within its first three words, what is counted right after it or
        // after "of", at most eight words in all.)
        let head: SmallVec<[Range<usize>; 8]> = words(self.text, s.start..colon).take(9).collect();
        if head.len() > 8 {
            return None;
        }
        let counted = head.iter().take(3).enumerate().any(|(i, w)| {
            self.word_in(w, &COUNTS)
                && (head.get(i + 1).is_some_and(|n| self.word_in(n, &ITEMS))
                    || head.get(i + 1).is_some_and(|n| self.word_in(n, &["of"]))
                        && head.get(i + 2).is_some_and(|n| self.word_in(n, &ITEMS)))
        });
        if !counted {
            return None;
        }
        let body = skip_soft(self.text, colon + 1)..s.end;
        if body.start >= body.end {
            return None;
        }
        let mut items: SmallVec<[Range<usize>; 4]> = SmallVec::new();
        let mut from = body.start;
        // (Cut before a number that opens an item, "2)", "(2)", "2.", or at ", and", "; ".)
        let bytes = self.text.as_bytes();
        let mut i = body.start;
        while i < body.end && items.len() + 1 < MAX_ITEMS {
            let rest = &bytes[i..body.end];
            let numbered = i > from
                && bytes[i - 1] == b' '
                && rest.len() > 2
                && rest[0].is_ascii_digit()
                && matches!(rest[1], b')' | b'.')
                && rest[2] == b' ';
            let joined = rest.starts_with(b", and ") || rest.starts_with(b"; ");
            if numbered || joined {
                let end = self.text[from..i]
                    .trim_end()
                    .trim_end_matches([',', ';'])
                    .len()
                    + from;
                if end > from {
                    items.push(from..end);
                }
                from = if numbered {
                    i + 3
                } else if rest[0] == b';' {
                    i + 2
                } else {
                    i + 6
                };
                i = from;
                continue;
            }
            i += 1;
        }
        if from < body.end {
            items.push(from..body.end);
        }
        // (A number opening the first item: "1) add ...".)
        for item in items.iter_mut() {
            let t = &self.text[item.clone()];
            if t.len() > 3
                && t.as_bytes()[0].is_ascii_digit()
                && matches!(t.as_bytes()[1], b')' | b'.')
                && t.as_bytes()[2] == b' '
            {
                item.start += 3;
            }
        }
        (items.len() >= 2).then_some(items)
    }

    /// The goals a counted list in sentence `s` states: the first, and those after it.
    pub(super) fn counted_goals(
        &self,
        s: Range<usize>,
    ) -> Option<(GoalLead, SmallVec<[GoalLead; 3]>)> {
        let items = self.counted_items(s)?;
        let mut goals = items.into_iter().filter_map(|item| {
            // (An item may report by its verb alone: "the autosave overwrites slot 1".)
            self.statement(item.clone(), false)
                .or_else(|| self.evidence(item, Strength::Suffix))
        });
        let first = goals.next()?;
        let rest: SmallVec<[GoalLead; 3]> = goals.collect();
        (!rest.is_empty()).then_some((first, rest))
    }
}
