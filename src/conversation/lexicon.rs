//! The vocabulary the classifier is compiled from: plain data, filled by `crate::patterns` from
//! the files under `patterns/`, or by tests directly.

use std::sync::Arc;

use chrono::TimeDelta;

use super::names::named;
use super::state::GoalType;

named! {
    /// Who wrote a message; signals are gated by it.
    pub enum Role {
        User = "user",
        Assistant = "assistant",
    }
}

named! {
    /// The phrase classes the rule table reads.
    pub enum Signal {
        Approve = "approve",
        StartWork = "start_work",
        WorkDone = "work_done",
        Satisfied = "satisfied",
        ChangeRequest = "change_request",
        Cancel = "cancel",
        /// Marks a new goal as replacing the current one.
        Switch = "switch",
        /// Ends a finished conversation ("bye", "see you") wherever it stands in the message.
        Farewell = "farewell",
    }
}

impl Signal {
    /// Whether a client may send it as an explicit signal (a button press).
    pub fn is_explicit(self) -> bool {
        !matches!(self, Signal::Switch | Signal::Farewell)
    }

    /// Who sends it as an explicit signal.
    pub fn sender(self) -> Role {
        match self {
            Signal::StartWork | Signal::WorkDone => Role::Assistant,
            _ => Role::User,
        }
    }

    pub(crate) fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// Where in a message a signal phrase counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// Anywhere, unless negated.
    Anywhere,
    /// Only when the message leads with it (after fillers) and it ends its clause: "Never mind,
    /// ..." cancels, "Stop using semicolons" does not.
    Lead,
}

/// How a goal's description is cut from its sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptionMode {
    /// The words after the lead: "build a todo app" gives `todo app`.
    Object,
    /// The sentence from the lead on: "How do I make a cake?" gives `How do I make a cake`.
    Sentence,
}

#[derive(Clone, Debug)]
pub struct LeadGroup {
    pub phrases: Vec<String>,
    pub description: DescriptionMode,
    /// A slot whose extractors must match the noun phrase right after the lead ("I need a
    /// landing page" is a goal, "I need a minute" is not).
    pub object_must_match: Option<usize>,
    /// What the lead and its object say of a task's `desired_change` (rule 2): nothing, the
    /// object ("add pagination to ..." adds pagination), or the lead with its object ("support
    /// SAML login").
    pub change: ChangeMode,
    /// The fewest words the sentence must have after the lead ("Is the v2 API deprecated"
    /// asks; "do it" is no question).
    pub min_words: u32,
}

/// See [`LeadGroup::change`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ChangeMode {
    #[default]
    None,
    Object,
    Phrase,
    /// An existing thing and its result ("make the headers sticky").
    Result,
    /// The lead is the change, its object the target ("turn off the eslint rule").
    Lead,
    /// The object is the change, there is no target ("remind me to take the bins out", "play
    /// some jazz").
    Content,
    /// The lead with its object is the change, there is no target ("book a table for two",
    /// "schedule posts in advance": the verb says what is done with the object).
    Action,
    /// The lead with its object is the change, the thing replaced the target ("replace the
    /// jenkins job with a workflow": the jenkins job).
    Exchange,
}

#[derive(Clone, Debug)]
pub struct GoalDef {
    pub goal_type: GoalType,
    /// Indices into [`Lexicon::slots`], in the order they are shown.
    pub slots: Vec<usize>,
    pub leads: Vec<LeadGroup>,
}

pub use super::pattern::{Haystack, Pattern, PatternSet, Span};

#[derive(Clone, Debug)]
pub struct Extractor {
    /// Matches the slot's value; the `value` group (or the whole match) is the value.
    pub pattern: Pattern,
    /// A value this matches is not taken from this extractor.
    pub unless: Option<Pattern>,
    /// Whether `pattern` has a `value` group. Without one the whole match is the value and no
    /// captures are needed, which for a large alternation is several times faster.
    pub value_group: bool,
    /// Only fills a slot not yet provided (rule 11: a part named in a requirement is no new
    /// kind); other extractors replace a value.
    pub fills_empty: bool,
}

impl Extractor {
    pub fn new(pattern: Pattern, unless: Option<Pattern>) -> Extractor {
        let value_group = pattern.has_group("value");
        Extractor {
            pattern,
            unless,
            value_group,
            fills_empty: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct SlotDef {
    pub name: Arc<str>,
    pub description: Arc<str>,
    pub question: Arc<str>,
    /// Phrases that, in an assistant message, ask for this slot.
    pub cues: Vec<String>,
    /// Tried in order; the first that yields a value wins.
    pub extractors: Vec<Extractor>,
}

#[derive(Clone, Debug)]
pub struct SignalDef {
    pub signal: Signal,
    pub role: Role,
    pub position: Position,
    pub phrases: Vec<String>,
}

/// Word lists that shape how a sentence is read.
#[derive(Clone, Debug, Default)]
pub struct Language {
    /// Skipped at the start of a sentence before a goal lead or a leading signal: hi, ok, so.
    pub fillers: Vec<String>,
    /// Skipped before a goal lead only: "Great, how do I deploy it?".
    pub acknowledgements: Vec<String>,
    /// Polite or intent prefixes between fillers and the lead: "could you", "I want to".
    pub intents: Vec<String>,
    /// Whole sentences that are never goals: "how are you".
    pub small_talk: Vec<String>,
    /// Negate signal phrases after them up to the end of their clause.
    pub negations: Vec<String>,
    /// Words that end a clause like a comma does: "but".
    pub clause_breaks: Vec<String>,
    /// Replies that answer no question: "not sure", "skip".
    pub non_answers: Vec<String>,
    /// Dropped from the start of descriptions and values: a, an, the.
    pub articles: Vec<String>,
    /// Dropped from the end of descriptions and values: please, instead.
    pub trailing: Vec<String>,
    /// An object starting with one of these refers to something already there ("make it blue"),
    /// so the lead before it states no new goal.
    pub pronouns: Vec<String>,
    /// End the noun phrase after an "I need"-style lead: to, for, that.
    pub noun_phrase_ends: Vec<String>,
    /// Split a user message: approval or satisfaction before the last one does not count
    /// ("looks good but the color is off").
    pub contrast_markers: Vec<String>,
    /// Put off what the user would otherwise approve or accept: "not yet", "one sec".
    pub deferrals: Vec<String>,
    /// Open a question that asks the assistant to act ("can you", "shall we"): an approval in
    /// such a question counts, in any other question it does not.
    pub action_questions: Vec<String>,
    /// Words never read as misspelt, beyond the built-in list ("email", "signup"); never the
    /// correction either.
    pub known_words: Vec<String>,
    /// Problem predicates: a subject before one reports a problem (rule 1).
    pub problems: Vec<String>,
    /// Subjects that name no thing ("I", "that"): no problem report.
    pub non_subjects: Vec<String>,
    /// Between a subject and its predicate: "is", "keeps", "has been".
    pub auxiliaries: Vec<String>,
    /// Dropped from the start of a subject: "my", "the".
    pub determiners: Vec<String>,
    /// A subject before one states a request of the thing itself (rule 2).
    pub modals: Vec<String>,
    /// A line holding one is a pasted error (rule 1).
    pub error_markers: Vec<String>,
    /// Words that address the assistant: "you".
    pub addressee: Vec<String>,
    /// The assistant's person: a question addressing it with one is small talk (rule 7).
    pub persona: Vec<String>,
    /// Title labels that name a task without a verb (rule 8).
    pub task_titles: Vec<String>,
    /// Mark a reply as a correction of a slot (rule 12).
    pub corrections: Vec<String>,
    /// Leave an asked slot to the assistant (rule 13).
    pub waivers: Vec<String>,
    /// A goal lead after one starts a further goal (rule 14).
    pub sequencers: Vec<String>,
    /// Verbs that describe what a thing does: a problem report when nothing else states a goal.
    pub predicates: Vec<String>,
    /// Plain verbs: in "make the app load faster" the thing ends before one.
    pub verbs: Vec<String>,
    /// Wishes around a noun phrase ("... would be handy"): no verb of the phrase.
    pub wishes: Vec<String>,
    /// Join parts of one request; a lead after one starts a goal only with its own thing.
    pub conjunctions: Vec<String>,
    /// End a line of the user's own that introduces a pasted output (rule 1).
    pub introducers: Vec<String>,
    /// Problem verbs whose object is what broke ("the update broke the export").
    pub breakers: Vec<String>,
    /// Contractions and their full forms, `(short, long)`: every phrase of the lexicon that
    /// holds one form also stands with the other ("it'd be nice to" / "it would be nice to").
    pub contractions: Vec<(String, String)>,
    /// Labels that introduce context, not a setting or a title ("Context: b2b saas, 200
    /// customers"). Optional.
    pub context_labels: Vec<String>,
    /// Last words of a short noun phrase that asks for a feature on its own ("SSO support",
    /// "Slack integration"). Optional.
    pub feature_heads: Vec<String>,
    /// Words that say how often or how badly before a problem that opens a title ("Random
    /// crashes on Android 14", "Intermittent timeouts from the gateway"). Optional.
    pub problem_modifiers: Vec<String>,
    /// Words in -s that are no plurals: names of tools and fields ("Pandas merge on multiple
    /// columns", "Kubernetes deployment with two replicas"). Optional.
    pub singular_in_s: Vec<String>,
    /// Words of a title's label that name a feature asked for ("Feature: bulk edit tags on
    /// multiple notes"): what follows is a request, no verb is guessed from an -s ending.
    /// Optional.
    pub feature_titles: Vec<String>,
    /// Words of time: after "in" or "on" one says when, no thing ("on friday", "in
    /// advance"); after "every" or "each" one, or a number, says how often ("every night",
    /// "each morning", "every 90 days"). Optional.
    pub times: Vec<String>,
    /// Prepositions that open a time: the thing named after one says when, it is no target
    /// ("after the deadline", "until the end of the week"). Optional.
    pub time_prepositions: Vec<String>,
    /// Prepositions that name the means a feature should use: in a title with no verb, the
    /// phrase before one is the feature, the rest the change ("Login via magic link instead
    /// of passwords"). Optional.
    pub means: Vec<String>,
    /// Words that may stand between the speaker and the rest of any phrase ("i just want to
    /// be able to", "we really need"): each phrase opening with "i" or "we" also stands with
    /// one of them after its subject. Optional.
    pub intensifiers: Vec<String>,
    /// Words that scope a feature to each of something ("per"): a short phrase with no verb
    /// that holds one, alone or hyphenated before its noun, asks for that feature
    /// ("Per-tenant rate limits", "custom domains per workspace"). Optional.
    pub feature_scopes: Vec<String>,
    /// Words that count: a label of a number before a plural names no thing, a number before a
    /// scope word makes a rate (`quantities`).
    pub quantities: Vec<String>,
    /// Words before a clause's or a context's opening word that leave it the opener
    /// (`opener_modifiers`).
    pub opener_modifiers: Vec<String>,
    /// Words that say a thing works: a clause whose predicate opens with one reports nothing
    /// (`fine_states`).
    pub fine_states: Vec<String>,
    /// Verbs that, after "can you", ask what can be done rather than ask for it ("can you see
    /// my screen", "can you use await in a loop") (`ability_verbs`).
    pub ability_verbs: Vec<String>,
    /// Openings that negate the instruction after them ("don't add a comment on every line",
    /// "stop adding emojis") (`negated_instructions`).
    pub negated_instructions: Vec<String>,
    /// Phrases that restate a spoken number or time ("no wait make it") (`restatements`).
    pub restatements: Vec<String>,
    /// Words of spoken numbers and times (`spoken_numbers`).
    pub spoken_numbers: Vec<String>,
    /// Nouns that name people: a problem whose subject is one ("keyboard users just get stuck
    /// there", "patients keep missing appointments") tells what a thing's problem does to
    /// them or why a request is made; a thing's problem or a request beside it decides
    /// (`people`). Optional.
    pub people: Vec<String>,
    /// Nouns that name a problem a user meets ("error", "exception", "timeout" ...): what the
    /// user gets or sees, when one of them is in it, is the problem ("i get an error when i
    /// open the settings page") (`met_problems`). Optional.
    pub met_problems: Vec<String>,
    /// Lead words that ask for a repair ("fix", "debug" ...): the relative clause after their
    /// object tells its problem, whatever its verb ("fix the DAG that keeps retrying forever")
    /// (`repairs`). Optional.
    pub repairs: Vec<String>,
    /// Verbs that report what a person said or found ("says", "told", "noticed" ...): after
    /// the person, the words that follow are read as the clause ("Priya says the csv export
    /// cuts off at 10k rows" reports the export) (`reporting_verbs`). Optional.
    pub reporting_verbs: Vec<String>,
    /// What the user says to tell they have or find a thing ("i have", "there's" ...): read
    /// as introducers, and a problem word before a noun after one is what is wrong with the
    /// thing the noun names ("i have a slow query in postgres": the query, slow) (`having`).
    /// Optional.
    pub having: Vec<String>,
    /// Programming languages ("python", "go", "c++" ...): a request for an indefinite thing
    /// "in" one ("reverse a linked list in place in c++") or under one as a title ("rust:
    /// parse a duration string ...") asks for code in it (`code_languages`). Optional.
    pub code_languages: Vec<String>,
    /// What opens a programming exercise's statement ("given", "you are given") or labels it
    /// ("exercise", "problem", "challenge"): with a verb of `exercise_verbs` opening a clause
    /// after it ("Given a binary tree, return its level order traversal"), the statement asks
    /// for code that does what that clause says (`exercise_openers`). Optional.
    pub exercise_openers: Vec<String>,
    /// Verbs that state what an exercise's code must do ("return", "find", "print" ...)
    /// (`exercise_verbs`). Optional.
    pub exercise_verbs: Vec<String>,
    /// The abstract inputs of an algorithm's exercise ("array", "linked list", "string",
    /// "binary tree"): an imperative whose indefinite object ends with one ("Reverse a singly
    /// linked list in place", "Merge two sorted lists") asks for code (`exercise_inputs`).
    /// Optional.
    pub exercise_inputs: Vec<String>,
    /// States a thing is made to take ("optional", "configurable", "the default"): "make"
    /// before a name and one of them changes the thing, it creates nothing ("Make autoplay
    /// optional") (`made_results`). Optional.
    pub made_results: Vec<String>,
    /// Words naming a message sent to someone ("message", "text", "email", "whatsapp"): one
    /// before "to", whom, then "saying" or "that" and what it says is a message to send ("send
    /// a whatsapp to Tomasz saying the keys are under the mat": to Tomasz) (`message_kinds`).
    /// Optional.
    pub message_kinds: Vec<String>,
    /// What a sentence after a report says when it only pleads for a look at it ("check",
    /// "take a look", "any idea why"): the report stays the first goal (`pleas`). Optional.
    pub pleas: Vec<String>,
    /// A reason's opener and its subject ("because i", "since it's"): a reason after a
    /// request's value is no part of it (`reasons`). Optional.
    pub reasons: Vec<String>,
    /// Words of a question that compares things ("between", "vs", "compare") (`compared`).
    /// Optional.
    pub compared: Vec<String>,
    /// Words of a follow-up question that pick among the things compared ("one", "other",
    /// "each", "which"): part of the question before it (`choices`). Optional.
    pub choices: Vec<String>,
    /// Verbs a user asks to be let do, a feature request after "let me" or "let us" ("let me
    /// pick a different ringtone for each contact") (`permitted`). Optional.
    pub permitted: Vec<String>,
    /// Verbs that ask for a computed answer when a quantity follows them ("convert 30 celsius
    /// to fahrenheit", "calculate 15% of 80"): a question, not work on a thing
    /// (`computations`). Optional.
    pub computations: Vec<String>,
    /// Words of hesitation read as nothing inside a sentence ("set a timer for uh twenty five
    /// minutes") (`hesitations`). Optional.
    pub hesitations: Vec<String>,
    /// Past participles of `predicates` words that do not end in "-ed" ("made", "sent"):
    /// after a noun and before a preposition, one describes the noun ("changes made in the
    /// editor aren't saved") (`participles`). Optional.
    pub participles: Vec<String>,
    /// Verbs that follow an auxiliary with its subject left out, as a reply says it ("will do
    /// that later", "could be worse", "would be great"): such a sentence asks nothing
    /// (`elided_subjects`). Optional.
    pub elided_subjects: Vec<String>,
    /// Words that open a clause subordinate to the one before it ("until", "because", "even
    /// though"): such a clause tells when, why or despite what, and decides a problem report
    /// only when no main clause holds one ("Redis memory keeps climbing until the pod gets
    /// OOMKilled" reports the memory). Optional.
    pub subordinators: Vec<String>,
}

/// Thresholds of the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Time without a user message after which the session goes idle.
    pub idle_timeout: TimeDelta,
    /// User messages in `understanding` before the machine plans with what it has.
    pub max_understanding_turns: u32,
    /// Words a small-talk phrase may be followed by and still be small talk ("how are you
    /// doing today").
    pub small_talk_tail_words: u32,
    /// Finished goals the state keeps in `completed_goals` (the most recent ones), so that a
    /// long session's state, and every frame that carries it, stays small.
    pub history_window: u32,
    /// The longest goal description the state keeps, in characters (longer: cut and marked).
    pub max_description_chars: u32,
    /// The longest slot value the state keeps, in characters (longer: cut and marked).
    pub max_value_chars: u32,
    /// Read a user's misspelt words as the vocabulary words they are one edit from (the
    /// spec's "Real phrasing", rule 4).
    pub typo_tolerance: bool,
}

impl Default for Settings {
    /// The design's defaults: 10 minutes, 3 turns; 20 finished goals in the state.
    fn default() -> Settings {
        Settings {
            idle_timeout: TimeDelta::minutes(10),
            max_understanding_turns: 3,
            small_talk_tail_words: 2,
            history_window: 20,
            max_description_chars: 200,
            max_value_chars: 500,
            typo_tolerance: true,
        }
    }
}

/// Everything the classifier is compiled from.
#[derive(Clone, Debug)]
pub struct Lexicon {
    /// In declaration order, which is priority between leads of equal length.
    pub goals: Vec<GoalDef>,
    pub slots: Vec<SlotDef>,
    pub signals: Vec<SignalDef>,
    pub language: Language,
}
