//! Turns a conversation into a script whose expectations are the states it went through: from a
//! `replay` transcript, or from a live session's event log. Keep a good conversation as a
//! regression test.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use crate::conversation::{Conversation, Engine, Input, Transition};
use crate::protocol::log::Change;

/// Writes the script of `steps` (times and changes), folding them with `engine` for the
/// expectations. A tick or idle event becomes a `wait` of the time since the step before.
pub(crate) fn script(engine: &Engine, name: &str, steps: &[(DateTime<Utc>, Change)]) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Recorded by `convstate script --record`: the expectations are the states"
    );
    let _ = writeln!(out, "# the conversation went through. Edit freely.");
    let _ = writeln!(out, "name = {}", q(name));
    let Some((start, _)) = steps.first() else {
        return out;
    };
    let timeout = engine.settings().idle_timeout;
    let _ = writeln!(
        out,
        "\n[settings]\nidle_timeout = {}",
        q(&humantime::format_duration(timeout.to_std().unwrap_or_default()).to_string())
    );
    let mut conv = engine.start("s-record", *start);
    let mut previous = *start;
    for (at, change) in steps {
        let _ = writeln!(out, "\n[[step]]");
        match change {
            Change::Message {
                role,
                text,
                artifact,
                ..
            } => {
                let _ = writeln!(out, "{} = {}", role.as_str(), q(text));
                if *artifact {
                    let _ = writeln!(out, "artifact = true");
                }
            }
            Change::Signal { signal } => {
                let _ = writeln!(out, "signal = {}", q(signal.as_str()));
            }
            Change::Reset => {
                let _ = writeln!(out, "reset = true");
            }
            Change::Start { .. } | Change::Event { .. } => {
                let _ = writeln!(
                    out,
                    "# a hosted flow's change: scripts run conversations (docs/flows.md)"
                );
                continue;
            }
            Change::Idle => {
                let gap = (*at - previous).to_std().unwrap_or_default();
                let _ = writeln!(
                    out,
                    "wait = {}",
                    q(&humantime::format_duration(gap).to_string())
                );
            }
        }
        let input: Input<'_> = change.input();
        let step = engine.step(&mut conv, input, *at);
        previous = *at;
        expectations(&mut out, &conv, &step.transitions);
    }
    out
}

fn expectations(out: &mut String, state: &Conversation, transitions: &[Transition]) {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let _ = writeln!(out, "[step.expect]");
    let _ = writeln!(out, "phase = {}", q(state.phase.as_str()));
    match &state.current_goal {
        Some(goal) => {
            let _ = writeln!(out, "goal_type = {}", q(goal.goal_type.as_str()));
            let _ = writeln!(out, "description = {}", q(&goal.description));
            let slots = &goal.required_info;
            if !slots.is_empty() {
                let statuses: Vec<String> = slots
                    .iter()
                    .map(|s| format!("{} = {}", s.name, q(s.status.as_str())))
                    .collect();
                let _ = writeln!(out, "slots = {{ {} }}", statuses.join(", "));
                let values: Vec<String> = slots
                    .iter()
                    .filter_map(|s| Some(format!("{} = {}", s.name, q(s.value.as_deref()?))))
                    .collect();
                if !values.is_empty() {
                    let _ = writeln!(out, "slot_values = {{ {} }}", values.join(", "));
                }
            }
        }
        None => {
            let _ = writeln!(out, "goal_type = \"none\"");
        }
    }
    let _ = writeln!(out, "turn_count = {}", state.turn_count);
    let _ = writeln!(out, "history = {}", state.completed_goals_total);
    let reasons: Vec<String> = transitions.iter().map(|t| q(t.reason.as_str())).collect();
    let _ = writeln!(out, "transitions = [{}]", reasons.join(", "));
}

/// The steps of a live session, from its event log (`GET /api/sessions/{id}/events`, page by
/// page).
pub(crate) async fn live_steps(
    url: &str,
    session: &str,
    token: Option<&str>,
) -> Result<Vec<(DateTime<Utc>, Change)>, String> {
    let base = url
        .strip_prefix("ws://")
        .ok_or_else(|| format!("{url}: expected ws://host:port/ws"))?;
    let host = base.split('/').next().unwrap_or(base);
    let mut steps = Vec::new();
    let mut after = 0;
    loop {
        let page = format!("http://{host}/api/sessions/{session}/events?after={after}");
        let response = crate::client::http::request_with("GET", &page, token).await?;
        if response.status != 200 {
            return Err(format!("session {session}: {}", response.body.trim()));
        }
        let events: Vec<crate::protocol::log::Event> =
            serde_json::from_str(&response.body).map_err(|e| format!("the event log: {e}"))?;
        let Some(last) = events.last() else {
            return Ok(steps);
        };
        after = last.seq;
        steps.extend(events.into_iter().map(|e| (e.at, e.change)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_transcript_is_a_script_that_parses() {
        let engine = crate::patterns::builtin();
        let transcript = "{\"role\":\"user\",\"text\":\"I want to build a \\\"todo\\\" app\"}\n{\"signal\":\"approve\"}\n{\"tick\":\"2026-01-01T01:00:00Z\"}\n";
        let steps = crate::replay::read_transcript(transcript.as_bytes()).unwrap();
        let text = script(&engine, "recorded", &steps);
        let parsed =
            crate::client::script::parse_text(std::path::Path::new("r.toml"), &text).unwrap();
        assert_eq!(parsed.steps.len(), 3);
        assert!(text.contains("phase = \"planning\""), "{text}");
        // The tick comes 59 min 59 s after the approval (one second after the first line).
        assert!(text.contains("wait = \"59m 59s\""), "{text}");
        assert!(text.contains(r#"description = "\"todo\" app""#), "{text}");
        assert!(text.contains("transitions = [\"Idle timeout\"]"), "{text}");
    }
}
