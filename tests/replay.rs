//! `convstate replay` over the real binary, on the transcripts under `tests/transcripts/`.
//! Each `NAME.jsonl` with a `NAME.expected.jsonl` beside it must replay to exactly that output;
//! `UPDATE_GOLDEN=1 cargo test --test replay` rewrites the expected files after a deliberate
//! change (review the diff).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use chrono::{DateTime, Utc};
use convstate::conversation::{GoalReason, GoalStatus};
use convstate::protocol::{ServerFrame, StateUpdate};

fn convstate(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the convstate binary runs");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.unwrap_or("").as_bytes())
        .expect("write stdin");
    drop(input);
    child.wait_with_output().expect("convstate finishes")
}

/// The replay's output, read through the protocol's frame type: every line a `state` frame.
fn frames(out: &Output) -> Vec<StateUpdate<'static>> {
    assert!(
        out.status.success(),
        "replay failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .expect("utf-8 output")
        .lines()
        .map(
            |l| match ServerFrame::parse(l).expect("each line is a frame") {
                ServerFrame::State(state) => state,
                other => panic!("not a state frame: {}", other.to_text()),
            },
        )
        .collect()
}

fn phases(frames: &[StateUpdate<'_>]) -> Vec<&'static str> {
    frames.iter().map(|f| f.state.phase.as_str()).collect()
}

fn time(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn transcripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts")
}

#[test]
fn worked_example_replays_the_phases_of_the_spec() {
    let out = convstate(&["replay", "tests/transcripts/worked-example.jsonl"], None);
    let frames = frames(&out);
    assert_eq!(
        phases(&frames),
        [
            "understanding",
            "understanding",
            "planning",
            "executing",
            "executing",
            "reviewing",
            "completed",
            "understanding",
            "idle"
        ]
    );
    let milestones: Vec<bool> = frames
        .iter()
        .map(|f| f.transitions.iter().any(|t| t.milestone))
        .collect();
    assert_eq!(
        milestones,
        [true, false, false, true, false, false, true, true, false]
    );
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f.seq, i as u64 + 1);
        assert_eq!(f.session_id, "s-replay");
        assert!(f.summary.starts_with("Conversation Phase: "));
    }
    assert_eq!(frames[6].state.current_goal, None);
    assert_eq!(frames[7].state.completed_goals.len(), 1);
    let history = &frames[8].state.completed_goals;
    assert_eq!(history.len(), 2);
    assert_eq!(history[1].status, GoalStatus::Abandoned);
    assert_eq!(history[1].reason, Some(GoalReason::Cancelled));
}

#[test]
fn transcripts_replay_to_their_expected_output() {
    let mut checked = 0;
    for entry in std::fs::read_dir(transcripts()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let Some(stem) = name.strip_suffix(".jsonl") else {
            continue;
        };
        if stem.ends_with(".expected") {
            continue;
        }
        let expected = transcripts().join(format!("{stem}.expected.jsonl"));
        let out = convstate(&["replay", path.to_str().unwrap()], None);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&expected, &out.stdout).unwrap();
        }
        let want = std::fs::read_to_string(&expected)
            .unwrap_or_else(|e| panic!("{}: {e}", expected.display()));
        let got = String::from_utf8(out.stdout).unwrap();
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            assert_eq!(g, w, "{name}, line {}", i + 1);
        }
        assert_eq!(
            got.lines().count(),
            want.lines().count(),
            "{name}: line count"
        );
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} transcripts checked");
}

#[test]
fn idle_ticks_change_the_state_only_at_the_deadline() {
    let frames = frames(&convstate(
        &["replay", "tests/transcripts/idle.jsonl"],
        None,
    ));
    assert_eq!(
        phases(&frames),
        [
            "understanding",
            "understanding",
            "idle",
            "greeting",
            "planning"
        ]
    );
    let seqs: Vec<u64> = frames.iter().map(|f| f.seq).collect();
    assert_eq!(
        seqs,
        [1, 1, 2, 3, 4],
        "a tick that changes nothing is no change"
    );
    assert_eq!(
        frames[2].state.completed_goals[0].reason,
        Some(GoalReason::IdleTimeout)
    );
    // Late by more than the timeout: greeting -> idle -> understanding -> planning in one step.
    let moves: Vec<(&str, &str)> = frames[4]
        .transitions
        .iter()
        .map(|t| (t.from.as_str(), t.to.as_str()))
        .collect();
    assert_eq!(
        moves,
        [
            ("greeting", "idle"),
            ("idle", "understanding"),
            ("understanding", "planning")
        ]
    );
}

#[test]
fn idle_timeout_flag_overrides_the_patterns() {
    let input = concat!(
        r#"{"role":"user","text":"Build a landing page","at":"2026-11-21T10:00:00Z"}"#,
        "\n",
        r#"{"tick":"2026-11-21T10:00:02Z"}"#,
        "\n"
    );
    let frames = frames(&convstate(
        &["replay", "--idle-timeout", "2s", "-"],
        Some(input),
    ));
    assert_eq!(phases(&frames), ["understanding", "idle"]);
    assert_eq!(
        frames[0].state.idle_deadline,
        Some(time("2026-11-21T10:00:02Z"))
    );
}

#[test]
fn times_default_to_one_second_apart_from_the_start_of_2026() {
    let input = "{\"role\":\"user\",\"text\":\"hi\"}\n\n{\"role\":\"user\",\"text\":\"hey\"}\n";
    let frames = frames(&convstate(&["replay", "-"], Some(input)));
    assert_eq!(frames.len(), 2, "blank lines are skipped");
    assert_eq!(frames[0].state.created_at, time("2026-01-01T00:00:00Z"));
    assert_eq!(frames[1].state.last_updated, time("2026-01-01T00:00:01Z"));
}

#[test]
fn malformed_lines_stop_the_replay_with_their_line_number() {
    let good = r#"{"role":"user","text":"hi"}"#;
    for (bad, message) in [
        ("{not json", "invalid step"),
        (r#"{"role":"user","txt":"hi"}"#, "unknown field `txt`"),
        (r#"{"role":"robot","text":"hi"}"#, "unknown variant `robot`"),
        (r#"{"role":"user"}"#, "needs a `text`"),
        (r#"{"signal":"switch"}"#, "unknown signal"),
        (
            r#"{"signal":"approve","role":"user","text":"x"}"#,
            "a step is one of",
        ),
        (r#"{"tick":"yesterday"}"#, "invalid step"),
        (
            r#"{"role":"user","text":"x","at":"2025-01-01T00:00:00Z"}"#,
            "time goes backwards",
        ),
        (r#"{}"#, "a step needs"),
        ("[1,2]", "invalid step"),
    ] {
        let input = format!("{good}\n{good}\n{bad}\n{good}\n");
        let out = convstate(&["replay", "-"], Some(&input));
        assert!(!out.status.success(), "{bad} should fail");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The line, and for what is not a step at all, the column in it: "-:3: " or "-:3:9: ".
        assert!(stderr.contains("-:3:"), "{bad}: {stderr}");
        assert!(!stderr.contains("at line"), "{bad}: {stderr}");
        assert!(stderr.contains(message), "{bad}: {stderr}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).lines().count(),
            2,
            "the steps before the bad line are written"
        );
    }
}

#[test]
fn a_missing_file_is_an_error() {
    let out = convstate(&["replay", "tests/transcripts/no-such-file.jsonl"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-file.jsonl"));
}

#[test]
fn brief_output_shows_one_line_per_step_for_a_person() {
    let out = convstate(
        &[
            "replay",
            "--brief",
            "tests/transcripts/worked-example.jsonl",
        ],
        None,
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 9);
    assert!(
        lines[0].contains("understanding") && lines[0].contains("User stated a goal, milestone")
    );
    assert!(lines[0].ends_with("| artifact_creation: todo app"));
    assert!(lines[8].contains("understanding -> idle (User cancelled)"));
}

/// `replay --explain`: under each step, every phrase found and whether it counted or which rule
/// dropped it, the words read as others, the goal lead and its wrapper, and the rule that fired.
#[test]
fn explain_says_why_each_step_went_as_it_did() {
    let transcript = [
        r#"{"role":"user","text":"I want to build a todo app with add and delete features using React"}"#,
        r#"{"role":"assistant","text":"I'll create it now"}"#,
        r#"{"role":"assistant","text":"<artifact>...</artifact>"}"#,
        r#"{"role":"user","text":"Looks good but the header is off"}"#,
        r#"{"role":"user","text":"Would you mind fixing the login form so it validates emails"}"#,
        r#"{"role":"user","text":"Sounds good, don't go ahead yet."}"#,
        r#"{"role":"user","text":"Ok. Should I go ahead?"}"#,
        r#"{"role":"user","text":"perfct, thnaks"}"#,
    ]
    .join("\n");
    let out = convstate(&["replay", "--explain", "-"], Some(&transcript));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // The issue's acceptance: satisfaction dropped by the contrast rule, the change request.
    // Steps start with their number; their notes follow, indented further.
    let mut steps: Vec<Vec<&str>> = Vec::new();
    for line in text.lines() {
        let number = line.get(..3).map(str::trim_start).unwrap_or_default();
        if !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) {
            steps.push(vec![line]);
        } else if let Some(step) = steps.last_mut() {
            step.push(line);
        }
    }
    assert_eq!(steps.len(), 8, "{text}");
    let step4 = &steps[3];
    assert!(
        step4[0].contains("reviewing -> understanding (User requested changes"),
        "{text}"
    );
    for want in [
        r#"phrase   satisfied "Looks good" (user, 0..10): dropped by the contrast rule"#,
        r#"phrase   contrast "but" (user, 11..14): counts"#,
        "rule     4 reviewing: a change request (satisfaction taken back by a contrast)",
    ] {
        assert!(step4.iter().any(|l| l.trim() == want), "{want}\n{text}");
    }
    for want in [
        r#"goal     artifact_creation lead "build" after "I want to", description "todo app with add and delete features using React""#,
        r#"phrase   start_work "I'll create" (assistant, 0..11): counts"#,
        r#"goal     task_execution lead "fixing" after "Would you mind", description "login form so it validates emails""#,
        r#"phrase   approve "go ahead" (user, 19..27): dropped by the negation rule"#,
        r#"phrase   approve "go ahead" (user, 13..21): dropped by the question rule"#,
        r#"phrase   approve "Ok" (user, 0..2): counts"#,
        r#"phrase   approve "Sounds good" (user, 0..11): dropped by the deferral rule"#,
        r#"typo     "perfct" read as "perfect" (0..6)"#,
        r#"phrase   satisfied "thnaks" (user, 8..14): counts"#,
    ] {
        assert!(text.lines().any(|l| l.trim() == want), "{want}\n{text}");
    }
}

/// An explanation lists at most 256 phrases, and counts the rest: a long message of signal
/// words does not make every frame grow with it.
#[test]
fn explanations_are_bounded() {
    let text = "ok ".repeat(1000);
    let line = serde_json::json!({"role": "user", "text": text}).to_string();
    let engine = convstate::patterns::builtin();
    let now = Utc::now();
    let mut conv = engine.start("s-long", now);
    let (_, e) = engine.step_explained(
        &mut conv,
        convstate::conversation::Input::Message {
            role: convstate::conversation::Role::User,
            text: &text,
            artifact: false,
        },
        now,
    );
    assert_eq!(e.phrases.len(), 256);
    assert!(e.phrases_omitted >= 744, "{}", e.phrases_omitted);
    let out = convstate(&["replay", "--explain", "-"], Some(&line));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.lines().count() < 300);
    assert!(
        text.contains(&format!("{} more, not listed", e.phrases_omitted)),
        "{text}"
    );
}
