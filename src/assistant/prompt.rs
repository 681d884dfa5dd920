//! What the `llm` assistant sends a model: pure, like the engine.
//!
//! The messages are, in order: the fixed instructions (`llm.system` of `assistant.toml`), the
//! recent transcript, and last the server's state of the conversation with the phase's
//! instruction (`llm.state`). The parts that change least come first, so each prompt shares a
//! long unchanged prefix with the one before it and providers' prompt caches hit: the
//! instructions never change, the transcript only grows at its end (its window moves in steps
//! of [`WINDOW_STEP`] turns, not one turn at a time), and only the last message is new each
//! time. The same state and transcript always give the same bytes.

use serde::{Deserialize, Serialize};

use crate::conversation::{Conversation, Phase, Role, Summary};

/// The transcript's window starts at a multiple of this many changes of the session.
pub const WINDOW_STEP: u64 = 8;

/// The `[llm]` table of `assistant.toml`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmPhrases {
    system: String,
    state: String,
    instructions: Instructions,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Instructions {
    greeting: String,
    understanding: String,
    answer: String,
    planning: String,
    executing: String,
    reviewing: String,
    completed: String,
    idle: String,
}

impl LlmPhrases {
    /// Every phrase with its key and the placeholders it may use, for the loader's checks.
    pub(crate) fn phrases(&self) -> Vec<(&'static str, &str, &'static [&'static str])> {
        let i = &self.instructions;
        vec![
            ("system", &self.system, &[]),
            ("state", &self.state, &["summary", "instruction"]),
            ("instructions.greeting", &i.greeting, &[]),
            ("instructions.understanding", &i.understanding, &[]),
            ("instructions.answer", &i.answer, &[]),
            ("instructions.planning", &i.planning, &[]),
            ("instructions.executing", &i.executing, &[]),
            ("instructions.reviewing", &i.reviewing, &[]),
            ("instructions.completed", &i.completed, &[]),
            ("instructions.idle", &i.idle, &[]),
        ]
    }

    /// What the model should do in the state `conv` is in.
    pub fn instruction(&self, conv: &Conversation) -> &str {
        let i = &self.instructions;
        match conv.phase {
            Phase::Greeting => &i.greeting,
            Phase::Understanding
                if conv
                    .current_goal
                    .as_ref()
                    .is_some_and(|g| !g.has_required_info()) =>
            {
                &i.answer
            }
            Phase::Understanding => &i.understanding,
            Phase::Planning => &i.planning,
            Phase::Executing => &i.executing,
            Phase::Reviewing => &i.reviewing,
            Phase::Completed => &i.completed,
            Phase::Idle => &i.idle,
        }
    }
}

/// One message of a chat-completions request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChatMessage {
    pub role: &'static str,
    pub content: String,
}

/// A turn of the transcript: the `seq` of its change, who said it, what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Said {
    pub seq: u64,
    pub role: Role,
    pub text: String,
}

/// The messages for a call in the state `conv`, with `transcript` (oldest first) cut to at
/// most `budget` bytes of text: its window starts at the first change, at a multiple of
/// [`WINDOW_STEP`], from which the rest fits.
pub fn messages(
    phrases: &LlmPhrases,
    conv: &Conversation,
    transcript: &[Said],
    budget: usize,
) -> Vec<ChatMessage> {
    let mut total: usize = transcript.iter().map(|s| s.text.len()).sum();
    let mut from = 0;
    // Drop whole steps of the window until the rest fits.
    while total > budget && from < transcript.len() {
        let step_end = (transcript[from].seq / WINDOW_STEP + 1) * WINDOW_STEP;
        while from < transcript.len() && transcript[from].seq < step_end {
            total -= transcript[from].text.len();
            from += 1;
        }
    }
    let mut out = Vec::with_capacity(transcript.len() - from + 3);
    out.push(ChatMessage {
        role: "system",
        content: phrases.system.clone(),
    });
    let role = |said: &Said| match said.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    // The turn being answered is always sent, cut to the budget if it alone is over it.
    if from == transcript.len()
        && budget > 0
        && let Some(last) = transcript.last()
    {
        let mut end = last.text.len().min(budget);
        while !last.text.is_char_boundary(end) {
            end -= 1;
        }
        out.push(ChatMessage {
            role: role(last),
            content: last.text[..end].to_string(),
        });
    }
    for said in &transcript[from..] {
        out.push(ChatMessage {
            role: role(said),
            content: said.text.clone(),
        });
    }
    let summary = Summary(conv).to_string();
    let state = super::template::fill(
        &phrases.state,
        &[
            ("summary", &summary),
            ("instruction", phrases.instruction(conv)),
        ],
    )
    .unwrap_or(summary);
    out.push(ChatMessage {
        role: "system",
        content: state,
    });
    out
}

/// The share of `now`'s bytes (as JSON) that is an unchanged prefix of `before`'s: what a
/// provider's prompt cache can reuse.
pub fn shared_prefix(before: &[ChatMessage], now: &[ChatMessage]) -> f64 {
    let a = serde_json::to_string(before).unwrap_or_default();
    let b = serde_json::to_string(now).unwrap_or_default();
    let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    if b.is_empty() {
        0.0
    } else {
        common as f64 / b.len() as f64
    }
}
