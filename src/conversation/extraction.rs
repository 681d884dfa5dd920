//! The values a message's text gives the slots: the slot's extractors run over the text, and
//! the span found is trimmed of white space, punctuation, the lexicon's trailing words and
//! articles.

use std::ops::Range;

use super::classify::Classifier;
use super::lexicon::{Extractor, Haystack};
use super::text::{ends_with_word, starts_with_word};

impl Classifier {
    /// The value `text` gives for `slot`, as a byte range of `text`, from the slot's first
    /// extractor that yields one.
    pub fn extract(&self, text: &str, slot: usize) -> Option<Range<usize>> {
        self.extract_replacing(text, slot, false)
    }

    /// [`Classifier::extract`] for a slot that is `provided` already: only the extractors
    /// that may replace a value (not `fills_empty`: a part named in a requirement is no new
    /// kind, rule 11).
    pub fn extract_replacing(
        &self,
        text: &str,
        slot: usize,
        provided: bool,
    ) -> Option<Range<usize>> {
        let hay = Haystack::new(text);
        // Whether any extractor matches at all, in one pass.
        if self.slot_sets[slot]
            .as_ref()
            .is_some_and(|set| !set.is_match(hay))
        {
            return None;
        }
        self.slots[slot]
            .extractors
            .iter()
            .filter(|x| !(provided && x.fills_empty))
            .find_map(|x| self.extract_with(x, hay))
    }

    fn extract_with(&self, x: &Extractor, hay: Haystack<'_>) -> Option<Range<usize>> {
        let take = |m: Range<usize>| {
            let span = self.clean(hay.text(), m, true);
            let rejected = x
                .unless
                .as_ref()
                .is_some_and(|u| u.is_match(hay.slice(span.clone())));
            (!span.is_empty() && !rejected).then_some(span)
        };
        if x.value_group {
            x.pattern.find_map_group(hay, "value", take)
        } else {
            x.pattern.find_map(hay, take)
        }
    }

    /// Trims `span` of `text`: white space and punctuation at both ends, the lexicon's trailing
    /// words at the end and, when `articles`, its articles at the start. Linear in the span:
    /// each pass removes something, and what a pass looks at it removes (the quotes inside are
    /// counted once, not rescanned).
    pub(super) fn clean(&self, text: &str, span: Range<usize>, articles: bool) -> Range<usize> {
        if span.start >= span.end {
            return span.end..span.end;
        }
        let (mut s, mut e) = (span.start, span.end);
        // (The quotes inside are counted only where a pair may enclose the value: most values
        // have none.)
        let quotes = |t: &str| t.bytes().filter(|b| matches!(b, b'"' | b'\'')).count();
        let mut ticks: Option<usize> = None;
        loop {
            let before = (s, e);
            let slice = &text[s..e];
            // (A closing parenthesis never opens a value: "... txn_date) resets ...".)
            let trimmed = slice.trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, ',' | ':' | ';' | '-' | '(' | ')' | '—')
            });
            s = e - trimmed.len();
            let slice = &text[s..e];
            let trimmed = slice.trim_end_matches(|c: char| {
                c.is_whitespace() || matches!(c, '.' | ',' | '!' | '?' | ';' | ':' | ')' | '—')
            });
            e = s + trimmed.len();
            // A closing parenthesis stays with its opening one ("Permission denied (publickey)").
            let slice = &text[s..e];
            if text[e..before.1].starts_with(')')
                && slice.matches('(').count() > slice.matches(')').count()
            {
                e += 1;
            }
            // Quotes go only in pairs: `"todo" app` keeps its quotes, `"contact form"` loses them.
            let slice = &text[s..e];
            if slice.len() >= 2
                && (slice.starts_with('"') && slice.ends_with('"')
                    || slice.starts_with('\'') && slice.ends_with('\''))
                && quotes(slice) == 2
            {
                s += 1;
                e -= 1;
            }
            // A version in brackets after a name is no part of it: "websocket handler
            // (v1.14.2)". (Only the last 24 bytes are looked at.)
            let slice = &text[s..e];
            let tail = slice.len().saturating_sub(24);
            if slice.ends_with([')', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
                && let Some(p) = slice.as_bytes()[tail..].iter().rposition(|b| *b == b'(')
                && {
                    let v = slice[tail + p + 1..].trim_end_matches(')');
                    let v = v.strip_prefix(['v', 'V']).unwrap_or(v);
                    v.contains('.')
                        && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                        && !slice[..tail + p].trim().is_empty()
                }
            {
                e = s + tail + p;
            }
            // A backtick left alone at an end is the rest of a code span cut off ("` still
            // deletes empty directories"). (The span's backticks are counted once, then kept.)
            let slice = &text[s..e];
            if slice.starts_with('`') || slice.ends_with('`') {
                let n = ticks.get_or_insert_with(|| slice.bytes().filter(|b| *b == b'`').count());
                if *n % 2 == 1 {
                    if slice.starts_with('`') {
                        s += 1;
                    } else {
                        e -= 1;
                    }
                    *n -= 1;
                }
            }
            // (The first and last bytes rule out most words before they are compared whole.)
            let first = text.as_bytes().get(s).map(u8::to_ascii_lowercase);
            let last = e
                .checked_sub(1)
                .and_then(|i| text.as_bytes().get(i))
                .map(u8::to_ascii_lowercase);
            // (The trailing words first: "a bit" is one, before its "a" is an article.)
            if let Some(w) = self
                .trailing
                .iter()
                .find(|w| w.as_bytes().last() == last.as_ref() && ends_with_word(&text[s..e], w))
            {
                e -= w.len();
            }
            if articles
                && let Some(w) = self.articles.iter().find(|w| {
                    w.as_bytes().first() == first.as_ref() && starts_with_word(&text[s..e], w)
                })
            {
                s += w.len();
            }
            if (s, e) == before {
                return s..e;
            }
        }
    }

    pub(super) fn is_pronoun(&self, text: &str) -> bool {
        self.starts_with_any(&self.pronouns, text)
    }

    pub(super) fn starts_with_any(&self, list: &[String], text: &str) -> bool {
        list.iter().any(|w| starts_with_word(text, w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words and marks that the slot extractors lead with or stop at, in both cases, for the
    /// test of the ASCII twins.
    const EXTRACTOR_PIECES: &[&str] = &[
        "I",
        "need",
        "want",
        "a",
        "an",
        "the",
        "app",
        "with",
        "in",
        "using",
        "React",
        "react",
        "Vue",
        "python",
        "Node.js",
        "features",
        "feature",
        "like",
        "such as",
        "including",
        ":",
        "it",
        "should",
        "must",
        "needs to",
        "that",
        "which",
        "lets",
        "users",
        "track",
        "to",
        "for",
        "tracking",
        "also",
        "add",
        "include",
        "please",
        "fix",
        "update",
        "change",
        "login",
        "page",
        "button",
        "on",
        "of",
        "so",
        "they",
        "can",
        "make",
        "blue",
        "into",
        "by",
        "caching",
        "support",
        "authentication",
        "validation",
        "todo",
        "x-ray",
        "don't",
        "it's",
        "'quoted'",
        "\"quoted\"",
        "-",
        ",",
        ".",
        "!",
        "?",
        ";",
        "\n",
        "  ",
        "\t",
        "42",
        "3.5",
        "_",
        "snake_case",
        "FIX",
        "WITH",
        "Should",
        "ſ",
        "é",
        "\u{212A}",
    ];

    /// The built-in rules, loaded once for the tests that read many messages.
    fn builtin() -> &'static super::super::Engine {
        static ENGINE: std::sync::OnceLock<super::super::Engine> = std::sync::OnceLock::new();
        ENGINE.get_or_init(crate::patterns::builtin)
    }

    /// Where a built-in extractor's ASCII twin reads `text` otherwise than the pattern as
    /// written (on ASCII text), or is used at all (on any other), or is missing.
    fn twin_disagreement(text: &str) -> Option<String> {
        for x in builtin()
            .classifier()
            .slots
            .iter()
            .flat_map(|s| &s.extractors)
        {
            for p in std::iter::once(&x.pattern).chain(&x.unless) {
                let (any, ascii) = p.matches_both(text, "value");
                let Some(ascii) = ascii else {
                    return Some(format!("{} has no ASCII twin", p.as_str()));
                };
                if text.is_ascii() && any != ascii {
                    return Some(format!(
                        "{} on {text:?}: {any:?} against {ascii:?}",
                        p.as_str()
                    ));
                }
                if !text.is_ascii() && p.twin(Haystack::new(text)).is_some() {
                    return Some(format!("{} read {text:?} with its twin", p.as_str()));
                }
            }
        }
        None
    }

    /// Where a built-in extractor's split (`split.rs`) finds another `value` group than the
    /// capture search does, and how many groups it found.
    fn split_disagreement(text: &str) -> (usize, Option<String>) {
        let mut found = 0;
        for x in builtin()
            .classifier()
            .slots
            .iter()
            .flat_map(|s| &s.extractors)
        {
            let (n, why) = x.pattern.split_against_captures(text);
            found += n;
            if why.is_some() {
                return (found, why);
            }
        }
        (found, None)
    }

    /// On every message of the corpus, the splits find the groups the capture searches find;
    /// and they find at least nine in ten of their patterns' groups (the capture search is the
    /// fallback, not the rule).
    #[test]
    fn splits_find_the_groups_the_capture_searches_find() {
        let files = [
            include_str!("../../tests/corpus/dev-code.jsonl"),
            include_str!("../../tests/corpus/dev-extra.jsonl"),
            include_str!("../../tests/corpus/dev-fresh.jsonl"),
            include_str!("../../tests/corpus/dev-general.jsonl"),
            include_str!("../../tests/corpus/holdout.jsonl"),
            include_str!("../../tests/phrasing/real-phrasing.jsonl"),
        ];
        let (mut texts, mut found, mut matches) = (0, 0, 0);
        for line in files
            .iter()
            .flat_map(|f| f.lines())
            .filter(|l| !l.trim().is_empty())
        {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = case["text"].as_str().unwrap();
            if !text.is_ascii() {
                continue;
            }
            texts += 1;
            let (n, why) = split_disagreement(text);
            assert_eq!(why, None);
            found += n;
            matches += builtin()
                .classifier()
                .slots
                .iter()
                .flat_map(|s| &s.extractors)
                .filter(|x| x.pattern.has_split())
                .map(|x| x.pattern.matches_both(text, "value").0.len())
                .sum::<usize>();
        }
        assert!(texts > 3000, "{texts} messages");
        assert!(
            found * 10 > matches * 9,
            "the splits found {found} of the {matches} groups of their patterns"
        );
        // Every extractor with a `value` group has a split but one, whose group is followed by
        // words (the target's: "fix the header so ...").
        let extractors = builtin()
            .classifier()
            .slots
            .iter()
            .flat_map(|s| &s.extractors)
            .filter(|x| x.value_group);
        let (split, all) = extractors.fold((0, 0), |(s, a), x| {
            (s + usize::from(x.pattern.has_split()), a + 1)
        });
        assert_eq!((split, all), (20, 21));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 400, ..Default::default() })]

        /// On ASCII text, every extractor's ASCII twin finds the same matches and values as
        /// the pattern as written (and no twin reads text that is not ASCII).
        #[test]
        fn ascii_twins_of_the_extractors_match_as_the_patterns_do(
            words in proptest::collection::vec(proptest::sample::select(EXTRACTOR_PIECES), 0..30),
        ) {
            let text = words.join(" ");
            proptest::prop_assert_eq!(twin_disagreement(&text), None);
            proptest::prop_assert_eq!(split_disagreement(&text).1, None);
        }
    }

    /// The same on the phrasing suite's messages, as people write them.
    #[test]
    fn ascii_twins_match_as_the_patterns_do_on_real_phrasing() {
        let suite = include_str!("../../tests/phrasing/real-phrasing.jsonl");
        let mut texts = 0;
        for line in suite.lines().filter(|l| !l.trim().is_empty()) {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = case["text"].as_str().unwrap();
            texts += 1;
            assert_eq!(twin_disagreement(text), None);
        }
        assert!(texts > 100, "{texts} messages");
    }
}
