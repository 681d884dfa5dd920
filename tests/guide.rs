//! The built-in guide over the engine alone: the user types only their side and the guide's
//! replies are stepped as assistant turns, as the server does in `--assistant guide`.

use chrono::{DateTime, TimeDelta, Utc};
use convstate::assistant::guide::Guide;
use convstate::assistant::prompt::{ChatMessage, Said, messages, shared_prefix};
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

// The llm assistant's prompt, made from the guide's `[llm]` phrases.

/// The spec's worked example, replayed: the prompt at each user turn, as a model would get
/// it to answer that turn.
fn prompts() -> Vec<Vec<ChatMessage>> {
    let engine = convstate::patterns::builtin();
    let guide = Guide::builtin(&engine);
    let example = [
        (Role::User, "I want to build a todo app"),
        (Role::Assistant, "What features do you need?"),
        (
            Role::User,
            "I need add, delete, and mark as complete functionality with React components",
        ),
        (Role::Assistant, "I'll create a React todo app component"),
        (Role::User, "Sounds good, go ahead"),
        (Role::Assistant, "<artifact type=\"react\">...</artifact>"),
        (Role::User, "Perfect! This is exactly what I needed"),
        (Role::User, "Now build a calculator"),
        (Role::User, "bye"),
    ];
    let mut now: DateTime<Utc> = "2026-11-21T10:00:00Z".parse().unwrap();
    let mut conv = engine.start("s-prompt", now);
    let mut transcript = Vec::new();
    let mut out = Vec::new();
    for (seq, (role, text)) in example.into_iter().enumerate() {
        now += TimeDelta::seconds(10);
        let input = Input::Message {
            role,
            text,
            artifact: false,
        };
        engine.step(&mut conv, input, now);
        transcript.push(Said {
            seq: seq as u64 + 1,
            role,
            text: text.to_string(),
        });
        if role == Role::User {
            out.push(messages(guide.llm(), &conv, &transcript, 16 * 1024));
        }
    }
    out
}

#[test]
fn the_prompt_carries_the_summary_and_the_phase_instruction_last() {
    let prompts = prompts();
    let first = &prompts[0];
    assert_eq!(first.len(), 3);
    assert_eq!(first[0].role, "system");
    assert_eq!(first[1].content, "I want to build a todo app");
    let state = &first[2].content;
    assert!(
        state.contains("Conversation Phase: understanding\nTurn Count: 1"),
        "{state}"
    );
    assert!(state.contains("? requirements"), "{state}");
    assert!(state.ends_with("in one short question. Do not start the work yet."));
    // The same state and transcript give the same bytes.
    assert_eq!(prompts, self::prompts());
}

#[test]
fn each_prompt_mostly_repeats_the_one_before() {
    let prompts = prompts();
    let shares: Vec<f64> = prompts
        .windows(2)
        .map(|w| shared_prefix(&w[0], &w[1]))
        .collect();
    // Everything up to the previous state message is unchanged.
    for (w, share) in prompts.windows(2).zip(&shares) {
        let before = serde_json::to_string(&w[0][..w[0].len() - 1]).unwrap();
        let now = serde_json::to_string(&w[1]).unwrap();
        assert!(now.starts_with(&before[..before.len() - 1]), "{share}");
    }
    // The worked example's figures (docs/assistant.md): the shares grow with the transcript.
    let rounded: Vec<u32> = shares.iter().map(|s| (s * 100.0).round() as u32).collect();
    assert_eq!(rounded, [34, 46, 65, 59, 76]);
}

#[test]
fn the_window_moves_in_steps() {
    let engine = convstate::patterns::builtin();
    let guide = Guide::builtin(&engine);
    let conv = engine.start("s-window", Utc::now());
    let transcript: Vec<Said> = (1..=40)
        .map(|seq| Said {
            seq,
            role: Role::User,
            text: "x".repeat(100),
        })
        .collect();
    // 1,000 bytes (10 turns): the window starts at a multiple of 8, turn 32.
    let m = messages(guide.llm(), &conv, &transcript, 1000);
    assert_eq!(m.len() - 2, 9, "turns 32 to 40");
    // A turn less does not move the start.
    let m2 = messages(guide.llm(), &conv, &transcript[..39], 1000);
    assert_eq!(m2.len() - 2, 8);
    assert_eq!(m[1], m2[1]);
    // No budget: no transcript.
    assert_eq!(messages(guide.llm(), &conv, &transcript, 0).len(), 2);
    // A last turn over the budget on its own is still sent, cut to it.
    let long = [Said {
        seq: 41,
        role: Role::User,
        text: "é".repeat(600),
    }];
    let m = messages(guide.llm(), &conv, &long, 1001);
    assert_eq!(m.len(), 3);
    assert_eq!(m[1].content.len(), 1000);
}
