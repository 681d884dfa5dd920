//! The engine driven by text, with the built-in patterns: every transition rule of the spec,
//! its worked example, and the defects of the original design that the spec fixes.

use chrono::{DateTime, TimeDelta, Utc};
use convstate::conversation::{
    Conversation, Engine, GoalReason, GoalStatus, GoalType, Input, Phase, Role, Signal, SlotStatus,
    Summary, TransitionReason as R,
};

fn engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(convstate::patterns::builtin)
}

fn t0() -> DateTime<Utc> {
    "2026-11-21T10:00:00Z".parse().unwrap()
}

/// A session driven one input at a time, ten seconds apart unless told otherwise.
struct Session {
    conv: Conversation,
    now: DateTime<Utc>,
    /// `(from, to, reason)` of the last step.
    moves: Vec<(Phase, Phase, R)>,
}

impl Session {
    fn new() -> Session {
        Session {
            conv: engine().start("s-test", t0()),
            now: t0(),
            moves: Vec::new(),
        }
    }

    fn step(&mut self, input: Input<'_>) -> Phase {
        self.now += TimeDelta::seconds(10);
        self.step_at(input, self.now)
    }

    fn step_at(&mut self, input: Input<'_>, now: DateTime<Utc>) -> Phase {
        self.now = now;
        let step = engine().step(&mut self.conv, input, now);
        self.moves = step
            .transitions
            .iter()
            .map(|t| (t.from, t.to, t.reason))
            .collect();
        self.conv.phase
    }

    fn user(&mut self, text: &str) -> Phase {
        self.step(Input::Message {
            role: Role::User,
            text,
            artifact: false,
        })
    }

    fn assistant(&mut self, text: &str) -> Phase {
        self.step(Input::Message {
            role: Role::Assistant,
            text,
            artifact: false,
        })
    }

    fn signal(&mut self, signal: Signal) -> Phase {
        self.step(Input::Signal(signal))
    }

    fn goal(&self) -> &convstate::conversation::Goal {
        self.conv.current_goal.as_ref().expect("a current goal")
    }

    fn slot(&self, name: &str) -> (SlotStatus, Option<&str>) {
        let s = self
            .goal()
            .required_info
            .iter()
            .find(|s| &*s.name == name)
            .expect("a slot of the goal");
        (s.status, s.value.as_deref())
    }

    fn history(&self) -> Vec<(GoalStatus, Option<GoalReason>)> {
        self.conv
            .completed_goals
            .iter()
            .map(|g| (g.status, g.reason))
            .collect()
    }

    /// Drives a session to `reviewing` with a todo app goal.
    fn reviewing() -> Session {
        let mut s = Session::new();
        s.user("I want to build a todo app with add and delete features");
        s.assistant("I'll create it now");
        s.assistant("<artifact>...</artifact>");
        assert_eq!(s.conv.phase, Phase::Reviewing);
        s
    }
}

#[test]
fn worked_example_of_the_spec() {
    let mut s = Session::new();
    let steps: [(Role, &str, Phase); 9] = [
        (
            Role::User,
            "I want to build a todo app",
            Phase::Understanding,
        ),
        (
            Role::Assistant,
            "What features do you need?",
            Phase::Understanding,
        ),
        (
            Role::User,
            "I need add, delete, and mark as complete functionality with React components",
            Phase::Planning,
        ),
        (
            Role::Assistant,
            "I'll create a React todo app component",
            Phase::Executing,
        ),
        (Role::User, "Sounds good, go ahead", Phase::Executing),
        (
            Role::Assistant,
            "<artifact type=\"react\">...</artifact>",
            Phase::Reviewing,
        ),
        (
            Role::User,
            "Perfect! This is exactly what I needed",
            Phase::Completed,
        ),
        (Role::User, "Now build a calculator", Phase::Understanding),
        (Role::User, "bye", Phase::Idle),
    ];
    let milestones = [true, false, false, true, false, false, true, true, false];
    for (i, (role, text, phase)) in steps.into_iter().enumerate() {
        let got = s.step(Input::Message {
            role,
            text,
            artifact: false,
        });
        assert_eq!(got, phase, "step {}: {text}", i + 1);
        let milestone = engine()
            .step(&mut s.conv.clone(), Input::Tick, s.now)
            .transitions
            .is_empty();
        assert!(milestone, "a tick right after a step changes nothing");
        assert_eq!(
            s.conv.last_milestone.map(|m| m.turn) == Some(s.conv.turn_count),
            milestones[i],
            "milestone at step {}",
            i + 1
        );
        assert_eq!(s.conv.turn_count, i as u64 + 1);
        match i + 1 {
            1 => {
                assert_eq!(s.goal().goal_type, GoalType::ArtifactCreation);
                assert_eq!(s.goal().description, "todo app");
            }
            2 => assert_eq!(s.slot("requirements").0, SlotStatus::Asked),
            3 => {
                assert_eq!(
                    s.slot("component_type"),
                    (SlotStatus::Provided, Some("React components"))
                );
                assert_eq!(
                    s.slot("requirements"),
                    (
                        SlotStatus::Provided,
                        Some("add, delete, and mark as complete functionality")
                    )
                );
            }
            7 => {
                assert!(s.conv.current_goal.is_none());
                assert_eq!(
                    s.history(),
                    [(GoalStatus::Completed, Some(GoalReason::Satisfied))]
                );
            }
            8 => {
                assert_eq!(s.goal().description, "calculator");
                assert_eq!(s.conv.completed_goals.len(), 1);
            }
            9 => assert_eq!(
                s.history(),
                [
                    (GoalStatus::Completed, Some(GoalReason::Satisfied)),
                    (GoalStatus::Abandoned, Some(GoalReason::Cancelled)),
                ]
            ),
            _ => {}
        }
    }
}

// --- rule 1: idle timeout ---

#[test]
fn rule_1_the_sweep_idles_the_session_at_the_deadline_not_before() {
    let mut s = Session::new();
    s.user("Build a landing page");
    let deadline = s.now + TimeDelta::minutes(10);
    assert_eq!(s.conv.idle_deadline, Some(deadline));
    let before = engine().tick(&mut s.conv, deadline - TimeDelta::milliseconds(1));
    assert!(!before.changed && before.transitions.is_empty());
    assert_eq!(s.step_at(Input::Tick, deadline), Phase::Idle);
    assert_eq!(
        s.moves,
        [(Phase::Understanding, Phase::Idle, R::IdleTimeout)]
    );
    assert_eq!(
        s.history(),
        [(GoalStatus::Abandoned, Some(GoalReason::IdleTimeout))]
    );
    assert_eq!(s.conv.completed_goals[0].completed_at, Some(deadline));
    assert_eq!(s.conv.idle_deadline, None);
    // Once idle, ticks change nothing.
    let after = engine().step(&mut s.conv, Input::Tick, deadline + TimeDelta::hours(5));
    assert!(!after.changed);
}

#[test]
fn rule_1_a_new_session_idles_from_its_creation() {
    let mut s = Session::new();
    assert_eq!(
        s.step_at(Input::Tick, t0() + TimeDelta::minutes(10)),
        Phase::Idle
    );
    assert_eq!(s.moves, [(Phase::Greeting, Phase::Idle, R::IdleTimeout)]);
    assert!(s.conv.completed_goals.is_empty());
}

#[test]
fn rule_1_assistant_messages_do_not_keep_a_session_alive() {
    let mut s = Session::new();
    s.user("Build a landing page");
    let start = s.now;
    s.step_at(
        Input::Message {
            role: Role::Assistant,
            text: "Which features?",
            artifact: false,
        },
        start + TimeDelta::minutes(9),
    );
    assert_eq!(
        s.step_at(Input::Tick, start + TimeDelta::minutes(10)),
        Phase::Idle
    );
}

#[test]
fn rule_1_a_late_goal_is_kept_after_the_idle_transition_defect_swallowed_goal() {
    // The original design swallowed the returning user's goal.
    let mut s = Session::new();
    s.user("Build a landing page");
    let late = s.now + TimeDelta::minutes(30);
    let phase = s.step_at(
        Input::Message {
            role: Role::User,
            text: "Build a calculator",
            artifact: false,
        },
        late,
    );
    assert_eq!(phase, Phase::Understanding);
    assert_eq!(
        s.moves,
        [
            (Phase::Understanding, Phase::Idle, R::IdleTimeout),
            (Phase::Idle, Phase::Understanding, R::ReEngaged),
        ]
    );
    assert_eq!(s.goal().description, "calculator");
    assert_eq!(s.goal().status, GoalStatus::Active);
    assert_eq!(
        s.history(),
        [(GoalStatus::Abandoned, Some(GoalReason::IdleTimeout))]
    );
    assert_eq!(s.conv.idle_deadline, Some(late + TimeDelta::minutes(10)));
}

#[test]
fn rule_1_a_late_message_without_goal_returns_to_greeting() {
    let mut s = Session::new();
    s.user("Build a landing page");
    let late = s.now + TimeDelta::hours(2);
    s.step_at(
        Input::Message {
            role: Role::User,
            text: "hello again",
            artifact: false,
        },
        late,
    );
    assert_eq!(
        s.moves,
        [
            (Phase::Understanding, Phase::Idle, R::IdleTimeout),
            (Phase::Idle, Phase::Greeting, R::Returned),
        ]
    );
}

// --- rule 2: cancel ---

#[test]
fn rule_2_cancel_abandons_the_goal() {
    let mut s = Session::new();
    s.user("Build a landing page with a signup form");
    assert_eq!(s.conv.phase, Phase::Planning);
    assert_eq!(s.user("Never mind."), Phase::Idle);
    assert_eq!(s.moves, [(Phase::Planning, Phase::Idle, R::Cancelled)]);
    assert_eq!(
        s.history(),
        [(GoalStatus::Abandoned, Some(GoalReason::Cancelled))]
    );
}

#[test]
fn rule_2_cancel_must_lead_the_message() {
    let mut s = Session::new();
    s.user("What is Rust?");
    assert_eq!(
        s.user("It should never stop scrolling, bye"),
        Phase::Understanding
    );
    assert_eq!(s.user("Stop using semicolons"), Phase::Understanding);
    assert!(s.conv.current_goal.is_some());
}

#[test]
fn rule_2_an_explicit_cancel_abandons_the_goal() {
    let mut s = Session::new();
    s.user("Fix the header");
    assert_eq!(s.signal(Signal::Cancel), Phase::Idle);
    assert_eq!(
        s.history(),
        [(GoalStatus::Abandoned, Some(GoalReason::Cancelled))]
    );
    assert_eq!(s.conv.turn_count, 1, "signals are not turns");
}

// --- rule 3: switch ---

#[test]
fn rule_3_a_goal_with_a_switch_marker_supersedes_the_current_one() {
    for marker in [
        "Actually, build a calculator",
        "Build a calculator instead",
        "Forget that, build a calculator instead",
    ] {
        let mut s = Session::new();
        s.user("Build a landing page with a signup form");
        s.user("go ahead");
        assert_eq!(s.conv.phase, Phase::Executing);
        assert_eq!(s.user(marker), Phase::Understanding, "{marker}");
        assert_eq!(
            s.moves,
            [(Phase::Executing, Phase::Understanding, R::Switched)]
        );
        assert_eq!(s.goal().description, "calculator");
        assert_eq!(
            s.history(),
            [(GoalStatus::Abandoned, Some(GoalReason::Superseded))]
        );
    }
}

#[test]
fn rule_3_a_goal_lead_without_marker_only_feeds_the_current_goal() {
    let mut s = Session::new();
    s.user("I want to build a todo app");
    assert_eq!(s.user("Also build a dark mode"), Phase::Planning);
    assert_eq!(s.goal().description, "todo app");
    assert_eq!(
        s.slot("requirements"),
        (SlotStatus::Provided, Some("dark mode"))
    );
    assert!(s.conv.completed_goals.is_empty());
    assert_eq!(s.user("How long will it take?"), Phase::Planning);
    assert_eq!(s.goal().description, "todo app");
    assert!(s.moves.is_empty());
}

// --- rule 4, by phase ---

#[test]
fn greeting_waits_for_a_goal() {
    let mut s = Session::new();
    assert_eq!(s.user("Hi there!"), Phase::Greeting);
    assert_eq!(s.user("How are you?"), Phase::Greeting);
    assert_eq!(s.assistant("Hello! How can I help?"), Phase::Greeting);
    assert_eq!(s.user("I need a minute"), Phase::Greeting);
    assert_eq!(s.user("How do I make a cake?"), Phase::Understanding);
    assert_eq!(
        s.moves,
        [(Phase::Greeting, Phase::Understanding, R::GoalStated)]
    );
    assert_eq!(s.goal().goal_type, GoalType::QuestionAnswer);
}

#[test]
fn a_fully_specified_goal_goes_on_to_planning_in_the_same_step() {
    let mut s = Session::new();
    assert_eq!(
        s.user("Fix the login button so it submits on enter"),
        Phase::Planning
    );
    assert_eq!(
        s.moves,
        [
            (Phase::Greeting, Phase::Understanding, R::GoalStated),
            (Phase::Understanding, Phase::Planning, R::Gathered),
        ]
    );
    assert_eq!(
        s.slot("target"),
        (SlotStatus::Provided, Some("login button"))
    );
    assert_eq!(
        s.slot("desired_change"),
        (SlotStatus::Provided, Some("it submits on enter"))
    );
    assert_eq!(
        s.conv.last_milestone.map(|m| m.phase),
        Some(Phase::Understanding)
    );
}

#[test]
fn understanding_moves_to_planning_when_the_last_slot_arrives_defect_lagging_slots() {
    // The original design saw slot values one turn late.
    let mut s = Session::new();
    s.user("Fix the checkout page");
    assert_eq!(s.slot("desired_change").0, SlotStatus::Unknown);
    assert_eq!(s.user("It should load in under a second"), Phase::Planning);
    assert_eq!(
        s.moves,
        [(Phase::Understanding, Phase::Planning, R::Gathered)]
    );
}

#[test]
fn understanding_moves_to_planning_on_approval() {
    let mut s = Session::new();
    s.user("Build a landing page");
    assert_eq!(s.user("Sounds good"), Phase::Planning);
    assert_eq!(
        s.moves,
        [(Phase::Understanding, Phase::Planning, R::Approved)]
    );
    let mut s = Session::new();
    s.user("Build a landing page");
    assert_eq!(s.signal(Signal::Approve), Phase::Planning);
}

#[test]
fn understanding_moves_to_planning_after_max_user_turns() {
    let mut s = Session::new();
    s.user("Build a landing page");
    assert_eq!(s.user("hmm"), Phase::Understanding);
    assert_eq!(s.assistant("Anything else?"), Phase::Understanding);
    assert_eq!(s.user("let me think"), Phase::Understanding);
    assert_eq!(s.user("not sure"), Phase::Planning);
    assert_eq!(
        s.moves,
        [(Phase::Understanding, Phase::Planning, R::MaxTurns)]
    );
    assert_eq!(s.goal().understanding_turns, 3);
}

#[test]
fn a_question_is_answered_reviewed_and_completed_defect_stalled_questions() {
    // The original design stalled question flows in understanding.
    let mut s = Session::new();
    s.user("What is a closure?");
    assert_eq!(s.signal(Signal::Approve), Phase::Understanding);
    assert_eq!(s.user("In JavaScript"), Phase::Understanding);
    assert_eq!(
        s.assistant("A closure is a function with its scope."),
        Phase::Reviewing
    );
    assert_eq!(
        s.moves,
        [(Phase::Understanding, Phase::Reviewing, R::AnswerGiven)]
    );
    assert_eq!(s.user("Thanks, that helps"), Phase::Completed);
    assert_eq!(
        s.history(),
        [(GoalStatus::Completed, Some(GoalReason::Satisfied))]
    );
}

#[test]
fn planning_moves_on_approval_or_start_of_work_and_takes_more_information() {
    let mut s = Session::new();
    s.user("Build a landing page with a signup form");
    assert_eq!(s.conv.phase, Phase::Planning);
    assert_eq!(s.user("Make it in React"), Phase::Planning);
    assert_eq!(s.slot("component_type").1, Some("React"));
    assert_eq!(s.signal(Signal::WorkDone), Phase::Planning);
    assert_eq!(s.user("Yes, go ahead"), Phase::Executing);
    assert_eq!(
        s.moves,
        [(Phase::Planning, Phase::Executing, R::PlanApproved)]
    );

    let mut s = Session::new();
    s.user("Build a landing page with a signup form");
    assert_eq!(
        s.assistant("Great, I'll start with the hero section."),
        Phase::Executing
    );
}

#[test]
fn executing_moves_to_reviewing_when_work_is_done() {
    let mut s = Session::new();
    s.user("Build a landing page with a signup form");
    s.user("go ahead");
    assert_eq!(s.assistant("Working on the layout."), Phase::Executing);
    assert_eq!(s.user("Sounds good"), Phase::Executing);
    let phase = s.step(Input::Message {
        role: Role::Assistant,
        text: "See the attached file.",
        artifact: true,
    });
    assert_eq!(phase, Phase::Reviewing);
    assert_eq!(
        s.moves,
        [(Phase::Executing, Phase::Reviewing, R::WorkCompleted)]
    );
}

#[test]
fn reviewing_a_change_request_goes_back_to_understanding_for_a_turn() {
    let mut s = Session::reviewing();
    let goal = s.goal().id;
    assert_eq!(
        s.user("Great, but please change the header color"),
        Phase::Understanding
    );
    assert_eq!(
        s.moves,
        [(Phase::Reviewing, Phase::Understanding, R::ChangesRequested)]
    );
    assert_eq!(s.goal().id, goal);
    assert!(s.conv.completed_goals.is_empty());
    // Every slot is still provided: the next turn plans again.
    assert_eq!(s.assistant("Which color would you like?"), Phase::Planning);
}

#[test]
fn reviewing_satisfaction_completes_the_goal() {
    let mut s = Session::reviewing();
    assert_eq!(s.user("Looks great, thanks!"), Phase::Completed);
    assert_eq!(
        s.moves,
        [(Phase::Reviewing, Phase::Completed, R::Satisfied)]
    );
    assert!(s.conv.current_goal.is_none());
}

#[test]
fn reviewing_a_new_goal_completes_the_current_one() {
    let mut s = Session::reviewing();
    assert_eq!(s.user("Great! How do I deploy it?"), Phase::Understanding);
    assert_eq!(
        s.moves,
        [(Phase::Reviewing, Phase::Understanding, R::MovedOn)]
    );
    assert_eq!(s.goal().goal_type, GoalType::QuestionAnswer);
    assert_eq!(s.goal().description, "How do I deploy it");
    assert_eq!(
        s.history(),
        [(GoalStatus::Completed, Some(GoalReason::MovedOn))]
    );
}

#[test]
fn reviewing_anything_else_stays() {
    let mut s = Session::reviewing();
    assert_eq!(s.user("Let me check on my phone"), Phase::Reviewing);
    assert_eq!(s.assistant("Take your time."), Phase::Reviewing);
}

#[test]
fn completed_starts_new_goals_and_goes_idle_on_farewell() {
    let mut s = Session::reviewing();
    s.user("Perfect");
    assert_eq!(s.user("cool"), Phase::Completed);
    assert_eq!(s.user("Thanks, bye"), Phase::Idle);
    assert_eq!(s.moves, [(Phase::Completed, Phase::Idle, R::Farewell)]);

    let mut s = Session::reviewing();
    s.user("Perfect");
    // The request states both slots (a Python script, to rename files): it plans at once.
    assert_eq!(
        s.user("Now write a Python script to rename files"),
        Phase::Planning
    );
    assert_eq!(
        s.moves,
        [
            (Phase::Completed, Phase::Understanding, R::NewGoal),
            (Phase::Understanding, Phase::Planning, R::Gathered)
        ]
    );

    let mut s = Session::reviewing();
    s.user("Perfect");
    assert_eq!(s.user("bye"), Phase::Idle);
    assert_eq!(s.moves, [(Phase::Completed, Phase::Idle, R::Cancelled)]);
    assert_eq!(s.conv.completed_goals.len(), 1);
}

#[test]
fn idle_re_engages_with_a_goal_or_returns_to_greeting() {
    let mut s = Session::new();
    s.user("bye");
    assert_eq!(s.conv.phase, Phase::Idle);
    assert_eq!(s.user("bye"), Phase::Idle);
    assert_eq!(s.assistant("Goodbye!"), Phase::Idle);
    assert_eq!(s.signal(Signal::Approve), Phase::Idle);
    assert_eq!(s.user("Explain Rust lifetimes"), Phase::Understanding);
    assert_eq!(s.moves, [(Phase::Idle, Phase::Understanding, R::ReEngaged)]);
    s.user("never mind");
    assert_eq!(s.user("hello?"), Phase::Greeting);
    assert_eq!(s.moves, [(Phase::Idle, Phase::Greeting, R::Returned)]);
}

#[test]
fn reset_starts_over_with_an_empty_history() {
    let mut s = Session::reviewing();
    s.user("Perfect");
    s.user("Build a calculator");
    let ids_so_far = s.conv.goals_started;
    let phase = s.step(Input::Reset);
    assert_eq!(phase, Phase::Greeting);
    assert_eq!(s.moves, [(Phase::Understanding, Phase::Greeting, R::Reset)]);
    assert_eq!(s.conv.turn_count, 0);
    assert!(s.conv.current_goal.is_none() && s.conv.completed_goals.is_empty());
    assert_eq!(s.conv.session_id, "s-test");
    s.user("Build a form");
    assert_eq!(
        s.goal().id.to_string(),
        format!("g-{}", ids_so_far + 1),
        "goal ids stay unique"
    );
}

// --- slots ---

#[test]
fn an_asked_slot_is_filled_by_the_next_reply() {
    let mut s = Session::new();
    // (No thing named: "my deployment" would be the target.)
    s.user("Please troubleshoot something for me");
    assert_eq!(s.slot("target").0, SlotStatus::Unknown);
    s.assistant("Sure, which part is failing?");
    assert_eq!(s.slot("target").0, SlotStatus::Asked);
    s.user("not sure");
    assert_eq!(
        s.slot("target").0,
        SlotStatus::Asked,
        "a non-answer fills nothing"
    );
    s.user("The contact form");
    assert_eq!(
        s.slot("target"),
        (SlotStatus::Provided, Some("contact form"))
    );

    let mut s = Session::new();
    s.user("Fix the checkout page");
    s.assistant("How should it behave?");
    assert_eq!(s.slot("desired_change").0, SlotStatus::Asked);
    assert_eq!(s.user("Faster, with fewer steps"), Phase::Planning);
    assert_eq!(
        s.slot("desired_change"),
        (SlotStatus::Provided, Some("Faster, with fewer steps"))
    );
}

#[test]
fn a_reply_with_a_signal_answers_no_question() {
    let mut s = Session::new();
    s.user("Please troubleshoot something for me");
    s.assistant("Which part is failing?");
    assert_eq!(
        s.user("Sounds good"),
        Phase::Planning,
        "an approval, not an answer"
    );
    assert_eq!(s.slot("target").0, SlotStatus::Asked);
}

#[test]
fn a_later_value_replaces_an_earlier_one() {
    let mut s = Session::new();
    s.user("I want to build a todo app");
    assert_eq!(s.slot("component_type").1, Some("todo app"));
    s.user("with React components");
    assert_eq!(s.slot("component_type").1, Some("React components"));
}

// --- the defects of the original design ---

#[test]
fn defect_substring_matches() {
    let mut s = Session::new();
    s.user("Build a landing page with a signup form");
    assert_eq!(
        s.user("I read a book about it"),
        Phase::Planning,
        "ok in book"
    );
    assert_eq!(
        s.user("My stopwatch app is a model"),
        Phase::Planning,
        "stop in stopwatch"
    );
    s.user("go ahead");
    assert_eq!(
        s.assistant("The old approach was abandoned."),
        Phase::Executing,
        "done in abandoned"
    );
    let mut s = Session::new();
    s.user("Show me how to use Tailwind");
    assert_eq!(s.goal().goal_type, GoalType::Exploration, "how in show");
}

#[test]
fn defect_role_blind_signals() {
    let mut s = Session::new();
    s.user("Build a landing page");
    assert_eq!(
        s.assistant("Sure! What features do you need?"),
        Phase::Understanding
    );
    assert_eq!(s.user("A signup form and a pricing table"), Phase::Planning);
    assert_eq!(s.user("I'll create the copy myself"), Phase::Planning);
    assert_eq!(
        s.assistant("Sounds good! Shall I go ahead?"),
        Phase::Planning
    );
    s.user("go ahead");
    assert_eq!(s.user("Here it is, my logo"), Phase::Executing);
    assert_eq!(s.user("Done"), Phase::Executing);
}

#[test]
fn defect_n_app_descriptions() {
    let mut s = Session::new();
    s.user("Build an app for notes");
    assert_eq!(s.goal().description, "app for notes");
}

#[test]
fn defect_negated_signals() {
    let mut s = Session::new();
    s.user("Build a landing page");
    assert_eq!(s.user("Not sure yet"), Phase::Understanding);
    assert_eq!(s.user("I'm not sure that works"), Phase::Understanding);
    let mut s = Session::reviewing();
    assert_eq!(s.user("No, not perfect"), Phase::Reviewing);
}

// --- summary ---

#[test]
fn summary_has_the_design_documents_format() {
    let mut s = Session::new();
    s.user("I want to build a todo app");
    s.assistant("What features?");
    s.user("hmm");
    s.user("well");
    s.user("ok");
    assert_eq!(
        Summary(&s.conv).to_string(),
        "Conversation Phase: planning\nTurn Count: 5\n\nCurrent Goal:\n  Type: artifact_creation\n  \
         Description: todo app\n  Required Information:\n    ✓ component_type: Kind or technology \
         of the artifact — todo app\n    ? requirements: What it must do"
    );
    let mut s = Session::new();
    s.user("What is a monad?");
    s.assistant("A monoid in the category of endofunctors.");
    s.user("Thanks!");
    s.user("Build a form");
    s.user("never mind");
    assert_eq!(
        Summary(&s.conv).to_string(),
        "Conversation Phase: idle\nTurn Count: 5\n\nCompleted Goals: 1\nAbandoned Goals: 1"
    );
    assert_eq!(
        Summary(&Conversation::new("s", t0())).to_string(),
        "Conversation Phase: greeting\nTurn Count: 0"
    );
}

#[test]
fn state_json_has_the_wire_contracts_fields() {
    let mut s = Session::new();
    s.user("Build a landing page");
    let json = serde_json::to_value(&s.conv).unwrap();
    for key in [
        "session_id",
        "phase",
        "turn_count",
        "current_goal",
        "completed_goals",
        "last_user_message_at",
        "last_updated",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
    let goal = &json["current_goal"];
    assert_eq!(goal["id"], "g-1");
    assert_eq!(goal["type"], "artifact_creation");
    assert_eq!(goal["status"], "active");
    assert_eq!(goal["required_info"][0]["name"], "component_type");
    assert_eq!(goal["required_info"][0]["status"], "provided");
    assert_eq!(goal["required_info"][0]["value"], "landing page");
    assert_eq!(goal["required_info"][1]["value"], serde_json::Value::Null);
    assert_eq!(json["last_user_message_at"], "2026-11-21T10:00:10Z");
    let back: Conversation = serde_json::from_value(json).unwrap();
    assert_eq!(back, s.conv, "the state round-trips through JSON");
}

#[test]
fn descriptions_and_slot_values_are_capped_at_a_character_boundary_and_marked() {
    let mut s = Session::new();
    let name = "é".repeat(250);
    s.user(&format!("Build a landing page called {name}"));
    let goal = s.conv.current_goal.as_ref().unwrap();
    assert_eq!(
        goal.description.chars().count(),
        201,
        "200 kept and the mark"
    );
    assert!(goal.description.starts_with("landing page called é"));
    assert!(goal.description.ends_with("é…"));
    let features = "export the data and ".repeat(40);
    s.user(&format!("It should {features}search it"));
    let value = s.conv.current_goal.as_ref().unwrap().required_info[1]
        .value
        .clone()
        .unwrap();
    assert!(
        value.chars().count() <= 501,
        "at most 500 and the mark: {}",
        value.chars().count()
    );
    assert!(value.ends_with('…'));
    // Short ones are kept as they are.
    let mut s = Session::new();
    s.user("Build a landing page");
    assert_eq!(
        s.conv.current_goal.as_ref().unwrap().description,
        "landing page"
    );
}

/// Times at the calendar's ends (an imported or replayed log may hold any): every input steps
/// without overflowing, and no deadline past the end ever comes.
#[test]
fn times_at_the_calendars_ends_never_overflow() {
    let settings = std::collections::BTreeMap::new();
    let data = serde_json::Map::new();
    for at in [
        DateTime::<Utc>::MAX_UTC,
        DateTime::<Utc>::MAX_UTC - TimeDelta::seconds(1),
        DateTime::<Utc>::MIN_UTC,
    ] {
        let mut conv = engine().start("s-edge", at);
        let inputs = [
            Input::Message {
                role: Role::User,
                text: "Build me a landing page for a bakery",
                artifact: false,
            },
            Input::Message {
                role: Role::Assistant,
                text: "Here it is",
                artifact: true,
            },
            Input::Signal(Signal::Approve),
            Input::Tick,
            Input::Reset,
            Input::Event {
                name: "go",
                data: &data,
            },
            Input::Start {
                flow: "conductor-ui",
                settings: &settings,
                restore: None,
            },
        ];
        for input in inputs {
            engine().step(&mut conv, input, at);
        }
        assert_ne!(
            conv.phase,
            Phase::Idle,
            "{at}: no deadline past the end comes"
        );
    }
    // A conversation started in the flow's time and stepped at the end goes on too.
    let mut flow = engine().start("s-edge-flow", DateTime::<Utc>::MAX_UTC);
    engine().step(
        &mut flow,
        Input::Start {
            flow: "conductor-ui",
            settings: &settings,
            restore: None,
        },
        DateTime::<Utc>::MAX_UTC,
    );
    engine().step(
        &mut flow,
        Input::Event {
            name: "start",
            data: &data,
        },
        DateTime::<Utc>::MAX_UTC,
    );
}
