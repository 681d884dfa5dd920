//! The assistant's side of a session: who speaks as the assistant.
//!
//! - `observer`: clients send both roles; the server only tracks the state (the default).
//! - `guide`: after each user turn the server answers from the state alone ([`guide`]), with
//!   the phrases of `patterns/assistant.toml`.
//! - `llm`: after each user turn a model answers ([`llm`]), called with the state summary and
//!   the phase's instruction ([`prompt`]), its reply streamed to the session's clients.
//!
//! The answers are assistant turns like any other: stepped by the engine, stored, then pushed
//! to every client of the session in their `state` frames.

pub mod guide;
pub mod llm;
pub mod prompt;
pub mod template;

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who answers as the assistant in a session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Clients send both roles; the server tracks the state.
    #[default]
    Observer,
    /// The built-in guide answers every user turn.
    Guide,
    /// A model answers every user turn, its reply streamed (`assistant::llm`).
    Llm,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Observer, Mode::Guide, Mode::Llm];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Observer => "observer",
            Mode::Guide => "guide",
            Mode::Llm => "llm",
        }
    }

    pub(crate) fn from_u8(n: u8) -> Mode {
        match n {
            1 => Mode::Guide,
            2 => Mode::Llm,
            _ => Mode::Observer,
        }
    }

    pub(crate) fn as_u8(self) -> u8 {
        match self {
            Mode::Observer => 0,
            Mode::Guide => 1,
            Mode::Llm => 2,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| format!("unknown assistant mode {s:?}: expected observer, guide or llm"))
    }
}
