//! The wire contract: every frame of `docs/protocol.md`, as serde types.
//!
//! Client frames are parsed once at the edge ([`ClientFrame::parse`]); nothing past the socket
//! handler sees raw JSON. Server frames are written from borrowed data, so pushing a state
//! costs one serialisation, shared by every client of the session.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

use crate::conversation::{Conversation, Role, Signal, Summary, Transition};

pub mod json;

/// The protocol version in the `welcome` frame.
pub const PROTOCOL_VERSION: u32 = 1;

// --- client to server ------------------------------------------------------------------------

/// A frame from a client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientFrame {
    /// One turn. `id` makes a retried turn idempotent.
    Message {
        role: Role,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// An artifact carried outside the text (any value but `null` and `false` counts).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        artifact: Option<serde_json::Value>,
    },
    /// An explicit signal (a button), no text.
    Signal {
        signal: Signal,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    /// The current state, to this client only.
    GetState {},
    /// Start the session over from `greeting` with an empty history.
    Reset {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
}

/// The `type` values a client may send.
pub const CLIENT_TYPES: [&str; 4] = ["message", "signal", "get_state", "reset"];

/// Why a client frame was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl ClientFrame {
    /// Parses a text frame. A refusal says whether it was not JSON (`bad_json`), had no or an
    /// unknown `type` (`bad_request`, `unknown_type`), or a missing, unknown or wrong field
    /// (`bad_request`).
    pub fn parse(text: &str) -> Result<ClientFrame, Refusal> {
        let refuse = |code, message: String| Refusal { code, message };
        match serde_json::from_str::<ClientFrame>(text) {
            Ok(ClientFrame::Signal { signal, .. }) if !signal.is_explicit() => Err(refuse(
                ErrorCode::BadRequest,
                format!(
                    "`{}` cannot be sent as an explicit signal (expected approve, start_work, \
                     work_done, satisfied, change_request or cancel)",
                    signal.as_str()
                ),
            )),
            Ok(frame) => Ok(frame),
            Err(e) => {
                // The failure path only: find out what kind of mistake it was.
                #[derive(Deserialize)]
                struct Tag {
                    #[serde(rename = "type")]
                    kind: Option<serde_json::Value>,
                }
                match serde_json::from_str::<Tag>(text) {
                    Err(_) if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() => {
                        Err(refuse(ErrorCode::BadJson, format!("invalid JSON: {e}")))
                    }
                    Err(_) => Err(refuse(
                        ErrorCode::BadRequest,
                        "a frame is a JSON object with a `type`".to_string(),
                    )),
                    Ok(Tag { kind: None }) => Err(refuse(
                        ErrorCode::BadRequest,
                        "missing field `type`".to_string(),
                    )),
                    Ok(Tag {
                        kind: Some(serde_json::Value::String(kind)),
                    }) if !CLIENT_TYPES.contains(&kind.as_str()) => Err(refuse(
                        ErrorCode::UnknownType,
                        format!(
                            "unknown frame type \"{kind}\" (expected one of: {})",
                            CLIENT_TYPES.join(", ")
                        ),
                    )),
                    Ok(_) => Err(refuse(ErrorCode::BadRequest, e.to_string())),
                }
            }
        }
    }

    /// The input a frame gives the engine; `None` for `get_state`, which changes nothing.
    pub fn input(&self) -> Option<crate::conversation::Input<'_>> {
        use crate::conversation::Input;
        match self {
            ClientFrame::Message {
                role,
                text,
                artifact,
                ..
            } => Some(Input::Message {
                role: *role,
                text,
                artifact: has_artifact(artifact),
            }),
            ClientFrame::Signal { signal, .. } => Some(Input::Signal(*signal)),
            ClientFrame::Reset { .. } => Some(Input::Reset),
            ClientFrame::GetState {} => None,
        }
    }

    /// The idempotency key, if the frame carries one.
    pub fn id(&self) -> Option<&str> {
        match self {
            ClientFrame::Message { id, .. }
            | ClientFrame::Signal { id, .. }
            | ClientFrame::Reset { id } => id.as_deref(),
            ClientFrame::GetState {} => None,
        }
    }
}

/// Whether an `artifact` field counts as an artifact.
pub fn has_artifact(artifact: &Option<serde_json::Value>) -> bool {
    !matches!(
        artifact,
        None | Some(serde_json::Value::Null) | Some(serde_json::Value::Bool(false))
    )
}

// --- server to client ------------------------------------------------------------------------

/// The `type` of a server frame, one unit type per frame so the schema names the value.
macro_rules! tag {
    ($name:ident, $value:literal) => {
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
        pub enum $name {
            #[default]
            #[serde(rename = $value)]
            Tag,
        }
    };
}
tag!(WelcomeTag, "welcome");
tag!(StateTag, "state");
tag!(AckTag, "ack");
tag!(ErrorTag, "error");

/// The codes of `error` frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame is not JSON.
    BadJson,
    /// A missing, unknown or wrong field, a binary frame, or a signal that cannot be sent.
    BadRequest,
    /// An unknown `type`.
    UnknownType,
    /// The frame is larger than the server accepts.
    TooLarge,
    /// Too many frames too fast: this one was not applied.
    RateLimited,
    /// No such session; the connection is closed after this frame.
    UnknownSession,
    /// The session was deleted; the connection is closed after this frame.
    SessionDeleted,
    /// The store cannot make changes durable: the frame was not applied.
    StoreUnavailable,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 8] = [
        ErrorCode::BadJson,
        ErrorCode::BadRequest,
        ErrorCode::UnknownType,
        ErrorCode::TooLarge,
        ErrorCode::RateLimited,
        ErrorCode::UnknownSession,
        ErrorCode::SessionDeleted,
        ErrorCode::StoreUnavailable,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadJson => "bad_json",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::UnknownType => "unknown_type",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::UnknownSession => "unknown_session",
            ErrorCode::SessionDeleted => "session_deleted",
            ErrorCode::StoreUnavailable => "store_unavailable",
        }
    }

    /// Whether the server closes the connection after an error of this code.
    pub fn closes(self) -> bool {
        matches!(self, ErrorCode::UnknownSession | ErrorCode::SessionDeleted)
    }
}

/// `{"type":"welcome", ...}`: the first frame of every connection.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WelcomeFrame<'a> {
    #[serde(rename = "type")]
    pub kind: WelcomeTag,
    pub session_id: &'a str,
    pub protocol: u32,
    pub seq: u64,
    pub state: &'a Conversation,
    /// The text summary, ready for an LLM's system prompt.
    #[serde(serialize_with = "as_text")]
    #[schemars(with = "String")]
    pub summary: Summary<'a>,
}

impl<'a> WelcomeFrame<'a> {
    pub fn new(state: &'a Conversation, seq: u64) -> Self {
        WelcomeFrame {
            kind: WelcomeTag::Tag,
            session_id: &state.session_id,
            protocol: PROTOCOL_VERSION,
            seq,
            state,
            summary: Summary(state),
        }
    }
}

/// `{"type":"state", ...}`: sent to every client of a session after each change, and written by
/// `replay` for each step.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StateFrame<'a> {
    #[serde(rename = "type")]
    pub kind: StateTag,
    pub session_id: &'a str,
    /// Grows by one per change of the session.
    pub seq: u64,
    pub state: &'a Conversation,
    pub transitions: &'a [Transition],
    /// The text summary, ready for an LLM's system prompt.
    #[serde(serialize_with = "as_text")]
    #[schemars(with = "String")]
    pub summary: Summary<'a>,
}

impl<'a> StateFrame<'a> {
    pub fn new(state: &'a Conversation, seq: u64, transitions: &'a [Transition]) -> Self {
        StateFrame {
            kind: StateTag::Tag,
            session_id: &state.session_id,
            seq,
            state,
            transitions,
            summary: Summary(state),
        }
    }
}

/// `{"type":"ack","id":"c-17","seq":N}`: to the sender of a frame with an `id`, once applied.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AckFrame<'a> {
    #[serde(rename = "type")]
    pub kind: AckTag,
    pub id: &'a str,
    pub seq: u64,
}

impl<'a> AckFrame<'a> {
    pub fn new(id: &'a str, seq: u64) -> Self {
        AckFrame {
            kind: AckTag::Tag,
            id,
            seq,
        }
    }
}

/// `{"type":"error","code":"...","message":"..."}`: a refused request.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ErrorFrame<'a> {
    #[serde(rename = "type")]
    pub kind: ErrorTag,
    pub code: ErrorCode,
    pub message: &'a str,
}

impl<'a> ErrorFrame<'a> {
    pub fn new(code: ErrorCode, message: &'a str) -> Self {
        ErrorFrame {
            kind: ErrorTag::Tag,
            code,
            message,
        }
    }
}

/// Any frame the server sends (for the schema; each is written on its own).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ServerFrame<'a> {
    Welcome(WelcomeFrame<'a>),
    State(StateFrame<'a>),
    Ack(AckFrame<'a>),
    Error(ErrorFrame<'a>),
}

/// The whole wire contract, for its JSON Schema.
#[derive(Debug, JsonSchema)]
#[schemars(title = "convstate protocol 1")]
#[allow(dead_code)]
struct Protocol {
    /// A frame a client sends.
    client_frame: ClientFrame,
    /// A frame the server sends.
    server_frame: ServerFrame<'static>,
}

/// The JSON Schema of every frame, generated from these types (`docs/protocol.schema.json`).
pub fn schema() -> String {
    let schema = schemars::schema_for!(Protocol);
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}

/// The `state` frame's JSON text (the hot path: see [`json`]).
pub fn state_frame_text(state: &Conversation, seq: u64, transitions: &[Transition]) -> String {
    let mut out = String::with_capacity(2048);
    json::write_state_frame(&mut out, state, seq, transitions);
    out
}

/// The `welcome` frame's JSON text.
pub fn welcome_frame_text(state: &Conversation, seq: u64) -> String {
    let mut out = String::with_capacity(2048);
    json::write_welcome_frame(&mut out, state, seq);
    out
}

/// Serialises any of our types to JSON text (the HTTP API's bodies).
pub fn json_text(value: &impl Serialize) -> String {
    to_text(value)
}

/// Serialises a server frame to its JSON text.
pub fn to_text(frame: &impl Serialize) -> String {
    // Our frames hold only strings, numbers and maps with string keys: this cannot fail.
    serde_json::to_string(frame).unwrap_or_else(|e| {
        format!(r#"{{"type":"error","code":"bad_request","message":"cannot write a frame: {e}"}}"#)
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_frames_parse() {
        assert_eq!(
            ClientFrame::parse(r#"{"type":"message","role":"user","text":"hi","id":"c-1"}"#),
            Ok(ClientFrame::Message {
                role: Role::User,
                text: "hi".into(),
                id: Some("c-1".into()),
                artifact: None
            })
        );
        assert_eq!(
            ClientFrame::parse(r#"{"type":"signal","signal":"approve"}"#),
            Ok(ClientFrame::Signal {
                signal: Signal::Approve,
                id: None
            })
        );
        assert_eq!(
            ClientFrame::parse(r#"{"type":"get_state"}"#),
            Ok(ClientFrame::GetState {})
        );
        assert_eq!(
            ClientFrame::parse(r#"{"type":"reset"}"#),
            Ok(ClientFrame::Reset { id: None })
        );
    }

    #[test]
    fn refusals_say_what_is_wrong() {
        let code = |text: &str| ClientFrame::parse(text).unwrap_err().code;
        assert_eq!(code("{nope"), ErrorCode::BadJson);
        assert_eq!(code(""), ErrorCode::BadJson);
        assert_eq!(code("[1]"), ErrorCode::BadRequest);
        assert_eq!(code("42"), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"role":"user"}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"type":"dance"}"#), ErrorCode::UnknownType);
        assert_eq!(code(r#"{"type":7}"#), ErrorCode::BadRequest);
        assert_eq!(
            code(r#"{"type":"message","role":"user"}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(
            code(r#"{"type":"message","role":"user","text":"x","colour":1}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(
            code(r#"{"type":"message","role":"robot","text":"x"}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(
            code(r#"{"type":"signal","signal":"switch"}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(code(r#"{"type":"get_state","x":1}"#), ErrorCode::BadRequest);
        let e = ClientFrame::parse(r#"{"type":"message","role":"user","text":"x","colour":1}"#)
            .unwrap_err();
        assert!(e.message.contains("colour"), "{}", e.message);
    }
}
