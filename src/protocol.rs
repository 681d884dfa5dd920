//! The wire contract: the frames of `docs/protocol.md`, as serde types.
//!
//! Frames are parsed once at the edge into these types; nothing past the socket handler sees
//! raw JSON.

use serde::{Serialize, Serializer};

use crate::conversation::{Conversation, Summary, Transition};

/// The protocol version in the `welcome` frame.
pub const PROTOCOL_VERSION: u32 = 1;

/// `{"type":"state", ...}`: sent to every client of a session after each change, and written by
/// `replay` for each step.
#[derive(Debug, Serialize)]
pub struct StateFrame<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub session_id: &'a str,
    /// Grows by one per change of the session.
    pub seq: u64,
    pub state: &'a Conversation,
    pub transitions: &'a [Transition],
    #[serde(serialize_with = "as_text")]
    pub summary: Summary<'a>,
}

impl<'a> StateFrame<'a> {
    pub fn new(state: &'a Conversation, seq: u64, transitions: &'a [Transition]) -> Self {
        StateFrame {
            kind: "state",
            session_id: &state.session_id,
            seq,
            state,
            transitions,
            summary: Summary(state),
        }
    }
}

/// Writes the summary straight into the output, without building a string first.
fn as_text<S: Serializer>(summary: &Summary<'_>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(summary)
}
