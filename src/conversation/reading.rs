//! What a message says, before the rules decide what it does: the meanings of its phrases
//! (`Meaning`, `Hit`), the signals it carries, and the goals it states (`GoalLead`, `Detail`,
//! `Reading`).

use std::ops::Range;

use smallvec::SmallVec;

use super::lexicon::{ChangeMode, DescriptionMode, Position, Role, Signal};

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
    /// Opens a clause subordinate to the one before it (`subordinators`).
    Subordinate,
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
    pub(super) role: Role,
    pub(super) position: Position,
}

/// One whole-word match of a phrase in the message.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hit {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) phrase: u32,
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
    /// Rule 10: a programming exercise's statement ("Given a binary tree, return its level
    /// order traversal"): code that does what it asks.
    Exercise,
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
            Found::Exercise => "programming exercise (rule 10)",
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
    /// With `complaint`, where what the contrast asks starts: after its marker ("looks fine but
    /// the x axis labels overlap, can you rotate them": the change request's words follow
    /// "but").
    pub change_from: Option<usize>,
    /// Further goals stated after the first (rule 14), at most `MAX_QUEUED_GOALS`.
    pub more: SmallVec<[GoalLead; 1]>,
    /// The goals were joined by "or": the user has not chosen (rule 14).
    pub alternatives: bool,
    /// A switch or cancel marker opened a sentence ("different thing: ..."): the goal was read
    /// as if none were active, and one found without a lead replaces the current goal too.
    pub announced: bool,
    /// A user reply leaving the question to the assistant ("you decide", rule 13).
    pub waiver: bool,
    /// Where the first waiver phrase stands, byte range.
    pub waiver_at: Option<Range<usize>>,
    /// A user message naming a problem (a problem word that is not a mere negation) or what
    /// the thing should do ("it should skip ..."): in `reviewing`, a change request ("still
    /// crashes when I switch cameras"), unless the message defers or is satisfied ("The colour
    /// was off but now it looks great").
    pub problem: bool,
    /// With a goal active, a short reply correcting a value (rule 12): the new value and, when
    /// named, the one it replaces ("not React, Svelte").
    pub correction: Option<(Range<usize>, Option<Range<usize>>)>,
}
