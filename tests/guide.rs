//! The built-in guide over the engine alone: the user types only their side and the guide's
//! replies are stepped as assistant turns, as the server does in `--assistant guide`.

use chrono::{DateTime, TimeDelta, Utc};
use convstate::assistant::guide::Guide;
use convstate::conversation::{
    Conversation, Engine, GoalReason, GoalType, Input, Phase, Role, SlotStatus,
};

fn engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(convstate::patterns::builtin)
}

fn guide() -> &'static Guide {
    static GUIDE: std::sync::OnceLock<Guide> = std::sync::OnceLock::new();
    GUIDE.get_or_init(|| Guide::builtin(engine()))
}

struct Chat {
    conv: Conversation,
    now: DateTime<Utc>,
    /// The guide's replies to the last user turn.
    said: Vec<String>,
}

impl Chat {
    fn new() -> Chat {
        let now: DateTime<Utc> = "2026-11-21T10:00:00Z".parse().unwrap();
        Chat {
            conv: engine().start("s-guide", now),
            now,
            said: Vec::new(),
        }
    }

    /// A user turn and the guide's answer; the phase after both.
    fn user(&mut self, text: &str) -> Phase {
        self.now += TimeDelta::seconds(10);
        let input = Input::Message {
            role: Role::User,
            text,
            artifact: false,
        };
        let step = engine().step(&mut self.conv, input, self.now);
        self.answer(&step.transitions);
        self.conv.phase
    }

    fn answer(&mut self, transitions: &[convstate::conversation::Transition]) {
        self.said.clear();
        for reply in guide().replies(engine(), &self.conv, transitions) {
            self.now += TimeDelta::seconds(1);
            let input = Input::Message {
                role: Role::Assistant,
                text: &reply.text,
                artifact: reply.artifact,
            };
            engine().step(&mut self.conv, input, self.now);
            self.said.push(reply.text);
        }
    }

    fn last(&self) -> &str {
        self.said.last().map_or("", String::as_str)
    }
}

#[test]
fn an_artifact_request_is_led_to_completed() {
    let mut chat = Chat::new();
    assert_eq!(chat.user("Hi there!"), Phase::Greeting);
    assert!(
        chat.last().contains("What would you like"),
        "{}",
        chat.last()
    );
    assert_eq!(
        chat.user("I want to build a todo app"),
        Phase::Understanding
    );
    let goal = chat.conv.current_goal.clone().unwrap();
    assert_eq!(goal.goal_type, GoalType::ArtifactCreation);
    // The guide asked for the first missing slot, and the engine marked it asked.
    let asked: Vec<_> = goal
        .required_info
        .iter()
        .filter(|s| s.status == SlotStatus::Asked)
        .map(|s| s.name.to_string())
        .collect();
    assert_eq!(asked.len(), 1, "{goal:?}");
    assert_eq!(
        chat.user("Add, delete, mark complete with React components"),
        Phase::Planning
    );
    assert!(chat.last().contains("todo app"), "{}", chat.last());
    assert!(
        chat.last().contains("Add, delete, mark complete"),
        "{}",
        chat.last()
    );
    assert!(chat.last().ends_with("Should I go ahead?"));
    // Approval: the start, then the specification, which moves to reviewing.
    assert_eq!(chat.user("Sounds good, go ahead"), Phase::Reviewing);
    assert_eq!(chat.said.len(), 2);
    assert!(chat.said[1].starts_with("<artifact type=\"specification\">"));
    assert!(chat.said[1].contains("React components"));
    assert_eq!(chat.user("Perfect, thanks!"), Phase::Completed);
    assert!(chat.last().contains("Glad it helps"));
    assert_eq!(chat.conv.completed_goals.len(), 1);
}

#[test]
fn a_task_with_a_re_ask_and_a_change_request_is_led_to_completed() {
    let mut chat = Chat::new();
    assert_eq!(chat.user("Fix the login button"), Phase::Understanding);
    let first = chat.last().to_string();
    // Not an answer: asked again, in other words.
    assert_eq!(chat.user("hmm, not sure"), Phase::Understanding);
    assert_ne!(chat.last(), first);
    let slot = chat.conv.current_goal.as_ref().unwrap().required_info[1].clone();
    assert_eq!(slot.status, SlotStatus::Asked, "{slot:?}");
    assert_eq!(chat.user("It should submit on enter"), Phase::Planning);
    assert_eq!(chat.user("yes, go ahead"), Phase::Reviewing);
    // The change request goes back to understanding; every slot is still provided, so the
    // guide's answer ends that phase and the next message comes in planning. The request said
    // what to change: the guide acknowledges it instead of asking for it.
    let step_back = chat.user("Can you change the color to blue as well?");
    assert!(
        chat.last()
            .starts_with("Noted: Can you change the color to blue."),
        "{}",
        chat.last()
    );
    assert_eq!(step_back, Phase::Planning);
    assert_eq!(chat.user("Make it blue"), Phase::Planning);
    assert!(chat.last().contains("blue"), "{}", chat.last());
    assert_eq!(chat.user("ok"), Phase::Reviewing);
    assert_eq!(chat.user("That works, thank you"), Phase::Completed);
    assert_eq!(chat.conv.completed_goals.len(), 1);
}

#[test]
fn unanswered_questions_are_asked_at_most_twice_more_then_the_plan_follows() {
    let mut chat = Chat::new();
    chat.user("Build me something");
    chat.user("I want to build an app");
    assert_eq!(chat.conv.phase, Phase::Understanding);
    let mut asked = vec![chat.last().to_string()];
    while chat.conv.phase == Phase::Understanding {
        chat.user("not sure");
        asked.push(chat.last().to_string());
        assert!(asked.len() <= 4, "{asked:#?}");
    }
    assert_eq!(chat.conv.phase, Phase::Planning);
    assert!(chat.last().contains("not settled"), "{}", chat.last());
    // Every question differed from the one before it.
    for pair in asked[..asked.len() - 1].windows(2) {
        assert_ne!(pair[0], pair[1]);
    }
}

#[test]
fn questions_are_not_answered_and_cancels_get_a_goodbye() {
    let mut chat = Chat::new();
    assert_eq!(chat.user("How do I center a div?"), Phase::Reviewing);
    assert!(
        chat.last().contains("can't answer questions"),
        "{}",
        chat.last()
    );
    assert_eq!(chat.user("ok thanks"), Phase::Completed);
    assert_eq!(chat.user("Build a contact form"), Phase::Understanding);
    assert_eq!(chat.user("never mind"), Phase::Idle);
    assert!(chat.last().contains("Goodbye"));
    let reason = chat.conv.completed_goals.last().unwrap().reason;
    assert_eq!(reason, Some(GoalReason::Cancelled));
}

#[test]
fn after_an_idle_timeout_the_returning_user_is_greeted() {
    let mut chat = Chat::new();
    chat.user("Build a landing page");
    chat.now += TimeDelta::minutes(11);
    let tick = engine().step(&mut chat.conv, Input::Tick, chat.now);
    assert_eq!(chat.conv.phase, Phase::Idle);
    // The guide answers users, not the sweeper.
    assert!(!tick.transitions.is_empty());
    assert_eq!(chat.user("hello again"), Phase::Greeting);
    assert!(chat.last().starts_with("Hello!"));
}

#[test]
fn user_words_that_would_start_the_work_stay_out_of_the_plan() {
    let mut chat = Chat::new();
    chat.user("Fix the export button");
    chat.user("It should say starting now when clicked");
    assert_eq!(chat.conv.phase, Phase::Planning, "{:?}", chat.conv);
    assert!(!chat.last().contains("starting now"), "{}", chat.last());
}
