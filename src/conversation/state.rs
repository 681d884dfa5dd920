//! The conversation state: what the server keeps per session and pushes to its clients.
//!
//! Every type here serialises to the `state` object of the wire contract (`docs/protocol.md`),
//! and deserialises back, so a snapshot is just this JSON.

use std::fmt;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where the conversation stands. A new session starts in `Greeting`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Greeting,
    Understanding,
    Planning,
    Executing,
    Reviewing,
    Completed,
    Idle,
}

impl Phase {
    /// Every phase, in the order of the happy path.
    pub const ALL: [Phase; 7] = [
        Phase::Greeting,
        Phase::Understanding,
        Phase::Planning,
        Phase::Executing,
        Phase::Reviewing,
        Phase::Completed,
        Phase::Idle,
    ];

    /// The wire name of the phase.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Greeting => "greeting",
            Phase::Understanding => "understanding",
            Phase::Planning => "planning",
            Phase::Executing => "executing",
            Phase::Reviewing => "reviewing",
            Phase::Completed => "completed",
            Phase::Idle => "idle",
        }
    }

    /// A transition into one of these phases from a different phase is a milestone.
    pub fn is_milestone(self) -> bool {
        matches!(
            self,
            Phase::Understanding | Phase::Executing | Phase::Completed
        )
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the user is trying to get done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GoalType {
    ArtifactCreation,
    QuestionAnswer,
    TaskExecution,
    Exploration,
}

impl GoalType {
    pub const ALL: [GoalType; 4] = [
        GoalType::ArtifactCreation,
        GoalType::QuestionAnswer,
        GoalType::TaskExecution,
        GoalType::Exploration,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            GoalType::ArtifactCreation => "artifact_creation",
            GoalType::QuestionAnswer => "question_answer",
            GoalType::TaskExecution => "task_execution",
            GoalType::Exploration => "exploration",
        }
    }

    pub fn from_name(name: &str) -> Option<GoalType> {
        GoalType::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

impl fmt::Display for GoalType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GoalStatus {
    Active,
    Completed,
    Abandoned,
}

impl GoalStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            GoalStatus::Active => "active",
            GoalStatus::Completed => "completed",
            GoalStatus::Abandoned => "abandoned",
        }
    }
}

/// Why a goal finished. Serialised as the spec's phrases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum GoalReason {
    #[serde(rename = "user satisfied")]
    Satisfied,
    #[serde(rename = "user moved on")]
    MovedOn,
    #[serde(rename = "cancelled by user")]
    Cancelled,
    #[serde(rename = "superseded")]
    Superseded,
    #[serde(rename = "idle timeout")]
    IdleTimeout,
}

impl GoalReason {
    /// The wire name: the spec's phrase.
    pub fn as_str(self) -> &'static str {
        match self {
            GoalReason::Satisfied => "user satisfied",
            GoalReason::MovedOn => "user moved on",
            GoalReason::Cancelled => "cancelled by user",
            GoalReason::Superseded => "superseded",
            GoalReason::IdleTimeout => "idle timeout",
        }
    }

    /// Completed or abandoned: the status a goal finishing for this reason gets.
    pub fn status(self) -> GoalStatus {
        match self {
            GoalReason::Satisfied | GoalReason::MovedOn => GoalStatus::Completed,
            GoalReason::Cancelled | GoalReason::Superseded | GoalReason::IdleTimeout => {
                GoalStatus::Abandoned
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlotStatus {
    Unknown,
    Asked,
    Provided,
}

impl SlotStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            SlotStatus::Unknown => "unknown",
            SlotStatus::Asked => "asked",
            SlotStatus::Provided => "provided",
        }
    }
}

/// One piece of required information of a goal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Slot {
    /// The slot's name from `patterns/slots.toml`; shared with the pattern set, never copied.
    pub name: Arc<str>,
    /// Human description, shown in the summary.
    pub description: Arc<str>,
    /// The question an assistant would ask to fill the slot, for prompt builders.
    pub question: Arc<str>,
    pub status: SlotStatus,
    /// The matched words once provided (never the whole message unless it answered a question).
    pub value: Option<String>,
}

/// Writes `n` in decimal at the end of `buf` (20 bytes hold any `u64`) and returns where the
/// digits start: numbers on the wire without a heap string.
pub fn decimal_at_end(mut n: u64, buf: &mut [u8]) -> usize {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return at;
        }
    }
}

/// A goal's number within its session, written `g-N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoalId(pub u32);

impl fmt::Display for GoalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g-{}", self.0)
    }
}

impl Serialize for GoalId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // `g-` and at most ten digits, written without a heap string.
        let mut buf = [0u8; 12];
        let at = decimal_at_end(u64::from(self.0), &mut buf) - 2;
        buf[at..at + 2].copy_from_slice(b"g-");
        s.serialize_str(std::str::from_utf8(&buf[at..]).map_err(serde::ser::Error::custom)?)
    }
}

impl JsonSchema for GoalId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
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

impl<'de> Deserialize<'de> for GoalId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GoalId, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        text.strip_prefix("g-")
            .and_then(|n| n.parse().ok())
            .map(GoalId)
            .ok_or_else(|| serde::de::Error::custom(format!("invalid goal id \"{text}\"")))
    }
}

/// What the user is trying to get done, and how far the machine got with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Goal {
    /// `g-N` on the wire, numbered per session so that replaying a log gives the same ids.
    pub id: GoalId,
    #[serde(rename = "type")]
    pub goal_type: GoalType,
    /// The object of the request, without leading articles or trailing punctuation.
    pub description: String,
    pub status: GoalStatus,
    pub required_info: Vec<Slot>,
    #[serde(with = "super::time")]
    #[schemars(with = "DateTime<Utc>")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "super::time::option")]
    #[schemars(with = "Option<DateTime<Utc>>")]
    pub completed_at: Option<DateTime<Utc>>,
    /// Why the goal finished; `null` while it is active.
    pub reason: Option<GoalReason>,
    /// Turns taken while this goal was current, the stating message included.
    pub turns: u32,
    /// User messages in `understanding` since the goal last entered it, the entering one
    /// excluded: what `max_understanding_turns` is compared with.
    pub understanding_turns: u32,
}

impl Goal {
    pub fn has_required_info(&self) -> bool {
        !self.required_info.is_empty()
    }

    pub fn all_provided(&self) -> bool {
        self.required_info
            .iter()
            .all(|s| s.status == SlotStatus::Provided)
    }
}

/// The reason of a transition, serialised as the spec's phrases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TransitionReason {
    #[serde(rename = "Idle timeout")]
    IdleTimeout,
    #[serde(rename = "User cancelled")]
    Cancelled,
    #[serde(rename = "User switched to a new goal")]
    Switched,
    #[serde(rename = "User stated a goal")]
    GoalStated,
    #[serde(rename = "Gathered sufficient information")]
    Gathered,
    #[serde(rename = "User approved")]
    Approved,
    #[serde(rename = "Max understanding turns reached")]
    MaxTurns,
    #[serde(rename = "Answer given")]
    AnswerGiven,
    #[serde(rename = "Plan approved, starting work")]
    PlanApproved,
    #[serde(rename = "Work completed")]
    WorkCompleted,
    #[serde(rename = "User requested changes")]
    ChangesRequested,
    #[serde(rename = "User satisfied with result")]
    Satisfied,
    #[serde(rename = "User moved on to a new goal")]
    MovedOn,
    #[serde(rename = "User started new goal")]
    NewGoal,
    #[serde(rename = "User said goodbye")]
    Farewell,
    #[serde(rename = "User re-engaged with new goal")]
    ReEngaged,
    #[serde(rename = "User returned")]
    Returned,
    #[serde(rename = "Session reset")]
    Reset,
}

impl TransitionReason {
    pub fn as_str(self) -> &'static str {
        match self {
            TransitionReason::IdleTimeout => "Idle timeout",
            TransitionReason::Cancelled => "User cancelled",
            TransitionReason::Switched => "User switched to a new goal",
            TransitionReason::GoalStated => "User stated a goal",
            TransitionReason::Gathered => "Gathered sufficient information",
            TransitionReason::Approved => "User approved",
            TransitionReason::MaxTurns => "Max understanding turns reached",
            TransitionReason::AnswerGiven => "Answer given",
            TransitionReason::PlanApproved => "Plan approved, starting work",
            TransitionReason::WorkCompleted => "Work completed",
            TransitionReason::ChangesRequested => "User requested changes",
            TransitionReason::Satisfied => "User satisfied with result",
            TransitionReason::MovedOn => "User moved on to a new goal",
            TransitionReason::NewGoal => "User started new goal",
            TransitionReason::Farewell => "User said goodbye",
            TransitionReason::ReEngaged => "User re-engaged with new goal",
            TransitionReason::Returned => "User returned",
            TransitionReason::Reset => "Session reset",
        }
    }
}

impl fmt::Display for TransitionReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One move of the phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Transition {
    pub from: Phase,
    pub to: Phase,
    pub reason: TransitionReason,
    /// Into `understanding`, `executing` or `completed` from a different phase.
    pub milestone: bool,
}

impl Transition {
    pub fn new(from: Phase, to: Phase, reason: TransitionReason) -> Transition {
        Transition {
            from,
            to,
            reason,
            milestone: to.is_milestone() && from != to,
        }
    }
}

/// The last milestone reached, so a client that joins late still sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Milestone {
    pub phase: Phase,
    /// `turn_count` when it was reached (0 when a signal reached it).
    pub turn: u64,
    #[serde(with = "super::time")]
    #[schemars(with = "DateTime<Utc>")]
    pub at: DateTime<Utc>,
}

/// The whole state of one session's conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Conversation {
    pub session_id: String,
    pub phase: Phase,
    /// User and assistant messages so far; signals, resets and ticks are not turns.
    pub turn_count: u64,
    /// Turns taken in the current phase after entering it.
    pub phase_turns: u32,
    pub current_goal: Option<Goal>,
    /// Finished goals, completed and abandoned alike, oldest first.
    pub completed_goals: Vec<Goal>,
    /// Goals stated so far in this session, resets included: numbers the next goal's id.
    pub goals_started: u32,
    pub last_milestone: Option<Milestone>,
    #[serde(with = "super::time")]
    #[schemars(with = "DateTime<Utc>")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "super::time::option")]
    #[schemars(with = "Option<DateTime<Utc>>")]
    pub last_user_message_at: Option<DateTime<Utc>>,
    #[serde(with = "super::time")]
    #[schemars(with = "DateTime<Utc>")]
    pub last_updated: DateTime<Utc>,
    /// When the session goes idle unless the user speaks; `null` while idle. Derived from
    /// `last_activity` and the idle timeout after every step, kept here so that the sweeper and
    /// clients need no configuration to know it.
    #[serde(with = "super::time::option")]
    #[schemars(with = "Option<DateTime<Utc>>")]
    pub idle_deadline: Option<DateTime<Utc>>,
}

impl Conversation {
    /// A fresh session in `greeting`, created at `now`, without an idle deadline: sessions are
    /// started by `Engine::start`, which knows the timeout.
    pub fn new(session_id: impl Into<String>, now: DateTime<Utc>) -> Conversation {
        Conversation {
            session_id: session_id.into(),
            phase: Phase::Greeting,
            turn_count: 0,
            phase_turns: 0,
            current_goal: None,
            completed_goals: Vec::new(),
            goals_started: 0,
            last_milestone: None,
            created_at: now,
            last_user_message_at: None,
            last_updated: now,
            idle_deadline: None,
        }
    }

    /// The last user message, or the session's creation when there is none.
    pub fn last_activity(&self) -> DateTime<Utc> {
        self.last_user_message_at.unwrap_or(self.created_at)
    }
}
