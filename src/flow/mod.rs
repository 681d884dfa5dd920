//! Hosted flows: declarative state machines (`patterns/flows/*.toml`) that the server runs,
//! stores, sweeps and pushes to clients like conversations (docs/flows.md).
//!
//! This module reads and checks flow files ([`Flow::parse`]), and prints them as Mermaid
//! diagrams; [`run`] applies events to a running flow. Like `conversation`, it does no I/O and
//! reads no clock: times come in with the events.

pub mod expr;
pub mod lines;
mod parse;
pub mod run;
pub mod status;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

pub use parse::{MAX_DURATION, MIN_DURATION, Problem, duration};
pub use run::{FlowRun, Invalid, Move, Restore};

use expr::{Action, Guard};

/// The flows shipped in the binary (`patterns/flows/`), by file name.
pub const BUILTIN: [(&str, &str); 7] = [
    (
        "conductor-ui.toml",
        include_str!("../../patterns/flows/conductor-ui.toml"),
    ),
    (
        "workflow.toml",
        include_str!("../../patterns/flows/workflow.toml"),
    ),
    ("task.toml", include_str!("../../patterns/flows/task.toml")),
    (
        "retry.toml",
        include_str!("../../patterns/flows/retry.toml"),
    ),
    (
        "circuit-breaker.toml",
        include_str!("../../patterns/flows/circuit-breaker.toml"),
    ),
    (
        "discovery.toml",
        include_str!("../../patterns/flows/discovery.toml"),
    ),
    (
        "moderator.toml",
        include_str!("../../patterns/flows/moderator.toml"),
    ),
];

/// Bounds of a flow file (what a flow may make a session hold).
pub const MAX_STATES: usize = 64;
pub const MAX_EVENTS: usize = 64;
pub const MAX_TRANSITIONS: usize = 512;
pub const MAX_NAMES: usize = 64;
/// The longest string a value may hold (event data, templates), in bytes.
pub const MAX_VALUE_BYTES: usize = 2000;
/// Moves one event may make (its own, then automatic ones): a bound on loops.
pub const MAX_MOVES: usize = 8;

/// The type of an event's data field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    Int,
    /// A whole number, 0 or more (a count reported).
    Count,
    Number,
    String,
    Bool,
}

/// One field of an event's data: required unless its type ends with `?` (`"string?"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub kind: DataType,
    pub optional: bool,
}

impl Field {
    /// Its type as written (`int`, `string?` ...).
    pub fn type_text(&self) -> String {
        format!(
            "{}{}",
            self.kind.as_str(),
            if self.optional { "?" } else { "" }
        )
    }
}

impl DataType {
    fn parse(s: &str) -> Option<DataType> {
        Some(match s {
            "int" => DataType::Int,
            "count" => DataType::Count,
            "number" => DataType::Number,
            "string" => DataType::String,
            "bool" => DataType::Bool,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            DataType::Int => "int",
            DataType::Count => "count",
            DataType::Number => "number",
            DataType::String => "string",
            DataType::Bool => "bool",
        }
    }
    /// Whether `v` is of this type.
    pub fn admits(self, v: &Value) -> bool {
        match self {
            DataType::Int => v.as_i64().is_some(),
            DataType::Count => v.as_u64().is_some(),
            DataType::Number => v.as_f64().is_some(),
            DataType::String => v.as_str().is_some_and(|s| s.len() <= MAX_VALUE_BYTES),
            DataType::Bool => v.is_boolean(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct StateDef {
    pub name: String,
    pub description: String,
    pub terminal: bool,
    /// Entering it remembers the state it came from (for `$previous`).
    pub error: bool,
    /// The flow may end here (drawn `--> [*]`), though it still takes events.
    pub last: bool,
    /// Where it is declared in its file.
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EventDef {
    pub name: String,
    pub description: String,
    pub data: Vec<Field>,
    /// Sent by the flow's timers only, never by a client.
    pub internal: bool,
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum From {
    State(String),
    /// Any state that is not terminal.
    Any,
}

#[derive(Clone, Debug, PartialEq)]
pub enum To {
    State(String),
    /// The state before the last error.
    Previous,
    /// Where it is.
    Stay,
}

/// One row of the transition table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub from: From,
    /// `None`: automatic, checked after every event.
    pub event: Option<String>,
    pub guard: Option<Guard>,
    pub to: To,
    pub actions: Vec<Action>,
    pub reason: String,
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Since {
    /// Entering the current state.
    Entered,
    /// The session's start.
    Created,
    /// The last change of a counter or value.
    Changed(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum After {
    Fixed(chrono::TimeDelta),
    /// A setting holding a duration.
    Setting(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Timer {
    pub name: String,
    pub event: String,
    pub after: After,
    pub since: Since,
    /// The states it runs in (every one that is not terminal when empty).
    pub states: Vec<String>,
}

/// An edge of the design document's diagram this flow does not have, or the other way round,
/// and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub edge: String,
    pub reason: String,
}

/// A checked flow.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub name: String,
    pub description: String,
    /// The design document and the heading of its diagram (`FILE#HEADING`).
    pub document: Option<String>,
    pub initial: String,
    pub states: Vec<StateDef>,
    pub events: Vec<EventDef>,
    pub rows: Vec<Row>,
    pub counters: BTreeMap<String, i64>,
    pub values: BTreeMap<String, Value>,
    pub settings: BTreeMap<String, Value>,
    pub timers: Vec<Timer>,
    pub differences: Vec<Difference>,
}

impl Flow {
    pub fn state(&self, name: &str) -> Option<&StateDef> {
        self.states.iter().find(|s| s.name == name)
    }

    pub fn event(&self, name: &str) -> Option<&EventDef> {
        self.events.iter().find(|e| e.name == name)
    }

    fn row_from(&self, row: &Row, state: &str) -> bool {
        match &row.from {
            From::State(s) => s == state,
            From::Any => !self.state(state).is_some_and(|s| s.terminal),
        }
    }

    /// The rows that may apply in `state` (for `event`, or the automatic ones), in order.
    pub fn rows_from<'a>(
        &'a self,
        state: &'a str,
        event: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Row> + 'a {
        self.rows
            .iter()
            .filter(move |r| self.row_from(r, state) && r.event.as_deref() == event)
    }

    /// The events a client may send in `state` (those with a row from it), in declaration order.
    pub fn allowed(&self, state: &str) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| !e.internal && self.rows_from(state, Some(&e.name)).next().is_some())
            .map(|e| e.name.clone())
            .collect()
    }

    /// Every edge (from, to, label) of the flow, `*` rows spread over the states they apply
    /// to, `$previous` over the states an error state can be entered from.
    pub fn edges(&self) -> Vec<(String, String, String)> {
        self.edges_with(false)
    }

    /// The edges as drawn: [`Flow::edges`], but `$previous` as one edge to `previous_state`.
    pub fn diagram_edges(&self) -> Vec<(String, String, String)> {
        self.edges_with(true)
    }

    fn edges_with(&self, drawn: bool) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for row in &self.rows {
            let label = row.event.clone().unwrap_or_else(|| {
                row.guard
                    .as_ref()
                    .map(|g| g.text.clone())
                    .unwrap_or_default()
            });
            let froms: Vec<String> = match &row.from {
                From::State(s) => vec![s.clone()],
                From::Any => self
                    .states
                    .iter()
                    .filter(|s| !s.terminal)
                    .map(|s| s.name.clone())
                    .collect(),
            };
            for from in froms {
                let targets = match &row.to {
                    To::State(s) => vec![s.clone()],
                    To::Stay => vec![from.clone()],
                    To::Previous if drawn => vec!["previous_state".to_string()],
                    To::Previous => self.entered_from_error(&from),
                };
                for to in targets {
                    out.push((from.clone(), to, label.clone()));
                }
            }
        }
        out
    }

    /// The states from which `error_state` is entered (where `$previous` may lead back to).
    fn entered_from_error(&self, error_state: &str) -> Vec<String> {
        let mut out = BTreeSet::new();
        for row in &self.rows {
            if row.to == To::State(error_state.to_string()) {
                match &row.from {
                    From::State(s) if s != error_state => {
                        out.insert(s.clone());
                    }
                    From::Any => {
                        for s in self
                            .states
                            .iter()
                            .filter(|s| !s.terminal && s.name != error_state)
                        {
                            out.insert(s.name.clone());
                        }
                    }
                    _ => {}
                }
            }
        }
        out.into_iter().collect()
    }

    /// What `convstate flow check` reports, each with its line: states not reachable from the
    /// initial one, states with no way out that are not terminal, events no row or timer uses,
    /// `$previous` out of a state that is not an error state.
    pub fn problems(&self) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        let edges = self.edges();
        let mut reached = BTreeSet::from([self.initial.clone()]);
        loop {
            let before = reached.len();
            for (from, to, _) in &edges {
                if reached.contains(from) {
                    reached.insert(to.clone());
                }
            }
            if reached.len() == before {
                break;
            }
        }
        for s in &self.states {
            if !reached.contains(&s.name) {
                out.push((
                    s.line,
                    format!(
                        "state \"{}\" cannot be reached from \"{}\"",
                        s.name, self.initial
                    ),
                ));
            }
            let leaves = edges.iter().any(|(f, t, _)| f == &s.name && t != &s.name);
            if !s.terminal && !leaves {
                out.push((
                    s.line,
                    format!("state \"{}\" has no way out and is not terminal", s.name),
                ));
            }
            if s.terminal
                && self
                    .rows
                    .iter()
                    .any(|r| r.from == From::State(s.name.clone()))
            {
                out.push((
                    s.line,
                    format!("state \"{}\" is terminal but has transitions out", s.name),
                ));
            }
        }
        for e in &self.events {
            let used = self
                .rows
                .iter()
                .any(|r| r.event.as_deref() == Some(&e.name));
            if !used {
                out.push((
                    e.line,
                    format!("event \"{}\" is used by no transition", e.name),
                ));
            }
            if e.internal && !self.timers.iter().any(|t| t.event == e.name) {
                out.push((
                    e.line,
                    format!("event \"{}\" is internal but no timer sends it", e.name),
                ));
            }
        }
        for r in &self.rows {
            if r.to == To::Previous
                && let From::State(s) = &r.from
                && !self.state(s).is_some_and(|s| s.error)
            {
                out.push((
                    r.line,
                    format!("$previous out of \"{s}\", which is not an error state"),
                ));
            }
        }
        out.sort_by_key(|(line, _)| *line);
        out
    }

    /// The flow as a Mermaid `stateDiagram-v2`: a row back to the state before an error is
    /// drawn to `previous_state`, as the design documents draw it.
    pub fn mermaid(&self) -> String {
        let mut out = String::from("stateDiagram-v2\n");
        out.push_str(&format!("    [*] --> {}\n", self.initial));
        let mut seen = BTreeSet::new();
        for (from, to, label) in self.diagram_edges() {
            if seen.insert((from.clone(), to.clone(), label.clone())) {
                out.push_str(&format!("    {from} --> {to} : {label}\n"));
            }
        }
        for s in self.states.iter().filter(|s| s.terminal || s.last) {
            out.push_str(&format!("    {} --> [*]\n", s.name));
        }
        out
    }
}

/// The flows a server runs, by name.
#[derive(Clone, Debug, Default)]
pub struct Flows {
    by_name: BTreeMap<String, Arc<Flow>>,
}

impl Flows {
    /// The shipped flows.
    pub fn builtin() -> Flows {
        let texts: Vec<(String, String)> = BUILTIN
            .iter()
            .map(|(f, t)| (format!("patterns/flows/{f}"), t.to_string()))
            .collect();
        match Flows::from_texts(&texts) {
            Ok(f) => f,
            Err(e) => panic!(
                "the built-in flows are checked by the tests: {}",
                e.iter()
                    .map(Problem::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        }
    }

    /// Flows from (path, text) pairs; every problem of every file.
    pub fn from_texts(files: &[(String, String)]) -> Result<Flows, Vec<Problem>> {
        let mut by_name = BTreeMap::new();
        let mut errors = Vec::new();
        for (path, text) in files {
            match Flow::parse(path, text) {
                Ok(flow) => {
                    let whole = |message: String| Problem {
                        path: path.clone(),
                        line: None,
                        message,
                    };
                    if flow.name == "conversation" {
                        errors.push(whole(
                            "\"conversation\" is the built-in conversation's name".to_string(),
                        ));
                    } else if by_name.contains_key(&flow.name) {
                        errors.push(whole(format!(
                            "a flow named \"{}\" is already read",
                            flow.name
                        )));
                    } else {
                        by_name.insert(flow.name.clone(), Arc::new(flow));
                    }
                }
                Err(e) => errors.extend(e),
            }
        }
        if errors.is_empty() {
            Ok(Flows { by_name })
        } else {
            Err(errors)
        }
    }

    /// The shipped flows, read once per process.
    pub fn shipped() -> Arc<Flows> {
        static SHIPPED: std::sync::OnceLock<Arc<Flows>> = std::sync::OnceLock::new();
        SHIPPED.get_or_init(|| Arc::new(Flows::builtin())).clone()
    }

    pub fn get(&self, name: &str) -> Option<&Arc<Flow>> {
        self.by_name.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_flows_load_and_pass_their_checks() {
        let flows = Flows::builtin();
        let names: Vec<&str> = flows.names().collect();
        assert_eq!(
            names,
            [
                "circuit-breaker",
                "conductor-ui",
                "discovery",
                "moderator",
                "retry",
                "task",
                "workflow"
            ]
        );
    }

    #[test]
    fn problems_are_said_with_their_line() {
        let text = "name = \"x\"\ninitial = \"a\"\n[[states]]\nname = \"a\"\n[[states]]\nname = \"b\"\n[[events]]\nname = \"go\"\n[[transitions]]\nfrom = \"a\"\nevent = \"go\"\nto = \"c\"\nguard = \"n >= 1\"\nreason = \"r\"\n";
        let errors: Vec<String> = Flow::parse("f.toml", text)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with("f.toml:9:") && e.contains("to \"c\"")),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with("f.toml:9:") && e.contains("\"n\" is not a counter")),
            "{errors:?}"
        );
        let broken: Vec<String> = Flow::parse("f.toml", "name = \"x\"\ninitial = 3\n")
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(broken[0].starts_with("f.toml:2:"), "{broken:?}");
    }
}
