//! The server's assistant over real sockets: a session in `guide` mode is answered by the
//! server after each user turn, and the answers reach every client of the session, are in the
//! log, come back on resume, and are chosen per session only by those allowed to.

mod common;

use common::{Client, ServerProcess, StoreKind, TestServer, error_code, http, upgrade};
use convstate::config::ServerConfig;
use convstate::conversation::{Phase, Role};
use convstate::protocol::{ErrorCode, ServerFrame, StateUpdate};
use serde_json::{Value, json};

/// Sends a user turn with `id` and reads up to its ack: the state frames before it.
async fn turn(client: &mut Client, text: &str, id: &str) -> (Vec<StateUpdate<'static>>, u64) {
    client
        .send(json!({"type": "message", "role": "user", "text": text, "id": id}))
        .await;
    let mut frames = Vec::new();
    loop {
        match client.recv().await {
            ServerFrame::State(state) => frames.push(state),
            ServerFrame::Ack(ack) => {
                assert_eq!(ack.id, id);
                return (frames, ack.seq);
            }
            other => panic!("unexpected {}", other.to_text()),
        }
    }
}

fn answers(frames: &[StateUpdate<'_>]) -> Vec<String> {
    frames
        .iter()
        .filter_map(|f| f.message.as_ref())
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.text.to_string())
        .collect()
}

async fn guide_answers_every_client_and_the_log(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut alice, _) = Client::connect(&server.ws_url("?assistant=guide")).await;
    let (frames, ack) = turn(&mut alice, "I want to build a todo app", "c-1").await;
    // The user's turn, then the guide's question; the ack follows both and names the answer.
    assert_eq!(frames.len(), 2, "{frames:?}");
    let user = frames[0].message.as_ref().unwrap();
    assert_eq!(
        (user.role, &*user.text),
        (Role::User, "I want to build a todo app")
    );
    assert_eq!(frames[1].seq, ack);
    assert_eq!(
        answers(&frames),
        ["What should it do? Which features do you need?"]
    );
    let asked = &frames[1].state.current_goal.as_ref().unwrap().required_info[1];
    assert_eq!(asked.status.to_string(), "asked");

    // A second client of the session sees the next turn and its answers as they happen.
    let id = alice.session_id.clone();
    let (mut bob, _) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    let (frames, _) = turn(&mut alice, "Add, delete, mark complete", "c-2").await;
    let plan = answers(&frames);
    assert_eq!(plan.len(), 1);
    assert!(plan[0].contains("Should I go ahead?"), "{plan:?}");
    let seen: Vec<StateUpdate> = vec![bob.recv_state().await, bob.recv_state().await];
    assert_eq!(answers(&seen), plan);
    assert_eq!(seen[1].state.phase, Phase::Planning);

    // Approval: the start and the specification, delivered as an artifact.
    let (frames, _) = turn(&mut alice, "Sounds good", "c-3").await;
    let delivered = frames.last().unwrap();
    assert_eq!(delivered.state.phase, Phase::Reviewing);
    assert!(delivered.message.as_ref().unwrap().artifact);

    // The log holds the answers as assistant turns.
    let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    assert_eq!(status, 200, "{body}");
    let events: Vec<Value> = serde_json::from_str(&body).unwrap();
    let roles: Vec<&str> = events.iter().filter_map(|e| e["role"].as_str()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "assistant"
        ]
    );
    assert_eq!(events.last().unwrap()["artifact"], true);

    // A client that left after the first answer gets the rest, answers included, on resume.
    let (mut carol, welcome) =
        Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq=2"))).await;
    assert!(welcome.resumed);
    let mut missed = Vec::new();
    for _ in 0..5 {
        missed.push(carol.recv_state().await);
    }
    assert_eq!(missed.last().unwrap().seq, 7);
    assert_eq!(answers(&missed).len(), 3);
    server.stop().await;
}

async fn a_session_switches_its_assistant_with_configure(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    // Observer, the default: nobody answers.
    let (frames, _) = turn(&mut client, "Build a landing page", "c-1").await;
    assert_eq!(frames.len(), 1);
    client
        .send(json!({"type": "configure", "assistant": "guide"}))
        .await;
    client.recv_state().await;
    let (frames, _) = turn(&mut client, "hmm, not sure", "c-2").await;
    assert_eq!(answers(&frames).len(), 1, "{frames:?}");
    client
        .send(json!({"type": "configure", "assistant": "observer"}))
        .await;
    client.recv_state().await;
    let (frames, _) = turn(&mut client, "With a pricing table", "c-3").await;
    assert!(answers(&frames).is_empty());
    // A retried turn of a guide session gets the same ack, and nothing is answered twice.
    client
        .send(json!({"type": "configure", "assistant": "guide"}))
        .await;
    client.recv_state().await;
    let (_, first) = turn(&mut client, "In plain HTML", "c-4").await;
    let (again, second) = turn(&mut client, "In plain HTML", "c-4").await;
    assert!(again.is_empty());
    assert_eq!(first, second);
    server.stop().await;
}

on_every_store!(
    guide_answers_every_client_and_the_log,
    a_session_switches_its_assistant_with_configure
);

#[tokio::test]
async fn unknown_modes_are_refused() {
    let server = TestServer::default().await;
    let (status, body) = upgrade(server.addr, "?assistant=oracle").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(error_code(&body), Some(ErrorCode::BadRequest));
    assert!(body.contains("oracle"), "{body}");
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    client
        .send(json!({"type": "configure", "assistant": "oracle"}))
        .await;
    match client.recv().await {
        ServerFrame::Error(e) => assert_eq!(e.code, ErrorCode::BadRequest),
        other => panic!("{}", other.to_text()),
    }
    server.stop().await;
}

#[tokio::test]
async fn a_guide_server_answers_new_sessions() {
    let config = ServerConfig {
        assistant: convstate::assistant::Mode::Guide,
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, StoreKind::Memory).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let (frames, _) = turn(&mut client, "Hello", "c-1").await;
    assert!(answers(&frames)[0].starts_with("Hello!"), "{frames:?}");
    // Back to observing for this session only.
    let (mut other, _) = Client::connect(&server.ws_url("?assistant=observer")).await;
    let (frames, _) = turn(&mut other, "Hello", "c-1").await;
    assert!(answers(&frames).is_empty());
    server.stop().await;
}

#[test]
fn broken_guide_phrases_stop_the_server_with_their_line() {
    let dir = common::copy_of_patterns("assistant");
    let text = convstate::assistant::guide::BUILTIN
        .replace("start = \"I'm starting now.\"", "start = \"One moment.\"");
    std::fs::write(dir.join("assistant.toml"), text).unwrap();
    let log =
        match ServerProcess::start(&["--store", "memory:", "--patterns", dir.to_str().unwrap()]) {
            Ok(_) => panic!("the server started with broken phrases"),
            Err(log) => log,
        };
    assert!(
        log.contains("assistant.toml:24: start: must start the work"),
        "{log}"
    );
    let checked = std::process::Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["check-patterns", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!checked.status.success());
    let said = String::from_utf8_lossy(&checked.stderr);
    assert!(said.contains("assistant.toml:24: start:"), "{said}");
    // Without the file, the built-in phrases serve.
    std::fs::remove_file(dir.join("assistant.toml")).unwrap();
    let server = ServerProcess::start(&[
        "--store",
        "memory:",
        "--patterns",
        dir.to_str().unwrap(),
        "--assistant",
        "guide",
    ])
    .unwrap();
    drop(server);
}

#[tokio::test]
async fn only_users_and_admins_choose_the_assistant() {
    use convstate::config::Secret;
    use jsonwebtoken::{EncodingKey, Header, encode};
    const SECRET: &str = "tests-secret-tests-secret-tests-secret";
    let mint = |sub: &str, role: &str, sid: Option<&str>| {
        let mut claims = json!({
            "sub": sub, "role": role, "exp": chrono::Utc::now().timestamp() + 600,
        });
        if let Some(sid) = sid {
            claims["sid"] = sid.into();
        }
        encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(SECRET.as_bytes()),
        )
        .unwrap()
    };
    let config = ServerConfig {
        jwt_secret: Some(Secret(SECRET.into())),
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, StoreKind::Memory).await;
    let user = mint("u-1", "user", None);
    let (mut client, _) =
        Client::connect(&server.ws_url(&format!("?token={user}&assistant=guide"))).await;
    let (frames, _) = turn(&mut client, "Hi", "c-1").await;
    assert_eq!(answers(&frames).len(), 1);
    let id = client.session_id.clone();
    // The assistant service and observers join, but do not choose who answers.
    for role in ["assistant", "observer"] {
        let token = mint("svc", role, Some(&id));
        let (status, body) = upgrade(
            server.addr,
            &format!("?session_id={id}&token={token}&assistant=observer"),
        )
        .await;
        assert_eq!(status, 403, "{role}: {body}");
        let (mut other, _) =
            Client::connect(&server.ws_url(&format!("?session_id={id}&token={token}"))).await;
        other
            .send(json!({"type": "configure", "assistant": "observer"}))
            .await;
        match other.recv().await {
            ServerFrame::Error(e) => assert_eq!(e.code, ErrorCode::Forbidden, "{role}"),
            frame => panic!("{role}: {}", frame.to_text()),
        }
    }
    // Still the guide.
    let (frames, _) = turn(&mut client, "Build a form", "c-2").await;
    assert_eq!(answers(&frames).len(), 1);
    server.stop().await;
}
