//! Reading and checking a flow file: the file as written (TOML), every problem with its line,
//! and the [`Flow`] it describes.

use super::*;

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
}
