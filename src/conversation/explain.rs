//! Why a step went as it did: every reading decision of one input, for the inspector
//! (`convstate replay --explain`, and `explain` in `state` frames of sessions that ask for it).
//! Built from what the classifier and the rules decide anyway, only when asked for.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::lexicon::Role;
use super::names::named;
use super::state::GoalType;

named! {
    /// Why a phrase that was found does not count.
    pub enum DropRule {
        /// A negation stands before it in its clause ("don't go ahead").
        Negation = "negation",
        /// It stands before the last contrast marker ("looks good but ...").
        Contrast = "contrast",
        /// The message holds a deferral ("ok, wait").
        Deferral = "deferral",
        /// It stands in a question that does not ask the assistant to act ("Should I go
        /// ahead?").
        Question = "question",
        /// The other role's phrase ("done" from the user).
        Role = "role",
        /// It counts only when the message leads with it ("stop" inside a sentence).
        Position = "position",
        /// A word of degree inside a sentence, before the word it qualifies ("it's absolutely
        /// freezing", "the header is absolutely huge").
        Degree = "degree",
    }
}

/// A phrase found in the message: what it means, where it stands (bytes of the message as
/// written) and, when it does not count, why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhraseNote {
    /// A signal (`approve`, `satisfied`, ...), `non_answer`, `asks:SLOT`, `contrast` or
    /// `deferral`.
    pub class: String,
    /// The role whose phrase it is.
    pub role: Role,
    /// The words as written.
    pub text: String,
    pub start: usize,
    pub end: usize,
    /// Why it does not count; absent when it counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_by: Option<DropRule>,
}

/// A word read as another (typo tolerance).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CorrectionNote {
    pub written: String,
    pub read: String,
    pub start: usize,
    pub end: usize,
}

/// The goal lead of the message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoalNote {
    pub goal_type: GoalType,
    /// The lead's words as written ("build", "how").
    pub lead: String,
    /// What stood between the sentence's start and the lead: a polite wrapper or a statement of
    /// intent ("would you mind", "I want to"), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrapper: Option<String>,
    pub description: String,
    /// The rule of "Reading real messages" that found the goal ("goal lead", "problem report
    /// (rule 1)" ...).
    #[serde(default)]
    pub found: String,
    /// Slot values the statement gave by its structure (rule 10), as `name: value`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// Further goals of the message (rule 14), queued, as `type: description`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queued: Vec<String>,
}

/// The most phrases an explanation lists: a long message of signal words would otherwise make
/// every client's frame grow with it. The first ones, by position, are kept.
pub const MAX_PHRASES: usize = 256;

/// Every reading decision of one input.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Explanation {
    /// The phrases found, in the order they stand, counted or dropped: at most
    /// [`MAX_PHRASES`].
    pub phrases: Vec<PhraseNote>,
    /// Phrases found beyond [`MAX_PHRASES`], not listed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub phrases_omitted: usize,
    /// Words read as others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrections: Vec<CorrectionNote>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<Box<GoalNote>>,
    /// The rule of the transition table that decided (see `conversation.md`, "Transitions").
    pub rule: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Explanation {
    /// The phrases that did not count, with why.
    pub fn dropped(&self) -> impl Iterator<Item = &PhraseNote> {
        self.phrases.iter().filter(|p| p.dropped_by.is_some())
    }
}
