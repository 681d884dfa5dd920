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
    let state = super::guide::fill(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::Input;

    /// The spec's worked example, replayed: the prompt at each user turn, as a model would get
    /// it to answer that turn.
    fn prompts() -> Vec<Vec<ChatMessage>> {
        let engine = crate::patterns::builtin();
        let guide = super::super::guide::Guide::builtin(&engine);
        let example = [
            (Role::User, "I want to build a todo app"),
            (Role::Assistant, "What features do you need?"),
            (
                Role::User,
                "I need add, delete, and mark as complete functionality with React components",
            ),
            (Role::Assistant, "I'll create a React todo app component"),
            (Role::User, "Sounds good, go ahead"),
            (Role::Assistant, "<artifact type=\"react\">...</artifact>"),
            (Role::User, "Perfect! This is exactly what I needed"),
            (Role::User, "Now build a calculator"),
            (Role::User, "bye"),
        ];
        let mut now: chrono::DateTime<chrono::Utc> = "2026-11-21T10:00:00Z".parse().unwrap();
        let mut conv = engine.start("s-prompt", now);
        let mut transcript = Vec::new();
        let mut out = Vec::new();
        for (seq, (role, text)) in example.into_iter().enumerate() {
            now += chrono::TimeDelta::seconds(10);
            let input = Input::Message {
                role,
                text,
                artifact: false,
            };
            engine.step(&mut conv, input, now);
            transcript.push(Said {
                seq: seq as u64 + 1,
                role,
                text: text.to_string(),
            });
            if role == Role::User {
                out.push(messages(guide.llm(), &conv, &transcript, 16 * 1024));
            }
        }
        out
    }

    #[test]
    fn the_prompt_carries_the_summary_and_the_phase_instruction_last() {
        let prompts = prompts();
        let first = &prompts[0];
        assert_eq!(first.len(), 3);
        assert_eq!(first[0].role, "system");
        assert_eq!(first[1].content, "I want to build a todo app");
        let state = &first[2].content;
        assert!(
            state.contains("Conversation Phase: understanding\nTurn Count: 1"),
            "{state}"
        );
        assert!(state.contains("? requirements"), "{state}");
        assert!(state.ends_with("in one short question. Do not start the work yet."));
        // The same state and transcript give the same bytes.
        assert_eq!(prompts, self::prompts());
    }

    #[test]
    fn each_prompt_mostly_repeats_the_one_before() {
        let prompts = prompts();
        let shares: Vec<f64> = prompts
            .windows(2)
            .map(|w| shared_prefix(&w[0], &w[1]))
            .collect();
        // Everything up to the previous state message is unchanged.
        for (w, share) in prompts.windows(2).zip(&shares) {
            let before = serde_json::to_string(&w[0][..w[0].len() - 1]).unwrap();
            let now = serde_json::to_string(&w[1]).unwrap();
            assert!(now.starts_with(&before[..before.len() - 1]), "{share}");
        }
        // The worked example's figures (docs/assistant.md): the shares grow with the transcript.
        let rounded: Vec<u32> = shares.iter().map(|s| (s * 100.0).round() as u32).collect();
        assert_eq!(rounded, [34, 46, 65, 59, 76]);
    }

    #[test]
    fn the_window_moves_in_steps() {
        let engine = crate::patterns::builtin();
        let guide = super::super::guide::Guide::builtin(&engine);
        let conv = engine.start("s-window", chrono::Utc::now());
        let transcript: Vec<Said> = (1..=40)
            .map(|seq| Said {
                seq,
                role: Role::User,
                text: "x".repeat(100),
            })
            .collect();
        // 1,000 bytes (10 turns): the window starts at a multiple of 8, turn 32.
        let m = messages(guide.llm(), &conv, &transcript, 1000);
        assert_eq!(m.len() - 2, 9, "turns 32 to 40");
        // A turn less does not move the start.
        let m2 = messages(guide.llm(), &conv, &transcript[..39], 1000);
        assert_eq!(m2.len() - 2, 8);
        assert_eq!(m[1], m2[1]);
        // No budget: no transcript.
        assert_eq!(messages(guide.llm(), &conv, &transcript, 0).len(), 2);
        // A last turn over the budget on its own is still sent, cut to it.
        let long = [Said {
            seq: 41,
            role: Role::User,
            text: "é".repeat(600),
        }];
        let m = messages(guide.llm(), &conv, &long, 1001);
        assert_eq!(m.len(), 3);
        assert_eq!(m[1].content.len(), 1000);
    }
}
