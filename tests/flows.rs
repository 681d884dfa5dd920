//! The shipped hosted flows against their design documents, through the library: every
//! transition of each flow taken, every guard seen holding and failing, events a state does not
//! take refused with the state unchanged, and each flow's diagram compared edge by edge with
//! its document's (the differences the flow file lists, and only those).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, TimeDelta, Utc};
use convstate::flow::expr::MapScope;
use convstate::flow::{Flow, FlowRun, Flows, Row};
use serde_json::{Map, Value, json};

fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
        + TimeDelta::seconds(seconds)
}

/// What the scripts of one flow did: rows taken, guards seen holding and failing, states seen.
#[derive(Default)]
struct Seen {
    taken: BTreeSet<usize>,
    held: BTreeSet<usize>,
    failed: BTreeSet<usize>,
    states: BTreeSet<String>,
    refused: usize,
}

fn scope_of<'a>(
    run: &FlowRun,
    names: &'a mut BTreeMap<String, Value>,
) -> &'a BTreeMap<String, Value> {
    names.clear();
    for (k, v) in &run.counters {
        names.insert(k.clone(), json!(v));
    }
    for (k, v) in &run.values {
        names.insert(k.clone(), v.clone());
    }
    for (k, v) in &run.settings {
        names.insert(k.clone(), v.clone());
    }
    names
}

fn row_applies(flow: &Flow, row: &Row, state: &str) -> bool {
    match &row.from {
        convstate::flow::From::State(s) => s == state,
        convstate::flow::From::Any => !flow.state(state).is_some_and(|s| s.terminal),
    }
}

/// The guards of the rows `event` may take in the run's state (or the automatic ones), noted.
fn note_guards(
    flow: &Flow,
    run: &FlowRun,
    event: Option<&str>,
    data: &Map<String, Value>,
    seen: &mut Seen,
) {
    let mut names = BTreeMap::new();
    let names = scope_of(run, &mut names);
    let data: BTreeMap<String, Value> = data.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    for (i, row) in flow.rows.iter().enumerate() {
        if !row_applies(flow, row, &run.state) || row.event.as_deref() != event {
            continue;
        }
        if let Some(g) = &row.guard {
            let scope = MapScope {
                names,
                data: &data,
                state: &run.state,
            };
            if g.check(&scope).is_ok() {
                seen.held.insert(i);
            } else {
                seen.failed.insert(i);
            }
        }
    }
}

/// Marks the rows the moves took.
fn note_moves(flow: &Flow, moves: &[convstate::flow::Move], seen: &mut Seen) {
    for m in moves {
        let i = flow
            .rows
            .iter()
            .position(|r| {
                row_applies(flow, r, &m.from) && r.event == m.event && r.reason == m.reason
            })
            .unwrap_or_else(|| panic!("a move of no row: {m:?}"));
        seen.taken.insert(i);
        if flow.rows[i].guard.is_some() {
            seen.held.insert(i);
        }
        // Rows are tried in order: the automatic ones before it, from the same state, failed.
        if m.event.is_none() {
            for (j, r) in flow.rows.iter().enumerate().take(i) {
                if r.event.is_none() && r.guard.is_some() && row_applies(flow, r, &m.from) {
                    seen.failed.insert(j);
                }
            }
        }
        seen.states.insert(m.to.clone());
    }
}

/// One step of a script: an event with data, `tick` after some seconds, or an event that must
/// be refused.
enum Step {
    Event(&'static str, Value),
    Refused(&'static str, Value),
    Tick(i64),
}
use Step::{Event, Refused, Tick};

fn none() -> Value {
    json!({})
}

/// Runs `script` from a new run of `flow` (with `settings`), checking each step; returns the
/// run.
fn play(
    flow: &Flow,
    settings: &[(&str, &str)],
    script: &[Step],
    end: &str,
    seen: &mut Seen,
) -> FlowRun {
    let settings: BTreeMap<String, String> = settings
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut now = 0;
    let mut run = FlowRun::start(flow, &settings, at(now)).unwrap();
    seen.states.insert(run.state.clone());
    for step in script {
        now += 1;
        match step {
            Event(name, data) => {
                let data = data.as_object().unwrap().clone();
                note_guards(flow, &run, Some(name), &data, seen);
                let moves = run.apply(flow, name, &data, at(now)).unwrap_or_else(|e| {
                    panic!("{}: {name} in {}: {}", flow.name, run.state, e.message)
                });
                note_moves(flow, &moves, seen);
                note_guards(flow, &run, None, &Map::new(), seen);
            }
            Refused(name, data) => {
                let data = data.as_object().unwrap().clone();
                note_guards(flow, &run, Some(name), &data, seen);
                let before = run.clone();
                let refused = run.apply(flow, name, &data, at(now));
                assert!(
                    refused.is_err(),
                    "{}: {name} in {} was taken",
                    flow.name,
                    run.state
                );
                assert_eq!(run, before, "a refused event changed the run");
                assert_eq!(refused.unwrap_err().allowed, run.allowed_events);
                seen.refused += 1;
            }
            Tick(seconds) => {
                now += seconds;
                let moves = run.tick(flow, at(now));
                note_moves(flow, &moves, seen);
            }
        }
    }
    assert_eq!(
        run.state, end,
        "{}: the script ends in {}",
        flow.name, run.state
    );
    run
}

/// Every row taken, every guard seen both ways, every state reached; then every event a
/// reached state does not take is refused there.
fn check_coverage(flow: &Flow, seen: &Seen) {
    for (i, row) in flow.rows.iter().enumerate() {
        assert!(
            seen.taken.contains(&i),
            "{}: the transition of line {} ({}) was never taken",
            flow.name,
            row.line,
            row.reason
        );
        if row.guard.is_some() {
            assert!(
                seen.held.contains(&i),
                "{}: line {}: its guard never held",
                flow.name,
                row.line
            );
            assert!(
                seen.failed.contains(&i),
                "{}: line {}: its guard never failed",
                flow.name,
                row.line
            );
        }
    }
    for s in &flow.states {
        assert!(
            seen.states.contains(&s.name),
            "{}: state {} never reached",
            flow.name,
            s.name
        );
    }
    assert!(
        seen.refused >= 5,
        "{}: {} refusals",
        flow.name,
        seen.refused
    );
}

/// Each state reached, put there, refuses each event it does not take, untouched.
fn refuses_what_states_do_not_take(flow: &Flow) -> usize {
    let mut count = 0;
    for state in &flow.states {
        let mut run = FlowRun::start(flow, &BTreeMap::new(), at(0)).unwrap();
        run.restore(flow, &state.name, None, &BTreeMap::new(), &BTreeMap::new())
            .unwrap();
        let allowed = run.allowed_events.clone();
        for event in flow.events.iter().filter(|e| !allowed.contains(&e.name)) {
            let before = run.clone();
            let refused = run.apply(flow, &event.name, &Map::new(), at(1));
            assert!(
                refused.is_err(),
                "{}: {} taken in {}",
                flow.name,
                event.name,
                state.name
            );
            assert_eq!(run, before);
            count += 1;
        }
    }
    count
}

/// The edges of a Mermaid diagram under `heading` in `document`: top-level ones (not inside
/// `state X { }` blocks), `[*]` kept, names lower-cased.
fn document_edges(document: &str) -> BTreeSet<(String, String)> {
    let (file, heading) = document.split_once('#').unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/diagrams")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = text
        .find(&format!("## {heading}\n"))
        .unwrap_or_else(|| panic!("{file}: no heading {heading}"));
    let block = &text[start..];
    let open = block.find("```mermaid").unwrap();
    let close = open + block[open..].find("\n```\n").unwrap();
    let mut depth = 0;
    let mut out = BTreeSet::new();
    for line in block[open..close].lines() {
        let line = line.trim();
        if line.starts_with("state ") && line.ends_with('{') {
            depth += 1;
            continue;
        }
        if line == "}" {
            depth -= 1;
            continue;
        }
        if depth > 0 {
            continue;
        }
        if let Some((from, rest)) = line.split_once("-->") {
            let to = rest.split(':').next().unwrap().trim();
            out.insert((from.trim().to_lowercase(), to.to_lowercase()));
        }
    }
    out
}

fn flow_edges(flow: &Flow) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for line in flow.mermaid().lines().skip(1) {
        let (from, rest) = line.trim().split_once("-->").unwrap();
        let to = rest.split(':').next().unwrap().trim();
        out.insert((from.trim().to_string(), to.to_string()));
    }
    out
}

fn compare_with_document(flow: &Flow) {
    let document = flow
        .document
        .as_deref()
        .expect("a shipped flow names its document");
    let theirs = document_edges(document);
    let ours = flow_edges(flow);
    let listed: BTreeSet<(String, String)> = flow
        .differences
        .iter()
        .map(|d| {
            let (a, b) = d.edge.split_once("-->").unwrap();
            (a.trim().to_string(), b.trim().to_string())
        })
        .collect();
    let differ: BTreeSet<(String, String)> = theirs.symmetric_difference(&ours).cloned().collect();
    assert_eq!(
        differ, listed,
        "{}: the edges that differ from {document} (left) are not those the flow lists (right)",
        flow.name
    );
    for d in &flow.differences {
        assert!(!d.reason.trim().is_empty());
    }
}

fn flow(name: &str) -> std::sync::Arc<Flow> {
    Flows::builtin().get(name).unwrap().clone()
}

fn finish(flow: &Flow, seen: &Seen) {
    check_coverage(flow, seen);
    assert!(refuses_what_states_do_not_take(flow) >= 5);
    compare_with_document(flow);
}

#[test]
fn conductor_ui() {
    let f = flow("conductor-ui");
    let mut seen = Seen::default();
    let configure = json!({"project_name": "Atlas"});
    let plan = |n: i64| json!({"total_phases": n, "phase_name": "Setup"});
    // The happy path, with questions answered and skipped.
    let run = play(
        &f,
        &[],
        &[
            Refused("execute", none()),
            Refused("retry", none()),
            Event("configure", configure.clone()),
            Event("generate_plan", json!({"process_id": "4242"})),
            Refused("plan_complete", plan(0)), // no phases: the guard fails
            Event("plan_complete", plan(3)),
            Event("execute", none()),
            Event("phase_complete", json!({"phase_name": "Build"})),
            Event("questions_detected", none()),
            Event("answer", none()),
            Event("phase_complete", json!({"phase_name": "Test"})),
            Refused("phase_complete", json!({"phase_name": "More"})), // phase 3 of 3
            Event("questions_detected", none()),
            Event("skip", none()),
            Refused("configure", configure.clone()),
            Refused("plan_complete", json!({"total_phases": "three"})), // wrong type
            Event("all_complete", none()),
            Event("reset", none()),
        ],
        "reset",
        &mut seen,
    );
    assert_eq!(run.counters["phase"], 0);
    assert_eq!(run.values["activity"], "Ready to start");
    // Cancels, errors and retries.
    let run = play(
        &f,
        &[],
        &[
            Event("configure", configure.clone()),
            Event("generate_plan", none()),
            Event("cancel", none()),
            Event("generate_plan", none()),
            Event("error", json!({"message": "planner not found"})),
            Refused("execute", none()),
            Event("retry", none()),
            Event("error", json!({"message": "again"})),
            Event("reset", none()),
            Event("configure", configure.clone()),
            Event("reset", none()),
            Event("configure", configure.clone()),
            Event("generate_plan", none()),
            Event("plan_complete", plan(2)),
            Event("reset", none()),
            Event("configure", configure.clone()),
            Event("generate_plan", none()),
            Event("plan_complete", plan(2)),
            Event("execute", none()),
            Event("cancel", none()),
            Event("execute", none()),
            Event("questions_detected", none()),
            Event("cancel", none()),
            Event("execute", none()),
            Event("error", json!({"message": "phase 1 failed"})),
            Event("retry", none()),
        ],
        "executing",
        &mut seen,
    );
    assert_eq!(run.previous_state, None);
    assert_eq!(run.values["error"], "");
    finish(&f, &seen);
}

#[test]
fn a_retry_from_error_with_nothing_to_return_to_is_refused_and_the_state_stays() {
    let f = flow("conductor-ui");
    let mut run = FlowRun::start(&f, &BTreeMap::new(), at(0)).unwrap();
    // An error state entered with no state remembered (restored so, as a STATUS.md may say).
    run.restore(&f, "error", None, &BTreeMap::new(), &BTreeMap::new())
        .unwrap();
    let before = run.clone();
    let refused = run.apply(&f, "retry", &Map::new(), at(1)).unwrap_err();
    assert!(
        refused.message.contains("no state to return to"),
        "{}",
        refused.message
    );
    assert_eq!(refused.allowed, ["retry", "reset"]);
    assert_eq!(run, before);
    // Nor can the state before an error be an error state (retry would stay there for ever).
    let mut other = FlowRun::start(&f, &BTreeMap::new(), at(0)).unwrap();
    let refused = other
        .restore(
            &f,
            "error",
            Some("error"),
            &BTreeMap::new(),
            &BTreeMap::new(),
        )
        .unwrap_err();
    assert!(
        refused.contains("cannot be the state before an error"),
        "{refused}"
    );
}

#[test]
fn workflow() {
    let f = flow("workflow");
    let mut seen = Seen::default();
    let failed = |severity: &str| json!({"severity": severity, "task": "t-3"});
    play(
        &f,
        &[],
        &[
            Refused("planning_complete", none()),
            Event("answer", none()),
            Event("validation_failed", none()),
            Event("discovery_complete", none()),
            Event("dag_cycle", none()),
            Event("major_revision", none()),
            Event("discovery_complete", none()),
            Event("planning_complete", none()),
            Event("task_completed", none()),
            Event("task_failed", failed("low")),
            Event("task_failed", failed("medium")),
            Refused("task_failed", failed("catastrophic")),
            Event("task_failed", failed("high")),
            Refused("task_completed", none()),
            Event("retry", none()),
            Event("task_failed", failed("high")),
            Event("skip", none()),
            Event("task_failed", failed("high")),
            Event("replan", none()),
            Event("planning_complete", none()),
            Event("all_tasks_done", none()),
            Event("continue", none()),
            Event("all_tasks_done", none()),
            Refused("answer", none()),
            Event("merged", none()),
            Refused("continue", none()),
        ],
        "done",
        &mut seen,
    );
    finish(&f, &seen);
}

#[test]
fn task() {
    let f = flow("task");
    let mut seen = Seen::default();
    let rejected = |severity: &str| json!({"severity": severity, "feedback": "tests fail"});
    play(
        &f,
        &[],
        &[
            Refused("approved", none()),
            Event("selected", none()),
            Event("implementation_complete", none()),
            Event("rejected", rejected("low")),
            Event("slot_available", none()),
            Event("implementation_complete", none()),
            Event("rejected", rejected("medium")),
            Event("slot_available", none()),
            Event("implementation_complete", none()),
            // The third attempt: rejected again, even low, fails it.
            Event("rejected", rejected("low")),
            Event("retry", json!({"guidance": "use the fixture"})),
            Event("implementation_blocked", json!({"reason": "no access"})),
            Event("replan", none()),
            Event("selected", none()),
            Event("implementation_complete", none()),
            Refused("rejected", rejected("severe")),
            Event("rejected", rejected("high")),
            Refused("approved", none()),
            Event("skip", none()),
        ],
        "skipped",
        &mut seen,
    );
    play(
        &f,
        &[],
        &[
            Event("dependency_failed", none()),
            Refused("selected", none()),
            Event("blocker_resolved", none()),
            Event("dependency_failed", none()),
            Event("skip", none()),
        ],
        "skipped",
        &mut seen,
    );
    play(
        &f,
        &[],
        &[
            Event("selected", none()),
            Event("implementation_complete", none()),
            Event("approved", none()),
            Refused("selected", none()),
        ],
        "completed",
        &mut seen,
    );
    finish(&f, &seen);
}

#[test]
fn retry() {
    let f = flow("retry");
    let mut seen = Seen::default();
    let rejected = json!({"feedback": "still failing"});
    // The default ladder: two same-agent retries, one fresh-agent retry, escalation.
    let run = play(
        &f,
        &[],
        &[
            Refused("mark_fixed", none()),
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
            Refused("approved", none()),
            Event("retry_with_guidance", json!({"guidance": "mock the clock"})),
            Event("approved", none()),
        ],
        "success_state",
        &mut seen,
    );
    assert_eq!(run.counters["attempts"], 5);
    for (choice, end) in [
        ("mark_fixed", "success_state"),
        ("skip_task", "skipped_state"),
        ("return_to_planning", "planning_phase"),
    ] {
        play(
            &f,
            &[],
            &[
                Event("rejected", rejected.clone()),
                Event("rejected", rejected.clone()),
                Event("rejected", rejected.clone()),
                Event("rejected", rejected.clone()),
                Event(choice, none()),
                Refused("rejected", rejected.clone()),
            ],
            end,
            &mut seen,
        );
    }
    play(
        &f,
        &[],
        &[
            Event("rejected", rejected.clone()),
            Event("approved", none()),
        ],
        "success_state",
        &mut seen,
    );
    play(
        &f,
        &[],
        &[
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
            Event("approved", none()),
        ],
        "success_state",
        &mut seen,
    );
    // Other ladders, as settings.
    play(
        &f,
        &[("same_agent_retries", "0")],
        &[Event("rejected", rejected.clone())],
        "attempt_3",
        &mut seen,
    );
    play(
        &f,
        &[("same_agent_retries", "0"), ("fresh_agent_retries", "0")],
        &[Event("rejected", rejected.clone())],
        "escalation",
        &mut seen,
    );
    play(
        &f,
        &[("same_agent_retries", "1"), ("fresh_agent_retries", "0")],
        &[
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
        ],
        "escalation",
        &mut seen,
    );
    play(
        &f,
        &[("fresh_agent_retries", "2")],
        &[
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
            Event("rejected", rejected.clone()),
        ],
        "escalation",
        &mut seen,
    );
    finish(&f, &seen);
}

#[test]
fn circuit_breaker() {
    let f = flow("circuit-breaker");
    let mut seen = Seen::default();
    let run = play(
        &f,
        &[],
        &[
            Refused("intervene", none()),
            Event("task", none()),
            Event("failure", none()),
            Event("failure", none()),
            Event("success", none()),
            Event("failure", none()),
            Event("failure", none()),
            Event("failure", none()), // the third in a row: open
            Event("task", none()),
            Refused("success", none()),
            Refused("failure", none()),
            Event("intervene", none()),
            Refused("intervene", none()),
            Refused("task", none()),
            Event("failure", none()),
            Event("intervene", none()),
            Event("success", none()),
        ],
        "closed",
        &mut seen,
    );
    assert_eq!(run.counters["failures"], 0);
    assert_eq!(run.counters["rejected"], 1);
    play(
        &f,
        &[("threshold", "1")],
        &[Event("failure", none())],
        "open",
        &mut seen,
    );
    finish(&f, &seen);
}

#[test]
fn discovery() {
    let f = flow("discovery");
    let mut seen = Seen::default();
    let done = |c: &str| json!({"category": c});
    let mut script = vec![
        Refused("answer", none()),
        Event("initialize", none()),
        Event("answer", none()),
        Event("category_done", done("purpose")),
        Refused("category_done", done("purpose")), // already done
        Refused("category_done", done("budget")),
        Refused("category_done", json!({"category": 3})),
        Refused("write_files", none()),
        Event("category_done", done("users")),
        Event("category_done", done("scope")),
        Event("category_done", done("constraints")),
    ];
    // Fourteen more answers: the fifteenth warns.
    for _ in 0..14 {
        script.push(Event("answer", none()));
    }
    script.extend([
        Refused("answer", none()),
        Event("continue", none()),
        Event("answer", none()),
        Event("category_done", done("edge_cases")), // all done: generating
        Event("specs_generated", none()),
        Event("validated", none()),
        Event("minor_edits", none()),
        Event("edits_applied", none()),
        Event("major_revision", none()), // the categories are asked again
        Event("answer", none()),
        Event("answer", none()),
        Event("answer", none()),
        Event("answer", none()), // the twentieth: generation forced
        Event("specs_generated", none()),
        Event("validated", none()),
        Event("approve", none()),
        Event("write_files", none()),
    ]);
    let run = play(&f, &[], &script, "writing", &mut seen);
    assert_eq!(run.counters["turns"], 20);
    play(
        &f,
        &[("warn_turns", "2")],
        &[
            Event("initialize", none()),
            Event("answer", none()),
            Event("answer", none()),
            Event("generate_now", none()),
        ],
        "generating",
        &mut seen,
    );
    finish(&f, &seen);
}

#[test]
fn moderator() {
    let f = flow("moderator");
    let mut seen = Seen::default();
    let usage = |tokens: i64, actions: i64, errors: i64| json!({"tokens": tokens, "actions": actions, "errors": errors});
    let run = play(
        &f,
        &[],
        &[
            Refused("plan_approved", none()),
            Refused("improvement_pr", none()),
            Refused("usage", json!({"tokens": 1, "dollars": 3})),
            Refused("usage", json!({})), // tokens are required
            Refused("usage", json!({"tokens": -5})), // a count is 0 or more
            Event("more_questions", none()),
            Event("requirements_confirmed", none()),
            Event("scope_unclear", none()),
            Event("requirements_confirmed", none()),
            Event("usage", usage(1000, 10, 1)),
            Event("plan_approved", none()),
            Event("next_task", none()),
            Event("pr_submitted", none()),
            Event("changes_requested", none()),
            Event("pr_submitted", none()),
            Event("pr_merged", none()),
            Event("improvements_identified", json!({"magnitude": 5.0})), // cycle 0 < 2: goes on
            Event("pr_submitted", none()),
            Event("pr_merged", none()),
            Event("improvement_pr", none()),
            Event("pr_merged", none()),
            Refused("improvements_identified", json!({"magnitude": "big"})),
            Event("improvements_identified", json!({"magnitude": 3.0})), // 2 cycles: diminishing
        ],
        "stopped",
        &mut seen,
    );
    assert_eq!(run.values["stop_reason"], "diminishing returns");
    // The token limit: usage reports add up to 1,000,000.
    let run = play(
        &f,
        &[],
        &[
            Event("usage", usage(600_000, 100, 0)),
            Event("usage", usage(399_999, 100, 0)),
            Event("usage", usage(1, 1, 0)),
            Refused("usage", usage(1, 1, 0)),
            Refused("stop", none()),
        ],
        "stopped",
        &mut seen,
    );
    assert_eq!(run.values["stop_reason"], "token limit reached");
    assert_eq!(run.counters["tokens_used"], 1_000_000);
    // The error rate: never divided by zero, stops at 20 %.
    let run = play(
        &f,
        &[],
        &[
            Event("usage", usage(10, 0, 0)),
            Event("usage", usage(10, 10, 1)),
            Event("usage", usage(10, 0, 1)),
        ],
        "stopped",
        &mut seen,
    );
    assert_eq!(run.values["stop_reason"], "error rate too high");
    // Stagnation: 30 minutes without progress; progress pushes it back.
    let run = play(
        &f,
        &[],
        &[
            Tick(29 * 60),
            Event("more_questions", none()),
            Tick(29 * 60),
            Event("requirements_confirmed", none()),
            Tick(30 * 60),
        ],
        "stopped",
        &mut seen,
    );
    assert_eq!(run.values["stop_reason"], "stagnated");
    // The runtime limit: 24 hours however busy.
    let mut steps = Vec::new();
    for _ in 0..50 {
        steps.push(Tick(25 * 60));
        steps.push(Event("more_questions", none()));
    }
    steps.push(Tick(25 * 60));
    let run = play(
        &f,
        &[("runtime_limit", "1h")],
        &steps[..5],
        "stopped",
        &mut seen,
    );
    assert_eq!(run.values["stop_reason"], "runtime limit exceeded");
    for (events, reason) in [
        (vec![Event("cancel", none())], "user cancelled"),
        (
            vec![
                Event("requirements_confirmed", none()),
                Event("reject_plan", none()),
            ],
            "plan rejected",
        ),
        (
            vec![
                Event("requirements_confirmed", none()),
                Event("plan_approved", none()),
                Event("critical_error", json!({"message": "disk full"})),
            ],
            "critical failure: disk full",
        ),
        (
            vec![
                Event("requirements_confirmed", none()),
                Event("plan_approved", none()),
                Event("pr_submitted", none()),
                Event("unresolvable", none()),
            ],
            "unresolvable issues",
        ),
        (vec![Event("stop", none())], "user intervention"),
    ] {
        let run = play(&f, &[], &events, "stopped", &mut seen);
        assert_eq!(run.values["stop_reason"], reason);
    }
    // The improvement cycle limit.
    let run = play(
        &f,
        &[("max_cycles", "1"), ("min_cycles", "5")],
        &[
            Event("requirements_confirmed", none()),
            Event("plan_approved", none()),
            Event("pr_submitted", none()),
            Event("pr_merged", none()),
            Event("improvements_identified", json!({"magnitude": 50})),
            Event("pr_submitted", none()),
            Event("pr_merged", none()),
            Event("improvements_identified", json!({"magnitude": 50})),
        ],
        "stopped",
        &mut seen,
    );
    assert_eq!(run.values["stop_reason"], "improvement cycle limit reached");
    finish(&f, &seen);
}

#[test]
fn settings_are_checked_when_a_flow_starts() {
    let f = flow("moderator");
    let bad = |k: &str, v: &str| {
        let settings = BTreeMap::from([(k.to_string(), v.to_string())]);
        FlowRun::start(&f, &settings, at(0)).unwrap_err()
    };
    assert!(bad("token_limt", "5").contains("no setting \"token_limt\""));
    assert!(bad("token_limit", "many").contains("not of the type"));
    assert!(bad("stagnation_after", "soon").contains("not of the type"));
}

#[test]
fn a_timer_due_before_an_event_is_applied_first() {
    let f = flow("moderator");
    let mut run = FlowRun::start(&f, &BTreeMap::new(), at(0)).unwrap();
    run.apply(&f, "requirements_confirmed", &Map::new(), at(60))
        .unwrap();
    // 31 minutes after the last progress, before any sweep: the stagnation timer stops it first.
    let before = run.clone();
    let refused = run
        .apply(&f, "plan_approved", &Map::new(), at(60 + 31 * 60))
        .unwrap_err();
    assert!(
        refused.message.contains("its timer fell due first"),
        "{}",
        refused.message
    );
    assert_eq!(run, before);
    // An event taken after a timer that moved nothing: both in one change, the timer's moves first.
    let mut run = FlowRun::start(
        &f,
        &BTreeMap::from([("stagnation_after".to_string(), "1m".to_string())]),
        at(0),
    )
    .unwrap();
    let moves = run.tick(&f, at(30));
    assert!(moves.is_empty());
    assert!(
        run.apply(&f, "more_questions", &Map::new(), at(61))
            .is_err()
    );
}

#[test]
fn durations_out_of_bounds_are_refused() {
    let f = flow("moderator");
    for (k, v) in [
        ("runtime_limit", "300000y"),
        ("stagnation_after", "0s"),
        ("stagnation_after", "10ms"),
    ] {
        let settings = BTreeMap::from([(k.to_string(), v.to_string())]);
        let refused = FlowRun::start(&f, &settings, at(0)).unwrap_err();
        assert!(refused.contains("not of the type"), "{k}={v}: {refused}");
    }
    let settings = BTreeMap::from([("runtime_limit".to_string(), "366d".to_string())]);
    let run = FlowRun::start(&f, &settings, at(0)).unwrap();
    assert!(run.next_timer.is_some());
}

#[test]
fn a_logged_event_its_flow_no_longer_takes_makes_the_log_unreadable() {
    use convstate::store::{Change, ErrorKind, Event, Stored, fold};
    let engine = convstate::patterns::builtin();
    let event = |seq: u64, change: Change| Event {
        seq,
        at: at(seq as i64),
        change,
        id: None,
    };
    let mut stored = Stored {
        session_id: "s-flow".into(),
        created_at: at(0),
        owner: None,
        snapshot: None,
        events: vec![
            event(
                1,
                Change::Start {
                    flow: "circuit-breaker".into(),
                    settings: BTreeMap::new(),
                    restore: None,
                },
            ),
            event(
                2,
                Change::Event {
                    name: "failure".into(),
                    data: Map::new(),
                },
            ),
        ],
        recent_ids: Vec::new(),
    };
    let folded = fold(&engine, &stored).unwrap();
    assert_eq!(folded.conv.flow.as_ref().unwrap().counters["failures"], 1);
    // An event the flow does not take in its state (as after a change of the flow file).
    stored.events.push(event(
        3,
        Change::Event {
            name: "intervene".into(),
            data: Map::new(),
        },
    ));
    let error = fold(&engine, &stored).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Corrupt);
    assert!(
        error.message.contains("event 3 is refused by its flow"),
        "{}",
        error.message
    );
}
