//! Reading a message: which signals it carries, whether it states a goal, which slots an
//! assistant asks for, and the values a user gives for slots.
//!
//! Every phrase list of the lexicon is compiled into one Aho-Corasick automaton, searched once per
//! message with overlapping matches; each match is kept only on whole-word boundaries and then
//! looked up in a table of what that phrase means (a phrase may mean several things: "ok" is a
//! filler and an approval). Sentence logic — leads at sentence starts, negation scope, the
//! `lead` position of cancel phrases — works on that list of hits. Slot extractors are regexes,
//! compiled once by the pattern loader and run only for the slots of the goal at hand.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use super::lexicon::{GoalDef, Lexicon, Settings, SlotDef};
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
    pub(super) articles: Vec<String>,
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
    pub(super) slot_sets: Vec<Option<super::lexicon::PatternSet>>,
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
