//! The spec's "Real phrasing" (`conversation.md`): contrast, deferral, questions, emoji and
//! polite wrappers, the rule on which signals block an answer to an asked slot (with the design
//! documents' own worked example), and "Tell me about ...". Every example of the spec is a case
//! here, with negative cases and traps beside them.

use chrono::{DateTime, TimeDelta, Utc};
use convstate::conversation::{Conversation, Engine, GoalType, Input, Phase, Role, SlotStatus};

fn engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(convstate::patterns::builtin)
}

struct Session {
    conv: Conversation,
    now: DateTime<Utc>,
}

impl Session {
    fn new() -> Session {
        let now: DateTime<Utc> = "2026-11-21T10:00:00Z".parse().unwrap();
        Session {
            conv: engine().start("s-test", now),
            now,
        }
    }

    fn say(&mut self, role: Role, text: &str) -> Phase {
        self.now += TimeDelta::seconds(10);
        let input = Input::Message {
            role,
            text,
            artifact: false,
        };
        engine().step(&mut self.conv, input, self.now);
        self.conv.phase
    }

    fn user(&mut self, text: &str) -> Phase {
        self.say(Role::User, text)
    }

    fn assistant(&mut self, text: &str) -> Phase {
        self.say(Role::Assistant, text)
    }

    fn slot(&self, name: &str) -> (SlotStatus, Option<String>) {
        let goal = self.conv.current_goal.as_ref().expect("a goal");
        let s = goal
            .required_info
            .iter()
            .find(|s| &*s.name == name)
            .expect("the slot");
        (s.status, s.value.clone())
    }

    /// A todo app goal in `understanding`, `requirements` asked.
    fn understanding() -> Session {
        let mut s = Session::new();
        s.user("I want to build a todo app");
        s.assistant("What features do you need?");
        assert_eq!(s.slot("requirements").0, SlotStatus::Asked);
        s
    }

    /// A todo app goal with both slots given, in `planning`.
    fn planning() -> Session {
        let mut s = Session::new();
        assert_eq!(
            s.user("I want to build a todo app with add and delete features using React"),
            Phase::Planning
        );
        s
    }

    /// The same goal, built and shown: `reviewing`.
    fn reviewing() -> Session {
        let mut s = Session::planning();
        s.assistant("I'll create it now");
        assert_eq!(s.assistant("<artifact>...</artifact>"), Phase::Reviewing);
        s
    }
}

/// `(message, phase after it)` from a fresh session made by `start`.
fn table(start: fn() -> Session, cases: &[(&str, Phase)]) {
    let mut wrong = Vec::new();
    for (text, want) in cases {
        let mut s = start();
        let got = s.user(text);
        if got != *want {
            wrong.push(format!("{text:?}: {got}, expected {want}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn the_design_documents_worked_example_answers_the_features_question() {
    let mut s = Session::new();
    s.user("I want to build a todo app");
    s.assistant("What features do you need?");
    assert_eq!(
        s.user("Add, delete, mark complete with React components"),
        Phase::Planning
    );
    let (status, value) = s.slot("requirements");
    assert_eq!(status, SlotStatus::Provided);
    assert_eq!(
        value.as_deref(),
        Some("Add, delete, mark complete with React components")
    );
    assert_eq!(
        s.assistant("I'll create a React todo app component"),
        Phase::Executing
    );
    assert_eq!(
        s.assistant("<artifact type='react'>...code...</artifact>"),
        Phase::Reviewing
    );
    assert_eq!(
        s.user("Perfect! This is exactly what I needed"),
        Phase::Completed
    );
    assert!(s.conv.current_goal.is_none());
    assert_eq!(s.conv.completed_goals.len(), 1);
}

#[test]
fn what_blocks_an_answer_is_what_a_rule_of_the_phase_acts_on() {
    // Approve, cancel and switch act in `understanding`: such a reply answers nothing.
    for (text, phase) in [
        ("Sounds good, go ahead", Phase::Planning),
        ("Never mind", Phase::Idle),
        ("Not sure", Phase::Understanding),
    ] {
        let mut s = Session::understanding();
        assert_eq!(s.user(text), phase, "{text}");
        if phase == Phase::Understanding {
            assert_eq!(s.slot("requirements").0, SlotStatus::Asked, "{text}");
        }
    }
    // Words that are signals or leads elsewhere do not block it.
    for text in [
        "Delete and edit entries",
        "Fix typos automatically and remove duplicates",
        "Change the colour per list",
    ] {
        let mut s = Session::understanding();
        s.user(text);
        assert_eq!(
            s.slot("requirements"),
            (SlotStatus::Provided, Some(text.to_string())),
            "{text}"
        );
    }
}

#[test]
fn rule_1_contrast() {
    table(
        Session::reviewing,
        &[
            ("It looks good but the color is off", Phase::Understanding),
            ("Perfect, except the logo is blurry", Phase::Understanding),
            ("Great, however the font is too small", Phase::Understanding),
            (
                "Thanks, one thing: the button is too big",
                Phase::Understanding,
            ),
            ("Not what I pictured, but it works", Phase::Completed),
            ("Perfect, thanks", Phase::Completed),
            // Satisfaction after the marker decides.
            (
                "The colour was off but now it looks great",
                Phase::Completed,
            ),
        ],
    );
    table(
        Session::planning,
        &[
            ("Sounds good, but use Vue", Phase::Planning),
            ("Ok but the list needs tags", Phase::Planning),
            ("It's a lot of work, but go ahead", Phase::Executing),
        ],
    );
    let mut s = Session::new();
    s.user("I want to build a todo app");
    assert_eq!(s.user("Sounds good, but use Vue"), Phase::Understanding);
    assert_eq!(s.slot("component_type").1.as_deref(), Some("Vue"));
    // A contrast inside a goal does not stop the goal.
    let mut s = Session::new();
    assert_eq!(
        s.user("Build a form but keep it simple"),
        Phase::Understanding
    );
    let goal = s.conv.current_goal.as_ref().unwrap();
    assert_eq!(goal.goal_type, GoalType::ArtifactCreation);
}

#[test]
fn rule_2_deferral() {
    table(
        Session::planning,
        &[
            ("Ok but not yet", Phase::Planning),
            ("Sounds good, one sec", Phase::Planning),
            ("Ok, wait", Phase::Planning),
            ("Sounds good but not yet", Phase::Planning),
            ("Hold on, let me think", Phase::Planning),
            ("Go ahead, but give me a minute first", Phase::Planning),
            ("Yes, don't start yet", Phase::Planning),
            // Not deferrals.
            ("Sounds good, go ahead", Phase::Executing),
            ("Yes, I can't wait to see it", Phase::Executing),
        ],
    );
    table(
        Session::reviewing,
        &[
            ("Looks good, hang on", Phase::Reviewing),
            ("Perfect, but wait", Phase::Reviewing),
            ("Hold on, let me check it", Phase::Reviewing),
        ],
    );
}

#[test]
fn rule_3_questions() {
    table(
        Session::planning,
        &[
            ("Can you go ahead?", Phase::Executing),
            ("Shall we proceed?", Phase::Executing),
            ("Ok, could you go ahead?", Phase::Executing),
            ("Should I go ahead?", Phase::Planning),
            ("Is that ok?", Phase::Planning),
            ("Does that work?", Phase::Planning),
            ("Sounds good. Should we add tags?", Phase::Executing),
        ],
    );
    table(
        Session::reviewing,
        &[
            ("Perfect?", Phase::Reviewing),
            ("Looks good?", Phase::Reviewing),
            ("Perfect! Can you also add dark mode?", Phase::Understanding),
        ],
    );
    // "Is it ..." is a question: it satisfies nothing (it is a new question, by the rule of
    // goals in `reviewing`).
    let mut s = Session::reviewing();
    s.user("Is it perfect?");
    assert!(
        s.conv
            .completed_goals
            .iter()
            .all(|g| g.reason != Some(convstate::conversation::GoalReason::Satisfied)),
        "{:?}",
        s.conv.completed_goals
    );
    let mut s = Session::understanding();
    assert_eq!(s.user("Should I go ahead?"), Phase::Understanding);
    assert_eq!(s.slot("requirements"), (SlotStatus::Asked, None));
    assert_eq!(s.user("What would you suggest?"), Phase::Understanding);
    assert_eq!(s.slot("requirements"), (SlotStatus::Asked, None));
}

#[test]
fn rule_5_emoji() {
    table(
        Session::planning,
        &[
            ("👍", Phase::Executing),
            ("👌", Phase::Executing),
            ("✅", Phase::Executing),
            ("👎", Phase::Planning),
            ("🙏", Phase::Planning),
        ],
    );
    table(
        Session::reviewing,
        &[
            ("👍", Phase::Completed),
            ("👌", Phase::Completed),
            ("✅", Phase::Completed),
            ("🙏", Phase::Completed),
            ("🎉", Phase::Completed),
            ("❤️", Phase::Completed),
            ("❤", Phase::Completed),
            ("😍", Phase::Completed),
            ("🔥🔥", Phase::Completed),
            ("👎", Phase::Understanding),
            ("👍 but the header is off", Phase::Understanding),
        ],
    );
    // Inside a goal, an emoji is part of its description.
    let mut s = Session::new();
    s.user("Build a 🎉 party invitation page");
    let goal = s.conv.current_goal.as_ref().unwrap();
    assert_eq!(goal.description, "🎉 party invitation page");
}

#[test]
fn rule_6_polite_wrappers() {
    let cases = [
        (
            "I was wondering if you could build me a landing page",
            GoalType::ArtifactCreation,
            "landing page",
        ),
        (
            "Would you mind fixing the login form so it validates emails",
            GoalType::TaskExecution,
            "login form so it validates emails",
        ),
        (
            "Is it possible to create a chart of monthly sales",
            GoalType::ArtifactCreation,
            "chart of monthly sales",
        ),
        (
            "Do you think you could make a pricing table",
            GoalType::ArtifactCreation,
            "pricing table",
        ),
        (
            "Tell me about service workers",
            GoalType::QuestionAnswer,
            "service workers",
        ),
        // A wrapper before a question stays a question.
        (
            "I was wondering how caching works",
            GoalType::QuestionAnswer,
            "how caching works",
        ),
    ];
    let mut wrong = Vec::new();
    for (text, goal_type, description) in cases {
        let mut s = Session::new();
        s.user(text);
        let got = s
            .conv
            .current_goal
            .as_ref()
            .map(|g| (g.goal_type, g.description.clone()));
        if got != Some((goal_type, description.to_string())) {
            wrong.push(format!("{text:?}: {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn rule_4_typos() {
    table(
        Session::reviewing,
        &[
            ("perfct", Phase::Completed),
            ("thnaks", Phase::Completed),
            ("Perfct, thnaks!", Phase::Completed),
            ("gret", Phase::Completed),
            // Known words are never corrected: "treat" is not "great".
            ("treat", Phase::Reviewing),
        ],
    );
    table(
        Session::planning,
        &[
            ("sonds good", Phase::Executing),
            ("procede", Phase::Executing),
            ("Ok, procede", Phase::Executing),
            // "proceeds" is a word, not "proceed".
            ("proceeds", Phase::Planning),
        ],
    );
    let mut s = Session::new();
    assert_eq!(s.user("buld a todo app"), Phase::Understanding);
    let goal = s.conv.current_goal.as_ref().unwrap();
    assert_eq!(
        (goal.goal_type, goal.description.as_str()),
        (GoalType::ArtifactCreation, "todo app")
    );
    // A goal's description keeps the user's spelling.
    let mut s = Session::new();
    s.user("Build a perfct todo app");
    assert_eq!(
        s.conv.current_goal.as_ref().unwrap().description,
        "perfct todo app"
    );
    // "crate" is a word: no goal; nor are words under four letters corrected.
    for text in ["crate a todo app", "bld a todo app"] {
        let mut s = Session::new();
        assert_eq!(s.user(text), Phase::Greeting, "{text}");
    }
}

/// The example set of real phrasing (`tests/phrasing/real-phrasing.jsonl`, over 100 messages
/// across the six rules), each from a prepared phase, through `convstate replay` over the real
/// binary: one transcript, the session reset between cases.
#[test]
fn the_example_set_of_real_phrasing_replays_as_stated() {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Case {
        rule: String,
        from: String,
        text: String,
        phase: String,
        goal_type: Option<String>,
        description: Option<String>,
        slot: Option<(String, String)>,
    }
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/phrasing/real-phrasing.jsonl");
    let cases: Vec<Case> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let line = |role: &str, text: &str| serde_json::json!({"role": role, "text": text}).to_string();
    let mut transcript = Vec::new();
    let mut at = Vec::new();
    for case in &cases {
        transcript.push(r#"{"reset":true}"#.to_string());
        match case.from.as_str() {
            "greeting" => {}
            "stated" => transcript.push(line("user", "I want to build a todo app")),
            "understanding" => {
                transcript.push(line("user", "I want to build a todo app"));
                transcript.push(line("assistant", "What features do you need?"));
            }
            "planning" | "reviewing" => {
                transcript.push(line(
                    "user",
                    "I want to build a todo app with add and delete features using React",
                ));
                if case.from == "reviewing" {
                    transcript.push(line("assistant", "I'll create it now"));
                    transcript.push(line("assistant", "<artifact>...</artifact>"));
                }
            }
            other => panic!("unknown start {other}"),
        }
        transcript.push(line("user", &case.text));
        at.push(transcript.len() - 1);
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["replay", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(transcript.join("\n").as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let frames: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(frames.len(), transcript.len());
    let mut wrong = Vec::new();
    let mut per_rule: std::collections::BTreeMap<&str, usize> = Default::default();
    for (case, &i) in cases.iter().zip(&at) {
        *per_rule.entry(case.rule.as_str()).or_default() += 1;
        let state = &frames[i]["state"];
        let goal = &state["current_goal"];
        let mut problems = Vec::new();
        if state["phase"] != case.phase.as_str() {
            problems.push(format!("phase {}, expected {}", state["phase"], case.phase));
        }
        if let Some(t) = &case.goal_type
            && goal["type"] != t.as_str()
        {
            problems.push(format!("goal {}, expected {t}", goal["type"]));
        }
        if let Some(d) = &case.description
            && goal["description"] != d.as_str()
        {
            problems.push(format!(
                "description {}, expected {d:?}",
                goal["description"]
            ));
        }
        if let Some((name, status)) = &case.slot {
            let slot = goal["required_info"]
                .as_array()
                .and_then(|slots| slots.iter().find(|s| s["name"] == name.as_str()));
            if slot.is_none_or(|s| s["status"] != status.as_str()) {
                problems.push(format!("slot {name}: {slot:?}, expected {status}"));
            }
        }
        if !problems.is_empty() {
            wrong.push(format!(
                "[{}] from {}: {:?}: {}",
                case.rule,
                case.from,
                case.text,
                problems.join("; ")
            ));
        }
    }
    assert_eq!(per_rule.len(), 6, "{per_rule:?}");
    assert!(per_rule.values().all(|n| *n >= 10), "{per_rule:?}");
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}
