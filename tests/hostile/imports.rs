//! `convstate import` checks the whole file as the server would read it before writing
//! anything: an id the server refuses, an event's id over the limit, a flow session naming a
//! flow the server does not have. A file with one such session writes nothing at all.

use crate::common::{Client, ServerProcess, convstate, temp_path};
use serde_json::Value;

/// The sessions a store holds, as `convstate export` writes them.
fn exported(store: &str) -> Vec<Value> {
    let (ok, out, said) = convstate(&["export", "--store", store]);
    assert!(ok, "{said}");
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_with_one_unreadable_session_writes_nothing() {
    let db = temp_path("import-source", "db");
    let store = format!("sqlite:{}", db.display());
    let server = ServerProcess::start(&["--store", &store]).unwrap();
    let (mut talk, _) = Client::connect(&server.ws_url("")).await;
    talk.turn("user", "Build a landing page for a bakery", "t-1")
        .await;
    talk.turn("user", "It should list the opening hours", "t-2")
        .await;
    let (flow, _) = Client::connect_raw(&server.ws_url("?flow=conductor-ui")).await;
    let flow_id = flow.session_id.clone();
    drop(flow);
    assert!(server.stop().0.success());
    // The export, as one list of lines per session.
    let mut sessions: Vec<Vec<Value>> = Vec::new();
    for line in exported(&store) {
        if line.get("session").is_some() {
            sessions.push(Vec::new());
        }
        sessions.last_mut().unwrap().push(line);
    }
    let of = |flow: bool| {
        sessions
            .iter()
            .find(|s| (s[0]["session"].as_str() == Some(flow_id.as_str())) == flow)
            .unwrap()
            .clone()
    };
    let (good, flow_lines) = (of(false), of(true));
    assert_eq!(good.len(), 3, "{good:?}");
    assert_eq!(flow_lines[1]["type"], "start", "{flow_lines:?}");
    let with_id = |id: &str| {
        let mut session = good.clone();
        session[0]["session"] = id.into();
        session
    };
    let mut long_event_id = with_id("s-long-event-id");
    long_event_id[1]["id"] = "i".repeat(300).into();
    let mut unknown_flow = flow_lines.clone();
    unknown_flow[0]["session"] = "s-unknown-flow".into();
    unknown_flow[1]["flow"] = "no-such-flow".into();
    // What is wrong, what the error says, and on which line.
    let cases: Vec<(&str, Vec<Value>, &str, &str)> = vec![
        (
            "a 5,000-byte id",
            with_id(&"s".repeat(5000)),
            "1 to 128 bytes",
            "line 4",
        ),
        ("an empty id", with_id(""), "1 to 128 bytes", "line 4"),
        (
            "a control character",
            with_id("s-\u{7}bell"),
            "control",
            "line 4",
        ),
        (
            "a 300-byte event id",
            long_event_id,
            "at most 128 bytes",
            "line 5",
        ),
        (
            "an unknown flow",
            unknown_flow,
            "refused by its flow",
            "line 5",
        ),
    ];
    for (name, bad, words, line) in cases {
        let file = temp_path("import-bad", "jsonl");
        let mut text = String::new();
        // A sound session first: it is not written either.
        for line in with_id("s-sound").iter().chain(&bad) {
            text.push_str(&line.to_string());
            text.push('\n');
        }
        std::fs::write(&file, text).unwrap();
        let target = format!("sqlite:{}", temp_path("import-target", "db").display());
        let (ok, _, said) = convstate(&["import", "--store", &target, file.to_str().unwrap()]);
        assert!(!ok, "{name}: {said}");
        assert!(said.contains(words), "{name}: {said}");
        assert!(said.contains(line), "{name}: the line is named: {said}");
        assert_eq!(
            exported(&target),
            Vec::<Value>::new(),
            "{name}: nothing written"
        );
    }
    // The sound file imports, and from standard input too.
    let file = temp_path("import-good", "jsonl");
    let text: String = good.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, &text).unwrap();
    let target = format!("sqlite:{}", temp_path("import-target", "db").display());
    let (ok, _, said) = convstate(&["import", "--store", &target, file.to_str().unwrap()]);
    assert!(ok, "{said}");
    assert_eq!(exported(&target), good);
    let target = format!("sqlite:{}", temp_path("import-stdin", "db").display());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["import", "--store", &target, "-"])
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(exported(&target), good);
}
