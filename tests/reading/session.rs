//! The engine and a session of the reading tests, with the helpers that read a slot.

use chrono::{DateTime, TimeDelta, Utc};
use convstate::conversation::{Conversation, Engine, GoalType, Input, Role, SlotStatus};

pub(crate) fn engine() -> &'static Engine {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    ENGINE.get_or_init(convstate::patterns::builtin)
}

pub(crate) struct Session {
    pub(crate) conv: Conversation,
    pub(crate) now: DateTime<Utc>,
}

impl Session {
    pub(crate) fn new() -> Session {
        let now: DateTime<Utc> = "2026-11-26T10:00:00Z".parse().unwrap();
        Session {
            conv: engine().start("s-reading", now),
            now,
        }
    }

    pub(crate) fn say(&mut self, role: Role, text: &str) -> &mut Session {
        self.now += TimeDelta::seconds(5);
        let input = Input::Message {
            role,
            text,
            artifact: false,
        };
        engine().step(&mut self.conv, input, self.now);
        self
    }

    pub(crate) fn user(&mut self, text: &str) -> &mut Session {
        self.say(Role::User, text)
    }

    pub(crate) fn assistant(&mut self, text: &str) -> &mut Session {
        self.say(Role::Assistant, text)
    }

    pub(crate) fn goal(&self) -> Option<GoalType> {
        self.conv.current_goal.as_ref().map(|g| g.goal_type)
    }

    /// The value of a slot of the current goal ("" when it has none).
    pub(crate) fn slot(&self, name: &str) -> String {
        self.conv
            .current_goal
            .as_ref()
            .and_then(|g| g.required_info.iter().find(|s| &*s.name == name))
            .and_then(|s| s.value.clone())
            .unwrap_or_default()
    }

    pub(crate) fn status(&self, name: &str) -> Option<SlotStatus> {
        self.conv
            .current_goal
            .as_ref()
            .and_then(|g| g.required_info.iter().find(|s| &*s.name == name))
            .map(|s| s.status)
    }
}

/// A first message read as a goal of type `goal` (`None`: no goal).
pub(crate) fn reads_goal(text: &str, goal: Option<GoalType>) {
    let mut s = Session::new();
    s.user(text);
    assert_eq!(s.goal(), goal, "{text}");
}

/// A first message read as a task on `target` whose change holds `change`.
pub(crate) fn reads_task(text: &str, target: &str, change: &str) {
    let mut s = Session::new();
    s.user(text);
    assert_eq!(s.goal(), Some(GoalType::TaskExecution), "{text}");
    assert_eq!(s.slot("target"), target, "{text}");
    assert!(
        has(&s.slot("desired_change"), change),
        "{text}: {}",
        s.slot("desired_change")
    );
}

/// A first message read as a goal of type `goal` whose slots hold the words given for them
/// (`has`: a slot's value contains them, ignoring case).
pub(crate) fn reads_holding(text: &str, goal: GoalType, slots: &[(&str, &str)]) {
    let mut s = Session::new();
    s.user(text);
    assert_eq!(s.goal(), Some(goal), "{text}");
    for (slot, words) in slots {
        assert!(
            has(&s.slot(slot), words),
            "{text}: {slot} = {}",
            s.slot(slot)
        );
    }
}

pub(crate) fn has(value: &str, words: &str) -> bool {
    value.to_lowercase().contains(&words.to_lowercase())
}
