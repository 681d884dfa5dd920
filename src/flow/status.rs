//! The conductor UI's STATUS.md: its state as YAML front matter and a body for people
//! (rendered from a `conductor-ui` run), and the front matter read back into a run's state (an
//! import restores a session).
//!
//! The front matter is flat `key: value` lines of scalars (null, integers, quoted or bare
//! strings), as the design document's files hold; anything else is refused with its line.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{FlowRun, Restore};

/// The flow a STATUS.md belongs to.
pub const FLOW: &str = "conductor-ui";

const COUNTERS: [&str; 2] = ["phase", "total_phases"];
const VALUES: [&str; 5] = [
    "activity",
    "error",
    "phase_name",
    "process_id",
    "process_start",
];

fn yaml_string(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn scalar(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "null".into(),
        Some(Value::String(s)) if s.is_empty() => "null".into(),
        Some(Value::String(s)) => {
            let plain = !s.is_empty()
                && s.chars()
                    .all(|c| c.is_alphanumeric() || " .,!-_()/".contains(c))
                && !s.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == ' ')
                && !matches!(s.as_str(), "null" | "true" | "false" | "yes" | "no" | "~");
            // Otherwise double-quoted with JSON's escapes (valid YAML): a line break stays on
            // one line, and reads back.
            if plain {
                s.clone()
            } else {
                serde_json::to_string(s).unwrap_or_else(|_| "null".into())
            }
        }
        Some(other) => other.to_string(),
    }
}

/// The STATUS.md of a `conductor-ui` run.
pub fn render(run: &FlowRun) -> String {
    let value = |k: &str| run.values.get(k);
    let counter = |k: &str| run.counters.get(k).copied().unwrap_or(0);
    let mut front: BTreeMap<&str, String> = BTreeMap::new();
    for k in VALUES {
        front.insert(k, scalar(value(k)));
    }
    for k in COUNTERS {
        front.insert(k, counter(k).to_string());
    }
    front.insert("state", run.state.clone());
    front.insert(
        "previous_state",
        run.previous_state.clone().unwrap_or_else(|| "null".into()),
    );
    front.insert("last_updated", yaml_string(&stamp(run.updated_at)));
    let mut out = String::from("---\n");
    for (k, v) in &front {
        out.push_str(&format!("{k}: {v}\n"));
    }
    out.push_str("---\n");
    let project = value("project_name")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or("(unnamed)");
    let activity = value("activity").and_then(Value::as_str).unwrap_or("");
    let (phase, total) = (counter("phase"), counter("total_phases"));
    let done = match run.state.as_str() {
        "complete" => total,
        "executing" | "questions" => (phase - 1).max(0),
        _ => 0,
    };
    let current = if total > 0 {
        match value("phase_name")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            Some(name) => format!("Phase {phase} of {total}: {name}"),
            None => format!("Phase {phase} of {total}"),
        }
    } else {
        "-".to_string()
    };
    out.push_str(&format!(
        "# Project Status: {project}\n\n**Last Updated**: {}\n\n---\n\n## What to do next\n\n{activity}\n\n---\n\n## Quick Status\n\n| Item | Status |\n|------|--------|\n| State | {} |\n| Plan Generated | {} |\n| Current Phase | {current} |\n| Phases Completed | {done} / {total} |\n\n---\n\n## Progress Log\n\n_State managed by convstate (flow {FLOW}, {} events)_\n",
        run.updated_at.format("%Y-%m-%d %H:%M"),
        run.state,
        if total > 0 { "Yes" } else { "No" },
        run.events,
    ));
    out
}

fn stamp(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()
}

/// The state a STATUS.md holds, and its project's name (from its `# Project Status:` title).
pub fn parse(text: &str) -> Result<Restore, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, first)) if first.trim_end() == "---" => {}
        _ => return Err("line 1: a STATUS.md starts with its front matter (---)".into()),
    }
    let mut fields: BTreeMap<String, (usize, Value)> = BTreeMap::new();
    let mut closed = false;
    for (i, line) in lines.by_ref() {
        let n = i + 1;
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((key, raw)) = line.split_once(':') else {
            return Err(format!("line {n}: not a `key: value` line"));
        };
        let key = key.trim();
        if key.is_empty() || key.starts_with(' ') || line.starts_with(' ') {
            return Err(format!("line {n}: only flat `key: value` lines are read"));
        }
        let value = parse_scalar(raw.trim()).map_err(|e| format!("line {n}: {key}: {e}"))?;
        if fields.insert(key.to_string(), (n, value)).is_some() {
            return Err(format!("line {n}: {key} is given twice"));
        }
    }
    if !closed {
        return Err("the front matter is not closed (---)".into());
    }
    let project = lines
        .map(|(_, l)| l)
        .find_map(|l| l.strip_prefix("# Project Status:"))
        .map(|s| s.trim().to_string())
        .filter(|s| s != "(unnamed)");
    let take_str =
        |fields: &BTreeMap<String, (usize, Value)>, k: &str| -> Result<Option<String>, String> {
            match fields.get(k) {
                None | Some((_, Value::Null)) => Ok(None),
                Some((_, Value::String(s))) => Ok(Some(s.clone())),
                Some((n, other)) => Err(format!("line {n}: {k}: expected text, got {other}")),
            }
        };
    let Some(state) = take_str(&fields, "state")? else {
        return Err("the front matter has no `state`".into());
    };
    let mut restore = Restore {
        state,
        previous_state: take_str(&fields, "previous_state")?,
        ..Restore::default()
    };
    for k in COUNTERS {
        match fields.get(k) {
            None | Some((_, Value::Null)) => {}
            Some((n, v)) => {
                let c = v
                    .as_i64()
                    .ok_or_else(|| format!("line {n}: {k}: expected a whole number, got {v}"))?;
                restore.counters.insert(k.to_string(), c);
            }
        }
    }
    for k in VALUES {
        let v = take_str(&fields, k)?.unwrap_or_default();
        restore.values.insert(k.to_string(), Value::String(v));
    }
    if let Some(p) = project {
        restore
            .values
            .insert("project_name".into(), Value::String(p));
    }
    let known: Vec<&str> = COUNTERS
        .iter()
        .chain(VALUES.iter())
        .copied()
        .chain(["state", "previous_state", "last_updated"])
        .collect();
    if let Some((k, (n, _))) = fields.iter().find(|(k, _)| !known.contains(&k.as_str())) {
        return Err(format!(
            "line {n}: {k} is not a field of STATUS.md (known: {})",
            known.join(", ")
        ));
    }
    Ok(restore)
}

fn parse_scalar(raw: &str) -> Result<Value, String> {
    if raw.is_empty() || raw == "null" || raw == "~" {
        return Ok(Value::Null);
    }
    if let Some(inner) = raw.strip_prefix('\'') {
        let inner = inner
            .strip_suffix('\'')
            .ok_or("a quoted string is not closed")?;
        return Ok(Value::String(inner.replace("''", "'")));
    }
    if raw.starts_with('"') {
        return serde_json::from_str::<String>(raw)
            .map(Value::String)
            .map_err(|_| "a double-quoted string is not closed or not valid".to_string());
    }
    if let Ok(n) = raw.parse::<i64>() {
        return Ok(Value::from(n));
    }
    if raw.starts_with(['[', '{', '&', '*', '!', '|', '>']) {
        return Err("only plain values are read (no lists, maps or YAML tags)".into());
    }
    Ok(Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_file_goes_out_and_back() {
        let flows = crate::flow::Flows::builtin();
        let flow = flows.get(FLOW).unwrap();
        let at = DateTime::parse_from_rfc3339("2026-01-26T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let mut run = FlowRun::start(flow, &BTreeMap::new(), at).unwrap();
        let data = |v: Value| v.as_object().unwrap().clone();
        run.apply(
            flow,
            "configure",
            &data(serde_json::json!({"project_name": "Atlas: it's big"})),
            at,
        )
        .unwrap();
        run.apply(flow, "generate_plan", &data(serde_json::json!({})), at)
            .unwrap();
        run.apply(
            flow,
            "plan_complete",
            &data(serde_json::json!({"total_phases": 5, "phase_name": "Read sources"})),
            at,
        )
        .unwrap();
        run.apply(
            flow,
            "execute",
            &data(serde_json::json!({"process_id": "4242"})),
            at,
        )
        .unwrap();
        run.apply(
            flow,
            "error",
            &data(serde_json::json!({"message": "exit code 2"})),
            at,
        )
        .unwrap();
        let text = render(&run);
        assert!(
            text.starts_with("---\nactivity: \"Error: exit code 2\"\nerror: exit code 2\n"),
            "{text}"
        );
        assert!(text.contains("previous_state: executing\n"), "{text}");
        assert!(text.contains("# Project Status: Atlas: it's big"), "{text}");
        let back = parse(&text).unwrap();
        assert_eq!(back.state, "error");
        assert_eq!(back.previous_state.as_deref(), Some("executing"));
        assert_eq!(back.counters["total_phases"], 5);
        assert_eq!(back.values["phase_name"], "Read sources");
        assert_eq!(back.values["project_name"], "Atlas: it's big");
        let mut restored = FlowRun::start(flow, &BTreeMap::new(), at).unwrap();
        restored
            .restore(
                flow,
                &back.state,
                back.previous_state.as_deref(),
                &back.counters,
                &back.values,
            )
            .unwrap();
        assert_eq!(restored.values, run.values);
        assert_eq!(restored.counters, run.counters);
        assert_eq!(restored.allowed_events, ["retry", "reset"]);
        // An error of several lines, quotes and a colon goes out on one line and comes back.
        let mut run = restored;
        run.values.insert(
            "error".into(),
            Value::String("line 1: \"bad\"\nline 2: it's 'worse'".into()),
        );
        let back = parse(&render(&run)).unwrap();
        assert_eq!(back.values["error"], run.values["error"]);
    }

    #[test]
    fn the_documents_own_front_matter_is_read_and_bad_ones_said() {
        let doc = "---\nactivity: Ready to start\nerror: null\nlast_updated: '2026-01-26T10:00:00.000000'\nphase: 0\nphase_name: null\nprevious_state: null\nprocess_id: null\nprocess_start: null\nstate: reset\ntotal_phases: 0\n---\n# Project Status: [Project Name]\n";
        let r = parse(doc).unwrap();
        assert_eq!(r.state, "reset");
        assert_eq!(r.values["activity"], "Ready to start");
        assert!(parse("no front matter").unwrap_err().contains("line 1"));
        assert!(
            parse("---\nstate: [a, b]\n---\n")
                .unwrap_err()
                .contains("line 2: state")
        );
        assert!(
            parse("---\nphase: two\nstate: reset\n---\n")
                .unwrap_err()
                .contains("line 2: phase")
        );
        assert!(
            parse("---\nstate: reset\ncolour: blue\n---\n")
                .unwrap_err()
                .contains("line 3: colour")
        );
        assert!(
            parse("---\nstate: reset\n")
                .unwrap_err()
                .contains("not closed")
        );
    }
}
