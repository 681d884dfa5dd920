//! Conversation scripts: TOML files of steps (messages, signals, waits, reconnects, resets) with
//! expectations on the state after each, run against a live server.
//!
//! ```toml
//! name = "a todo app"
//! [settings]
//! idle_timeout = "1s"          # for the in-process server
//!
//! [[step]]
//! user = "I want to build a todo app"
//! [step.expect]
//! phase = "understanding"
//! goal_type = "artifact_creation"
//! description = "todo app"
//! slots = { component_type = "provided", requirements = "unknown" }
//! transitions = ["User stated a goal"]
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::protocol::{Conversation, Transition};

/// A parsed script.
#[derive(Clone, Debug)]
pub(crate) struct Script {
    pub path: PathBuf,
    pub name: String,
    pub idle_timeout: Option<chrono::TimeDelta>,
    /// Who answers as the assistant in the script's session (`?assistant=`).
    pub assistant: Option<crate::assistant::Mode>,
    pub steps: Vec<ScriptStep>,
}

#[derive(Clone, Debug)]
pub(crate) struct ScriptStep {
    /// 1-based line of the `[[step]]` in the file.
    pub line: usize,
    pub action: Action,
    pub expect: Expect,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Action {
    Message {
        role: crate::protocol::Role,
        text: String,
        artifact: bool,
    },
    Signal(crate::protocol::Signal),
    Wait(std::time::Duration),
    Reconnect,
    Reset,
}

impl Action {
    /// A short description for the step's line of output.
    pub(crate) fn describe(&self) -> String {
        match self {
            Action::Message { role, text, .. } => {
                let short: String = text.chars().take(48).collect();
                let more = if text.chars().count() > 48 { "…" } else { "" };
                format!("{} \"{short}{more}\"", role.as_str())
            }
            Action::Signal(s) => format!("signal {}", s.as_str()),
            Action::Wait(d) => format!("wait {}", humantime::format_duration(*d)),
            Action::Reconnect => "reconnect".to_string(),
            Action::Reset => "reset".to_string(),
        }
    }
}

/// What the state after a step must be. Each value keeps its line.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expect {
    pub phase: Option<Spanned<String>>,
    /// `"none"` expects no current goal.
    pub goal_type: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub description_contains: Option<Spanned<String>>,
    pub goal_status: Option<Spanned<String>>,
    /// Slot name to status (`unknown`, `asked`, `provided`, `waived`).
    pub slots: Option<Spanned<BTreeMap<String, String>>>,
    /// Slot name to value.
    pub slot_values: Option<Spanned<BTreeMap<String, String>>>,
    pub turn_count: Option<Spanned<u64>>,
    /// The number of finished goals (all of them, not only the state's window).
    pub history: Option<Spanned<u64>>,
    pub history_statuses: Option<Spanned<Vec<String>>>,
    pub history_reasons: Option<Spanned<Vec<String>>>,
    /// Whether the step's transitions include a milestone.
    pub milestone: Option<Spanned<bool>>,
    /// The reasons of the step's transitions, in order (`[]` for none).
    pub transitions: Option<Spanned<Vec<String>>>,
    pub summary_contains: Option<Spanned<Vec<String>>>,
    /// Text the server's assistant said in answer to the step (the guide), in any answer.
    pub answer_contains: Option<Spanned<Vec<String>>>,
    /// The types of the queued goals, oldest first (`[]` for none).
    pub queued: Option<Spanned<Vec<String>>>,
    /// Words the current goal's requested changes hold, each in one of them.
    pub requested_changes_contain: Option<Spanned<Vec<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    settings: Option<SettingsDef>,
    step: Vec<Spanned<StepDef>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsDef {
    idle_timeout: Option<Spanned<String>>,
    assistant: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepDef {
    user: Option<String>,
    assistant: Option<String>,
    artifact: Option<bool>,
    signal: Option<Spanned<String>>,
    wait: Option<Spanned<String>>,
    reconnect: Option<bool>,
    reset: Option<bool>,
    #[serde(default)]
    expect: Expect,
}

use crate::diagnostic::line_of;

/// Reads a script's text, or says `path:line: what is wrong`.
pub(crate) fn parse_text(path: &Path, text: &str) -> Result<Script, String> {
    let shown = path.display();
    let file: File = toml::from_str(text).map_err(|e| match e.span() {
        Some(span) => format!(
            "{shown}:{}: {}",
            line_of(text, span.start),
            e.message().trim()
        ),
        None => format!("{shown}: {}", e.message().trim()),
    })?;
    let at = |span: std::ops::Range<usize>| line_of(text, span.start);
    let (idle_timeout, assistant) = file
        .settings
        .map_or((None, None), |s| (s.idle_timeout, s.assistant));
    let assistant = match assistant {
        Some(a) => Some(
            a.get_ref()
                .parse::<crate::assistant::Mode>()
                .map_err(|e| format!("{shown}:{}: assistant: {e}", at(a.span())))?,
        ),
        None => None,
    };
    let idle_timeout = match idle_timeout {
        Some(d) => Some(
            crate::config::parse_duration(d.get_ref())
                .map_err(|e| format!("{shown}:{}: idle_timeout: {e}", at(d.span())))?,
        ),
        None => None,
    };
    let mut steps = Vec::new();
    for (i, def) in file.step.into_iter().enumerate() {
        let line = at(def.span());
        let def = def.into_inner();
        let mut actions = Vec::new();
        if let Some(text) = def.user {
            actions.push(Action::Message {
                role: crate::protocol::Role::User,
                text,
                artifact: false,
            });
        }
        if let Some(text) = def.assistant {
            actions.push(Action::Message {
                role: crate::protocol::Role::Assistant,
                text,
                artifact: def.artifact.unwrap_or(false),
            });
        } else if def.artifact.is_some() {
            return Err(format!(
                "{shown}:{line}: step {}: `artifact` goes with `assistant`",
                i + 1
            ));
        }
        if let Some(s) = def.signal {
            match crate::protocol::Signal::from_name(s.get_ref()).filter(|s| s.is_explicit()) {
                Some(signal) => actions.push(Action::Signal(signal)),
                None => {
                    return Err(format!(
                        "{shown}:{}: unknown signal \"{}\" (expected approve, start_work, work_done, satisfied, change_request or cancel)",
                        at(s.span()),
                        s.get_ref()
                    ));
                }
            }
        }
        if let Some(w) = def.wait {
            let d = crate::config::parse_duration(w.get_ref())
                .map_err(|e| format!("{shown}:{}: wait: {e}", at(w.span())))?;
            actions.push(Action::Wait(d.to_std().unwrap_or_default()));
        }
        if def.reconnect == Some(true) {
            actions.push(Action::Reconnect);
        }
        if def.reset == Some(true) {
            actions.push(Action::Reset);
        }
        if actions.len() != 1 {
            return Err(format!(
                "{shown}:{line}: step {} needs exactly one of user, assistant, signal, wait, reconnect = true, reset = true",
                i + 1
            ));
        }
        steps.push(ScriptStep {
            line,
            action: actions.remove(0),
            expect: def.expect,
        });
    }
    Ok(Script {
        path: path.to_path_buf(),
        name: file.name.unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default()
        }),
        idle_timeout,
        assistant,
        steps,
    })
}

/// One expectation that did not hold.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mismatch {
    pub line: usize,
    pub what: String,
    pub expected: String,
    pub got: String,
}

/// Compares the state after a step and the step's transitions with `expect`. `text` is the
/// script's source, for line numbers.
pub(crate) fn check(
    expect: &Expect,
    state: &Conversation,
    transitions: &[Transition],
    summary: &str,
    answers: &[String],
    text: &str,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let goal = state.current_goal.as_ref();
    let mut compare = |span: std::ops::Range<usize>, what: &str, expected: String, got: String| {
        if expected != got {
            out.push(Mismatch {
                line: line_of(text, span.start),
                what: what.to_string(),
                expected,
                got,
            });
        }
    };
    let none = || "none".to_string();
    if let Some(e) = &expect.phase {
        compare(
            e.span(),
            "phase",
            e.get_ref().clone(),
            state.phase.to_string(),
        );
    }
    if let Some(e) = &expect.goal_type {
        let got = goal.map_or_else(none, |g| g.goal_type.to_string());
        compare(e.span(), "goal type", e.get_ref().clone(), got);
    }
    if let Some(e) = &expect.description {
        let got = goal.map_or_else(none, |g| g.description.clone());
        compare(e.span(), "description", e.get_ref().clone(), got);
    }
    if let Some(e) = &expect.description_contains {
        let got = goal.map_or_else(none, |g| g.description.clone());
        if !got.contains(e.get_ref().as_str()) {
            compare(e.span(), "description contains", e.get_ref().clone(), got);
        }
    }
    if let Some(e) = &expect.goal_status {
        let got = goal.map_or_else(none, |g| g.status.to_string());
        compare(e.span(), "goal status", e.get_ref().clone(), got);
    }
    let slot = |name: &str| goal.and_then(|g| g.required_info.iter().find(|x| &*x.name == name));
    let missing = || "no such slot".to_string();
    if let Some(e) = &expect.slots {
        for (name, status) in e.get_ref() {
            let got = slot(name).map_or_else(missing, |x| x.status.to_string());
            compare(e.span(), &format!("slot {name}"), status.clone(), got);
        }
    }
    if let Some(e) = &expect.slot_values {
        for (name, value) in e.get_ref() {
            let got = slot(name).map_or_else(missing, |x| x.value.clone().unwrap_or_else(none));
            compare(e.span(), &format!("value of {name}"), value.clone(), got);
        }
    }
    if let Some(e) = &expect.queued {
        let got: Vec<String> = state
            .queued_goals
            .iter()
            .map(|q| q.goal_type.to_string())
            .collect();
        compare(
            e.span(),
            "queued goals",
            e.get_ref().join(", "),
            got.join(", "),
        );
    }
    if let Some(e) = &expect.requested_changes_contain {
        let changes = goal.map_or(&[][..], |g| &g.requested_changes[..]);
        for words in e.get_ref() {
            let held = changes
                .iter()
                .any(|c| c.to_lowercase().contains(&words.to_lowercase()));
            let got = if held {
                words.clone()
            } else {
                format!("{changes:?}")
            };
            compare(e.span(), "requested changes", words.clone(), got);
        }
    }
    if let Some(e) = &expect.turn_count {
        compare(
            e.span(),
            "turn count",
            e.get_ref().to_string(),
            state.turn_count.to_string(),
        );
    }
    if let Some(e) = &expect.history {
        compare(
            e.span(),
            "finished goals",
            e.get_ref().to_string(),
            state.completed_goals_total.to_string(),
        );
    }
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    let history = &state.completed_goals;
    if let Some(e) = &expect.history_statuses {
        let got = history.iter().map(|g| g.status.to_string()).collect();
        compare(
            e.span(),
            "finished goals' statuses",
            list(e.get_ref().clone()),
            list(got),
        );
    }
    if let Some(e) = &expect.history_reasons {
        let got = history
            .iter()
            .map(|g| g.reason.map_or_else(none, |r| r.to_string()))
            .collect();
        compare(
            e.span(),
            "finished goals' reasons",
            list(e.get_ref().clone()),
            list(got),
        );
    }
    if let Some(e) = &expect.milestone {
        let got = transitions.iter().any(|t| t.milestone);
        compare(
            e.span(),
            "milestone",
            e.get_ref().to_string(),
            got.to_string(),
        );
    }
    if let Some(e) = &expect.transitions {
        let got = transitions.iter().map(|t| t.reason.to_string()).collect();
        compare(
            e.span(),
            "transitions",
            list(e.get_ref().clone()),
            list(got),
        );
    }
    if let Some(e) = &expect.summary_contains {
        for line in e.get_ref() {
            if !summary.contains(line.as_str()) {
                compare(
                    e.span(),
                    "summary contains",
                    line.clone(),
                    summary.replace('\n', "\\n"),
                );
            }
        }
    }
    if let Some(e) = &expect.answer_contains {
        for words in e.get_ref() {
            if !answers.iter().any(|a| a.contains(words.as_str())) {
                let got = if answers.is_empty() {
                    "no answer".to_string()
                } else {
                    answers.join(" | ").replace('\n', "\\n")
                };
                compare(e.span(), "answer contains", words.clone(), got);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = r#"
name = "sample"
[settings]
idle_timeout = "2s"

[[step]]
user = "I want to build a todo app"
[step.expect]
phase = "understanding"
slots = { component_type = "provided" }
transitions = ["User stated a goal"]

[[step]]
wait = "1s"

[[step]]
signal = "approve"
"#;

    #[test]
    fn scripts_parse_with_lines() {
        let s = parse_text(Path::new("s.toml"), SCRIPT).unwrap();
        assert_eq!(s.name, "sample");
        assert_eq!(s.idle_timeout, Some(chrono::TimeDelta::seconds(2)));
        assert_eq!(s.steps.len(), 3);
        assert_eq!(s.steps[0].line, 6);
        assert_eq!(
            s.steps[2].action,
            Action::Signal(crate::conversation::Signal::Approve)
        );
        let engine = crate::patterns::builtin();
        let now = chrono::Utc::now();
        let mut state = engine.start("s-test", now);
        let input = crate::conversation::Input::Message {
            role: crate::conversation::Role::User,
            text: "Build a todo app",
            artifact: false,
        };
        engine.step(&mut state, input, now);
        state.phase = crate::conversation::Phase::Planning;
        if let Some(goal) = &mut state.current_goal {
            goal.required_info[0].status = crate::conversation::SlotStatus::Unknown;
        }
        let m = check(&s.steps[0].expect, &state, &[], "", &[], SCRIPT);
        assert_eq!(m.len(), 3);
        assert_eq!((m[0].line, m[0].what.as_str()), (9, "phase"));
        assert_eq!(
            (m[0].expected.as_str(), m[0].got.as_str()),
            ("understanding", "planning")
        );
        assert_eq!(m[1].line, 10);
        assert_eq!(m[2].what, "transitions");
    }

    #[test]
    fn bad_scripts_name_the_line() {
        let err = parse_text(
            Path::new("s.toml"),
            "[[step]]\nuser = \"a\"\nsignal = \"approve\"\n",
        )
        .unwrap_err();
        assert!(
            err.starts_with("s.toml:1: step 1 needs exactly one"),
            "{err}"
        );
        let err = parse_text(
            Path::new("s.toml"),
            "[[step]]\nuser = \"a\"\n[step.expect]\ncolour = 1\n",
        )
        .unwrap_err();
        assert!(
            err.starts_with("s.toml:4:") && err.contains("colour"),
            "{err}"
        );
        let err = parse_text(Path::new("s.toml"), "[[step]]\nsignal = \"dance\"\n").unwrap_err();
        assert!(err.starts_with("s.toml:2: unknown signal"), "{err}");
    }
}
