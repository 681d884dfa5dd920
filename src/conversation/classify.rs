//! Reading a message: which signals it carries, whether it states a goal, which slots an
//! assistant asks for, and the values a user gives for slots.
//!
//! Every phrase list of the lexicon is compiled into one Aho-Corasick automaton, searched once per
//! message with overlapping matches; each match is kept only on whole-word boundaries and then
//! looked up in a table of what that phrase means (a phrase may mean several things: "ok" is a
//! filler and an approval). Sentence logic — leads at sentence starts, negation scope, the
//! `lead` position of cancel phrases — works on that list of hits. Slot extractors are regexes,
//! compiled once by the pattern loader and run only for the slots of the goal at hand.

use std::ops::Range;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use super::lexicon::{Extractor, GoalDef, Haystack, Lexicon, Settings, SlotDef};
use super::reading::{LeadInfo, Meaning, SignalInfo};
use super::text::*;

/// The most slots a lexicon may define: `asked` sets are a `u64`.
pub const MAX_SLOTS: usize = 64;

/// The compiled lexicon.
/// The most bytes a slot's set of extractors may compile to.
const SET_SIZE_LIMIT: usize = 32 * 1024 * 1024;

/// A phrase with a signal, an intent or a non-answer among its meanings: the hits inside it
/// are read as part of it.
pub(super) const COVERS: u8 = 1;
/// A phrase that negates (`negations`).
pub(super) const NEGATION: u8 = 2;
/// A phrase that ends a clause (`clause_breaks`).
pub(super) const BREAK: u8 = 4;

#[derive(Clone, Debug)]
pub struct Classifier {
    pub(super) matcher: AhoCorasick,
    /// `meanings[meaning_at[p]..meaning_at[p + 1]]` are the meanings of phrase `p`.
    pub(super) meaning_at: Vec<u32>,
    pub(super) meanings: Vec<Meaning>,
    /// Whether phrase `p` starts and ends with a word character: only such edges need a word
    /// boundary (`<artifact` matches inside `x<artifact`).
    pub(super) word_edges: Vec<(bool, bool)>,
    /// Per phrase, what a view asks of each hit: [`COVERS`], [`NEGATION`], [`BREAK`].
    pub(super) phrase_flags: Vec<u8>,
    pub(super) leads: Vec<LeadInfo>,
    pub(super) signals: Vec<SignalInfo>,
    pub(super) goals: Vec<GoalDef>,
    pub(super) slots: Vec<SlotDef>,
    articles: Vec<String>,
    pub(super) trailing: Vec<String>,
    pub(super) pronouns: Vec<String>,
    /// Openings that negate the request after them, longest first.
    pub(super) negated_instructions: Vec<String>,
    /// Their first letters, a bit per letter: most sentences stop at one test.
    pub(super) negated_firsts: u32,
    /// The first letters of `exercise_openers`, a bit per letter: most sentences stop at one
    /// test.
    pub(super) exercise_firsts: u32,
    pub(super) noun_phrase_ends: Vec<String>,
    pub(super) small_talk_tail_words: u32,
    /// The vocabulary, for reading misspelt words.
    speller: super::typos::Speller,
    /// Single words of the language file's lists the reader looks up by word.
    pub(super) words: super::words::WordSets,
    /// Per slot, its extractors in one set: a message none of them matches costs one pass.
    slot_sets: Vec<Option<super::lexicon::PatternSet>>,
}

/// The subjects an intensifier may follow inside a phrase ("i really need", "we'd really
/// like"): the speaker, as the phrases of the pattern files name them, and "nothing" ("nothing
/// actually got deployed").
const INTENSIFIED_SUBJECTS: [&str; 7] = ["i", "we", "i'd", "we'd", "i'm", "we're", "nothing"];

/// The lexicon could not be compiled (only a pattern set far past any sane size does this).
#[derive(Debug)]
pub struct BuildError(pub String);

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

impl Classifier {
    pub fn new(lexicon: &Lexicon, settings: &Settings) -> Result<Classifier, BuildError> {
        if lexicon.slots.len() > MAX_SLOTS {
            return Err(BuildError(format!(
                "at most {MAX_SLOTS} slots are supported"
            )));
        }
        let mut entries: Vec<(String, Meaning)> = Vec::new();
        let lang = &lexicon.language;
        // (Each phrase also stands with its contractions swapped: "it'd help if" for "it
        // would help if"; with an intensifier after its subject, "i just want to be able to"
        // for "i want to be able to"; and a negation without its apostrophe, as people type
        // it: "hasnt" for "hasn't".)
        let intensifiers: Vec<String> = lang
            .intensifiers
            .iter()
            .map(|i| normalize_phrase(i))
            .collect();
        let mut add = |list: &[String], m: Meaning| {
            for p in list {
                let p = normalize_phrase(p);
                let mut forms = contraction_variants(&p, &lang.contractions);
                forms.push(p);
                let intensified: Vec<String> = forms
                    .iter()
                    .filter_map(|f| f.split_once(' '))
                    .filter(|(subject, rest)| {
                        INTENSIFIED_SUBJECTS.contains(subject)
                            && !intensifiers
                                .iter()
                                .any(|i| rest.split(' ').next() == Some(i.as_str()))
                    })
                    .flat_map(|(subject, rest)| {
                        intensifiers
                            .iter()
                            .map(move |i| format!("{subject} {i} {rest}"))
                    })
                    .collect();
                forms.extend(intensified);
                for f in forms {
                    if let Some(bare) = without_apostrophes(&f) {
                        entries.push((bare, m));
                    }
                    entries.push((f, m));
                }
            }
        };
        add(&lang.fillers, Meaning::Filler);
        add(&lang.acknowledgements, Meaning::Ack);
        add(&lang.intents, Meaning::Intent);
        add(&lang.small_talk, Meaning::SmallTalk);
        add(&lang.negations, Meaning::Negation);
        add(&lang.clause_breaks, Meaning::ClauseBreak);
        add(&lang.non_answers, Meaning::NonAnswer);
        add(&lang.contrast_markers, Meaning::Contrast);
        add(&lang.deferrals, Meaning::Deferral);
        add(&lang.action_questions, Meaning::ActionQuestion);
        add(&lang.problems, Meaning::Problem);
        add(&lang.modals, Meaning::Modal);
        add(&lang.error_markers, Meaning::ErrorMarker);
        add(&lang.addressee, Meaning::Addressee);
        add(&lang.persona, Meaning::Persona);
        add(&lang.corrections, Meaning::Correction);
        add(&lang.waivers, Meaning::Waiver);
        add(&lang.sequencers, Meaning::Sequencer);
        add(&lang.wishes, Meaning::Wish);
        add(&lang.conjunctions, Meaning::Conjunction);
        add(&lang.introducers, Meaning::Introducer);
        add(&lang.having, Meaning::Introducer);
        add(&lang.subordinators, Meaning::Subordinate);
        let mut leads = Vec::new();
        for (g, goal) in lexicon.goals.iter().enumerate() {
            for group in &goal.leads {
                let id = leads.len() as u16;
                leads.push(LeadInfo {
                    goal: g as u16,
                    mode: group.description,
                    object_must_match: group.object_must_match.map(|s| s as u16),
                    change: group.change,
                    min_words: group.min_words,
                });
                add(&group.phrases, Meaning::Lead(id));
            }
        }
        let mut signals = Vec::new();
        for def in &lexicon.signals {
            let id = signals.len() as u8;
            signals.push(SignalInfo {
                signal: def.signal,
                role: def.role,
                position: def.position,
            });
            add(&def.phrases, Meaning::Signal(id));
        }
        for (s, slot) in lexicon.slots.iter().enumerate() {
            add(&slot.cues, Meaning::Asks(s as u16));
        }
        entries.retain(|(p, _)| !p.is_empty());
        // One automaton pattern per distinct phrase; its meanings are grouped in a table.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut phrases: Vec<String> = Vec::new();
        let mut meaning_at = Vec::new();
        let mut meanings = Vec::new();
        for (phrase, meaning) in entries {
            if phrases.last() != Some(&phrase) {
                meaning_at.push(meanings.len() as u32);
                phrases.push(phrase);
            }
            if !meanings[*meaning_at.last().unwrap_or(&0) as usize..].contains(&meaning) {
                meanings.push(meaning);
            }
        }
        meaning_at.push(meanings.len() as u32);
        // (One more end: the phrase past the last, [`Classifier::no_phrase`], has no meanings.)
        meaning_at.push(meanings.len() as u32);
        // What a view asks of every hit, looked up once per phrase.
        let phrase_flags = meaning_at
            .windows(2)
            .map(|w| {
                let m = &meanings[w[0] as usize..w[1] as usize];
                let mut f = 0;
                if m.iter()
                    .any(|m| matches!(m, Meaning::Signal(_) | Meaning::Intent | Meaning::NonAnswer))
                {
                    f |= COVERS;
                }
                if m.contains(&Meaning::Negation) {
                    f |= NEGATION;
                }
                if m.contains(&Meaning::ClauseBreak) {
                    f |= BREAK;
                }
                f
            })
            .collect();
        let word_edges = phrases
            .iter()
            .map(|p| {
                let first = p.chars().next().is_some_and(is_word_char);
                let last = p.chars().next_back().is_some_and(is_word_char);
                (first, last)
            })
            .collect();
        let matcher = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&phrases)
            .or_else(|_| {
                // A DFA too large for memory: the slower NFA does the same job.
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(&phrases)
            })
            .map_err(|e| BuildError(format!("phrase automaton: {e}")))?;
        let lower = |list: &[String]| list.iter().map(|p| normalize_phrase(p)).collect();
        // Misspelt words are read as the words that decide something. Words only the reader
        // of real messages weighs as evidence (verbs describing behaviour, the assistant's
        // person, corrections, sequencers, error markers) are no corrections: "sonds" is
        // "sounds", not also "sends".
        let evidence_only = |p: usize| {
            meanings[meaning_at[p] as usize..meaning_at[p + 1] as usize]
                .iter()
                .all(|m| {
                    matches!(
                        m,
                        Meaning::Persona
                            | Meaning::Addressee
                            | Meaning::ErrorMarker
                            | Meaning::Correction
                            | Meaning::Sequencer
                            | Meaning::Wish
                            | Meaning::Conjunction
                            | Meaning::Introducer
                            | Meaning::Subordinate
                    )
                })
        };
        let speller = super::typos::Speller::new(
            phrases
                .iter()
                .enumerate()
                .filter(|(p, _)| !evidence_only(*p))
                .map(|(_, p)| p.as_str())
                .chain(
                    [
                        &lang.articles,
                        &lang.trailing,
                        &lang.pronouns,
                        &lang.noun_phrase_ends,
                    ]
                    .into_iter()
                    .flatten()
                    .map(String::as_str),
                ),
            lang.known_words.iter().map(String::as_str),
        )
        .with_hesitations(lang.hesitations.iter().map(String::as_str))
        .with_restatements(
            lang.restatements.iter().map(String::as_str),
            lang.spoken_numbers.iter().map(String::as_str),
        );
        Ok(Classifier {
            matcher,
            meaning_at,
            meanings,
            word_edges,
            phrase_flags,
            leads,
            signals,
            goals: lexicon.goals.clone(),
            slots: lexicon.slots.clone(),
            articles: lower(&lang.articles),
            trailing: lower(&lang.trailing),
            pronouns: lower(&lang.pronouns),
            negated_firsts: first_letters(&lang.negated_instructions),
            exercise_firsts: first_letters(&lang.exercise_openers),
            negated_instructions: {
                let mut n = lower(&lang.negated_instructions);
                n.sort_by_key(|p| std::cmp::Reverse(p.len()));
                n
            },
            noun_phrase_ends: lower(&lang.noun_phrase_ends),
            small_talk_tail_words: settings.small_talk_tail_words,
            speller,
            words: super::words::WordSets::new(lang),
            slot_sets: lexicon
                .slots
                .iter()
                .map(|s| {
                    let patterns: Vec<&super::lexicon::Pattern> =
                        s.extractors.iter().map(|x| &x.pattern).collect();
                    super::lexicon::PatternSet::new(&patterns, SET_SIZE_LIMIT)
                })
                .collect(),
        })
    }

    pub fn goals(&self) -> &[GoalDef] {
        &self.goals
    }

    pub fn slots(&self) -> &[SlotDef] {
        &self.slots
    }

    /// The goal definition of a goal type (every type is defined: the loader checks it).
    pub fn goal_def(&self, goal_type: super::state::GoalType) -> Option<&GoalDef> {
        self.goals.iter().find(|g| g.goal_type == goal_type)
    }

    /// `text` with its misspelt words read as vocabulary words (see [`super::typos`]).
    pub fn spell<'a>(&self, text: &'a str) -> super::typos::Said<'a> {
        self.speller.spell(text)
    }

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

    /// The meanings of the phrase with index `phrase` in the automaton.
    pub(super) fn meanings_of(&self, phrase: usize) -> &[Meaning] {
        let (a, b) = (self.meaning_at[phrase], self.meaning_at[phrase + 1]);
        &self.meanings[a as usize..b as usize]
    }

    /// The phrase of a verb found by its place, not by the automaton: one past the last,
    /// with no meanings.
    pub(super) fn no_phrase(&self) -> u32 {
        (self.meaning_at.len() - 2) as u32
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

/// The first letters of `phrases`, lower case, a bit per letter.
fn first_letters(phrases: &[String]) -> u32 {
    phrases
        .iter()
        .filter_map(|p| p.bytes().next())
        .map(|b| b.to_ascii_lowercase())
        .filter(u8::is_ascii_lowercase)
        .fold(0, |m, b| m | 1 << (b - b'a'))
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
