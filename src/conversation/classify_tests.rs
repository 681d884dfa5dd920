//! Tests of the classifier: its extractors' twins and splits against the patterns.

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
