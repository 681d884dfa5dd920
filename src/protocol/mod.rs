//! The wire contract: every frame of `docs/protocol.md`, as serde types.
//!
//! Client frames are parsed once at the edge ([`ClientFrame::parse`]); nothing past the socket
//! handler sees raw JSON. Server frames are written from borrowed data, so pushing a state
//! costs one serialisation, shared by every client of the session.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

use crate::conversation::names::named;
use crate::conversation::{GoalId, Summary};
// The conversation's types the frames carry: a client reads them from here.
pub use crate::conversation::{Conversation, Role, Signal, Transition};

pub(crate) mod decimal;
pub mod json;
pub mod log;
pub(crate) mod time;

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
    /// Session options; answered with the current state. `explain`: every later `state` frame
    /// of the session carries an `explain` object (the inspector). `assistant`: who answers as
    /// the assistant from now on (`observer`, `guide`; a user's or an admin's choice).
    Configure {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        explain: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assistant: Option<crate::assistant::Mode>,
    },
    /// Stops the assistant's reply being written: it is stored as far as it was delivered,
    /// marked partial. Answered with the current state.
    Stop {},
    /// A hosted flow's event (a session opened with `?flow=NAME`), with its typed data.
    Event {
        name: String,
        #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
        data: serde_json::Map<String, serde_json::Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
}

/// The `type` values a client may send.
pub const CLIENT_TYPES: [&str; 7] = [
    "message",
    "signal",
    "get_state",
    "reset",
    "configure",
    "stop",
    "event",
];

/// The longest `id` a client frame may carry, in bytes: ids are kept per session, so their size
/// is bounded (a UUID is 36).
pub const MAX_ID_BYTES: usize = 128;

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
            Ok(frame) if frame.id().is_some_and(|id| id.len() > MAX_ID_BYTES) => Err(refuse(
                ErrorCode::BadRequest,
                format!("an `id` is at most {MAX_ID_BYTES} bytes"),
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
                    // A misspelt signal: only the signals a client may send are offered.
                    Ok(Tag {
                        kind: Some(serde_json::Value::String(kind)),
                    }) if kind == "signal" && e.to_string().contains("unknown variant") => {
                        let given = e
                            .to_string()
                            .split('`')
                            .nth(1)
                            .unwrap_or_default()
                            .to_string();
                        Err(refuse(
                            ErrorCode::BadRequest,
                            format!(
                                "unknown signal \"{given}\" (expected approve, start_work, \
                                 work_done, satisfied, change_request or cancel)"
                            ),
                        ))
                    }
                    Ok(_) => Err(refuse(ErrorCode::BadRequest, e.to_string())),
                }
            }
        }
    }

    /// The input a frame gives the engine; `None` for `get_state` and `configure`, which change
    /// nothing of the conversation.
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
            ClientFrame::Event { name, data, .. } => Some(Input::Event { name, data }),
            ClientFrame::GetState {} | ClientFrame::Configure { .. } | ClientFrame::Stop {} => None,
        }
    }

    /// The idempotency key, if the frame carries one.
    pub fn id(&self) -> Option<&str> {
        match self {
            ClientFrame::Message { id, .. }
            | ClientFrame::Signal { id, .. }
            | ClientFrame::Reset { id }
            | ClientFrame::Event { id, .. } => id.as_deref(),
            ClientFrame::GetState {} | ClientFrame::Configure { .. } | ClientFrame::Stop {} => None,
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

// --- the engine's types on the wire ---------------------------------------------------------

/// `g-N`, written without a heap string.
impl Serialize for GoalId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 12];
        let at = decimal::at_end(u64::from(self.0), &mut buf) - 2;
        buf[at..at + 2].copy_from_slice(b"g-");
        s.serialize_str(std::str::from_utf8(&buf[at..]).map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> Deserialize<'de> for GoalId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GoalId, D::Error> {
        let text = Cow::<str>::deserialize(d)?;
        text.strip_prefix("g-")
            .and_then(|n| n.parse().ok())
            .map(GoalId)
            .ok_or_else(|| serde::de::Error::custom(format!("invalid goal id \"{text}\"")))
    }
}

impl JsonSchema for GoalId {
    fn schema_name() -> Cow<'static, str> {
        "GoalId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A goal's number within its session.",
            "type": "string",
            "pattern": "^g-[0-9]+$"
        })
    }
}

// --- server to client ------------------------------------------------------------------------

named! {
    /// The codes of `error` frames.
    pub enum ErrorCode {
        /// The frame is not JSON.
        BadJson = "bad_json",
        /// A missing, unknown or wrong field, a binary frame, or a signal that cannot be sent.
        BadRequest = "bad_request",
        /// An unknown `type`.
        UnknownType = "unknown_type",
        /// The frame is larger than the server accepts.
        TooLarge = "too_large",
        /// Too many frames too fast: this one was not applied.
        RateLimited = "rate_limited",
        /// No such session; the connection is closed after this frame.
        UnknownSession = "unknown_session",
        /// The session was deleted; the connection is closed after this frame.
        SessionDeleted = "session_deleted",
        /// The store cannot make changes durable: the frame was not applied.
        StoreUnavailable = "store_unavailable",
        /// The node is at its limit of connections or sessions: try again later (HTTP 503).
        ServerFull = "server_full",
        /// Authentication is on and the request has no valid token (HTTP 401).
        Unauthorized = "unauthorized",
        /// The token does not allow this: another session, or a frame beyond its role (the
        /// frame was not applied; HTTP 403 before an upgrade).
        Forbidden = "forbidden",
        /// The session's model cannot answer now (its circuit breaker is open, or the call
        /// failed): the turn stands, nothing was answered.
        AssistantUnavailable = "assistant_unavailable",
        /// The session used its share of the model (tokens or replies): it is not answered
        /// any more.
        BudgetExhausted = "budget_exhausted",
        /// A user's turn while the assistant writes a reply, with `llm.busy = "refuse"`: the
        /// frame was not applied.
        AssistantBusy = "assistant_busy",
        /// A hosted flow's event its state does not take (or whose data or guard does not
        /// hold), a turn sent to a flow, an event sent to a conversation: nothing was applied;
        /// `allowed_events` lists what the state takes.
        InvalidTransition = "invalid_transition",
        /// The connection's token expired while it was open: the frame was not applied, and
        /// the connection is closed (4001) after this error; connect again with a new token.
        TokenExpired = "token_expired",
    }
}

impl ErrorCode {
    /// Whether the server closes the connection after an error of this code.
    pub fn closes(self) -> bool {
        matches!(self, ErrorCode::UnknownSession | ErrorCode::SessionDeleted)
    }
}

/// Any frame the server sends.
// One type for both directions: the server writes it (the hot `state` and `welcome` frames
// through `json`, which writes the same bytes), clients and tests read it back with
// `ServerFrame::parse`. Borrowed when written, owned when read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ServerFrame<'a> {
    /// The first frame of every connection.
    Welcome(Welcome<'a>),
    /// A change of the session (or, without transitions, its current state).
    State(StateUpdate<'a>),
    /// To the sender of a frame with an `id`, once its change is durable.
    Ack(Ack<'a>),
    /// A refused request.
    Error(ErrorBody<'a>),
    /// A piece of the assistant's reply as it is written (the `llm` assistant): a preview, not
    /// a change; the reply becomes a turn with its `state` frame.
    AssistantDelta(AssistantDelta<'a>),
    /// Whether the session's assistant is replying, and its model's circuit breaker.
    AssistantStatus(AssistantStatus<'a>),
}

/// `{"type":"assistant_delta", ...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssistantDelta<'a> {
    pub session_id: Cow<'a, str>,
    /// The reply this piece belongs to.
    pub reply_id: Cow<'a, str>,
    /// Where `text` starts in the reply, in bytes of its UTF-8.
    pub offset: u64,
    pub text: Cow<'a, str>,
}

/// `{"type":"assistant_status", ...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssistantStatus<'a> {
    pub session_id: Cow<'a, str>,
    /// `replying` (the session is busy: a reply is being written), `idle`, or `unavailable`.
    pub status: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_id: Option<Cow<'a, str>>,
    /// The model's circuit breaker: `closed`, `open`, `half_open`.
    pub breaker: Cow<'a, str>,
    /// Why, when `unavailable` or when a reply ended early.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Cow<'a, str>>,
}

/// `{"type":"welcome", ...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Welcome<'a> {
    pub session_id: Cow<'a, str>,
    pub protocol: u32,
    /// The `seq` of `state`: every frame after this one has a higher one.
    pub seq: u64,
    /// Whether the client's `last_seq` was honoured: `state` is the state at that `seq` and
    /// the frames it missed follow. `false`: `state` is the current state (a new client, or one
    /// from too far back).
    #[serde(default)]
    pub resumed: bool,
    pub state: Cow<'a, Conversation>,
    /// The text summary, ready for an LLM's system prompt.
    pub summary: Cow<'a, str>,
}

/// `{"type":"state", ...}`: sent to every client of a session after each change, and written by
/// `replay` for each step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateUpdate<'a> {
    pub session_id: Cow<'a, str>,
    /// Grows by one per change of the session.
    pub seq: u64,
    pub state: Cow<'a, Conversation>,
    pub transitions: Cow<'a, [Transition]>,
    /// The text summary, ready for an LLM's system prompt.
    pub summary: Cow<'a, str>,
    /// Why the change went so (the inspector): only in sessions that asked for it with
    /// `?explain=1` or a `configure` frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<Cow<'a, crate::conversation::explain::Explanation>>,
    /// The turn that made this change (absent for signals, resets, idle transitions and the
    /// current state): every client of the session sees every turn, the assistant's included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Box<Turn<'a>>>,
}

/// A turn as a `state` frame carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Turn<'a> {
    pub role: Role,
    pub text: Cow<'a, str>,
    /// The turn delivered the work (an artifact field on the message).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub artifact: bool,
    /// An assistant's reply cut short (stopped, interrupted, failed or too long): stored as
    /// far as it was delivered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// `{"type":"ack","id":"c-17","seq":N}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ack<'a> {
    pub id: Cow<'a, str>,
    pub seq: u64,
}

/// `{"type":"error","code":"...","message":"..."}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody<'a> {
    pub code: ErrorCode,
    pub message: Cow<'a, str>,
    /// With `invalid_transition`: the events the flow's state takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_events: Option<Vec<String>>,
}

impl<'a> ServerFrame<'a> {
    /// The `welcome` frame of `state` at `seq`.
    pub fn welcome(state: &'a Conversation, seq: u64, resumed: bool) -> ServerFrame<'a> {
        ServerFrame::Welcome(Welcome {
            session_id: Cow::Borrowed(&state.session_id),
            protocol: PROTOCOL_VERSION,
            seq,
            resumed,
            state: Cow::Borrowed(state),
            summary: Cow::Owned(Summary(state).to_string()),
        })
    }

    /// The `state` frame of a change.
    pub fn state(state: &'a Conversation, seq: u64, transitions: &'a [Transition]) -> Self {
        ServerFrame::State(StateUpdate {
            session_id: Cow::Borrowed(&state.session_id),
            seq,
            state: Cow::Borrowed(state),
            transitions: Cow::Borrowed(transitions),
            summary: Cow::Owned(Summary(state).to_string()),
            explain: None,
            message: None,
        })
    }

    pub fn ack(id: &'a str, seq: u64) -> ServerFrame<'a> {
        ServerFrame::Ack(Ack {
            id: Cow::Borrowed(id),
            seq,
        })
    }

    pub fn error(code: ErrorCode, message: &'a str) -> ServerFrame<'a> {
        ServerFrame::Error(ErrorBody {
            code,
            message: Cow::Borrowed(message),
            allowed_events: None,
        })
    }

    /// An `invalid_transition` error: why, and the events the state takes.
    pub fn invalid_transition(message: &'a str, allowed: &[String]) -> ServerFrame<'a> {
        ServerFrame::Error(ErrorBody {
            code: ErrorCode::InvalidTransition,
            message: Cow::Borrowed(message),
            allowed_events: Some(allowed.to_vec()),
        })
    }

    /// Reads a frame the server sent.
    pub fn parse(text: &str) -> Result<ServerFrame<'static>, String> {
        serde_json::from_str(text).map_err(|e| format!("not a server frame: {e}: {text}"))
    }

    /// Its JSON text.
    pub fn to_text(&self) -> String {
        to_text(self)
    }

    /// The `seq` it carries, if any.
    pub fn seq(&self) -> Option<u64> {
        match self {
            ServerFrame::Welcome(w) => Some(w.seq),
            ServerFrame::State(s) => Some(s.seq),
            ServerFrame::Ack(a) => Some(a.seq),
            ServerFrame::Error(_)
            | ServerFrame::AssistantDelta(_)
            | ServerFrame::AssistantStatus(_) => None,
        }
    }

    /// The state it carries (a welcome's or a state frame's).
    pub fn conversation(&self) -> Option<&Conversation> {
        match self {
            ServerFrame::Welcome(w) => Some(&w.state),
            ServerFrame::State(s) => Some(&s.state),
            ServerFrame::Ack(_)
            | ServerFrame::Error(_)
            | ServerFrame::AssistantDelta(_)
            | ServerFrame::AssistantStatus(_) => None,
        }
    }
}

/// The kind of a server frame and the few fields a load generator reads, without the state:
/// read through the same types as [`ServerFrame`], skipping what it does not need.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct FrameHead {
    #[serde(rename = "type")]
    pub kind: FrameKind,
    #[serde(default)]
    pub seq: Option<u64>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub code: Option<ErrorCode>,
}

named! {
    /// The `type` of a server frame.
    pub enum FrameKind {
        Welcome = "welcome",
        State = "state",
        Ack = "ack",
        Error = "error",
        AssistantDelta = "assistant_delta",
        AssistantStatus = "assistant_status",
    }
}

impl FrameHead {
    pub fn parse(text: &str) -> Result<FrameHead, String> {
        serde_json::from_str(text).map_err(|e| format!("not a server frame: {e}"))
    }
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
    json::FrameText::state(state, seq, transitions).text
}

/// The `welcome` frame's JSON text.
pub fn welcome_frame_text(state: &Conversation, seq: u64, resumed: bool) -> String {
    json::FrameText::state(state, seq, &[]).welcome(resumed)
}

/// Serialises any of our types to JSON text (frames, the HTTP API's bodies).
pub fn to_text(value: &impl Serialize) -> String {
    // Our types hold only strings, numbers and maps with string keys: this cannot fail.
    serde_json::to_string(value).unwrap_or_else(|e| {
        format!(r#"{{"type":"error","code":"bad_request","message":"cannot write a frame: {e}"}}"#)
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
