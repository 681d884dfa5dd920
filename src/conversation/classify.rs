//! Reading a message: which signals it carries, whether it states a goal, which slots an
//! assistant asks for, and the values a user gives for slots.
//!
//! Every phrase list of the lexicon is compiled into one Aho-Corasick automaton, searched once per
//! message with overlapping matches; each match is kept only on whole-word boundaries and then
//! looked up in a table of what that phrase means (a phrase may mean several things: "ok" is a
//! filler and an approval). Sentence logic — leads at sentence starts, negation scope, the
//! `lead` position of cancel phrases — works on that list of hits. Slot extractors are regexes,
//! compiled once by the pattern loader and run only for the slots of the goal at hand.

use std::cmp::Reverse;
use std::ops::Range;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use smallvec::SmallVec;

use super::explain::{DropRule, PhraseNote};
use super::lexicon::{
    ChangeMode, DescriptionMode, Extractor, GoalDef, Haystack, Lexicon, Position, Role, Settings,
    Signal, SlotDef,
};

/// The most slots a lexicon may define: `asked` sets are a `u64`.
pub const MAX_SLOTS: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Meaning {
    Filler,
    Ack,
    Intent,
    /// Index into `Classifier::leads`.
    Lead(u16),
    /// Index into `Classifier::signals`.
    Signal(u8),
    Negation,
    ClauseBreak,
    SmallTalk,
    NonAnswer,
    /// Index into the lexicon's slots.
    Asks(u16),
    Contrast,
    Deferral,
    ActionQuestion,
    /// "Reading real messages": a problem predicate, a modal, a pasted error's marker, a word
    /// addressing the assistant, one of its person, a correction, a waiver, a sequencer.
    Problem,
    Modal,
    ErrorMarker,
    Addressee,
    Persona,
    Correction,
    Waiver,
    Sequencer,
    Wish,
    Conjunction,
    Introducer,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct LeadInfo {
    pub(super) goal: u16,
    pub(super) mode: DescriptionMode,
    pub(super) object_must_match: Option<u16>,
    pub(super) change: ChangeMode,
    pub(super) min_words: u32,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct SignalInfo {
    pub(super) signal: Signal,
    role: Role,
    position: Position,
}

/// One whole-word match of a phrase in the message.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hit {
    start: u32,
    end: u32,
    phrase: u32,
    /// Inside a longer phrase that is a signal, an intent or a non-answer, and so read as part
    /// of it: "sure" in "make sure" and "not sure" signals nothing. Negations still negate.
    pub(super) shadowed: bool,
}

impl Hit {
    pub(super) fn start(self) -> usize {
        self.start as usize
    }
    pub(super) fn end(self) -> usize {
        self.end as usize
    }
}

/// A set of signals, one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signals(u16);

impl Signals {
    pub fn of(signal: Signal) -> Signals {
        Signals(signal.bit())
    }
    pub fn has(self, signal: Signal) -> bool {
        self.0 & signal.bit() != 0
    }
    pub fn insert(&mut self, signal: Signal) {
        self.0 |= signal.bit();
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Without `signal`.
    pub fn without(self, signal: Signal) -> Signals {
        Signals(self.0 & !signal.bit())
    }
    pub fn iter(self) -> impl Iterator<Item = Signal> {
        Signal::ALL.into_iter().filter(move |s| self.has(*s))
    }
}

/// A goal found in a user message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalLead {
    /// Index into the lexicon's goals.
    pub goal: usize,
    /// The goal's description, as a byte range of the message.
    pub description: Range<usize>,
    /// The lead phrase (for a goal read from evidence, the words that showed it).
    pub lead: Range<usize>,
    /// What stands between the sentence's start (after fillers) and the lead: a polite wrapper
    /// or a statement of intent; empty when the lead starts the sentence.
    pub wrapper: Range<usize>,
    /// The rule that found it.
    pub rule: Found,
    /// Slot values the statement gives by its own structure (rule 10), before the extractors.
    pub details: SmallVec<[Detail; 2]>,
}

impl GoalLead {
    /// Stated with a lead verb or a question: a goal in any phase. A goal read from evidence
    /// (a problem report, a request of the thing itself, a pasted error) starts a goal only
    /// when none is active; with one active it is about that goal's work.
    pub fn by_lead(&self) -> bool {
        matches!(self.rule, Found::Lead | Found::Title)
    }
}

/// How a goal was found: the rules of the specification's "Reading real messages".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A goal lead at a sentence's start (after fillers, wrappers and intents).
    Lead,
    /// A lead after a title ("Bug: ..."), or a task title alone ("feat: dark mode toggle").
    Title,
    /// Rule 1: a subject and a problem predicate.
    ProblemReport,
    /// Rule 1: a pasted error or stack trace.
    PastedError,
    /// Rule 1: a paste led in by a line of the user's own ("cargo build gives me:").
    IntroducedPaste,
    /// Rule 2: a subject and a modal ("the export should include archived items").
    Request,
    /// Rule 2: a request that is a noun phrase ("infinite scroll on the feed", "a budget
    /// spreadsheet to track rent").
    Nominal,
}

impl Found {
    pub fn as_str(self) -> &'static str {
        match self {
            Found::Lead => "goal lead",
            Found::Title => "title (rule 8)",
            Found::ProblemReport => "problem report (rule 1)",
            Found::PastedError => "pasted error (rule 1)",
            Found::IntroducedPaste => "paste led in by the user's line (rule 1)",
            Found::Request => "request of the thing itself (rule 2)",
            Found::Nominal => "request as a noun phrase (rule 2)",
        }
    }
}

/// A slot value a statement gives (rule 10): `prefix`, then its pieces joined by ", ".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detail {
    /// Position in the goal's slots.
    pub slot: usize,
    pub prefix: &'static str,
    pub spans: SmallVec<[Range<usize>; 2]>,
}

/// What a message says, before the rules decide what it does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// Role-gated, not negated signals (and the cancel phrase only when the message leads with
    /// it).
    pub signals: Signals,
    /// The first goal lead of a user message.
    pub goal: Option<GoalLead>,
    /// Slots an assistant message asks for, one bit per slot index.
    pub asks: u64,
    /// Those of `asks` whose cue stands in a sentence that ends with `?` (a plan that lists
    /// "What should be different afterwards: ..." asks nothing).
    pub asks_in_question: u64,
    /// A user reply that answers nothing ("not sure", "skip").
    pub non_answer: bool,
    /// A user message that ends with a question mark: it answers no asked slot by its position.
    pub question: bool,
    /// A user message whose satisfaction stood before a contrast marker and was dropped, with
    /// nothing satisfied after it and no deferral ("It looks good but the color is off").
    pub complaint: bool,
    /// Further goals stated after the first (rule 14), at most `MAX_QUEUED_GOALS`.
    pub more: SmallVec<[GoalLead; 1]>,
    /// The goals were joined by "or": the user has not chosen (rule 14).
    pub alternatives: bool,
    /// A user reply leaving the question to the assistant ("you decide", rule 13).
    pub waiver: bool,
    /// A user message naming a problem (a problem word that is not a mere negation) or what
    /// the thing should do ("it should skip ..."): in `reviewing`, a change request ("still
    /// crashes when I switch cameras"), unless the message defers or is satisfied ("The colour
    /// was off but now it looks great").
    pub problem: bool,
    /// With a goal active, a short reply correcting a value (rule 12): the new value and, when
    /// named, the one it replaces ("not React, Svelte").
    pub correction: Option<(Range<usize>, Option<Range<usize>>)>,
}

/// The compiled lexicon.
/// The most bytes a slot's set of extractors may compile to.
const SET_SIZE_LIMIT: usize = 32 * 1024 * 1024;

#[derive(Clone, Debug)]
pub struct Classifier {
    matcher: AhoCorasick,
    /// `meanings[meaning_at[p]..meaning_at[p + 1]]` are the meanings of phrase `p`.
    meaning_at: Vec<u32>,
    meanings: Vec<Meaning>,
    /// Whether phrase `p` starts and ends with a word character: only such edges need a word
    /// boundary (`<artifact` matches inside `x<artifact`).
    word_edges: Vec<(bool, bool)>,
    pub(super) leads: Vec<LeadInfo>,
    pub(super) signals: Vec<SignalInfo>,
    pub(super) goals: Vec<GoalDef>,
    pub(super) slots: Vec<SlotDef>,
    articles: Vec<String>,
    trailing: Vec<String>,
    pronouns: Vec<String>,
    pub(super) noun_phrase_ends: Vec<String>,
    pub(super) small_talk_tail_words: u32,
    /// The vocabulary, for reading misspelt words.
    speller: super::typos::Speller,
    /// Single words of the language file's lists the reader looks up by word.
    pub(super) words: super::evidence::WordSets,
    /// Per slot, its extractors in one set: a message none of them matches costs one pass.
    slot_sets: Vec<Option<super::lexicon::PatternSet>>,
}

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
        let mut add = |list: &[String], m: Meaning| {
            entries.extend(list.iter().map(|p| (normalize_phrase(p), m)));
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
        );
        Ok(Classifier {
            matcher,
            meaning_at,
            meanings,
            word_edges,
            leads,
            signals,
            goals: lexicon.goals.clone(),
            slots: lexicon.slots.clone(),
            articles: lower(&lang.articles),
            trailing: lower(&lang.trailing),
            pronouns: lower(&lang.pronouns),
            noun_phrase_ends: lower(&lang.noun_phrase_ends),
            small_talk_tail_words: settings.small_talk_tail_words,
            speller,
            words: super::evidence::WordSets::new(lang),
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

    /// Reads a message written by `role`, as the first message of a goal (no goal active).
    /// `text` should be normalised (see [`normalize`]).
    pub fn read(&self, text: &str, role: Role) -> Reading {
        self.read_explained(text, role, false, None)
    }

    /// [`Classifier::read`], in a session whose goal is `active` or not, noting in `notes`
    /// (when given) every phrase found, whether it counted and, if not, why; spans are of
    /// `text`. With a goal active only a goal lead states a goal ("Reading real messages":
    /// evidence without a lead is about the current goal), so the reader looks no further,
    /// and a short reply is read as a possible correction.
    pub fn read_explained(
        &self,
        text: &str,
        role: Role,
        active: bool,
        notes: Option<&mut Vec<PhraseNote>>,
    ) -> Reading {
        match notes {
            Some(notes) => self.read_noting::<true>(text, role, active, notes),
            None => self.read_noting::<false>(text, role, active, &mut Vec::new()),
        }
    }

    /// The reading, with notes when `NOTE`: compiled twice, so a reading without notes has no
    /// trace of them.
    fn read_noting<const NOTE: bool>(
        &self,
        text: &str,
        role: Role,
        active: bool,
        notes: &mut Vec<PhraseNote>,
    ) -> Reading {
        let mut note = |class: &str, role: Role, hit: Hit, dropped_by: Option<DropRule>| {
            if NOTE {
                notes.push(PhraseNote {
                    class: class.to_string(),
                    role,
                    text: text[hit.start()..hit.end()].to_string(),
                    start: hit.start(),
                    end: hit.end(),
                    dropped_by,
                });
            }
        };
        let mut view = View::new(self, text);
        view.active = active;
        let mut reading = Reading::default();
        // The spec's "Real phrasing" (user messages): what stands before the last contrast
        // marker, anything beside a deferral, and what a question does not ask for, neither
        // approves nor satisfies.
        let user = role == Role::User;
        let mut last_contrast = None;
        let mut deferred = false;
        if user {
            for hit in view.hits.iter().filter(|h| !h.shadowed) {
                let meanings = view.meanings(*hit);
                if meanings.contains(&Meaning::Contrast) {
                    last_contrast = Some(hit.start());
                    note("contrast", role, *hit, None);
                }
                if meanings.contains(&Meaning::Deferral) {
                    let negated = view.negated(*hit);
                    deferred |= !negated;
                    note(
                        "deferral",
                        role,
                        *hit,
                        negated.then_some(DropRule::Negation),
                    );
                }
            }
            reading.question = text.trim_end().ends_with('?');
        }
        let mut dropped_satisfied = false;
        for hit in view.hits.iter().filter(|h| !h.shadowed) {
            for &meaning in view.meanings(*hit) {
                match meaning {
                    Meaning::Signal(i) => {
                        let info = self.signals[i as usize];
                        let class = info.signal.as_str();
                        let mut drop = |rule| note(class, info.role, *hit, Some(rule));
                        if info.role != role {
                            drop(DropRule::Role);
                            continue;
                        }
                        let counts = match info.position {
                            Position::Anywhere => !view.negated(*hit),
                            Position::Lead => view.leads_message(*hit),
                        };
                        if !counts {
                            drop(match info.position {
                                Position::Anywhere => DropRule::Negation,
                                Position::Lead => DropRule::Position,
                            });
                            continue;
                        }
                        if user && matches!(info.signal, Signal::Approve | Signal::Satisfied) {
                            if deferred {
                                drop(DropRule::Deferral);
                                continue;
                            }
                            if last_contrast.is_some_and(|at| hit.start() < at) {
                                dropped_satisfied |= info.signal == Signal::Satisfied;
                                drop(DropRule::Contrast);
                                continue;
                            }
                            if let Some(asks_to_act) = view.in_question(*hit)
                                && (info.signal == Signal::Satisfied || !asks_to_act)
                            {
                                drop(DropRule::Question);
                                continue;
                            }
                        }
                        note(class, role, *hit, None);
                        reading.signals.insert(info.signal);
                    }
                    Meaning::Asks(slot) if role == Role::Assistant => {
                        reading.asks |= 1 << slot;
                        if view.in_question(*hit).is_some() {
                            reading.asks_in_question |= 1 << slot;
                        }
                        if NOTE {
                            let class = format!("asks:{}", self.slots[slot as usize].name);
                            note(&class, role, *hit, None);
                        }
                    }
                    Meaning::NonAnswer if role == Role::User => {
                        reading.non_answer = true;
                        note("non_answer", role, *hit, None);
                    }
                    // A problem word (not a mere negation), or a modal ("it should skip ..."):
                    // in `reviewing`, what the user wants otherwise.
                    Meaning::Problem | Meaning::Modal
                        if role == Role::User
                            && !view.meanings(*hit).contains(&Meaning::Negation)
                            && !view.negated(*hit) =>
                    {
                        reading.problem = true;
                    }
                    Meaning::Waiver if role == Role::User && !view.negated(*hit) => {
                        reading.waiver = true;
                        note("waiver", role, *hit, None);
                    }
                    _ => {}
                }
            }
        }
        reading.complaint =
            dropped_satisfied && !deferred && !reading.signals.has(Signal::Satisfied);
        reading.problem &= !deferred && !reading.signals.has(Signal::Satisfied);
        if role == Role::User {
            view.read_goals(&mut reading, active);
            if active {
                reading.correction = view.correction();
            }
        }
        reading
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
        // Which extractors match at all, in one pass (all of them without a set).
        let matching = self.slot_sets[slot]
            .as_ref()
            .map_or(u64::MAX, |set| set.matches(hay));
        self.slots[slot]
            .extractors
            .iter()
            .enumerate()
            .filter(|(i, x)| matching & (1 << i) != 0 && !(provided && x.fills_empty))
            .find_map(|(_, x)| self.extract_with(x, hay))
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

    /// The reply as the value of a slot that was asked for: the message without fillers,
    /// leading articles and trailing punctuation.
    pub fn answer_span(&self, text: &str) -> Range<usize> {
        let view = View::new(self, text);
        let start = view.skip(0, |m| matches!(m, Meaning::Filler | Meaning::Ack));
        self.clean(text, start..text.len(), true)
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
        let quotes = |t: &str| t.bytes().filter(|b| matches!(b, b'"' | b'\'')).count();
        let mut inside = quotes(&text[s..e]);
        loop {
            let before = (s, e);
            let slice = &text[s..e];
            let trimmed = slice.trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, ',' | ':' | ';' | '-' | '(' | '—')
            });
            s = e - trimmed.len();
            let slice = &text[s..e];
            let trimmed = slice.trim_end_matches(|c: char| {
                c.is_whitespace() || matches!(c, '.' | ',' | '!' | '?' | ';' | ':' | ')' | '—')
            });
            e = s + trimmed.len();
            // Quotes go only in pairs: `"todo" app` keeps its quotes, `"contact form"` loses them.
            let slice = &text[s..e];
            if slice.len() >= 2
                && (slice.starts_with('"') && slice.ends_with('"')
                    || slice.starts_with('\'') && slice.ends_with('\''))
                && inside == 2
            {
                s += 1;
                e -= 1;
                inside = 0;
            }
            // (The first and last bytes rule out most words before they are compared whole.)
            let first = text.as_bytes().get(s).map(u8::to_ascii_lowercase);
            let last = e
                .checked_sub(1)
                .and_then(|i| text.as_bytes().get(i))
                .map(u8::to_ascii_lowercase);
            if articles
                && let Some(w) = self.articles.iter().find(|w| {
                    w.as_bytes().first() == first.as_ref() && starts_with_word(&text[s..e], w)
                })
            {
                inside -= quotes(&text[s..s + w.len()]);
                s += w.len();
            }
            if let Some(w) = self
                .trailing
                .iter()
                .find(|w| w.as_bytes().last() == last.as_ref() && ends_with_word(&text[s..e], w))
            {
                inside -= quotes(&text[e - w.len()..e]);
                e -= w.len();
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

/// A message with its hits, for the sentence logic. Built in O(n log n) of the message's
/// length whatever its content (no hit is compared with every other): long messages are normal
/// (assistants paste code), and a message built to be slow must not stall the server.
pub(super) struct View<'a> {
    pub(super) cls: &'a Classifier,
    pub(super) text: &'a str,
    /// By start, longest first.
    pub(super) hits: SmallVec<[Hit; 32]>,
    /// Negation hits' ends, ascending.
    negations: SmallVec<[u32; 8]>,
    /// Positions of the bytes that end a clause, ascending.
    clause_bytes: SmallVec<[u32; 16]>,
    /// Clause-break hits ("but") by start, with the smallest end of this and every later one.
    breaks: SmallVec<[(u32, u32); 8]>,
    /// Where the message starts after its fillers.
    pub(super) after_fillers: usize,
    /// The bytes that end a sentence (see [`sentences`]), ascending.
    pub(super) sentence_ends: SmallVec<[u32; 8]>,
    /// A goal is active: "it" and "them" refer to its work (rule 5).
    pub(super) active: bool,
}

impl<'a> View<'a> {
    pub(super) fn new(cls: &'a Classifier, text: &'a str) -> View<'a> {
        let mut hits: SmallVec<[Hit; 32]> = SmallVec::new();
        for m in cls.matcher.find_overlapping_iter(text) {
            let (first, last) = cls.word_edges[m.pattern().as_usize()];
            if (first && !boundary_before(text, m.start()))
                || (last && !boundary_after(text, m.end()))
            {
                continue;
            }
            hits.push(Hit {
                start: m.start() as u32,
                end: m.end() as u32,
                phrase: m.pattern().as_u32(),
                shadowed: false,
            });
        }
        // By start, longest first: the first hit found at a position is its longest.
        hits.sort_unstable_by_key(|h| (h.start, Reverse(h.end)));
        // Clause bytes and sentence ends in one pass: every sentence end is a clause byte, so
        // only those are looked at twice.
        let mut clause_bytes: SmallVec<[u32; 16]> = SmallVec::new();
        let mut ends: SmallVec<[u32; 8]> = SmallVec::new();
        let bytes = text.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            if is_clause_byte(*b) {
                clause_bytes.push(i as u32);
                let end = *b != b'.' || i + 1 == bytes.len() || bytes[i + 1].is_ascii_whitespace();
                if end && *b != b',' {
                    ends.push(i as u32);
                }
            }
        }
        let mut view = View {
            cls,
            text,
            hits,
            negations: SmallVec::new(),
            clause_bytes,
            breaks: SmallVec::new(),
            after_fillers: 0,
            sentence_ends: ends,
            active: true,
        };
        // A hit inside a longer one that is a signal, an intent or a non-answer is read as part
        // of it. In start order (longest first at a start), every hit that could cover this one
        // came before it: it is covered when the furthest end of those reaches its end.
        let mut cover: Option<u32> = None;
        for i in 0..view.hits.len() {
            let h = view.hits[i];
            view.hits[i].shadowed = cover.is_some_and(|end| end >= h.end);
            let meanings = view.meanings(h);
            if meanings
                .iter()
                .any(|m| matches!(m, Meaning::Signal(_) | Meaning::Intent | Meaning::NonAnswer))
            {
                cover = Some(cover.map_or(h.end, |end| end.max(h.end)));
            }
            if meanings.contains(&Meaning::Negation) {
                view.negations.push(h.end);
            }
            if meanings.contains(&Meaning::ClauseBreak) {
                view.breaks.push((h.start, h.end));
            }
        }
        view.negations.sort_unstable();
        // The smallest end among the breaks from each one on.
        for i in (0..view.breaks.len().saturating_sub(1)).rev() {
            view.breaks[i].1 = view.breaks[i].1.min(view.breaks[i + 1].1);
        }
        view.after_fillers = view.skip(0, |m| m == Meaning::Filler);
        view
    }

    pub(super) fn meanings(&self, hit: Hit) -> &'a [Meaning] {
        let p = hit.phrase as usize;
        let (a, b) = (self.cls.meaning_at[p], self.cls.meaning_at[p + 1]);
        &self.cls.meanings[a as usize..b as usize]
    }

    /// The hits that start at `at`, longest first.
    pub(super) fn starting_at(&self, at: usize) -> &[Hit] {
        let first = self.hits.partition_point(|h| h.start() < at);
        let end = first + self.hits[first..].partition_point(|h| h.start() == at);
        &self.hits[first..end]
    }

    /// The longest hit starting at `at` with a meaning that `want` accepts.
    pub(super) fn at(&self, at: usize, want: impl Fn(Meaning) -> bool) -> Option<Hit> {
        self.starting_at(at)
            .iter()
            .find(|h| self.meanings(**h).iter().any(|m| want(*m)))
            .copied()
    }

    /// `at` moved past white space and soft punctuation, then past every phrase that `want`
    /// accepts, repeatedly.
    pub(super) fn skip(&self, mut at: usize, want: impl Fn(Meaning) -> bool) -> usize {
        loop {
            at = skip_soft(self.text, at);
            match self.at(at, &want) {
                Some(h) => at = h.end(),
                None => return at,
            }
        }
    }

    /// A signal phrase is negated when a negation stands before it in its clause. Only the
    /// last negation that ends before it need be looked at: an earlier one's clause holds that
    /// one's.
    pub(super) fn negated(&self, hit: Hit) -> bool {
        let before = self.negations.partition_point(|end| *end <= hit.start);
        let Some(&from) = before.checked_sub(1).and_then(|i| self.negations.get(i)) else {
            return false;
        };
        // A clause byte in `from..hit.start`, or a break hit within it, ends the clause.
        let next_byte = self.clause_bytes.partition_point(|p| *p < from);
        if self
            .clause_bytes
            .get(next_byte)
            .is_some_and(|p| *p < hit.start)
        {
            return false;
        }
        let next_break = self.breaks.partition_point(|(start, _)| *start < from);
        self.breaks
            .get(next_break)
            .is_none_or(|(_, min_end)| *min_end > hit.start)
    }

    /// Whether the message leads with this hit (after fillers) and the hit ends its clause.
    fn leads_message(&self, hit: Hit) -> bool {
        let filler = |m| m == Meaning::Filler;
        if self.after_fillers != hit.start() {
            return false;
        }
        let mut at = hit.end();
        loop {
            at += self.text[at..].len() - self.text[at..].trim_start().len();
            match self.at(at, filler) {
                Some(h) => at = h.end(),
                None => break,
            }
        }
        at == self.text.len()
            || is_clause_byte(self.text.as_bytes()[at])
            || self.at(at, |m| m == Meaning::ClauseBreak).is_some()
    }

    /// For a hit in a sentence that ends with `?`: whether that question asks the assistant to
    /// act (it opens, after fillers, with an action question such as "can you"). `None` for a
    /// hit in any other sentence.
    fn in_question(&self, hit: Hit) -> Option<bool> {
        let ends = &self.sentence_ends;
        let i = ends.partition_point(|e| (*e as usize) < hit.end());
        let end = *ends.get(i)? as usize;
        if self.text.as_bytes()[end] != b'?' {
            return None;
        }
        let start = i.checked_sub(1).map_or(0, |p| ends[p] as usize + 1);
        let opener = self.skip(start, |m| m == Meaning::Filler);
        Some(self.at(opener, |m| m == Meaning::ActionQuestion).is_some())
    }

    /// The goal a lead at `start` (after fillers) of `sentence` states, if any: leads may
    /// follow intents ("could you", "I want to"); the longest lead wins, then the first
    /// declared. A lead followed by a predicate is a noun ("Deploy keeps timing out", rule 4).
    pub(super) fn lead_at(&self, start: usize, sentence: Range<usize>) -> Option<GoalLead> {
        let cls = self.cls;
        let mut anchors: SmallVec<[usize; 4]> = SmallVec::new();
        let mut at = start;
        while anchors.len() < 8 {
            anchors.push(at);
            match self.at(at, |m| matches!(m, Meaning::Intent | Meaning::Filler)) {
                Some(h) => at = skip_soft(self.text, h.end()),
                None => break,
            }
        }
        let mut candidates: SmallVec<[(Hit, u16); 8]> = SmallVec::new();
        for &anchor in &anchors {
            for h in self.starting_at(anchor) {
                if h.end() > sentence.end {
                    continue;
                }
                for m in self.meanings(*h) {
                    if let Meaning::Lead(id) = m {
                        candidates.push((*h, *id));
                    }
                }
            }
        }
        candidates.sort_unstable_by_key(|(h, id)| (Reverse(h.end), *id));
        candidates.into_iter().find_map(|(h, id)| {
            let info = cls.leads[id as usize];
            if info.mode == DescriptionMode::Object && self.noun_use(h) {
                return None;
            }
            self.goal_from(start, h, info, sentence.end)
        })
    }

    /// The goal a lead states, if its object qualifies; `start` is where its sentence starts
    /// after fillers. The object ends where a further goal starts (rule 14).
    pub(super) fn goal_from(
        &self,
        start: usize,
        lead: Hit,
        info: LeadInfo,
        end: usize,
    ) -> Option<GoalLead> {
        let cls = self.cls;
        let end = self
            .further(lead.end(), end, info.goal as usize)
            .map_or(end, |f| f.cut);
        let object = cls.clean(self.text, lead.end()..end, true);
        if info.min_words > 0 && (count_words(&self.text[object.clone()]) as u32) < info.min_words {
            return None;
        }
        if object.is_empty() {
            return None;
        }
        let object_text = &self.text[object.clone()];
        // Rule 5: "it", "them" or "that" refers to the active goal's work ("make it blue"); with none
        // active it is the user's own thing, not yet named ("make it load faster": a task
        // whose target is still open).
        let pronoun = cls.starts_with_any(&cls.pronouns, object_text);
        let open = !self.active
            && cls.goals[info.goal as usize].goal_type
                == crate::conversation::GoalType::TaskExecution
            && count_words(object_text) >= 2
            && self.text[object.clone()]
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .is_some_and(|w| {
                    ["it", "them", "that"]
                        .iter()
                        .any(|p| w.eq_ignore_ascii_case(p))
                });
        if info.mode == DescriptionMode::Object && pronoun && !open {
            return None;
        }
        if let Some(slot) = info.object_must_match {
            let np = noun_phrase(object_text, &cls.noun_phrase_ends);
            cls.extract(np, slot as usize)?;
        }
        let description = match info.mode {
            DescriptionMode::Object => object.clone(),
            DescriptionMode::Sentence => cls.clean(self.text, lead.start()..end, false),
        };
        let wrapper = cls.clean(self.text, start..lead.start(), false);
        let mut details = self.details(
            info.goal as usize,
            info.change,
            lead.start()..lead.end(),
            object,
        );
        // (The pronoun names nothing yet: the target stays open.)
        if pronoun {
            details.retain(|d| {
                !(d.spans.len() == 1
                    && cls.starts_with_any(&cls.pronouns, &self.text[d.spans[0].clone()]))
            });
        }
        Some(GoalLead {
            goal: info.goal as usize,
            description,
            lead: lead.start()..lead.end(),
            wrapper,
            rule: Found::Lead,
            details,
        })
    }
}

/// Straight quotes for curly ones, so phrases written with `'` match "I’ll".
pub fn normalize(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(['\u{2019}', '\u{2018}']) {
        std::borrow::Cow::Owned(text.replace(['\u{2019}', '\u{2018}'], "'"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A phrase as the automaton stores it: lowercase, single spaces, straight quotes.
pub fn normalize_phrase(phrase: &str) -> String {
    normalize(phrase)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `'` joins words ("don't"): it counts as a word character when a letter follows it.
pub(super) fn boundary_after(text: &str, at: usize) -> bool {
    let mut rest = text[at..].chars();
    match rest.next() {
        None => true,
        Some('\'') => !rest.next().is_some_and(char::is_alphabetic),
        Some(c) => !is_word_char(c),
    }
}

pub(super) fn boundary_before(text: &str, at: usize) -> bool {
    let mut before = text[..at].chars().rev();
    match before.next() {
        None => true,
        Some('\'') => !before.next().is_some_and(char::is_alphabetic),
        Some(c) => !is_word_char(c),
    }
}

pub(super) fn is_clause_byte(b: u8) -> bool {
    matches!(b, b',' | b';' | b'.' | b'!' | b'?' | b'\n')
}

/// Past white space and punctuation that does not end a sentence.
pub(super) fn skip_soft(text: &str, at: usize) -> usize {
    let rest = &text[at..];
    at + rest.len()
        - rest
            .trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, ',' | ':' | '-' | '—' | '–' | '"' | '(' | '*')
            })
            .len()
}

/// Sentence spans: split on `!`, `?`, `;`, line breaks, and `.` followed by white space or the
/// end (so `Node.js` and `3.5` stay whole).
pub(super) fn sentences(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            let ends = match b {
                b'!' | b'?' | b';' | b'\n' => true,
                b'.' => i == bytes.len() || bytes[i].is_ascii_whitespace(),
                _ => false,
            };
            if ends {
                let s = start..i - 1;
                start = i;
                if !text[s.clone()].trim().is_empty() {
                    return Some(s);
                }
            }
        }
        if start < bytes.len() {
            let s = start..bytes.len();
            start = bytes.len();
            if !text[s.clone()].trim().is_empty() {
                return Some(s);
            }
        }
        None
    })
}

pub(super) fn count_words(text: &str) -> usize {
    text.split(|c: char| !is_word_char(c) && c != '\'')
        .filter(|w| !w.is_empty())
        .count()
}

/// Whether `text` starts with the whole word (or words) `word`, ignoring ASCII case.
pub(super) fn starts_with_word(text: &str, word: &str) -> bool {
    text.len() >= word.len()
        && text.is_char_boundary(word.len())
        && text[..word.len()].eq_ignore_ascii_case(word)
        && boundary_after(text, word.len())
}

pub(super) fn ends_with_word(text: &str, word: &str) -> bool {
    let at = text.len().wrapping_sub(word.len());
    text.len() >= word.len()
        && text.is_char_boundary(at)
        && text[at..].eq_ignore_ascii_case(word)
        && boundary_before(text, at)
}

/// The noun phrase at the start of `text`: up to the first word of `ends` or clause
/// punctuation.
pub(super) fn noun_phrase<'t>(text: &'t str, ends: &[String]) -> &'t str {
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        if rest.starts_with(|c: char| c.is_ascii() && is_clause_byte(c as u8)) {
            return &text[..at];
        }
        if boundary_before(text, at) && ends.iter().any(|w| starts_with_word(rest, w)) {
            return text[..at].trim_end();
        }
        at += rest.chars().next().map_or(1, char::len_utf8);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The readings as they were first written, comparing every hit with every other (cubic
    /// in the worst case): the reference the linear ones must equal.
    impl View<'_> {
        fn shadowed_by_comparison(&self, h: Hit) -> bool {
            self.hits.iter().any(|o| {
                o.start <= h.start
                    && o.end >= h.end
                    && o.end - o.start > h.end - h.start
                    && self.meanings(*o).iter().any(|m| {
                        matches!(m, Meaning::Signal(_) | Meaning::Intent | Meaning::NonAnswer)
                    })
            })
        }

        fn negated_by_comparison(&self, hit: Hit) -> bool {
            let clause_ends_between = |from: usize, to: usize| {
                self.text.as_bytes()[from..to]
                    .iter()
                    .any(|b| is_clause_byte(*b))
                    || self.hits.iter().any(|h| {
                        h.start() >= from
                            && h.end() <= to
                            && self.meanings(*h).contains(&Meaning::ClauseBreak)
                    })
            };
            self.hits
                .iter()
                .take_while(|n| n.start < hit.start)
                .any(|n| {
                    n.end <= hit.start
                        && self.meanings(*n).contains(&Meaning::Negation)
                        && !clause_ends_between(n.end(), hit.start())
                })
        }
    }

    const PIECES: &[&str] = &[
        "no",
        "not",
        "never",
        "don't",
        "but",
        "however",
        "ok",
        "okay",
        "sure",
        "make sure",
        "not sure",
        "yes",
        "go ahead",
        "sounds good",
        "perfect",
        "thanks",
        "stop",
        "never mind",
        "change",
        "fix",
        "build",
        "a",
        "page",
        ",",
        ".",
        "!",
        "?",
        ";",
        "\n",
        "and",
        "it",
        "works",
        "that works",
        "doesn't",
        "great",
        "but not",
        "looks good",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        /// Shadowing and negation, as read in one pass, equal the pairwise comparisons.
        #[test]
        fn one_pass_readings_equal_the_pairwise_ones(
            words in proptest::collection::vec(proptest::sample::select(PIECES), 0..40),
        ) {
            let text = words.join(" ");
            let view = View::new(builtin().classifier(), &text);
            for h in &view.hits {
                proptest::prop_assert_eq!(h.shadowed, view.shadowed_by_comparison(*h), "{:?} in {:?}", h, text);
                proptest::prop_assert_eq!(view.negated(*h), view.negated_by_comparison(*h), "{:?} in {:?}", h, text);
            }
        }
    }

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

    #[test]
    fn sentences_split_on_terminators_but_not_inside_words() {
        let text = "Use Node.js 3.5 please. Then stop! Why? a;b\nc";
        let got: Vec<&str> = sentences(text).map(|r| &text[r]).collect();
        assert_eq!(
            got,
            [
                "Use Node.js 3.5 please",
                " Then stop",
                " Why",
                " a",
                "b",
                "c"
            ]
        );
    }

    #[test]
    fn word_boundaries_treat_apostrophes_as_joiners() {
        assert!(boundary_after("ok then", 2));
        assert!(!boundary_after("book", 2));
        assert!(!boundary_after("don't", 3));
        assert!(boundary_after("'ok'", 3));
        assert!(!boundary_before("book", 2));
        assert!(boundary_before("a book", 2));
    }

    #[test]
    fn word_prefixes_and_suffixes_are_whole_words() {
        assert!(starts_with_word("an app", "an"));
        assert!(!starts_with_word("anvil", "an"));
        assert!(ends_with_word("build it please", "please"));
        assert!(!ends_with_word("displease", "please"));
        assert!(!starts_with_word("é", "e"));
    }

    #[test]
    fn noun_phrases_end_at_stop_words_and_punctuation() {
        let ends = vec!["to".to_string(), "for".to_string()];
        assert_eq!(noun_phrase("a minute to think", &ends), "a minute");
        assert_eq!(
            noun_phrase("a landing page, today", &ends),
            "a landing page"
        );
        assert_eq!(noun_phrase("a tomato form", &ends), "a tomato form");
    }

    #[test]
    fn curly_quotes_are_normalised() {
        assert_eq!(normalize("I’ll start"), "I'll start");
        assert!(matches!(normalize("plain"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(normalize_phrase("  Go   Ahead "), "go ahead");
    }
}
