//! The transition rules of the spec (`conversation.md`, "Transitions"), as one ordered decision.
//!
//! [`decide`] reads like the spec's list: the first rule that applies decides. Rule 1 (idle
//! timeout) is applied by the engine before this is called, because it can precede another
//! transition in the same step; everything else is here.

use super::lexicon::{Role, Settings, Signal};
use super::reading::Signals;
use super::state::{Goal, GoalReason, Phase, TransitionReason};

/// What one input means for the machine, once classified and its slots read.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// The author of a turn; `None` for an explicit signal (a button), which is not a turn.
    pub message: Option<Role>,
    /// Role-gated spoken signals, or the explicit one.
    pub signals: Signals,
    /// The input is a user message with a goal lead.
    pub goal: bool,
    /// The current goal has required info and every slot is provided once this turn's values
    /// are taken.
    pub slots_complete: bool,
    /// User messages in `understanding` for the current goal, this one included.
    pub understanding_turns: u32,
    /// A user message whose satisfaction a contrast took back ("looks good but ..."): a
    /// change request in `reviewing`.
    pub complaint: bool,
}

/// What the machine does with an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The phase stays; the current goal keeps what this input told it.
    Stay,
    /// The phase moves with the same goal, which keeps what this input told it.
    Move(Phase, TransitionReason),
    /// The current goal (if any) finishes for the given reason and the phase moves.
    Finish(Phase, TransitionReason, GoalReason),
    /// A new goal starts in `understanding`; the current one (if any) finishes for the given
    /// reason first.
    Start(TransitionReason, Option<GoalReason>),
}

/// Rules 2 to 4 of the spec, in its order.
pub fn decide(phase: Phase, f: &Facts, goal: Option<&Goal>, settings: &Settings) -> Outcome {
    decide_with_rule(phase, f, goal, settings).0
}

/// [`decide`], with the rule that decided, named as the spec's "Transitions" names it.
pub fn decide_with_rule(
    phase: Phase,
    f: &Facts,
    goal: Option<&Goal>,
    settings: &Settings,
) -> (Outcome, &'static str) {
    use Outcome::{Finish, Move, Start, Stay};
    use Phase::*;
    use TransitionReason as R;

    let has = |s| f.signals.has(s);
    let user_message = f.message == Some(Role::User);
    let assistant_message = f.message == Some(Role::Assistant);
    let gathering = goal.is_some_and(Goal::has_required_info);

    // 2. Cancel: a message that leads with a cancel phrase and states no goal.
    if has(Signal::Cancel) && !f.goal && phase != Idle {
        return (
            Finish(Idle, R::Cancelled, GoalReason::Cancelled),
            "2 cancel: a message leading with a cancel phrase, without a goal",
        );
    }
    // 3. Switch: a goal with a switch or cancel marker replaces the current one; without a
    //    marker the current goal is sticky and the message only feeds its slots.
    if f.goal
        && matches!(phase, Understanding | Planning | Executing | Reviewing)
        && (has(Signal::Switch) || has(Signal::Cancel))
    {
        return (
            Start(R::Switched, Some(GoalReason::Superseded)),
            "3 switch: a goal with a switch or cancel marker replaces the current one",
        );
    }
    // 4. By phase.
    match phase {
        Greeting if f.goal => (Start(R::GoalStated, None), "4 greeting: a goal starts"),
        Greeting => (Stay, "4 greeting: no goal, stay"),

        Understanding if gathering => {
            if f.slots_complete {
                (
                    Move(Planning, R::Gathered),
                    "4 understanding: every slot provided",
                )
            } else if has(Signal::Approve) {
                (
                    Move(Planning, R::Approved),
                    "4 understanding: the user approves",
                )
            } else if user_message && f.understanding_turns >= settings.max_understanding_turns {
                (
                    Move(Planning, R::MaxTurns),
                    "4 understanding: max understanding turns reached",
                )
            } else {
                (Stay, "4 understanding: slots missing, stay")
            }
        }
        // A question or an exploration: the assistant's reply is the work.
        Understanding if assistant_message => (
            Move(Reviewing, R::AnswerGiven),
            "4 understanding (no required info): the assistant's answer",
        ),
        Understanding => (Stay, "4 understanding (no required info): await the answer"),

        Planning if has(Signal::Approve) || has(Signal::StartWork) => (
            Move(Executing, R::PlanApproved),
            "4 planning: the user approves or the assistant starts work",
        ),
        Planning => (Stay, "4 planning: no approval, stay"),

        Executing if has(Signal::WorkDone) => (
            Move(Reviewing, R::WorkCompleted),
            "4 executing: the assistant's work is done",
        ),
        Executing => (Stay, "4 executing: work not done, stay"),

        // A change request wins over satisfaction; a new goal wins over satisfaction too
        // ("Great! How do I deploy it?").
        Reviewing if has(Signal::ChangeRequest) || f.complaint => (
            Move(Understanding, R::ChangesRequested),
            if has(Signal::ChangeRequest) {
                "4 reviewing: a change request"
            } else {
                "4 reviewing: a change request (satisfaction taken back by a contrast)"
            },
        ),
        Reviewing if f.goal => (
            Start(R::MovedOn, Some(GoalReason::MovedOn)),
            "4 reviewing: another goal, the user has moved on",
        ),
        Reviewing if has(Signal::Satisfied) => (
            Finish(Completed, R::Satisfied, GoalReason::Satisfied),
            "4 reviewing: the user is satisfied",
        ),
        Reviewing => (Stay, "4 reviewing: neither change nor satisfaction, stay"),

        Completed if f.goal => (Start(R::NewGoal, None), "4 completed: a goal starts"),
        Completed if has(Signal::Farewell) => (Move(Idle, R::Farewell), "4 completed: a farewell"),
        Completed => (Stay, "4 completed: stay"),

        Idle if f.goal => (Start(R::ReEngaged, None), "4 idle: a goal starts"),
        // A cancel phrase changes nothing here: the user is already gone.
        Idle if user_message && !has(Signal::Cancel) => {
            (Move(Greeting, R::Returned), "4 idle: the user returns")
        }
        Idle => (Stay, "4 idle: stay"),
    }
}

#[cfg(test)]
mod tests {
    //! One test per rule of the decision list, on hand-made facts (the engine tests in
    //! `mod.rs` and `tests/` drive the same rules from text).
    use super::*;
    use crate::conversation::state::{GoalStatus, GoalType};
    use Outcome::*;
    use Phase::*;
    use TransitionReason as R;

    fn facts(message: Option<Role>, signals: &[Signal]) -> Facts {
        let mut set = Signals::default();
        for s in signals {
            set.insert(*s);
        }
        Facts {
            message,
            signals: set,
            goal: false,
            slots_complete: false,
            understanding_turns: 0,
            complaint: false,
        }
    }
    fn user(signals: &[Signal]) -> Facts {
        facts(Some(Role::User), signals)
    }
    fn assistant(signals: &[Signal]) -> Facts {
        facts(Some(Role::Assistant), signals)
    }
    fn with_goal(mut f: Facts) -> Facts {
        f.goal = true;
        f
    }
    fn goal(slots: usize) -> Goal {
        let slot = crate::conversation::state::Slot {
            name: "s".into(),
            description: "d".into(),
            question: "q".into(),
            status: crate::conversation::state::SlotStatus::Unknown,
            value: None,
        };
        Goal {
            id: crate::conversation::state::GoalId(1),
            goal_type: GoalType::ArtifactCreation,
            description: "x".into(),
            status: GoalStatus::Active,
            required_info: vec![slot; slots],
            created_at: chrono::DateTime::UNIX_EPOCH,
            completed_at: None,
            reason: None,
            turns: 1,
            understanding_turns: 0,
            requested_changes: Vec::new(),
        }
    }
    fn decide_with(phase: Phase, f: Facts, g: Option<&Goal>) -> Outcome {
        decide(phase, &f, g, &Settings::default())
    }

    #[test]
    fn rule_2_cancel_without_goal_goes_idle_from_any_active_phase() {
        let g = goal(2);
        for phase in Phase::ALL.into_iter().filter(|p| *p != Idle) {
            assert_eq!(
                decide_with(phase, user(&[Signal::Cancel]), Some(&g)),
                Finish(Idle, R::Cancelled, GoalReason::Cancelled),
                "{phase}"
            );
        }
        assert_eq!(decide_with(Idle, user(&[Signal::Cancel]), None), Stay);
    }

    #[test]
    fn rule_3_goal_with_marker_supersedes_in_active_phases_only() {
        let g = goal(2);
        for marker in [Signal::Switch, Signal::Cancel] {
            for phase in [Understanding, Planning, Executing, Reviewing] {
                assert_eq!(
                    decide_with(phase, with_goal(user(&[marker])), Some(&g)),
                    Start(R::Switched, Some(GoalReason::Superseded))
                );
            }
        }
        assert_eq!(
            decide_with(Completed, with_goal(user(&[Signal::Switch])), None),
            Start(R::NewGoal, None)
        );
    }

    #[test]
    fn rule_3_goal_without_marker_is_sticky() {
        let g = goal(2);
        for phase in [Understanding, Planning, Executing] {
            assert_eq!(decide_with(phase, with_goal(user(&[])), Some(&g)), Stay);
        }
    }

    #[test]
    fn greeting_starts_a_goal_and_stays_otherwise() {
        assert_eq!(
            decide_with(Greeting, with_goal(user(&[])), None),
            Start(R::GoalStated, None)
        );
        assert_eq!(decide_with(Greeting, user(&[Signal::Approve]), None), Stay);
        assert_eq!(decide_with(Greeting, assistant(&[]), None), Stay);
    }

    #[test]
    fn understanding_moves_when_slots_are_complete() {
        let g = goal(2);
        let mut f = user(&[]);
        f.slots_complete = true;
        assert_eq!(
            decide_with(Understanding, f, Some(&g)),
            Move(Planning, R::Gathered)
        );
    }

    #[test]
    fn understanding_moves_on_approval() {
        let g = goal(2);
        assert_eq!(
            decide_with(Understanding, user(&[Signal::Approve]), Some(&g)),
            Move(Planning, R::Approved)
        );
        assert_eq!(
            decide_with(Understanding, facts(None, &[Signal::Approve]), Some(&g)),
            Move(Planning, R::Approved)
        );
    }

    #[test]
    fn understanding_moves_after_max_user_turns() {
        let g = goal(2);
        let mut f = user(&[]);
        f.understanding_turns = 2;
        assert_eq!(decide_with(Understanding, f, Some(&g)), Stay);
        f.understanding_turns = 3;
        assert_eq!(
            decide_with(Understanding, f, Some(&g)),
            Move(Planning, R::MaxTurns)
        );
        let mut a = assistant(&[]);
        a.understanding_turns = 3;
        assert_eq!(decide_with(Understanding, a, Some(&g)), Stay);
    }

    #[test]
    fn understanding_a_question_ends_with_the_assistants_answer() {
        let q = goal(0);
        assert_eq!(
            decide_with(Understanding, assistant(&[]), Some(&q)),
            Move(Reviewing, R::AnswerGiven)
        );
        assert_eq!(decide_with(Understanding, user(&[]), Some(&q)), Stay);
        assert_eq!(
            decide_with(Understanding, facts(None, &[Signal::Approve]), Some(&q)),
            Stay
        );
    }

    #[test]
    fn planning_moves_on_approval_or_start_of_work() {
        let g = goal(2);
        for f in [user(&[Signal::Approve]), assistant(&[Signal::StartWork])] {
            assert_eq!(
                decide_with(Planning, f, Some(&g)),
                Move(Executing, R::PlanApproved)
            );
        }
        assert_eq!(
            decide_with(Planning, facts(None, &[Signal::WorkDone]), Some(&g)),
            Stay
        );
    }

    #[test]
    fn executing_moves_when_work_is_done() {
        let g = goal(2);
        assert_eq!(
            decide_with(Executing, assistant(&[Signal::WorkDone]), Some(&g)),
            Move(Reviewing, R::WorkCompleted)
        );
        assert_eq!(
            decide_with(Executing, user(&[Signal::Approve]), Some(&g)),
            Stay
        );
    }

    #[test]
    fn reviewing_prefers_change_requests_then_new_goals_then_satisfaction() {
        let g = goal(2);
        assert_eq!(
            decide_with(
                Reviewing,
                user(&[Signal::ChangeRequest, Signal::Satisfied]),
                Some(&g)
            ),
            Move(Understanding, R::ChangesRequested)
        );
        assert_eq!(
            decide_with(Reviewing, with_goal(user(&[Signal::Satisfied])), Some(&g)),
            Start(R::MovedOn, Some(GoalReason::MovedOn))
        );
        assert_eq!(
            decide_with(Reviewing, user(&[Signal::Satisfied]), Some(&g)),
            Finish(Completed, R::Satisfied, GoalReason::Satisfied)
        );
        assert_eq!(decide_with(Reviewing, user(&[]), Some(&g)), Stay);
    }

    #[test]
    fn completed_starts_goals_and_says_goodbye() {
        assert_eq!(
            decide_with(Completed, with_goal(user(&[])), None),
            Start(R::NewGoal, None)
        );
        assert_eq!(
            decide_with(Completed, user(&[Signal::Farewell]), None),
            Move(Idle, R::Farewell)
        );
        assert_eq!(
            decide_with(Completed, user(&[Signal::Satisfied]), None),
            Stay
        );
    }

    #[test]
    fn idle_re_engages_or_returns_to_greeting() {
        assert_eq!(
            decide_with(Idle, with_goal(user(&[])), None),
            Start(R::ReEngaged, None)
        );
        assert_eq!(
            decide_with(Idle, user(&[]), None),
            Move(Greeting, R::Returned)
        );
        assert_eq!(decide_with(Idle, assistant(&[]), None), Stay);
        assert_eq!(decide_with(Idle, user(&[Signal::Cancel]), None), Stay);
        assert_eq!(
            decide_with(Idle, facts(None, &[Signal::Approve]), None),
            Stay
        );
    }
}
