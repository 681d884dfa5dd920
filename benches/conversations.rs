//! The message mix of the engine's benchmarks (benches/turn.rs) and of the instruction-count
//! gate (benches/instructions.rs): realistic conversations, each a list of (role, text).

use chrono::{DateTime, TimeDelta, Utc};
use convstate::conversation::{Conversation, Engine, Input, Role, Transition};

/// Realistic conversations, each a list of (role, text).
pub(crate) const CONVERSATIONS: &[&[(Role, &str)]] = &[
    &[
        (Role::User, "I want to build a todo app"),
        (Role::Assistant, "What features do you need?"),
        (
            Role::User,
            "I need add, delete, and mark as complete functionality with React components",
        ),
        (Role::Assistant, "I'll create a React todo app component"),
        (Role::User, "Sounds good, go ahead"),
        (
            Role::Assistant,
            "<artifact type=\"react\">function TodoApp() { return null }</artifact>",
        ),
        (Role::User, "Perfect! This is exactly what I needed"),
        (Role::User, "Now build a calculator"),
        (Role::User, "bye"),
    ],
    &[
        (Role::User, "Hi there! How are you?"),
        (
            Role::Assistant,
            "I'm doing well, thanks for asking! What can I help you with today?",
        ),
        (
            Role::User,
            "Fix the checkout page, it's really slow on mobile",
        ),
        (
            Role::Assistant,
            "Sure. What should be different afterwards, and which part is slowest?",
        ),
        (
            Role::User,
            "It should load in under a second, the payment form takes forever",
        ),
        (
            Role::Assistant,
            "Got it. I'll start by profiling the payment form and lazy-loading the scripts.",
        ),
        (
            Role::Assistant,
            "Done: I've updated the bundle split and deferred the analytics script.",
        ),
        (
            Role::User,
            "Great, but can you also make the button bigger?",
        ),
        (Role::Assistant, "Of course, I'll adjust the button size."),
        (Role::User, "Thanks, that works!"),
    ],
    &[
        (
            Role::User,
            "Quick question: how do I center a div with flexbox?",
        ),
        (
            Role::Assistant,
            "Use display: flex with justify-content: center and align-items: center on the parent.",
        ),
        (
            Role::User,
            "Nice, thank you! Can you explain how grid differs?",
        ),
        (
            Role::Assistant,
            "Grid lays out two dimensions at once, rows and columns, while flexbox handles one.",
        ),
        (Role::User, "Not sure I follow, show me an example"),
    ],
];

/// Runs every conversation from a fresh session, calling `each` after every turn.
pub(crate) fn run_all(engine: &Engine, mut each: impl FnMut(&Conversation, &[Transition])) {
    for conversation in CONVERSATIONS {
        let mut now = start();
        let mut conv = engine.start("s-bench", now);
        for (role, text) in conversation.iter() {
            now += TimeDelta::seconds(20);
            let step = engine.step(
                &mut conv,
                Input::Message {
                    role: *role,
                    text,
                    artifact: false,
                },
                now,
            );
            each(&conv, &step.transitions);
        }
    }
}

/// When every conversation starts.
pub(crate) fn start() -> DateTime<Utc> {
    "2026-11-21T10:00:00Z".parse().unwrap()
}
