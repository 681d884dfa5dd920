//! Hosted flows: declarative state machines (`patterns/flows/*.toml`) that the server runs,
//! stores, sweeps and pushes to clients like conversations (docs/flows.md).
//!
//! This module reads and checks flow files ([`Flow::parse`]), and prints them as Mermaid
//! diagrams; [`run`] applies events to a running flow. Like `conversation`, it does no I/O and
//! reads no clock: times come in with the events.

pub mod expr;
mod lines;
pub mod run;
pub mod status;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

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

// The file, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileToml {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    document: Option<String>,
    initial: toml::Spanned<String>,
    #[serde(default)]
    settings: BTreeMap<String, toml::Spanned<toml::Value>>,
    #[serde(default)]
    counters: BTreeMap<String, i64>,
    #[serde(default)]
    values: BTreeMap<String, toml::Value>,
    states: Vec<toml::Spanned<StateToml>>,
    events: Vec<toml::Spanned<EventToml>>,
    transitions: Vec<toml::Spanned<RowToml>>,
    #[serde(default)]
    timers: Vec<toml::Spanned<TimerToml>>,
    #[serde(default)]
    differences: Vec<DifferenceToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateToml {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    terminal: bool,
    #[serde(default)]
    error: bool,
    #[serde(default, rename = "final")]
    last: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventToml {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    data: BTreeMap<String, String>,
    #[serde(default)]
    internal: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowToml {
    from: String,
    #[serde(default)]
    event: Option<String>,
    #[serde(default)]
    guard: Option<String>,
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    actions: Vec<String>,
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimerToml {
    name: String,
    event: String,
    after: String,
    #[serde(default = "entered")]
    since: String,
    #[serde(default, rename = "in")]
    states: Vec<String>,
}

fn entered() -> String {
    "$entered".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DifferenceToml {
    edge: String,
    reason: String,
}

/// The shortest and longest durations of a timer: a timer cannot fire in a loop, and its
/// deadline always stays a time the store can hold.
pub const MIN_DURATION: std::time::Duration = std::time::Duration::from_secs(1);
pub const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(366 * 24 * 3600);

/// A duration written as `30m`, `24h`, `2s`, between 1 s and 366 days.
pub fn duration(text: &str) -> Option<chrono::TimeDelta> {
    let d = humantime::parse_duration(text.trim()).ok()?;
    if !(MIN_DURATION..=MAX_DURATION).contains(&d) {
        return None;
    }
    chrono::TimeDelta::from_std(d).ok()
}

fn setting_value(v: &toml::Value) -> Option<Value> {
    Some(match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => serde_json::Number::from_f64(*f).map(Value::Number)?,
        toml::Value::Boolean(b) => Value::Bool(*b),
        _ => return None,
    })
}

/// A problem of a flow file: its path, its line (from 1) when it has one, and what is wrong;
/// shown as `path:line: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub path: String,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path, line, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl Flow {
    /// Reads and checks a flow file; every problem.
    pub fn parse(path: &str, text: &str) -> Result<Flow, Vec<Problem>> {
        let lines = lines::Lines::new(text);
        let problem = |line: Option<usize>, message: String| Problem {
            path: path.to_string(),
            line,
            message,
        };
        let file: FileToml = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| lines.of(s.start));
            vec![problem(line, e.message().trim().to_string())]
        })?;
        let mut errors = Vec::new();
        let mut err = |offset: Option<usize>, message: String| {
            errors.push(problem(offset.map(|o| lines.of(o)), message));
        };
        let ident = |s: &str| {
            !s.is_empty()
                && s.len() <= 64
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        };
        if !file
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            || file.name.is_empty()
        {
            err(
                None,
                format!("name \"{}\": lower-case letters, digits and -", file.name),
            );
        }
        // States (their names in a set: every row names states).
        let mut states = Vec::new();
        let mut state_names = BTreeSet::new();
        for s in &file.states {
            let at = Some(s.span().start);
            let s = s.get_ref();
            if !ident(&s.name) {
                err(
                    at,
                    format!("state \"{}\": lower-case letters, digits and _", s.name),
                );
            }
            if !state_names.insert(s.name.clone()) {
                err(at, format!("state \"{}\" is declared twice", s.name));
            }
            states.push(StateDef {
                name: s.name.clone(),
                description: s.description.clone(),
                terminal: s.terminal,
                error: s.error,
                last: s.last,
                line: at.map_or(0, |o| lines.of(o)),
            });
        }
        if states.len() > MAX_STATES {
            err(None, format!("more than {MAX_STATES} states"));
        }
        let is_state = |n: &str| state_names.contains(n);
        if !is_state(file.initial.get_ref()) {
            err(
                Some(file.initial.span().start),
                format!(
                    "initial state \"{}\" is not declared",
                    file.initial.get_ref()
                ),
            );
        }
        // Names: counters, values, settings share one namespace.
        let mut names: BTreeSet<String> = BTreeSet::new();
        let mut settings = BTreeMap::new();
        for (k, v) in &file.settings {
            match setting_value(v.get_ref()) {
                Some(value) => {
                    settings.insert(k.clone(), value);
                }
                None => err(
                    Some(v.span().start),
                    format!(
                        "setting \"{k}\": a number, a string, true or false, or a duration such as \"30m\""
                    ),
                ),
            }
        }
        let mut values = BTreeMap::new();
        for (k, v) in &file.values {
            match setting_value(v) {
                Some(value) => {
                    values.insert(k.clone(), value);
                }
                None => err(
                    None,
                    format!("value \"{k}\": a number, a string, true or false"),
                ),
            }
        }
        for k in file
            .counters
            .keys()
            .chain(file.values.keys())
            .chain(file.settings.keys())
        {
            if !ident(k) {
                err(None, format!("\"{k}\": lower-case letters, digits and _"));
            }
            if !names.insert(k.clone()) {
                err(
                    None,
                    format!(
                        "\"{k}\" is declared twice (counters, values and settings share their names)"
                    ),
                );
            }
        }
        if names.len() > MAX_NAMES {
            err(
                None,
                format!("more than {MAX_NAMES} counters, values and settings"),
            );
        }
        // Events.
        let mut events = Vec::new();
        let mut seen = BTreeSet::new();
        for e in &file.events {
            let at = Some(e.span().start);
            let e = e.get_ref();
            if !ident(&e.name) {
                err(
                    at,
                    format!("event \"{}\": lower-case letters, digits and _", e.name),
                );
            }
            if !seen.insert(e.name.clone()) {
                err(at, format!("event \"{}\" is declared twice", e.name));
            }
            let mut data = Vec::new();
            for (k, t) in &e.data {
                let (kind, optional) = match t.strip_suffix('?') {
                    Some(kind) => (kind, true),
                    None => (t.as_str(), false),
                };
                match DataType::parse(kind) {
                    Some(kind) => data.push(Field {
                        name: k.clone(),
                        kind,
                        optional,
                    }),
                    None => err(
                        at,
                        format!(
                            "event \"{}\": data \"{k}\": type \"{t}\" is not int, count, number, string or bool (with ? when optional)",
                            e.name
                        ),
                    ),
                }
            }
            events.push(EventDef {
                name: e.name.clone(),
                description: e.description.clone(),
                data,
                internal: e.internal,
                line: at.map_or(0, |o| lines.of(o)),
            });
        }
        let event_at: BTreeMap<&str, usize> = events
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.as_str(), i))
            .collect();
        let event_named = |name: &str| event_at.get(name).map(|i| &events[*i]);
        if events.len() > MAX_EVENTS {
            err(None, format!("more than {MAX_EVENTS} events"));
        }
        // Transitions.
        let mut rows = Vec::new();
        if file.transitions.len() > MAX_TRANSITIONS {
            err(None, format!("more than {MAX_TRANSITIONS} transitions"));
        }
        for r in &file.transitions {
            let offset = r.span().start;
            let at = Some(offset);
            let line = lines.of(offset);
            let r = r.get_ref();
            let from = if r.from == "*" {
                From::Any
            } else {
                if !is_state(&r.from) {
                    err(at, format!("from \"{}\" is not a declared state", r.from));
                }
                From::State(r.from.clone())
            };
            let to = match r.to.as_deref() {
                None => To::Stay,
                Some("$previous") => To::Previous,
                Some(s) => {
                    if !is_state(s) {
                        err(at, format!("to \"{s}\" is not a declared state"));
                    }
                    To::State(s.to_string())
                }
            };
            let event = r.event.clone();
            let def = event.as_ref().and_then(|e| event_named(e));
            if let Some(e) = &event
                && def.is_none()
            {
                err(at, format!("event \"{e}\" is not declared"));
            }
            if event.is_none() && r.guard.is_none() && from == From::Any {
                err(
                    at,
                    "an automatic transition from \"*\" needs a guard".into(),
                );
            }
            let data_ok = |n: &str| def.is_some_and(|d| d.data.iter().any(|f| f.name == n));
            let guard = match r.guard.as_deref().map(expr::guard) {
                None => None,
                Some(Ok(g)) => {
                    for (a, _, b) in &g.all {
                        for e in [a, b] {
                            for n in e.names() {
                                if !names.contains(n) {
                                    err(
                                        at,
                                        format!(
                                            "guard \"{}\": \"{n}\" is not a counter, value or setting",
                                            g.text
                                        ),
                                    );
                                }
                            }
                            for n in e.data_names() {
                                if !data_ok(n) {
                                    err(
                                        at,
                                        format!(
                                            "guard \"{}\": data.{n} is not in the event's data",
                                            g.text
                                        ),
                                    );
                                }
                            }
                        }
                    }
                    Some(g)
                }
                Some(Err(e)) => {
                    err(at, format!("guard: {e}"));
                    None
                }
            };
            let mut actions = Vec::new();
            for a in &r.actions {
                match expr::action(a) {
                    Ok(action) => {
                        let target = action.target();
                        let is_counter = file.counters.contains_key(target);
                        let is_value = file.values.contains_key(target);
                        if !is_counter && !is_value {
                            err(
                                at,
                                format!("action \"{a}\": \"{target}\" is not a counter or value"),
                            );
                        }
                        if matches!(action, Action::Add(..)) && !is_counter {
                            err(at, format!("action \"{a}\": only counters are added to"));
                        }
                        if let Action::Set(_, e) | Action::Add(_, e) = &action {
                            for n in e.names().chain(
                                e.template_names()
                                    .into_iter()
                                    .filter(|n| !n.starts_with("data.") && *n != "$state"),
                            ) {
                                if !names.contains(n) {
                                    err(
                                        at,
                                        format!(
                                            "action \"{a}\": \"{n}\" is not a counter, value or setting"
                                        ),
                                    );
                                }
                            }
                            for n in e.data_names().chain(
                                e.template_names()
                                    .into_iter()
                                    .filter_map(|n| n.strip_prefix("data.")),
                            ) {
                                if !data_ok(n) {
                                    err(
                                        at,
                                        format!(
                                            "action \"{a}\": data.{n} is not in the event's data"
                                        ),
                                    );
                                }
                            }
                        }
                        actions.push(action);
                    }
                    Err(e) => err(at, format!("action: {e}")),
                }
            }
            rows.push(Row {
                from,
                event,
                guard,
                to,
                actions,
                reason: r.reason.clone(),
                line,
            });
        }
        // Timers.
        let mut timers = Vec::new();
        for t in &file.timers {
            let at = Some(t.span().start);
            let t = t.get_ref();
            match event_named(&t.event) {
                Some(e) if !e.internal => err(
                    at,
                    format!(
                        "timer \"{}\": event \"{}\" is not internal (a timer's event is the flow's own)",
                        t.name, t.event
                    ),
                ),
                Some(_) => {}
                None => err(
                    at,
                    format!(
                        "timer \"{}\": event \"{}\" is not declared",
                        t.name, t.event
                    ),
                ),
            }
            let after = match duration(&t.after) {
                Some(d) => After::Fixed(d),
                None => match settings.get(&t.after) {
                    Some(Value::String(s)) if duration(s).is_some() => {
                        After::Setting(t.after.clone())
                    }
                    _ => {
                        err(
                            at,
                            format!(
                                "timer \"{}\": after \"{}\" is neither a duration nor a setting holding one",
                                t.name, t.after
                            ),
                        );
                        After::Fixed(chrono::TimeDelta::zero())
                    }
                },
            };
            let since = match t.since.as_str() {
                "$entered" => Since::Entered,
                "$created" => Since::Created,
                n => {
                    if !file.counters.contains_key(n) && !file.values.contains_key(n) {
                        err(
                            at,
                            format!(
                                "timer \"{}\": since \"{n}\" is not $entered, $created, a counter or a value",
                                t.name
                            ),
                        );
                    }
                    Since::Changed(n.to_string())
                }
            };
            for s in &t.states {
                if !is_state(s) {
                    err(
                        at,
                        format!("timer \"{}\": state \"{s}\" is not declared", t.name),
                    );
                }
            }
            timers.push(Timer {
                name: t.name.clone(),
                event: t.event.clone(),
                after,
                since,
                states: t.states.clone(),
            });
        }
        let flow = Flow {
            name: file.name,
            description: file.description,
            document: file.document,
            initial: file.initial.into_inner(),
            states,
            events,
            rows,
            counters: file.counters,
            values,
            settings,
            timers,
            differences: file
                .differences
                .into_iter()
                .map(|d| Difference {
                    edge: d.edge,
                    reason: d.reason,
                })
                .collect(),
        };
        if errors.is_empty() {
            for (line, message) in flow.problems() {
                errors.push(problem(Some(line), message));
            }
        }
        if errors.is_empty() {
            Ok(flow)
        } else {
            Err(errors)
        }
    }

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
