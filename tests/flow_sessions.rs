//! Hosted flows over the wire: `?flow=NAME` sessions, `event` frames, `invalid_transition`
//! errors with the allowed events, timers applied by the sweeper, resume and several clients,
//! and a flow's counters and timer surviving a kill -9 of the server.

mod common;

use common::{Client, ServerProcess, TestServer};
use serde_json::{Value, json};

async fn event(client: &mut Client, name: &str, data: Value, id: &str) -> Value {
    client
        .send(json!({"type": "event", "name": name, "data": data, "id": id}))
        .await;
    let mut state = None;
    loop {
        let frame = client.recv_json().await;
        match frame["type"].as_str() {
            Some("state") => state = Some(frame),
            Some("ack") if frame["id"] == id => return state.expect("the state frame came first"),
            Some("error") => panic!("{name}: {frame}"),
            _ => {}
        }
    }
}

async fn refused(client: &mut Client, frame: Value) -> Value {
    client.send(frame).await;
    loop {
        let frame = client.recv_json().await;
        if frame["type"] == "error" {
            return frame;
        }
        assert_ne!(frame["type"], "ack", "{frame}");
    }
}

#[tokio::test]
async fn a_moderator_driven_by_usage_reports_stops_at_the_token_limit() {
    let server = TestServer::default().await;
    let (mut client, welcome) = Client::connect_raw(&server.ws_url("?flow=moderator")).await;
    // The flow's start is the session's first change, stored before the welcome.
    assert_eq!(welcome["seq"], 1);
    assert_eq!(welcome["state"]["flow"], "moderator");
    assert_eq!(welcome["state"]["state"], "clarifying");
    assert!(
        welcome["state"]["allowed_events"]
            .as_array()
            .unwrap()
            .contains(&json!("requirements_confirmed"))
    );
    assert!(
        welcome["summary"]
            .as_str()
            .unwrap()
            .starts_with("Flow moderator, state: clarifying")
    );
    let state = event(&mut client, "requirements_confirmed", json!({}), "e-1").await;
    assert_eq!(state["state"]["state"], "planning");
    assert_eq!(state["transitions"][0]["event"], "requirements_confirmed");
    let mut last = Value::Null;
    for i in 0..10 {
        last = event(
            &mut client,
            "usage",
            json!({"tokens": 100_000, "actions": 5, "errors": 0}),
            &format!("u-{i}"),
        )
        .await;
        if i < 9 {
            assert_eq!(last["state"]["state"], "planning");
        }
    }
    assert_eq!(last["state"]["state"], "stopped");
    assert_eq!(last["state"]["counters"]["tokens_used"], 1_000_000);
    assert_eq!(
        last["state"]["values"]["stop_reason"],
        "token limit reached"
    );
    let reasons: Vec<&str> = last["transitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["Usage reported", "token limit reached"]);
    assert_eq!(last["state"]["allowed_events"], json!([]));
    // Ended: nothing more is taken.
    let error = refused(
        &mut client,
        json!({"type": "event", "name": "usage", "data": {"tokens": 1}}),
    )
    .await;
    assert_eq!(error["code"], "invalid_transition");
    assert!(
        error["message"].as_str().unwrap().contains("ended"),
        "{error}"
    );
    server.stop().await;
}

#[tokio::test]
async fn events_a_state_does_not_take_are_refused_with_what_it_allows() {
    let server = TestServer::default().await;
    let (mut client, welcome) = Client::connect_raw(&server.ws_url("?flow=conductor-ui")).await;
    assert_eq!(welcome["state"]["allowed_events"], json!(["configure"]));
    let cases = [
        json!({"type": "event", "name": "execute"}),
        json!({"type": "event", "name": "retry"}),
        json!({"type": "event", "name": "no_such_event"}),
        json!({"type": "event", "name": "configure", "data": {"project_name": 7}}),
        json!({"type": "event", "name": "configure", "data": {"owner": "x"}}),
        json!({"type": "message", "role": "user", "text": "Build a todo app"}),
        json!({"type": "signal", "signal": "approve"}),
    ];
    for frame in cases {
        let error = refused(&mut client, frame.clone()).await;
        assert_eq!(error["code"], "invalid_transition", "{frame}: {error}");
        assert_eq!(error["allowed_events"], json!(["configure"]), "{frame}");
    }
    // The state is untouched: still seq 1, in reset.
    client.send(json!({"type": "get_state"})).await;
    let state = loop {
        let frame = client.recv_json().await;
        if frame["type"] == "state" {
            break frame;
        }
    };
    assert_eq!(state["seq"], 1);
    assert_eq!(state["state"]["state"], "reset");
    // Bad frames are the protocol's errors, as for conversations.
    let error = refused(&mut client, json!({"type": "event"})).await;
    assert_eq!(error["code"], "bad_request");
    // A conversation takes no events.
    let (mut talk, _) = Client::connect(&server.ws_url("")).await;
    let error = refused(&mut talk, json!({"type": "event", "name": "configure"})).await;
    assert_eq!(error["code"], "invalid_transition");
    assert!(error["message"].as_str().unwrap().contains("conversation"));
    server.stop().await;
}

#[tokio::test]
async fn unknown_flows_and_settings_are_refused_at_connect() {
    let server = TestServer::default().await;
    for (query, says) in [
        ("?flow=nope", "no flow \"nope\""),
        (
            "?flow=moderator&settings=token_limt=5",
            "no setting \"token_limt\"",
        ),
        (
            "?flow=moderator&settings=token_limit=many",
            "not of the type",
        ),
        ("?flow=moderator&settings=oops", "not NAME=VALUE"),
        ("?settings=token_limit=5", "goes with flow=NAME"),
        (
            "?flow=moderator&session_id=abc",
            "to join a session, give only session_id",
        ),
    ] {
        let (status, body) = common::upgrade(server.addr, query).await;
        assert_eq!(status, 400, "{query}: {body}");
        let error: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(error["code"], "bad_request");
        assert!(
            error["message"].as_str().unwrap().contains(says),
            "{query}: {body}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_timer_applied_by_the_sweeper_stops_a_stagnating_moderator() {
    let server = TestServer::default().await;
    let (mut client, _) =
        Client::connect_raw(&server.ws_url("?flow=moderator&settings=stagnation_after=1s")).await;
    let started = std::time::Instant::now();
    let state = loop {
        let frame = client.recv_json().await;
        if frame["type"] == "state" {
            break frame;
        }
    };
    assert!(started.elapsed() >= std::time::Duration::from_millis(900));
    assert_eq!(state["seq"], 2);
    assert_eq!(state["state"]["state"], "stopped");
    assert_eq!(state["state"]["values"]["stop_reason"], "stagnated");
    assert_eq!(state["transitions"][0]["event"], "stagnated");
    server.stop().await;
}

#[tokio::test]
async fn several_clients_see_the_same_frames_and_a_client_resumes_by_last_seq() {
    let server = TestServer::default().await;
    let (mut a, _) = Client::connect_raw(&server.ws_url("?flow=circuit-breaker")).await;
    let id = a.session_id.clone();
    let (mut b, welcome) = Client::connect_raw(&server.ws_url(&format!("?session_id={id}"))).await;
    assert_eq!(welcome["state"]["state"], "closed");
    for i in 0..3 {
        event(&mut a, "failure", json!({}), &format!("f-{i}")).await;
    }
    let mut seen = Vec::new();
    while seen.len() < 3 {
        let frame = b.recv_json().await;
        if frame["type"] == "state" {
            seen.push(frame);
        }
    }
    assert_eq!(seen[2]["state"]["state"], "open");
    assert_eq!(seen[2]["transitions"][1]["reason"], "Failures >= threshold");
    // b goes away after seq 4; a intervenes; b comes back with last_seq 4 and gets seq 5 and 6.
    drop(b);
    event(&mut a, "intervene", json!({}), "i-1").await;
    event(&mut a, "success", json!({}), "s-1").await;
    let (mut b, welcome) =
        Client::connect_raw(&server.ws_url(&format!("?session_id={id}&last_seq=4"))).await;
    assert_eq!(welcome["resumed"], true);
    let mut missed = Vec::new();
    while missed.len() < 2 {
        let frame = b.recv_json().await;
        if frame["type"] == "state" {
            missed.push((frame["seq"].clone(), frame["state"]["state"].clone()));
        }
    }
    assert_eq!(
        missed,
        [(json!(5), json!("half_open")), (json!(6), json!("closed"))]
    );
    server.stop().await;
}

#[tokio::test]
async fn a_flows_counters_and_timer_survive_a_kill_9() {
    let store = format!("sqlite:{}", common::temp_path("flows", "db").display());
    let args = ["--store", store.as_str()];
    let first = ServerProcess::start(&args).unwrap();
    let (mut client, _) =
        Client::connect_raw(&first.ws_url("?flow=moderator&settings=stagnation_after=3s")).await;
    let id = client.session_id.clone();
    event(&mut client, "requirements_confirmed", json!({}), "e-1").await;
    event(
        &mut client,
        "usage",
        json!({"tokens": 1234, "actions": 7, "errors": 1}),
        "e-2",
    )
    .await;
    let killed_at = std::time::Instant::now();
    first.kill();
    drop(client);
    // A new server on the same store: the flow's stagnation timer (3 s after the last progress)
    // is applied by its sweeper, with the counters as they were.
    let second = ServerProcess::start(&args).unwrap();
    let (mut client, welcome) =
        Client::connect_raw(&second.ws_url(&format!("?session_id={id}"))).await;
    let state = if welcome["state"]["state"] == "stopped" {
        welcome["state"].clone()
    } else {
        assert_eq!(welcome["state"]["state"], "planning");
        loop {
            let frame = client.recv_json().await;
            if frame["type"] == "state" {
                break frame["state"].clone();
            }
        }
    };
    assert!(killed_at.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(state["state"], "stopped");
    assert_eq!(state["values"]["stop_reason"], "stagnated");
    assert_eq!(state["counters"]["tokens_used"], 1234);
    assert_eq!(state["counters"]["errors"], 1);
    assert_eq!(state["settings"]["stagnation_after"], "3s");
    drop(second);
}

/// A POST with a body, its status and body.
async fn post(addr: std::net::SocketAddr, path: &str, body: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/markdown\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(common::PATIENCE, s.read_to_string(&mut answer))
        .await
        .unwrap()
        .unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

#[tokio::test]
async fn a_conductor_session_goes_out_as_status_md_and_comes_back() {
    let server = TestServer::default().await;
    let (mut client, _) = Client::connect_raw(&server.ws_url("?flow=conductor-ui")).await;
    let id = client.session_id.clone();
    event(
        &mut client,
        "configure",
        json!({"project_name": "Atlas"}),
        "c-1",
    )
    .await;
    event(&mut client, "generate_plan", json!({}), "c-2").await;
    event(
        &mut client,
        "plan_complete",
        json!({"total_phases": 3, "phase_name": "Setup"}),
        "c-3",
    )
    .await;
    event(&mut client, "execute", json!({"process_id": "4242"}), "c-4").await;
    let before = event(
        &mut client,
        "error",
        json!({"message": "exit code 2"}),
        "c-5",
    )
    .await;
    let (status, text) =
        common::http(server.addr, "GET", &format!("/api/sessions/{id}/status.md")).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.starts_with("---\n"), "{text}");
    for line in [
        "state: error\n",
        "previous_state: executing\n",
        "phase: 1\n",
        "total_phases: 3\n",
        "process_id: null\n",
        "# Project Status: Atlas\n",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    // Read back: a new session in the same state, which takes `retry` back to executing.
    let (status, body) = post(server.addr, "/api/sessions/status.md", &text).await;
    assert_eq!(status, 201, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    let copy = created["session_id"].as_str().unwrap();
    assert_ne!(copy, id);
    let (mut again, welcome) =
        Client::connect_raw(&server.ws_url(&format!("?session_id={copy}"))).await;
    for k in [
        "state",
        "previous_state",
        "counters",
        "values",
        "allowed_events",
    ] {
        assert_eq!(welcome["state"][k], before["state"][k], "{k}");
    }
    let state = event(&mut again, "retry", json!({}), "r-1").await;
    assert_eq!(state["state"]["state"], "executing");
    // An error with no state remembered (as a file may say): `retry` is refused, the state stays.
    let orphan = text.replace("previous_state: executing\n", "previous_state: null\n");
    let (status, body) = post(server.addr, "/api/sessions/status.md", &orphan).await;
    assert_eq!(status, 201, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    let orphan_id = created["session_id"].as_str().unwrap();
    let (mut stuck, _) =
        Client::connect_raw(&server.ws_url(&format!("?session_id={orphan_id}"))).await;
    let error = refused(
        &mut stuck,
        json!({"type": "event", "name": "retry", "id": "r-2"}),
    )
    .await;
    assert_eq!(error["code"], "invalid_transition");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("no state to return to"),
        "{error}"
    );
    assert_eq!(error["allowed_events"], json!(["retry", "reset"]));
    let (_, after) = common::http(server.addr, "GET", &format!("/api/sessions/{orphan_id}")).await;
    let after: Value = serde_json::from_str(&after).unwrap();
    assert_eq!(
        (after["state"].clone(), after["events"].clone()),
        (json!("error"), json!(0))
    );
    // Refused: a file that is not one, and a session that is not a conductor's.
    let (status, body) = post(
        server.addr,
        "/api/sessions/status.md",
        "---\nstate: flying\n---\n",
    )
    .await;
    assert_eq!(status, 400);
    assert!(body.contains("no state \\\"flying\\\""), "{body}");
    let (status, body) = post(
        server.addr,
        "/api/sessions/status.md",
        "# no front matter\n",
    )
    .await;
    assert_eq!(status, 400);
    assert!(body.contains("line 1"), "{body}");
    let (talk, _) = Client::connect(&server.ws_url("")).await;
    drop(talk);
    let (mut moderator, _) = Client::connect_raw(&server.ws_url("?flow=moderator")).await;
    let other = moderator.session_id.clone();
    event(&mut moderator, "stop", json!({}), "s-1").await;
    let (status, body) = common::http(
        server.addr,
        "GET",
        &format!("/api/sessions/{other}/status.md"),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body.contains("does not run the conductor-ui flow"),
        "{body}"
    );
    server.stop().await;
}
