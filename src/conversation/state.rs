//! The conversation state: what the server keeps per session and pushes to its clients.
//!
//! Every type here serialises to the `state` object of the wire contract (`docs/protocol.md`),
//! and deserialises back, so a snapshot is just this JSON. How the bytes look on the wire (times,
//! goal ids, the fast writer of frames) is `crate::protocol`'s business, not the engine's.

use std::fmt;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::names::named;

named! {
    /// Where the conversation stands. A new session starts in `Greeting`; the order is the
    /// happy path's.
    pub enum Phase {
        Greeting = "greeting",
        Understanding = "understanding",
        Planning = "planning",
        Executing = "executing",
        Reviewing = "reviewing",
        Completed = "completed",
        Idle = "idle",
    }
}

impl Phase {
    /// A transition into one of these phases from a different phase is a milestone.
    pub fn is_milestone(self) -> bool {
        matches!(
            self,
            Phase::Understanding | Phase::Executing | Phase::Completed
        )
    }
}

named! {
    /// What the user is trying to get done.
    pub enum GoalType {
        ArtifactCreation = "artifact_creation",
        QuestionAnswer = "question_answer",
        TaskExecution = "task_execution",
        Exploration = "exploration",
    }
}

named! {
    pub enum GoalStatus {
        Active = "active",
        Completed = "completed",
        Abandoned = "abandoned",
    }
}

named! {
    /// Why a goal finished, in the spec's phrases.
    pub enum GoalReason {
        Satisfied = "user satisfied",
        MovedOn = "user moved on",
        Cancelled = "cancelled by user",
        Superseded = "superseded",
        IdleTimeout = "idle timeout",
    }
}

impl GoalReason {
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

named! {
    pub enum SlotStatus {
        Unknown = "unknown",
        Asked = "asked",
        Provided = "provided",
        /// Left to the assistant ("you decide", "skip" answering its question): settled, with
        /// no value.
        Waived = "waived",
    }
}

impl SlotStatus {
    /// Provided or waived: nothing more is needed of the user.
    pub fn is_settled(self) -> bool {
        matches!(self, SlotStatus::Provided | SlotStatus::Waived)
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

/// A goal's number within its session, written `g-N` (`crate::protocol` says how it is
/// serialised).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoalId(pub u32);

impl fmt::Display for GoalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g-{}", self.0)
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
    pub created_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
    /// Why the goal finished; `null` while it is active.
    pub reason: Option<GoalReason>,
    /// Turns taken while this goal was current, the stating message included.
    pub turns: u32,
    /// User messages in `understanding` since the goal last entered it, the entering one
    /// excluded: what `max_understanding_turns` is compared with.
    pub understanding_turns: u32,
    /// The words of the user's change requests in `reviewing`, newest last, at most
    /// [`MAX_REQUESTED_CHANGES`], so the assistant knows what to change without asking again.
    #[serde(default)]
    pub requested_changes: Vec<String>,
}

/// The most change requests a goal keeps (the oldest leave first).
pub const MAX_REQUESTED_CHANGES: usize = 10;
/// The most goals a session queues (further ones are not queued).
pub const MAX_QUEUED_GOALS: usize = 5;

/// A goal the user stated beside the current one, waiting its turn ("Fix the header and then
/// build a pricing page"), or one of two the user has not chosen between ("a login form or a
/// signup wizard?").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QueuedGoal {
    #[serde(rename = "type")]
    pub goal_type: GoalType,
    /// As a current goal's: the object of the request.
    pub description: String,
    /// The words that stated it, read again when it starts (its slots come from them).
    pub statement: String,
    /// One of alternatives joined by "or": the user's next message that names one starts it,
    /// and the other alternatives leave the queue.
    pub alternative: bool,
}

impl Goal {
    pub fn has_required_info(&self) -> bool {
        !self.required_info.is_empty()
    }

    pub fn all_provided(&self) -> bool {
        self.required_info.iter().all(|s| s.status.is_settled())
    }
}

named! {
    /// The reason of a transition, in the spec's phrases.
    pub enum TransitionReason {
        IdleTimeout = "Idle timeout",
        Cancelled = "User cancelled",
        Switched = "User switched to a new goal",
        GoalStated = "User stated a goal",
        Gathered = "Gathered sufficient information",
        Approved = "User approved",
        MaxTurns = "Max understanding turns reached",
        AnswerGiven = "Answer given",
        PlanApproved = "Plan approved, starting work",
        WorkCompleted = "Work completed",
        ChangesRequested = "User requested changes",
        Satisfied = "User satisfied with result",
        MovedOn = "User moved on to a new goal",
        NewGoal = "User started new goal",
        Farewell = "User said goodbye",
        ReEngaged = "User re-engaged with new goal",
        QueuedGoal = "Queued goal started",
        Chose = "User chose one of the goals",
        Returned = "User returned",
        Reset = "Session reset",
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
    /// Goals stated and waiting, oldest first, at most [`MAX_QUEUED_GOALS`]: the first starts
    /// in `understanding` when the current goal completes or is abandoned.
    #[serde(default)]
    pub queued_goals: Vec<QueuedGoal>,
    /// The most recent finished goals, completed and abandoned alike, oldest first: at most
    /// the `history_window` setting's number of them, so the state stays small in a long
    /// session (the whole history is the store's).
    pub completed_goals: Vec<Goal>,
    /// Goals finished since the start (or the last reset), whether still in `completed_goals`
    /// or not.
    #[serde(default)]
    pub completed_goals_total: u64,
    /// Of those, the abandoned ones.
    #[serde(default)]
    pub abandoned_goals_total: u64,
    /// Goals stated so far in this session, resets included: numbers the next goal's id.
    pub goals_started: u32,
    pub last_milestone: Option<Milestone>,
    pub created_at: DateTime<Utc>,
    pub last_user_message_at: Option<DateTime<Utc>>,
    pub last_updated: DateTime<Utc>,
    /// When the session goes idle unless the user speaks; `null` while idle. Derived from
    /// `last_activity` and the idle timeout after every step, kept here so that the sweeper and
    /// clients need no configuration to know it.
    pub idle_deadline: Option<DateTime<Utc>>,
    /// A hosted flow's run (a session opened with `?flow=NAME`): the conversation's fields then
    /// stand still, and the flow's state is the session's (docs/flows.md). Absent for a
    /// conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<Box<crate::flow::FlowRun>>,
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
            queued_goals: Vec::new(),
            completed_goals: Vec::new(),
            completed_goals_total: 0,
            abandoned_goals_total: 0,
            goals_started: 0,
            last_milestone: None,
            created_at: now,
            last_user_message_at: None,
            last_updated: now,
            idle_deadline: None,
            flow: None,
        }
    }

    /// The last user message, or the session's creation when there is none.
    pub fn last_activity(&self) -> DateTime<Utc> {
        self.last_user_message_at.unwrap_or(self.created_at)
    }
}
