//! `convstate eval`: scores the engine on a labelled corpus of messages (JSON Lines, the format
//! of `tests/corpus/README.md`) and reports a confusion matrix of goal types, precision and
//! recall per type, recall per slot, accuracy per class, and every miss.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::conversation::{Engine, GoalType, Input, Role, SlotStatus};

/// The most cases one run reads (a corpus is a test file, not a data set).
pub const MAX_CASES: usize = 100_000;
/// The longest line of a corpus file, in bytes.
pub const MAX_LINE: usize = 64 * 1024;

/// One labelled message.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub text: String,
    #[serde(default)]
    pub before: Vec<Turn>,
    /// The current goal's type after the message (`null`: none).
    pub goal: Option<GoalType>,
    #[serde(default)]
    pub slots: BTreeMap<String, Expected>,
    #[serde(default)]
    pub waived: Vec<String>,
    #[serde(default)]
    pub queued: Vec<GoalType>,
    #[serde(default)]
    pub requested_change: Option<String>,
    pub class: String,
    #[serde(default)]
    pub domain: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    pub role: Role,
    pub text: String,
}

/// An expected slot value: one string, or several equally right.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Expected {
    One(String),
    Any(Vec<String>),
}

impl Expected {
    fn options(&self) -> &[String] {
        match self {
            Expected::One(s) => std::slice::from_ref(s),
            Expected::Any(v) => v,
        }
    }
}

/// What the engine read, for one case.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub file: String,
    pub line: usize,
    pub class: String,
    pub text: String,
    pub expected_goal: Option<GoalType>,
    pub read_goal: Option<GoalType>,
    /// Per labelled slot: (name, expected, read, right).
    pub slots: Vec<SlotOutcome>,
    /// Waived, queued and requested-change labels all read right.
    pub extras_right: bool,
    pub extras: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SlotOutcome {
    pub name: String,
    pub expected: Vec<String>,
    pub read: Option<String>,
    pub right: bool,
}

impl Outcome {
    pub fn goal_right(&self) -> bool {
        self.expected_goal == self.read_goal
    }
    pub fn whole_right(&self) -> bool {
        self.goal_right() && self.slots.iter().all(|s| s.right) && self.extras_right
    }
}

/// A corpus could not be read.
#[derive(Debug)]
pub struct CorpusError(pub String);

impl std::fmt::Display for CorpusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads a corpus file's cases, with their line numbers; `name` is for errors.
pub fn parse(name: &str, text: &str) -> Result<Vec<(usize, Case)>, CorpusError> {
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        if line.len() > MAX_LINE {
            return Err(CorpusError(format!(
                "{name}:{n}: a line of {} bytes; at most {MAX_LINE}",
                line.len()
            )));
        }
        let case: Case =
            serde_json::from_str(line).map_err(|e| CorpusError(format!("{name}:{n}: {e}")))?;
        cases.push((n, case));
        if cases.len() > MAX_CASES {
            return Err(CorpusError(format!("{name}: more than {MAX_CASES} cases")));
        }
    }
    Ok(cases)
}

/// Runs one case on a new session.
pub fn run(engine: &Engine, file: &str, line: usize, case: &Case) -> Outcome {
    // A fixed clock a second per turn: no turn is late.
    let t0: DateTime<Utc> = DateTime::UNIX_EPOCH;
    let mut conv = engine.start("s-eval", t0);
    let mut now = t0;
    for turn in case.before.iter().chain(std::iter::once(&Turn {
        role: Role::User,
        text: case.text.clone(),
    })) {
        now += chrono::TimeDelta::seconds(1);
        engine.step(
            &mut conv,
            Input::Message {
                role: turn.role,
                text: &turn.text,
                artifact: false,
            },
            now,
        );
    }
    let goal = conv.current_goal.as_ref();
    let slots = case
        .slots
        .iter()
        .map(|(name, expected)| {
            let read = goal
                .and_then(|g| g.required_info.iter().find(|s| &*s.name == name))
                .and_then(|s| s.value.clone());
            let right = read
                .as_deref()
                .is_some_and(|r| expected.options().iter().any(|e| value_matches(e, r)));
            SlotOutcome {
                name: name.clone(),
                expected: expected.options().to_vec(),
                read,
                right,
            }
        })
        .collect();
    let mut extras = Vec::new();
    for name in &case.waived {
        let waived = goal
            .and_then(|g| g.required_info.iter().find(|s| &*s.name == name))
            .is_some_and(|s| s.status == SlotStatus::Waived);
        if !waived {
            extras.push(format!("{name} not waived"));
        }
    }
    let queued: Vec<GoalType> = conv.queued_goals.iter().map(|q| q.goal_type).collect();
    if queued != case.queued {
        extras.push(format!(
            "queued {} (expected {})",
            names(&queued),
            names(&case.queued)
        ));
    }
    if let Some(change) = &case.requested_change {
        let last = goal.and_then(|g| g.requested_changes.last());
        if !last.is_some_and(|l| words(l).join(" ").contains(&words(change).join(" "))) {
            extras.push(format!(
                "requested change {:?} (expected {change:?})",
                last.map(String::as_str).unwrap_or("none")
            ));
        }
    }
    Outcome {
        file: file.to_string(),
        line,
        class: case.class.clone(),
        text: case.text.clone(),
        expected_goal: case.goal,
        read_goal: goal.map(|g| g.goal_type),
        slots,
        extras_right: extras.is_empty(),
        extras,
    }
}

fn names(types: &[GoalType]) -> String {
    if types.is_empty() {
        return "none".to_string();
    }
    types
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Lowercase words, without punctuation and the articles a, an, the. An apostrophe inside a
/// word stays ("don't"); one at a word's edge is a quote mark ("stuck on 'waiting'").
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '#' || c == '+'))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !matches!(w.as_str(), "a" | "an" | "the"))
        .collect()
}

/// Whether a read value holds the expected words in order and is not much longer: at most
/// twice the expected words plus three. The "fix: " a problem's change opens with (rule 1) is
/// the form of the value, not its words: it is not counted.
pub fn value_matches(expected: &str, read: &str) -> bool {
    let unmarked = |v: &str| match v.get(..5) {
        Some(p) if p.eq_ignore_ascii_case("fix: ") => v[5..].to_string(),
        _ => v.to_string(),
    };
    let e = words(&unmarked(expected));
    let r = words(&unmarked(read));
    if e.is_empty() {
        return r.is_empty();
    }
    r.len() <= 2 * e.len() + 3 && r.windows(e.len()).any(|w| w == e.as_slice())
}

/// The scores of a set of outcomes.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub cases: usize,
    pub goal_right: usize,
    pub whole_right: usize,
    pub slots: usize,
    pub slots_right: usize,
    /// expected -> read -> count ("none" for no goal).
    pub confusion: BTreeMap<String, BTreeMap<String, usize>>,
    /// type -> (precision, recall, support).
    pub per_type: BTreeMap<String, (f64, f64, usize)>,
    /// slot -> (right, labelled).
    pub per_slot: BTreeMap<String, (usize, usize)>,
    /// class -> (goal right, whole right, cases).
    pub per_class: BTreeMap<String, (usize, usize, usize)>,
    pub misses: Vec<Outcome>,
}

fn label(t: Option<GoalType>) -> String {
    t.map_or("none", |t| t.as_str()).to_string()
}

impl Report {
    pub fn of(outcomes: &[Outcome]) -> Report {
        let mut r = Report {
            cases: outcomes.len(),
            goal_right: 0,
            whole_right: 0,
            slots: 0,
            slots_right: 0,
            confusion: BTreeMap::new(),
            per_type: BTreeMap::new(),
            per_slot: BTreeMap::new(),
            per_class: BTreeMap::new(),
            misses: Vec::new(),
        };
        for o in outcomes {
            let goal_right = o.goal_right();
            let whole = o.whole_right();
            r.goal_right += usize::from(goal_right);
            r.whole_right += usize::from(whole);
            *r.confusion
                .entry(label(o.expected_goal))
                .or_default()
                .entry(label(o.read_goal))
                .or_default() += 1;
            for s in &o.slots {
                r.slots += 1;
                r.slots_right += usize::from(s.right);
                let e = r.per_slot.entry(s.name.clone()).or_default();
                e.0 += usize::from(s.right);
                e.1 += 1;
            }
            let c = r.per_class.entry(o.class.clone()).or_default();
            c.0 += usize::from(goal_right);
            c.1 += usize::from(whole);
            c.2 += 1;
            if !whole {
                r.misses.push(o.clone());
            }
        }
        let types: Vec<String> = GoalType::ALL
            .iter()
            .map(|t| t.as_str().to_string())
            .chain(["none".to_string()])
            .collect();
        for t in &types {
            let tp = r
                .confusion
                .get(t)
                .and_then(|row| row.get(t))
                .copied()
                .unwrap_or(0);
            let support: usize = r.confusion.get(t).map_or(0, |row| row.values().sum());
            let predicted: usize = r.confusion.values().filter_map(|row| row.get(t)).sum();
            let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
            r.per_type.insert(
                t.clone(),
                (ratio(tp, predicted), ratio(tp, support), support),
            );
        }
        r
    }

    pub fn goal_accuracy(&self) -> f64 {
        percent(self.goal_right, self.cases)
    }
    pub fn slot_accuracy(&self) -> f64 {
        percent(self.slots_right, self.slots)
    }
    pub fn whole_accuracy(&self) -> f64 {
        percent(self.whole_right, self.cases)
    }

    /// The report for a person: the tables, then every miss.
    pub fn text(&self, title: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "== {title}: {} cases\ngoal type {:.1}% ({}/{}), slot values {:.1}% ({}/{}), whole messages {:.1}% ({}/{})",
            self.cases,
            self.goal_accuracy(),
            self.goal_right,
            self.cases,
            self.slot_accuracy(),
            self.slots_right,
            self.slots,
            self.whole_accuracy(),
            self.whole_right,
            self.cases
        );
        let types = [
            "artifact_creation",
            "question_answer",
            "task_execution",
            "exploration",
            "none",
        ];
        let short = |t: &'static str| -> &'static str {
            match t {
                "artifact_creation" => "artifact",
                "question_answer" => "question",
                "task_execution" => "task",
                other => other,
            }
        };
        let _ = writeln!(out, "\nconfusion (rows expected, columns read):");
        let _ = write!(out, "{:>12}", "");
        for t in types {
            let _ = write!(out, "{:>12}", short(t));
        }
        out.push('\n');
        for e in types {
            let _ = write!(out, "{:>12}", short(e));
            for r in types {
                let n = self
                    .confusion
                    .get(e)
                    .and_then(|row| row.get(r))
                    .copied()
                    .unwrap_or(0);
                let _ = write!(out, "{n:>12}");
            }
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "\n{:<20}{:>10}{:>10}{:>9}",
            "type", "precision", "recall", "cases"
        );
        for t in types {
            if let Some((p, r, n)) = self.per_type.get(t) {
                let _ = writeln!(out, "{:<20}{:>9.1}%{:>9.1}%{n:>9}", t, p * 100.0, r * 100.0);
            }
        }
        let _ = writeln!(out, "\n{:<20}{:>10}{:>9}", "slot", "recall", "values");
        for (name, (right, n)) in &self.per_slot {
            let _ = writeln!(out, "{name:<20}{:>9.1}%{n:>9}", percent(*right, *n));
        }
        let _ = writeln!(
            out,
            "\n{:<20}{:>10}{:>10}{:>9}",
            "class", "goal type", "whole", "cases"
        );
        for (class, (goal, whole, n)) in &self.per_class {
            let _ = writeln!(
                out,
                "{class:<20}{:>9.1}%{:>9.1}%{n:>9}",
                percent(*goal, *n),
                percent(*whole, *n)
            );
        }
        if !self.misses.is_empty() {
            let _ = writeln!(out, "\nmisses:");
            for m in &self.misses {
                let _ = writeln!(out, "{}:{} [{}] {:?}", m.file, m.line, m.class, m.text);
                if !m.goal_right() {
                    let _ = writeln!(
                        out,
                        "    goal: expected {}, read {}",
                        label(m.expected_goal),
                        label(m.read_goal)
                    );
                }
                for s in m.slots.iter().filter(|s| !s.right) {
                    let _ = writeln!(
                        out,
                        "    {}: expected {:?}, read {:?}",
                        s.name,
                        s.expected.join(" | "),
                        s.read.as_deref().unwrap_or("nothing")
                    );
                }
                for e in &m.extras {
                    let _ = writeln!(out, "    {e}");
                }
            }
        }
        out
    }
}

fn percent(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        a as f64 * 100.0 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_in_order_and_not_much_longer() {
        assert!(value_matches("submit button", "the submit button"));
        assert!(value_matches(
            "hidden behind the keyboard",
            "fix: hidden behind the keyboard"
        ));
        assert!(value_matches(
            "pagination, 20 per page",
            "pagination, 20 per page"
        ));
        assert!(value_matches(
            "stuck on waiting for rollout",
            "fix: stuck on 'waiting for rollout' for 20 min"
        ));
        // (A problem's "fix: " is not counted: the five words of the problem may be read with
        // up to eight more.)
        assert!(value_matches(
            "freezes",
            "fix: freezes when switching between tabs"
        ));
        assert!(value_matches("fix: freezes", "fix: freezes on save"));
        assert!(!value_matches(
            "freezes",
            "fix: freezes when switching between two tabs"
        ));
        assert!(!value_matches("dont", "don't"));
        assert!(!value_matches("submit button", "button"));
        assert!(!value_matches("button submit", "submit button"));
        assert!(!value_matches(
            "tests",
            "my tests are flaky on CI but pass locally any ideas"
        ));
    }

    #[test]
    fn a_corpus_line_with_an_unknown_field_is_refused_with_its_line() {
        let err = parse(
            "c.jsonl",
            "{\"text\":\"hi\",\"goal\":null,\"class\":\"x\"}\n{\"txt\":1}",
        )
        .unwrap_err();
        assert!(err.0.starts_with("c.jsonl:2: "), "{}", err.0);
    }
}
