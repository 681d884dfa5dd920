//! Labelled messages for the classifier, read with the built-in patterns: goal type and
//! description, and the exact set of signals.

use convstate::conversation::Classifier;
use convstate::conversation::Role;
use convstate::conversation::text::normalize;

/// `(role, text, goal, signals)`: role `u` or `a`; goal `-` for none, `type` for a goal of that
/// type, `type: description` to check the description too; signals by name, exactly.
const CASES: &[(&str, &str, &str, &[&str])] = &[
    // --- the spec's examples ---
    (
        "u",
        "I want to build a todo app",
        "artifact_creation: todo app",
        &[],
    ),
    (
        "u",
        "Build an app for notes",
        "artifact_creation: app for notes",
        &[],
    ),
    (
        "u",
        "Now build a calculator",
        "artifact_creation: calculator",
        &[],
    ),
    ("u", "It should create PDF reports", "-", &[]),
    (
        "u",
        "I need a landing page",
        "artifact_creation: landing page",
        &[],
    ),
    ("u", "I need a minute", "-", &[]),
    (
        "u",
        "How do I make a cake?",
        "question_answer: How do I make a cake",
        &[],
    ),
    (
        "u",
        "Show me how to use Tailwind",
        "exploration: how to use Tailwind",
        &[],
    ),
    (
        "u",
        "Can you explain state management?",
        "question_answer: state management",
        &[],
    ),
    (
        "u",
        "Could you build me a form?",
        "artifact_creation: form",
        &[],
    ),
    (
        "u",
        "Can you improve the performance?",
        "task_execution: performance",
        &["change_request"],
    ),
    (
        "u",
        "Fix the login button so it submits on enter",
        "task_execution",
        &["change_request"],
    ),
    (
        "u",
        "Build a landing page",
        "artifact_creation: landing page",
        &[],
    ),
    (
        "u",
        "Fix the checkout page",
        "task_execution: checkout page",
        &["change_request"],
    ),
    (
        "u",
        "Also build a dark mode",
        "artifact_creation: dark mode",
        &[],
    ),
    (
        "u",
        "How long will it take?",
        "question_answer: How long will it take",
        &[],
    ),
    (
        "u",
        "Forget that, build a calculator instead",
        "artifact_creation: calculator",
        &["cancel", "switch", "change_request"],
    ),
    (
        "u",
        "Great, but please change the header color",
        "-",
        // Real phrasing, rule 1: satisfaction before a contrast marker does not count.
        &["change_request"],
    ),
    (
        "u",
        "Great! How do I deploy it?",
        "question_answer: How do I deploy it",
        &["satisfied"],
    ),
    (
        "u",
        "Perfect! This is exactly what I needed",
        "-",
        &["satisfied"],
    ),
    ("u", "Sounds good, go ahead", "-", &["approve"]),
    ("u", "bye", "-", &["cancel", "farewell"]),
    ("a", "What features do you need?", "-", &[]),
    (
        "a",
        "I'll create a React todo app component",
        "-",
        &["start_work"],
    ),
    (
        "a",
        "<artifact type=\"react\">...</artifact>",
        "-",
        &["work_done"],
    ),
    (
        "u",
        "I need add, delete, and mark as complete functionality with React components",
        "-",
        &["change_request"],
    ),
    // --- artifact creation ---
    (
        "u",
        "Hi! I want to create a REST API for a bookstore",
        "artifact_creation: REST API for a bookstore",
        &[],
    ),
    (
        "u",
        "hey can you make me a Python script that renames files",
        "artifact_creation: Python script that renames files",
        &[],
    ),
    (
        "u",
        "I'd like a dashboard for our sales data",
        "artifact_creation: dashboard for our sales data",
        &[],
    ),
    (
        "u",
        "We need a CLI to convert CSV to JSON",
        "artifact_creation: CLI to convert CSV to JSON",
        &[],
    ),
    (
        "u",
        "Write a function that parses ISO dates",
        "artifact_creation: function that parses ISO dates",
        &[],
    ),
    (
        "u",
        "Generate a landing page for my bakery please",
        "artifact_creation: landing page for my bakery",
        &[],
    ),
    (
        "u",
        "Please create a contact form with validation",
        "artifact_creation: contact form with validation",
        &[],
    ),
    (
        "u",
        "Let's build a chatbot for Discord",
        "artifact_creation: chatbot for Discord",
        &[],
    ),
    (
        "u",
        "Can you help me build a portfolio website?",
        "artifact_creation: portfolio website",
        &[],
    ),
    (
        "u",
        "I'm looking for a React component that shows a countdown",
        "artifact_creation",
        &[],
    ),
    (
        "u",
        "Design a pricing page.",
        "artifact_creation: pricing page",
        &[],
    ),
    (
        "u",
        "so, write me a bash script to back up my photos",
        "artifact_creation: bash script to back up my photos",
        &[],
    ),
    (
        "u",
        "Give me a simple timer app",
        "artifact_creation: simple timer app",
        &[],
    ),
    (
        "u",
        "I would like to develop a mobile app for tracking habits",
        "artifact_creation: mobile app for tracking habits",
        &[],
    ),
    (
        "u",
        "Set up a Flask server with two endpoints",
        "artifact_creation: Flask server with two endpoints",
        &[],
    ),
    (
        "u",
        "Could you please draft an email template for onboarding?",
        "artifact_creation: email template for onboarding",
        &[],
    ),
    (
        "u",
        "I need a chrome extension that blocks ads",
        "artifact_creation",
        &[],
    ),
    (
        "u",
        "create a todo list app with React",
        "artifact_creation: todo list app with React",
        &[],
    ),
    (
        "u",
        "Ok so I want to make a game in Unity",
        "artifact_creation: game in Unity",
        &["approve"],
    ),
    (
        "u",
        "Now make a quiz about capitals",
        "artifact_creation: quiz about capitals",
        &[],
    ),
    ("u", "I need help", "-", &[]),
    ("u", "I want a refund", "-", &[]),
    ("u", "Make it blue", "-", &["change_request"]),
    // Reading real messages: a problem report or request without a lead verb, rule 1.
    (
        "u",
        "Make sure the page loads on mobile",
        "task_execution: page loads on mobile",
        &[],
    ),
    // --- questions ---
    (
        "u",
        "What is a closure in JavaScript?",
        "question_answer: What is a closure in JavaScript",
        &[],
    ),
    (
        "u",
        "Why does my build fail on CI?",
        "question_answer: Why does my build fail on CI",
        &[],
    ),
    (
        "u",
        "When should I use useMemo?",
        "question_answer: When should I use useMemo",
        &[],
    ),
    (
        "u",
        "Where do environment variables go in Next.js?",
        "question_answer: Where do environment variables go in Next.js",
        &[],
    ),
    (
        "u",
        "Which database is best for time series?",
        "question_answer",
        &[],
    ),
    (
        "u",
        "Is there a way to cache API calls?",
        "question_answer: Is there a way to cache API calls",
        &[],
    ),
    (
        "u",
        "Can I use hooks in class components?",
        "question_answer: Can I use hooks in class components",
        &[],
    ),
    (
        "u",
        "Should I learn Rust or Go first?",
        "question_answer",
        &[],
    ),
    (
        "u",
        "Does Postgres support JSON columns?",
        "question_answer",
        &[],
    ),
    (
        "u",
        "Hello, what's the difference between let and const?",
        "question_answer: what's the difference between let and const",
        &[],
    ),
    (
        "u",
        "Quick question: how do I center a div?",
        "question_answer: how do I center a div",
        &[],
    ),
    (
        "u",
        "Explain how garbage collection works",
        "question_answer: how garbage collection works",
        &[],
    ),
    (
        "u",
        "Tell me why my tests are flaky",
        "question_answer: why my tests are flaky",
        &[],
    ),
    (
        "u",
        "I want to know how OAuth works",
        "question_answer: how OAuth works",
        &[],
    ),
    (
        "u",
        "Could you describe the event loop?",
        "question_answer: event loop",
        &[],
    ),
    (
        "u",
        "What does this error mean?",
        "question_answer",
        &["change_request"],
    ),
    (
        "u",
        "Who maintains the regex crate?",
        "question_answer",
        &[],
    ),
    (
        "u",
        "how's the weather api supposed to be called?",
        "question_answer",
        &[],
    ),
    ("u", "Do you support TypeScript?", "question_answer", &[]),
    ("u", "What?", "-", &[]),
    ("u", "Why?", "-", &[]),
    // --- tasks ---
    (
        "u",
        "Update the footer links",
        "task_execution: footer links",
        &["change_request"],
    ),
    (
        "u",
        "Refactor the auth module to use async",
        "task_execution: auth module to use async",
        &[],
    ),
    (
        "u",
        "Rename the user table to accounts",
        "task_execution",
        &["change_request"],
    ),
    (
        "u",
        "Remove the unused imports",
        "task_execution: unused imports",
        &["change_request"],
    ),
    (
        "u",
        "Speed up the search endpoint",
        "task_execution: search endpoint",
        &[],
    ),
    (
        "u",
        "Please optimize the image loading",
        "task_execution: image loading",
        &[],
    ),
    (
        "u",
        "Could you debug the payment flow?",
        "task_execution: payment flow",
        &[],
    ),
    (
        "u",
        "Migrate the database to Postgres",
        "task_execution: database to Postgres",
        &[],
    ),
    (
        "u",
        "Add a dark mode toggle to the settings page",
        "task_execution",
        &["change_request"],
    ),
    (
        "u",
        "Change the header color to blue",
        "task_execution: header color to blue",
        &["change_request"],
    ),
    (
        "u",
        "Deploy the app to staging",
        "task_execution: app to staging",
        &[],
    ),
    (
        "u",
        "I need to fix the broken links on the homepage",
        "task_execution: broken links on the homepage",
        &["change_request"],
    ),
    ("u", "Can you clean up the CSS?", "task_execution: CSS", &[]),
    (
        "u",
        "Upgrade React to version 19",
        "task_execution: React to version 19",
        &[],
    ),
    ("u", "Fix it", "-", &["change_request"]),
    // "this" points at something pasted (rule 5).
    (
        "u",
        "Convert this to TypeScript",
        "task_execution: this to TypeScript",
        &[],
    ),
    // --- exploration ---
    (
        "u",
        "Help me understand closures",
        "exploration: closures",
        &[],
    ),
    (
        "u",
        "Walk me through setting up Docker",
        "exploration: setting up Docker",
        &[],
    ),
    (
        "u",
        "I'm trying to figure out why my app is slow",
        "exploration",
        &[],
    ),
    (
        "u",
        "Let's explore options for hosting",
        "exploration: options for hosting",
        &[],
    ),
    (
        "u",
        "Teach me the basics of SQL",
        "exploration: basics of SQL",
        &[],
    ),
    (
        "u",
        "Help me with my CSS grid layout",
        "exploration: my CSS grid layout",
        &[],
    ),
    (
        "u",
        "Brainstorm names for my startup",
        "exploration: names for my startup",
        &[],
    ),
    (
        "u",
        "Compare Redux and Zustand",
        "exploration: Redux and Zustand",
        &[],
    ),
    (
        "u",
        "I'm curious about WebAssembly",
        "exploration: WebAssembly",
        &[],
    ),
    (
        "u",
        "Tell me about vector databases",
        // A request for an explanation (the spec's "Tell me about ..." rule).
        "question_answer: vector databases",
        &[],
    ),
    (
        "u",
        "show me some examples of good onboarding flows",
        "exploration: examples of good onboarding flows",
        &[],
    ),
    ("u", "Can you help me learn Rust?", "exploration: Rust", &[]),
    // --- small talk and other non-goals ---
    ("u", "How are you?", "-", &[]),
    ("u", "Hi, how are you doing today?", "-", &[]),
    ("u", "How's it going", "-", &[]),
    ("u", "What's up?", "-", &[]),
    ("u", "Who are you?", "-", &[]),
    ("u", "Good morning!", "-", &[]),
    ("u", "hello", "-", &[]),
    (
        "u",
        "Who are you going to recommend for backend hosting?",
        "question_answer",
        &[],
    ),
    ("u", "I think so", "-", &[]),
    ("u", "The contact form", "-", &[]),
    ("u", "React with Tailwind", "-", &[]),
    ("u", "Hmm, not sure yet", "-", &[]),
    ("u", "lol", "-", &[]),
    ("u", "", "-", &[]),
    ("u", "   ", "-", &[]),
    ("u", "!!!", "-", &[]),
    // --- approve ---
    ("u", "Yes", "-", &["approve"]),
    ("u", "ok", "-", &["approve"]),
    ("u", "Okay, let's do it", "-", &["approve"]),
    ("u", "Sure thing", "-", &["approve"]),
    ("u", "That works for me", "-", &["approve", "satisfied"]),
    ("u", "Go for it!", "-", &["approve"]),
    ("u", "Please proceed", "-", &["approve"]),
    ("u", "LGTM", "-", &["approve"]),
    ("u", "Yes please, ship it", "-", &["approve"]),
    ("u", "The plan makes sense", "-", &["approve"]),
    // --- start_work / work_done (assistant) ---
    (
        "a",
        "Great, I'll start on the layout now.",
        "-",
        &["start_work"],
    ),
    ("a", "Sure! I'm working on it.", "-", &["start_work"]),
    ("a", "Let me build that for you.", "-", &["start_work"]),
    ("a", "Generating the component...", "-", &["start_work"]),
    ("a", "Here it is:", "-", &["work_done"]),
    (
        "a",
        "I've built the API with three endpoints.",
        "-",
        &["work_done"],
    ),
    (
        "a",
        "Done! Let me know what you think.",
        "-",
        &["work_done"],
    ),
    ("a", "```js\nconsole.log(1)\n```", "-", &["work_done"]),
    ("a", "It's ready for review.", "-", &["work_done"]),
    ("a", "I haven't finished yet, almost there", "-", &[]),
    ("a", "The page is not done yet.", "-", &[]),
    // --- satisfied ---
    ("u", "Thanks!", "-", &["satisfied"]),
    ("u", "thank you so much", "-", &["satisfied"]),
    ("u", "Looks good to me", "-", &["satisfied", "approve"]),
    ("u", "This works, mission accomplished", "-", &["satisfied"]),
    ("u", "Awesome, nailed it", "-", &["satisfied"]),
    ("u", "works perfectly", "-", &["satisfied"]),
    // --- change requests ---
    (
        "u",
        "Can you add a search bar?",
        "task_execution: search bar",
        &["change_request"],
    ),
    // A setting (rule 3): a task when no goal is active.
    (
        "u",
        "Use blue instead",
        "task_execution: blue",
        &["change_request", "switch"],
    ),
    ("u", "It doesn't work on Safari", "-", &["change_request"]),
    (
        "u",
        "Not quite, the spacing is wrong",
        "task_execution: spacing is wrong",
        &["change_request"],
    ),
    // (With no goal active, a thing the user has that misbehaves is a problem report, rule 1:
    // "there's" tells of a bug.)
    (
        "u",
        "There's a bug when I click save",
        "task_execution: There's a bug when I click save",
        &["change_request"],
    ),
    (
        "u",
        "Could you also make the buttons rounder?",
        "task_execution: buttons rounder",
        &["change_request"],
    ),
    // --- cancel ---
    ("u", "Never mind", "-", &["cancel", "switch"]),
    ("u", "Ok, forget it", "-", &["approve", "cancel"]),
    ("u", "Cancel that please", "-", &["cancel"]),
    ("u", "Stop.", "-", &["cancel"]),
    ("u", "goodbye!", "-", &["cancel", "farewell"]),
    (
        "u",
        "Stop using semicolons",
        "task_execution: semicolons",
        &[],
    ),
    ("u", "Thanks, bye", "-", &["satisfied", "farewell"]),
    ("u", "I'll never stop learning", "-", &[]),
    ("u", "Please don't cancel the order", "-", &[]),
    // --- switch ---
    (
        "u",
        "Actually, build a calculator",
        "artifact_creation: calculator",
        &["switch"],
    ),
    (
        "u",
        "Scratch that, how do I deploy to Vercel?",
        "question_answer: how do I deploy to Vercel",
        &["cancel", "switch"],
    ),
    (
        "u",
        "On second thought, make a landing page",
        "artifact_creation: landing page",
        &["switch"],
    ),
    (
        "u",
        "Something else: explain Docker volumes",
        "question_answer: Docker volumes",
        &["switch"],
    ),
    // --- farewell ---
    (
        "u",
        "That's all for now, thanks",
        "-",
        &["farewell", "satisfied"],
    ),
    ("u", "See you later!", "-", &["farewell"]),
    ("u", "Have a nice day", "-", &["farewell"]),
    // --- whole words ---
    ("u", "I read a book", "-", &[]),
    // A problem report (rule 1), "stop" not read inside "stopwatch".
    (
        "u",
        "My stopwatch broke",
        "task_execution: My stopwatch broke",
        &[],
    ),
    (
        "u",
        "The task was abandoned",
        "task_execution: task was abandoned",
        &[],
    ),
    ("u", "I showed it to my team", "-", &[]),
    ("u", "The yesterday build", "-", &[]),
    ("u", "Greatness awaits", "-", &[]),
    ("u", "I'm thankful", "-", &[]),
    ("u", "the unfixable thing", "-", &[]),
    ("a", "The bookkeeping module is undone", "-", &[]),
    ("a", "<artifactory> is a tool", "-", &[]),
    // --- role gating ---
    ("a", "Sure! What features do you need?", "-", &[]),
    ("a", "Sounds good, I'll build it", "-", &["start_work"]),
    ("a", "Perfect, thanks for the details", "-", &[]),
    ("a", "Bye!", "-", &[]),
    ("a", "How do I make a cake? Let me explain.", "-", &[]),
    ("u", "I'll create it myself", "-", &[]),
    ("u", "Here it is", "-", &[]),
    ("u", "Done", "-", &[]),
    // --- negation ---
    ("u", "Not sure yet", "-", &[]),
    ("u", "Don't go ahead", "-", &[]),
    ("u", "That doesn't work", "-", &["change_request"]),
    ("u", "No, not perfect", "-", &[]),
    ("u", "I'm not sure that works", "-", &[]),
    (
        "u",
        "Don't change anything, it's perfect",
        "-",
        &["satisfied"],
    ),
    ("u", "No problem, go ahead", "-", &["approve"]),
    ("u", "I don't think it looks good", "-", &[]),
    ("u", "It isn't great but it works", "-", &["satisfied"]),
    (
        "u",
        "Never mind, thanks",
        "-",
        &["cancel", "switch", "satisfied"],
    ),
    ("u", "Nothing is wrong, great job", "-", &["satisfied"]),
    ("u", "I can't say it's perfect", "-", &[]),
];

fn classifier() -> &'static Classifier {
    static ENGINE: std::sync::OnceLock<convstate::conversation::Engine> =
        std::sync::OnceLock::new();
    ENGINE
        .get_or_init(convstate::patterns::builtin)
        .classifier()
}

#[test]
fn labelled_messages_are_classified_as_labelled() {
    assert!(CASES.len() >= 150, "{} cases", CASES.len());
    let cls = classifier();
    let mut failures = Vec::new();
    for (role, text, goal, signals) in CASES {
        let role = if *role == "u" {
            Role::User
        } else {
            Role::Assistant
        };
        let text = normalize(text);
        let reading = cls.read(&text, role);
        let got_goal = match &reading.goal {
            None => "-".to_string(),
            Some(lead) => {
                let t = cls.goals()[lead.goal].goal_type.as_str();
                if goal.contains(':') {
                    format!("{t}: {}", &text[lead.description.clone()])
                } else {
                    t.to_string()
                }
            }
        };
        let mut got_signals: Vec<&str> = reading.signals.iter().map(|s| s.as_str()).collect();
        let mut want_signals: Vec<&str> = signals.to_vec();
        got_signals.sort_unstable();
        want_signals.sort_unstable();
        if got_goal != *goal || got_signals != want_signals {
            failures.push(format!(
                "{text:?}\n    want {goal} {want_signals:?}\n    got  {got_goal} {got_signals:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} misread:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

/// `(text, slot, value)`: the value the slot's extractors take from a user message.
const SLOT_CASES: &[(&str, &str, Option<&str>)] = &[
    ("I want to build a todo app", "component_type", Some("app")),
    ("I want to build a todo app", "requirements", None),
    (
        "Build a landing page",
        "component_type",
        Some("landing page"),
    ),
    (
        "with React components",
        "component_type",
        Some("React components"),
    ),
    (
        "I need add, delete, and mark as complete functionality with React components",
        "component_type",
        Some("React components"),
    ),
    (
        "I need add, delete, and mark as complete functionality with React components",
        "requirements",
        Some("add, delete, and mark as complete functionality"),
    ),
    ("Let's use Vue", "component_type", Some("Vue")),
    ("Make it in Python", "component_type", Some("Python")),
    ("a REST API", "component_type", Some("REST API")),
    (
        "I need a minute to think about the API",
        "requirements",
        None,
    ),
    (
        "It should create PDF reports",
        "requirements",
        Some("create PDF reports"),
    ),
    (
        "a page that lets users sign up",
        "requirements",
        Some("lets users sign up"),
    ),
    (
        "an app to track my expenses",
        "requirements",
        Some("track my expenses"),
    ),
    (
        "a tool for tracking habits",
        "requirements",
        Some("tracking habits"),
    ),
    ("Also build a dark mode", "requirements", Some("dark mode")),
    (
        "with a search bar and tags",
        "requirements",
        Some("search bar and tags"),
    ),
    ("with React", "requirements", None),
    (
        "Fix the login button so it submits on enter",
        "target",
        Some("login button"),
    ),
    (
        "Fix the login button so it submits on enter",
        "desired_change",
        Some("it submits on enter"),
    ),
    ("Fix the checkout page", "target", Some("checkout page")),
    ("Fix the checkout page", "desired_change", None),
    (
        "Change the header color to blue",
        "target",
        Some("header color"),
    ),
    (
        "Change the header color to blue",
        "desired_change",
        Some("blue"),
    ),
    (
        "Can you improve the performance?",
        "target",
        Some("performance"),
    ),
    ("make it load faster", "desired_change", Some("load faster")),
    (
        "the button should be blue",
        "desired_change",
        Some("be blue"),
    ),
    (
        "Improve the search by caching results",
        "desired_change",
        Some("caching results"),
    ),
    (
        "There's a bug in the checkout page",
        "target",
        Some("checkout page"),
    ),
    ("Fix it so it works", "target", None),
];

#[test]
fn slot_extractors_take_the_matched_words() {
    let cls = classifier();
    let mut failures = Vec::new();
    for (text, slot, want) in SLOT_CASES {
        let index = cls
            .slots()
            .iter()
            .position(|s| &*s.name == *slot)
            .expect("a known slot");
        let got = cls.extract(text, index).map(|r| &text[r]);
        if got != *want {
            failures.push(format!("{text:?} {slot}: want {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn assistant_questions_ask_for_slots() {
    let cls = classifier();
    let slot = |name: &str| cls.slots().iter().position(|s| &*s.name == name).unwrap();
    let asks = |text: &str| cls.read(text, Role::Assistant).asks;
    assert_eq!(
        asks("What features do you need?"),
        1 << slot("requirements")
    );
    assert_eq!(
        asks("Which framework do you prefer?"),
        1 << slot("component_type")
    );
    assert_eq!(asks("Which part should I change?"), 1 << slot("target"));
    assert_eq!(asks("How should it behave?"), 1 << slot("desired_change"));
    assert_eq!(asks("Here is your app."), 0);
    // A user's words ask nothing.
    assert_eq!(cls.read("What features do you need?", Role::User).asks, 0);
}

#[test]
fn non_answers_are_recognised() {
    let cls = classifier();
    for text in [
        "Not sure",
        "I don't know",
        "skip",
        "hmm",
        "no idea, you decide",
    ] {
        assert!(cls.read(text, Role::User).non_answer, "{text}");
    }
    for text in ["The contact form", "React"] {
        assert!(!cls.read(text, Role::User).non_answer, "{text}");
    }
}
