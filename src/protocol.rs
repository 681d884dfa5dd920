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

/// Renders the summary into a reused per-thread buffer and writes it as one string: through
/// `collect_str` the JSON escaper is fed one formatter fragment at a time, which showed in
/// profiles of the frame.
fn as_text<S: Serializer>(summary: &Summary<'_>, s: S) -> Result<S::Ok, S::Error> {
    use std::cell::RefCell;
    use std::fmt::Write;
    thread_local! {
        static BUF: RefCell<String> = RefCell::new(String::with_capacity(1024));
    }
    BUF.with(|buf| match buf.try_borrow_mut() {
        Ok(mut buf) => {
            buf.clear();
            write!(buf, "{summary}").map_err(serde::ser::Error::custom)?;
            s.serialize_str(&buf)
        }
        // Not reached (serialising a string does not come back here), but never panic.
        Err(_) => s.collect_str(summary),
    })
}
