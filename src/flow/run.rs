//! A running flow: its state, counters and values, and the rule that applies an event to them.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::expr::{Action, Scope};
use super::{After, Field, Flow, MAX_MOVES, MAX_VALUE_BYTES, Since, To};

/// The state of a running flow: what `state` frames carry, and what its snapshots hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowRun {
    pub flow: String,
    pub state: String,
    /// The state before the last error (where `$previous` returns to).
    pub previous_state: Option<String>,
    pub counters: BTreeMap<String, i64>,
    pub values: BTreeMap<String, Value>,
    /// The flow's settings, with this session's own.
    pub settings: BTreeMap<String, Value>,
    /// The events a client may send now.
    pub allowed_events: Vec<String>,
    /// Whether the state is terminal (nothing more is taken).
    pub ended: bool,
    /// Events applied so far.
    pub events: u64,
    pub started_at: DateTime<Utc>,
    /// The run's last change.
    pub updated_at: DateTime<Utc>,
    /// When the current state was entered.
    pub entered_at: DateTime<Utc>,
    /// When each counter and value last changed.
    pub changed_at: BTreeMap<String, DateTime<Utc>>,
    /// Each timer that fired, with the time it counted from (it fires again only from another).
    pub fired: BTreeMap<String, DateTime<Utc>>,
    /// When the next timer falls due.
    pub next_timer: Option<DateTime<Utc>>,
}

/// A move of the flow: `from` → `to` by `event` (a timer's too), and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Move {
    pub from: String,
    pub to: String,
    /// `None` for an automatic transition.
    pub event: Option<String>,
    pub reason: String,
}

/// A state to start a flow in (an import, such as a STATUS.md file), checked against the flow.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Restore {
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_state: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, i64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, Value>,
}

/// An event refused: why, and what the state allows. The state is untouched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    pub message: String,
    pub allowed: Vec<String>,
}

struct Env<'a> {
    run: &'a FlowRun,
    data: &'a Map<String, Value>,
}

impl Scope for Env<'_> {
    fn name(&self, name: &str) -> Option<Value> {
        if let Some(c) = self.run.counters.get(name) {
            return Some(Value::from(*c));
        }
        if let Some(v) = self.run.values.get(name) {
            return Some(v.clone());
        }
        self.run.settings.get(name).cloned()
    }
    fn data(&self, name: &str) -> Option<Value> {
        self.data.get(name).cloned()
    }
    fn state(&self) -> &str {
        &self.run.state
    }
}

/// A setting's value from its text, as the default's type has it.
fn parse_setting(default: &Value, text: &str) -> Option<Value> {
    match default {
        Value::Number(n) if n.is_i64() => text.trim().parse::<i64>().ok().map(Value::from),
        Value::Number(_) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        Value::Bool(_) => text.trim().parse::<bool>().ok().map(Value::Bool),
        Value::String(s) if super::duration(s).is_some() => {
            super::duration(text).map(|_| Value::String(text.trim().to_string()))
        }
        Value::String(_) => {
            (text.len() <= MAX_VALUE_BYTES).then(|| Value::String(text.to_string()))
        }
        _ => None,
    }
}

impl FlowRun {
    /// A new run of `flow` at `now`, with `overrides` of its settings (by name, as text).
    pub fn start(
        flow: &Flow,
        overrides: &BTreeMap<String, String>,
        now: DateTime<Utc>,
    ) -> Result<FlowRun, String> {
        let mut settings = flow.settings.clone();
        for (k, text) in overrides {
            let Some(default) = flow.settings.get(k) else {
                let known: Vec<&str> = flow.settings.keys().map(String::as_str).collect();
                return Err(format!(
                    "flow {} has no setting \"{k}\" (it has: {})",
                    flow.name,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ));
            };
            let value = parse_setting(default, text).ok_or_else(|| {
                format!("setting \"{k}\": \"{text}\" is not of the type of its default {default}")
            })?;
            settings.insert(k.clone(), value);
        }
        let mut run = FlowRun {
            flow: flow.name.clone(),
            state: flow.initial.clone(),
            previous_state: None,
            counters: flow.counters.clone(),
            values: flow.values.clone(),
            settings,
            allowed_events: Vec::new(),
            ended: false,
            events: 0,
            started_at: now,
            updated_at: now,
            entered_at: now,
            changed_at: BTreeMap::new(),
            fired: BTreeMap::new(),
            next_timer: None,
        };
        run.settle(flow);
        Ok(run)
    }

    /// This run put in `state` with these counters and values (an import: a STATUS.md file);
    /// each checked against the flow.
    pub fn restore(
        &mut self,
        flow: &Flow,
        state: &str,
        previous: Option<&str>,
        counters: &BTreeMap<String, i64>,
        values: &BTreeMap<String, Value>,
    ) -> Result<(), String> {
        if flow.state(state).is_none() {
            return Err(format!("flow {}: no state \"{state}\"", flow.name));
        }
        if let Some(p) = previous {
            if flow.state(p).is_none() {
                return Err(format!("flow {}: no state \"{p}\"", flow.name));
            }
            if p == state || flow.state(p).is_some_and(|s| s.error) {
                return Err(format!(
                    "flow {}: previous_state \"{p}\" cannot be the state before an error",
                    flow.name
                ));
            }
        }
        for (k, v) in counters {
            if !self.counters.contains_key(k) {
                return Err(format!("flow {}: no counter \"{k}\"", flow.name));
            }
            self.counters.insert(k.clone(), *v);
        }
        for (k, v) in values {
            if !self.values.contains_key(k) {
                return Err(format!("flow {}: no value \"{k}\"", flow.name));
            }
            if v.as_str().is_some_and(|s| s.len() > MAX_VALUE_BYTES) {
                return Err(format!(
                    "value \"{k}\": longer than {MAX_VALUE_BYTES} bytes"
                ));
            }
            self.values.insert(k.clone(), v.clone());
        }
        self.state = state.to_string();
        self.previous_state = previous.map(str::to_string);
        self.settle(flow);
        Ok(())
    }

    /// Applies a client's event at `now`; refused (the run untouched) when the flow does not
    /// take it in this state, its data is not what the event declares, or no guard holds.
    pub fn apply(
        &mut self,
        flow: &Flow,
        event: &str,
        data: &Map<String, Value>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Move>, Invalid> {
        let invalid = |message: String| Invalid {
            message,
            allowed: self.allowed_events.clone(),
        };
        let Some(def) = flow.event(event) else {
            return Err(invalid(format!(
                "flow {} has no event \"{event}\"",
                flow.name
            )));
        };
        if def.internal {
            return Err(invalid(format!(
                "\"{event}\" is sent by the flow's timers, not by clients"
            )));
        }
        if self.ended {
            return Err(invalid(format!(
                "the flow has ended in \"{}\": it takes no more events",
                self.state
            )));
        }
        for field in def.data.iter().filter(|f| !f.optional) {
            if data.get(&field.name).is_none_or(Value::is_null) {
                return Err(invalid(format!(
                    "event \"{event}\" needs data \"{}\" ({})",
                    field.name,
                    field.kind.as_str()
                )));
            }
        }
        for (k, v) in data {
            match def.data.iter().find(|f| &f.name == k) {
                None => {
                    let known: Vec<&str> = def.data.iter().map(|f| f.name.as_str()).collect();
                    return Err(invalid(format!(
                        "event \"{event}\" has no data \"{k}\" (it takes: {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    )));
                }
                Some(f) if f.optional && v.is_null() => {}
                Some(Field { kind: t, .. }) if !t.admits(v) => {
                    return Err(invalid(format!(
                        "event \"{event}\": data \"{k}\" must be {} ({v} is not)",
                        match t {
                            super::DataType::Int => "an integer",
                            super::DataType::Count => "a whole number, 0 or more",
                            super::DataType::Number => "a number",
                            super::DataType::String => "a string (at most 2000 bytes)",
                            super::DataType::Bool => "true or false",
                        }
                    )));
                }
                Some(_) => {}
            }
        }
        // Timers that fell due before the event are applied first, in the same change: the
        // outcome depends on the times logged, not on when the sweeper ran.
        let mut next = self.clone();
        let mut moves = next.tick(flow, now);
        if next.ended {
            return Err(Invalid {
                message: format!(
                    "the flow has ended in \"{}\" (its timer fell due first): it takes no more events",
                    next.state
                ),
                allowed: Vec::new(),
            });
        }
        moves.extend(next.step(flow, Some(event), data, now).map_err(invalid)?);
        next.events += 1;
        next.updated_at = now;
        next.settle(flow);
        *self = next;
        Ok(moves)
    }

    /// The timers due at `now`, applied in the order they fell due (their events go through
    /// the transitions as clients' do); the moves they made.
    pub fn tick(&mut self, flow: &Flow, now: DateTime<Utc>) -> Vec<Move> {
        let mut moves = Vec::new();
        for _ in 0..MAX_MOVES {
            if self.ended {
                break;
            }
            let Some((timer, base, _)) = self
                .due_timers(flow)
                .into_iter()
                .find(|(_, _, at)| *at <= now)
            else {
                break;
            };
            let name = flow.timers[timer].name.clone();
            let event = flow.timers[timer].event.clone();
            let mut next = self.clone();
            next.fired.insert(name, base);
            next.updated_at = now;
            if let Ok(more) = next.step(flow, Some(&event), &Map::new(), now) {
                moves.extend(more);
            }
            next.settle(flow);
            *self = next;
        }
        moves
    }

    /// Timers that may fire in the current state, with the time each counts from and falls due
    /// at, earliest first.
    fn due_timers(&self, flow: &Flow) -> Vec<(usize, DateTime<Utc>, DateTime<Utc>)> {
        let mut out = Vec::new();
        for (i, t) in flow.timers.iter().enumerate() {
            let applies = if t.states.is_empty() {
                !self.ended
            } else {
                t.states.iter().any(|s| s == &self.state)
            };
            if !applies {
                continue;
            }
            let base = match &t.since {
                Since::Entered => self.entered_at,
                Since::Created => self.started_at,
                Since::Changed(n) => self.changed_at.get(n).copied().unwrap_or(self.started_at),
            };
            if self.fired.get(&t.name) == Some(&base) {
                continue;
            }
            let after = match &t.after {
                After::Fixed(d) => *d,
                After::Setting(s) => self
                    .settings
                    .get(s)
                    .and_then(Value::as_str)
                    .and_then(super::duration)
                    .unwrap_or_default(),
            };
            // A deadline past what a time can hold never falls due.
            if let Some(at) = base.checked_add_signed(after) {
                out.push((i, base, at));
            }
        }
        out.sort_by_key(|(_, _, at)| *at);
        out
    }

    /// One event (or none: the automatic rows only) and the automatic rows after it.
    fn step(
        &mut self,
        flow: &Flow,
        event: Option<&str>,
        data: &Map<String, Value>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Move>, String> {
        let mut moves = Vec::new();
        if let Some(event) = event {
            let mut why = None;
            let mut taken = None;
            let here = self.state.clone();
            for row in flow.rows_from(&here, Some(event)) {
                match &row.guard {
                    Some(g) => match g.check(&Env { run: self, data }) {
                        Ok(()) => {
                            taken = Some(row);
                            break;
                        }
                        Err(e) => {
                            why.get_or_insert(format!("guard {} does not hold: {e}", g.text));
                        }
                    },
                    None => {
                        taken = Some(row);
                        break;
                    }
                }
            }
            let Some(row) = taken else {
                return Err(why.unwrap_or_else(|| {
                    format!(
                        "event \"{event}\" is not allowed in state \"{}\"",
                        self.state
                    )
                }));
            };
            moves.push(self.take(flow, row, data, now)?);
        }
        // Automatic rows: the first whose guard holds, again, a few times at most.
        while moves.len() < MAX_MOVES && !self.ended {
            let here = self.state.clone();
            let row = flow.rows_from(&here, None).find(|r| {
                r.guard.as_ref().is_none_or(|g| {
                    g.check(&Env {
                        run: self,
                        data: &Map::new(),
                    })
                    .is_ok()
                })
            });
            let Some(row) = row else { break };
            let m = self.take(flow, row, &Map::new(), now)?;
            let stayed = m.from == m.to;
            moves.push(m);
            if stayed {
                break;
            }
        }
        Ok(moves)
    }

    fn take(
        &mut self,
        flow: &Flow,
        row: &super::Row,
        data: &Map<String, Value>,
        now: DateTime<Utc>,
    ) -> Result<Move, String> {
        let target = match &row.to {
            To::State(s) => s.clone(),
            To::Stay => self.state.clone(),
            To::Previous => match &self.previous_state {
                Some(p) => p.clone(),
                None => {
                    return Err(format!(
                        "there is no state to return to from \"{}\" (none was remembered)",
                        self.state
                    ));
                }
            },
        };
        for action in &row.actions {
            let (name, value) = match action {
                Action::Set(n, e) => (n, e.eval(&Env { run: self, data })),
                Action::Add(n, e) => {
                    // Nothing to add (an optional field left out): the counter stays.
                    let Some(add) = e.eval(&Env { run: self, data }).and_then(|v| v.as_f64())
                    else {
                        continue;
                    };
                    let now_v = self.counters.get(n).copied().unwrap_or(0) as f64;
                    let sum = (now_v + add)
                        .round()
                        .clamp(i64::MIN as f64, i64::MAX as f64);
                    (n, Some(Value::from(sum as i64)))
                }
                Action::Reset(n) => (
                    n,
                    Some(
                        flow.counters
                            .get(n)
                            .map(|c| Value::from(*c))
                            .or_else(|| flow.values.get(n).cloned())
                            .unwrap_or(Value::Null),
                    ),
                ),
            };
            let value = value.unwrap_or(Value::Null);
            let changed = if let Some(c) = self.counters.get_mut(name) {
                let n = value.as_f64().map_or(0, |f| f.round() as i64);
                let changed = *c != n;
                *c = n;
                changed
            } else {
                let value = match value {
                    Value::String(s) if s.len() > MAX_VALUE_BYTES => {
                        let mut end = MAX_VALUE_BYTES;
                        while !s.is_char_boundary(end) {
                            end -= 1;
                        }
                        Value::String(s[..end].to_string())
                    }
                    v => v,
                };
                let old = self.values.insert(name.clone(), value.clone());
                old.as_ref() != Some(&value)
            };
            if changed {
                self.changed_at.insert(name.clone(), now);
            }
        }
        let from = self.state.clone();
        if target != from {
            if row.to == To::Previous {
                self.previous_state = None;
            } else if flow.state(&target).is_some_and(|s| s.error) {
                self.previous_state = Some(from.clone());
            }
            self.state = target.clone();
            self.entered_at = now;
        }
        self.ended = flow.state(&self.state).is_some_and(|s| s.terminal);
        Ok(Move {
            from,
            to: target,
            event: row.event.clone(),
            reason: row.reason.clone(),
        })
    }

    /// Derived fields, after any change.
    fn settle(&mut self, flow: &Flow) {
        self.ended = flow.state(&self.state).is_some_and(|s| s.terminal);
        self.allowed_events = if self.ended {
            Vec::new()
        } else {
            flow.allowed(&self.state)
        };
        self.next_timer = if self.ended {
            None
        } else {
            self.due_timers(flow).first().map(|(_, _, at)| *at)
        };
    }

    /// A text summary for an assistant's prompt.
    pub fn summary(&self) -> String {
        let mut out = format!("Flow {}, state: {}", self.flow, self.state);
        if self.ended {
            out.push_str(" (ended)");
        }
        out.push('.');
        if let Some(p) = &self.previous_state {
            out.push_str(&format!(" Before the error: {p}."));
        }
        if !self.counters.is_empty() {
            let c: Vec<String> = self
                .counters
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            out.push_str(&format!(" Counters: {}.", c.join(", ")));
        }
        let shown: Vec<String> = self
            .values
            .iter()
            .filter(|(_, v)| !v.is_null() && v.as_str() != Some(""))
            .map(|(k, v)| format!("{k} {}", super::expr::plain(v)))
            .collect();
        if !shown.is_empty() {
            out.push_str(&format!(" Values: {}.", shown.join("; ")));
        }
        if self.allowed_events.is_empty() {
            out.push_str(" No events are taken.");
        } else {
            out.push_str(&format!(
                " Allowed events: {}.",
                self.allowed_events.join(", ")
            ));
        }
        out
    }
}
