//! The WebSocket server end to end, over real sockets on port 0.

mod common;

use std::time::Duration;

use chrono::TimeDelta;
use common::{Client, PATIENCE, StoreKind, TestServer, Timing, WORKED_EXAMPLE, http};
use convstate::config::ServerConfig;
use convstate::conversation::{Conversation, GoalReason, Phase, TransitionReason};
use convstate::protocol::{ErrorCode, ServerFrame};
use convstate::store::{Change, Event};
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

async fn the_worked_example_over_websocket(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut client, welcome) = Client::connect(&server.ws_url("")).await;
    assert_eq!(welcome.seq, 0);
    assert_eq!(welcome.state.phase, Phase::Greeting);
    assert!(welcome.summary.starts_with("Conversation Phase: greeting"));
    for (i, (role, text, phase)) in WORKED_EXAMPLE.iter().enumerate() {
        let (state, _) = client.turn(role, text, &format!("c-{i}")).await;
        assert_eq!(state.seq, i as u64 + 1);
        assert_eq!(state.state.phase.as_str(), *phase, "step {}", i + 1);
        assert_eq!(state.session_id, client.session_id);
    }
    server.stop().await;
}

async fn two_clients_of_a_session_see_the_same_frames_in_the_same_order(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut a, _) = Client::connect(&server.ws_url("")).await;
    let url = server.ws_url(&format!("?session_id={}", a.session_id));
    let (mut b, welcome) = Client::connect(&url).await;
    assert_eq!(welcome.session_id, a.session_id);
    // Both send at once; each sees all ten changes.
    for i in 0..5 {
        a.send(json!({"type":"message","role":"user","text":format!("a says {i}")}))
            .await;
        b.send(json!({"type":"message","role":"assistant","text":format!("b says {i}")}))
            .await;
    }
    let mut seen_a = Vec::new();
    let mut seen_b = Vec::new();
    for _ in 0..10 {
        seen_a.push(a.recv().await);
        seen_b.push(b.recv().await);
    }
    assert_eq!(seen_a, seen_b);
    let seqs: Vec<u64> = seen_a.iter().map(|f| f.seq().unwrap()).collect();
    assert_eq!(seqs, (1..=10).collect::<Vec<_>>());
    let ServerFrame::State(tenth) = &seen_a[9] else {
        panic!("not a state frame: {}", seen_a[9].to_text());
    };
    assert_eq!(tenth.state.turn_count, 10);
    server.stop().await;
}

async fn a_client_resumes_after_a_dropped_connection(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    client.turn("user", "Build a landing page", "c-1").await;
    let (last, _) = client.turn("assistant", "Which features?", "c-2").await;
    let id = client.session_id.clone();
    drop(client); // the connection drops without a close handshake
    // Meanwhile another client of the session moves it on.
    let (mut other, _) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    other.turn("user", "A signup form", "o-1").await;
    let url = server.ws_url(&format!("?session_id={id}&last_seq={}", last.seq));
    let (mut back, welcome) = Client::connect(&url).await;
    assert_eq!(welcome.session_id, id);
    // Resumed where it left off, then the change it missed.
    assert!(welcome.resumed);
    assert_eq!(welcome.seq, 2);
    assert_eq!(welcome.state, last.state);
    let missed = back.recv_state().await;
    assert_eq!(missed.seq, 3);
    assert_eq!(missed.state.phase, Phase::Planning);
    assert_eq!(missed.state.turn_count, 3);
    assert_eq!(missed.transitions[0].reason, TransitionReason::Gathered);
    let (state, _) = back.turn("user", "go ahead", "c-3").await;
    assert_eq!(state.seq, 4);
    assert_eq!(state.state.phase, Phase::Executing);
    server.stop().await;
}

async fn a_retried_turn_is_acknowledged_again_and_not_applied_twice(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let (state, ack) = client.turn("user", "Build a landing page", "c-1").await;
    client
        .send(json!({"type":"message","role":"user","text":"Build a landing page","id":"c-1"}))
        .await;
    let again = client.recv().await;
    assert_eq!(
        again,
        ServerFrame::ack("c-1", ack),
        "the retry gets the same ack, and no state frame"
    );
    client
        .send(json!({"type":"signal","signal":"approve","id":"s-1"}))
        .await;
    let moved = client.recv().await;
    assert_eq!(moved.seq(), Some(2));
    client.recv().await; // its ack
    client
        .send(json!({"type":"signal","signal":"approve","id":"s-1"}))
        .await;
    assert_eq!(client.recv().await, ServerFrame::ack("s-1", 2));
    client.send(json!({"type":"get_state"})).await;
    let now = client.recv_state().await;
    assert_eq!(now.seq, 2);
    assert_eq!(now.state.turn_count, state.state.turn_count);
    assert!(now.transitions.is_empty(), "{:?}", now.transitions);
    server.stop().await;
}

async fn the_idle_sweep_is_pushed_to_connected_clients_at_the_deadline(store: StoreKind) {
    let timing = Timing::of(store);
    let timeout = timing.pick(TimeDelta::minutes(10), TimeDelta::milliseconds(400));
    let clock = timing.clock();
    let server = timing
        .server(ServerConfig::default(), Some(timeout), store, clock.clone())
        .await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let (state, _) = client.turn("user", "Build a landing page", "c-1").await;
    let deadline = state.state.idle_deadline.expect("an idle deadline");
    let idle = client
        .recv_within(timing.pick(Duration::from_secs(3600), PATIENCE))
        .await;
    let received = clock.now();
    let ServerFrame::State(idle) = idle else {
        panic!("not a state frame: {}", idle.to_text());
    };
    assert_eq!(idle.state.phase, Phase::Idle);
    assert_eq!(idle.transitions[0].reason, TransitionReason::IdleTimeout);
    let goal = &idle.state.completed_goals[0];
    assert_eq!(goal.reason, Some(GoalReason::IdleTimeout));
    assert_eq!(goal.completed_at, Some(deadline));
    // Not before the deadline (the test reads the server's clock). How late is not asserted:
    // on a loaded machine that measures the load more than the sweeper, which sleeps until
    // the earliest deadline (`sweep` in src/server/mod.rs).
    assert!(
        received >= deadline,
        "pushed at {received}, before {deadline}"
    );
    server.stop().await;
}

async fn every_error_code_is_answered_and_the_connection_carries_on(store: StoreKind) {
    let config = ServerConfig {
        max_frame_bytes: 1024,
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    client.send_text("{not json").await;
    client.expect_error(ErrorCode::BadJson).await;
    client.send(json!({"role":"user","text":"no type"})).await;
    client.expect_error(ErrorCode::BadRequest).await;
    client.send(json!({"type":"message","role":"user"})).await;
    let e = client.expect_error(ErrorCode::BadRequest).await;
    assert!(e.contains("text"), "{e}");
    client
        .send(json!({"type":"message","role":"user","text":"x","colour":"red"}))
        .await;
    client.expect_error(ErrorCode::BadRequest).await;
    client
        .send(json!({"type":"signal","signal":"farewell"}))
        .await;
    client.expect_error(ErrorCode::BadRequest).await;
    client
        .ws
        .send(Message::Binary(vec![1, 2, 3].into()))
        .await
        .unwrap();
    client.expect_error(ErrorCode::BadRequest).await;
    client.send(json!({"type":"dance"})).await;
    client.expect_error(ErrorCode::UnknownType).await;
    client
        .send_text(&format!(
            r#"{{"type":"message","role":"user","text":"{}"}}"#,
            "a".repeat(2000)
        ))
        .await;
    client.expect_error(ErrorCode::TooLarge).await;
    // Still open, and nothing was applied.
    client.send(json!({"type":"get_state"})).await;
    let state = client.recv_state().await;
    assert_eq!(state.seq, 0);
    server.stop().await;
}

async fn floods_are_rate_limited(store: StoreKind) {
    let config = ServerConfig {
        rate_limit: 2,
        rate_burst: 3,
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    for i in 0..6 {
        client
            .send(json!({"type":"message","role":"user","text":format!("hello {i}")}))
            .await;
    }
    let mut states = 0;
    let mut limited = 0;
    for _ in 0..6 {
        match client.recv().await {
            ServerFrame::State(_) => states += 1,
            ServerFrame::Error(e) => {
                assert_eq!(e.code, ErrorCode::RateLimited);
                limited += 1;
            }
            other => panic!("unexpected {}", other.to_text()),
        }
    }
    assert!(
        states >= 3 && limited >= 2,
        "{states} applied, {limited} limited"
    );
    let (status, metrics) = http(server.addr, "GET", "/metrics").await;
    assert_eq!(status, 200);
    assert!(metrics.contains(&format!(
        "convstate_errors_total{{code=\"rate_limited\"}} {limited}"
    )));
    server.stop().await;
}

async fn an_unknown_session_gets_an_error_then_a_close(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (ws, _) = tokio_tungstenite::connect_async(server.ws_url("?session_id=s-nope"))
        .await
        .unwrap();
    let mut client = Client {
        ws,
        session_id: String::new(),
    };
    let e = client.expect_error(ErrorCode::UnknownSession).await;
    assert!(e.contains("s-nope"));
    assert!(client.closed_with().await.is_some());
    server.stop().await;
}

async fn deleting_a_session_disconnects_its_clients(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    client.turn("user", "Build a landing page", "c-1").await;
    let path = format!("/api/sessions/{}", client.session_id);
    let (status, _) = http(server.addr, "DELETE", &path).await;
    assert_eq!(status, 204);
    client.expect_error(ErrorCode::SessionDeleted).await;
    assert_eq!(client.closed_with().await, Some(1000));
    let (status, body) = http(server.addr, "GET", &path).await;
    assert_eq!(status, 404);
    assert!(body.contains("unknown_session"));
    let (status, _) = http(server.addr, "DELETE", &path).await;
    assert_eq!(status, 404);
    server.stop().await;
}

async fn the_http_api_serves_state_summary_health_and_metrics(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    for (i, (role, text, _)) in WORKED_EXAMPLE.iter().take(7).enumerate() {
        client.turn(role, text, &format!("c-{i}")).await;
    }
    let (status, body) = http(server.addr, "GET", "/healthz").await;
    assert_eq!(status, 200);
    assert!(
        body.starts_with("ok\nstore: ready (") && body.ends_with(")\n"),
        "{body}"
    );
    let (status, body) = http(
        server.addr,
        "GET",
        &format!("/api/sessions/{}", client.session_id),
    )
    .await;
    assert_eq!(status, 200);
    let state: Conversation = serde_json::from_str(&body).unwrap();
    assert_eq!(state.phase, Phase::Completed);
    assert_eq!(state.completed_goals[0].reason, Some(GoalReason::Satisfied));
    let (status, body) = http(
        server.addr,
        "GET",
        &format!("/api/sessions/{}/summary", client.session_id),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        "Conversation Phase: completed\nTurn Count: 7\n\nCompleted Goals: 1\n"
    );
    // The event log, whole and from a seq on; a bad `after` is refused with a clear error.
    let events = format!("/api/sessions/{}/events", client.session_id);
    let (status, body) = http(server.addr, "GET", &events).await;
    assert_eq!(status, 200);
    let all: Vec<Event> = serde_json::from_str(&body).unwrap();
    let seqs: Vec<u64> = all.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=7).collect::<Vec<u64>>());
    let Change::Message { text, .. } = &all[0].change else {
        panic!("not a message: {:?}", all[0]);
    };
    assert_eq!(text, WORKED_EXAMPLE[0].1);
    let (status, body) = http(server.addr, "GET", &format!("{events}?after=5")).await;
    assert_eq!(status, 200);
    let tail: Vec<Event> = serde_json::from_str(&body).unwrap();
    assert_eq!(tail, all[5..]);
    let (status, body) = http(server.addr, "GET", &format!("{events}?after=7")).await;
    assert_eq!((status, body.as_str()), (200, "[]"));
    let (status, body) = http(server.addr, "GET", &format!("{events}?after=-1")).await;
    assert_eq!(status, 400);
    let ServerFrame::Error(error) = ServerFrame::parse(&body).unwrap() else {
        panic!("not an error: {body}");
    };
    assert_eq!(error.code, ErrorCode::BadRequest);
    assert!(error.message.contains("after"), "{body}");
    let (status, _) = http(server.addr, "GET", "/api/sessions/s-nope/events?after=1").await;
    assert_eq!(status, 404);
    let (status, metrics) = http(server.addr, "GET", "/metrics").await;
    assert_eq!(status, 200);
    for line in [
        "convstate_connections 1",
        "convstate_sessions{phase=\"completed\"} 1",
        "convstate_turns_total{role=\"user\"} 4",
        "convstate_turns_total{role=\"assistant\"} 3",
        "convstate_transitions_total{from=\"greeting\",to=\"understanding\"} 1",
        "convstate_transitions_total{from=\"reviewing\",to=\"completed\"} 1",
        "convstate_goals_finished_total{type=\"artifact_creation\",status=\"completed\",reason=\"user satisfied\"} 1",
        "convstate_turn_latency_seconds_count 7",
    ] {
        assert!(
            metrics.lines().any(|l| l == line),
            "no `{line}` in\n{metrics}"
        );
    }
    server.stop().await;
}

async fn browser_origins_are_checked(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let err = Client::connect_with_origin(&server.ws_url(""), "https://evil.example")
        .await
        .err();
    assert!(err.is_some_and(|e| e.contains("403")));
    assert!(
        Client::connect_with_origin(&server.ws_url(""), "http://localhost:3000")
            .await
            .is_ok()
    );
    server.stop().await;

    let config = ServerConfig {
        allowed_origins: vec!["https://shop.example".into()],
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, store).await;
    assert!(
        Client::connect_with_origin(&server.ws_url(""), "https://shop.example")
            .await
            .is_ok()
    );
    server.stop().await;
}

async fn silent_peers_are_dropped(store: StoreKind) {
    let timing = Timing::of(store);
    let config = ServerConfig {
        ping_interval: timing.pick(Duration::from_secs(30), Duration::from_millis(150)),
        ..ServerConfig::default()
    };
    let server = timing.server(config, None, store, timing.clock()).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    // A client that reads nothing answers no ping: dropped after a few intervals (polled, so
    // a loaded machine only makes the test slower).
    let started = tokio::time::Instant::now();
    let patience = timing.pick(Duration::from_secs(600), PATIENCE);
    loop {
        tokio::time::sleep(timing.pick(Duration::from_secs(5), Duration::from_millis(100))).await;
        let (_, metrics) = http(server.addr, "GET", "/metrics").await;
        if metrics.lines().any(|l| l == "convstate_connections 0") {
            break;
        }
        assert!(started.elapsed() < patience, "still connected:\n{metrics}");
    }
    assert!(client.closed_with().await.is_none());
    server.stop().await;
}

async fn shutdown_closes_every_websocket_with_1001(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut a, _) = Client::connect(&server.ws_url("")).await;
    let (mut b, _) = Client::connect(&server.ws_url("")).await;
    let stopping = tokio::spawn(server.stop());
    assert_eq!(a.closed_with().await, Some(1001));
    assert_eq!(b.closed_with().await, Some(1001));
    tokio::time::timeout(PATIENCE, stopping)
        .await
        .unwrap()
        .unwrap();
}

/// A small deterministic generator of nasty frames.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn frame(&mut self) -> Message {
        let pieces = [
            "{",
            "}",
            "[",
            "]",
            "\"type\"",
            ":",
            ",",
            "\"message\"",
            "\"signal\"",
            "\"role\"",
            "\"user\"",
            "\"text\"",
            "\"id\"",
            "null",
            "1e999",
            "-0",
            "\"\\u0000\"",
            "\"é\"",
            "\"get_state\"",
            "\"reset\"",
            "\"approve\"",
            "true",
            " ",
            "\"\\ud800\"",
            "\"🙂\"",
        ];
        match self.next() % 5 {
            0 => {
                let n = (self.next() % 40) as usize;
                let bytes: Vec<u8> = (0..n).map(|_| (self.next() % 256) as u8).collect();
                Message::Text(String::from_utf8_lossy(&bytes).into_owned().into())
            }
            1 => {
                let n = (self.next() % 30) as usize;
                let text: String = (0..n)
                    .map(|_| pieces[(self.next() % pieces.len() as u64) as usize])
                    .collect();
                Message::Text(text.into())
            }
            2 => {
                let role = ["user", "assistant", "robot"][(self.next() % 3) as usize];
                let n = (self.next() % 300) as usize;
                let text: String = (0..n)
                    .map(|_| char::from(b' ' + (self.next() % 95) as u8))
                    .collect();
                Message::Text(json!({"type":"message","role":role,"text":text,"id":format!("n-{}", self.next() % 50)}).to_string().into())
            }
            3 => Message::Binary(
                (0..(self.next() % 64))
                    .map(|i| i as u8)
                    .collect::<Vec<u8>>()
                    .into(),
            ),
            _ => {
                let signal = ["approve", "cancel", "switch", "nope", "work_done"]
                    [(self.next() % 5) as usize];
                Message::Text(json!({"type":"signal","signal":signal}).to_string().into())
            }
        }
    }
}

async fn ten_thousand_random_or_malformed_frames_do_not_hurt_the_server(store: StoreKind) {
    let config = ServerConfig {
        rate_limit: 1_000_000,
        rate_burst: 1_000_000,
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, store).await;
    let (mut healthy, _) = Client::connect(&server.ws_url("")).await;
    healthy.turn("user", "Build a landing page", "h-1").await;

    let (noisy, _) = Client::connect(&server.ws_url("")).await;
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    let reader = {
        // Read the answers concurrently so neither side's buffers fill up.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Message>();
        let (mut sink, mut stream) = futures_util::StreamExt::split(noisy.ws);
        let writer = tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                if sink.send(m).await.is_err() {
                    break;
                }
            }
            sink
        });
        for _ in 0..10_000 {
            tx.send(noise.frame()).unwrap();
        }
        drop(tx);
        let counter = tokio::spawn(async move {
            let mut answers = 0u32;
            while let Ok(Some(Ok(m))) = tokio::time::timeout(
                Duration::from_secs(3),
                futures_util::StreamExt::next(&mut stream),
            )
            .await
            {
                if m.is_text() {
                    answers += 1;
                }
            }
            answers
        });
        let _ = writer.await;
        counter.await.unwrap()
    };
    assert!(reader >= 10_000, "every frame got an answer: {reader}");
    // The server still serves the healthy session and new ones.
    let (state, _) = healthy.turn("user", "With a signup form", "h-2").await;
    assert_eq!(state.state.phase, Phase::Planning);
    let (status, _) = http(server.addr, "GET", "/healthz").await;
    assert_eq!(status, 200);
    let (mut fresh, _) = Client::connect(&server.ws_url("")).await;
    fresh.turn("user", "hello", "f-1").await;
    server.stop().await;
}

async fn sessions_are_evicted_after_the_retention_period_unless_connected(store: StoreKind) {
    let timing = Timing::of(store);
    let config = ServerConfig {
        retention: timing.pick(TimeDelta::hours(24), TimeDelta::milliseconds(300)),
        evict_after: timing.pick(TimeDelta::hours(24), TimeDelta::milliseconds(300)),
        // The connected client reads nothing meanwhile, so it answers no ping: over a day of
        // paused time it must not be dropped for that.
        ping_interval: timing.pick(Duration::from_secs(3 * 86_400), Duration::from_secs(30)),
        ..ServerConfig::default()
    };
    // The unfinished session must stay unfinished past the retention period: a week's idle
    // timeout in paused time (the default, ten minutes, in real time).
    let idle = timing.pick(Some(TimeDelta::days(7)), None);
    let server = timing.server(config, idle, store, timing.clock()).await;
    let (mut kept, _) = Client::connect(&server.ws_url("")).await;
    let (mut open, _) = Client::connect(&server.ws_url("")).await;
    let (mut done, _) = Client::connect(&server.ws_url("")).await;
    open.turn("user", "Build a landing page", "o-1").await;
    done.turn("user", "Build a landing page", "d-1").await;
    done.turn("user", "bye", "d-2").await;
    let (open_id, done_id) = (open.session_id.clone(), done.session_id.clone());
    for client in [open, done] {
        let mut client = client;
        client.ws.close(None).await.unwrap();
    }
    // Both leave memory after the retention period without a client; the finished one is
    // deleted from the store too. (Reading a session's state would load it back into memory;
    // its events are read from the store directly.)
    let started = tokio::time::Instant::now();
    let patience = timing.pick(Duration::from_secs(48 * 3600), PATIENCE);
    loop {
        let (_, metrics) = http(server.addr, "GET", "/metrics").await;
        let path = format!("/api/sessions/{done_id}/events");
        let (status, _) = http(server.addr, "GET", &path).await;
        if status == 404
            && metrics
                .lines()
                .any(|l| l == "convstate_sessions_evicted_total 2")
        {
            break;
        }
        assert!(
            started.elapsed() < patience,
            "not evicted and purged:\n{metrics}"
        );
        tokio::time::sleep(timing.pick(Duration::from_secs(600), Duration::from_millis(50))).await;
    }
    // The unfinished one is still in the store, and comes back when asked for.
    let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{open_id}")).await;
    assert_eq!(status, 200, "{body}");
    let state: Conversation = serde_json::from_str(&body).unwrap();
    assert_eq!(state.turn_count, 1);
    // The connected session stays.
    let (state, _) = kept.turn("user", "still here", "k-1").await;
    assert_eq!(state.seq, 1);
    server.stop().await;
}

/// The inspector over the wire: `?explain=1` (or a `configure` frame) makes every later `state`
/// frame of the session carry an `explain` object, for every client of the session; other
/// sessions' frames carry none.
async fn state_frames_explain_themselves_when_asked(store: StoreKind) {
    let server = TestServer::with_store(store).await;
    let (mut a, _) = Client::connect(&server.ws_url("?explain=1")).await;
    let (mut other, _) = Client::connect(&server.ws_url("")).await;
    let (state, _) = a.turn("user", "I want to build a todo app", "a-1").await;
    let explain = state.explain.expect("an explain object");
    let goal = explain.goal.as_ref().expect("a goal note");
    assert_eq!(
        (goal.lead.as_str(), goal.wrapper.as_deref()),
        ("build", Some("I want to"))
    );
    assert_eq!(explain.rule, "4 greeting: a goal starts");
    // A second client of the session gets it too; another session does not.
    let url = server.ws_url(&format!("?session_id={}", a.session_id));
    let (mut b, _) = Client::connect(&url).await;
    let (state, _) = b.turn("user", "Sounds good, but use Vue", "b-1").await;
    let explain = state.explain.expect("an explain object");
    let dropped: Vec<_> = explain
        .dropped()
        .map(|p| (p.class.as_str(), p.dropped_by))
        .collect();
    assert!(
        dropped.contains(&(
            "approve",
            Some(convstate::conversation::explain::DropRule::Contrast)
        )),
        "{dropped:?}"
    );
    let ServerFrame::State(seen) = a.recv().await else {
        panic!("a's copy")
    };
    assert!(seen.explain.is_some());
    let (state, _) = other.turn("user", "hello", "o-1").await;
    assert!(state.explain.is_none());
    // `configure` turns it off (answered with the current state) and on again.
    b.send(json!({"type": "configure", "explain": false})).await;
    let ServerFrame::State(now) = b.recv().await else {
        panic!("the current state")
    };
    assert_eq!(now.seq, 2);
    let (state, _) = b.turn("user", "with tags", "b-2").await;
    assert!(state.explain.is_none());
    let _ = a.recv().await;
    other
        .send(json!({"type": "configure", "explain": true}))
        .await;
    let _ = other.recv().await;
    let (state, _) = other.turn("user", "Build a form", "o-2").await;
    assert!(state.explain.is_some());
    // A configure frame with an unknown option, or a bad query, is refused.
    other
        .send(json!({"type": "configure", "verbose": true}))
        .await;
    let ServerFrame::Error(e) = other.recv().await else {
        panic!("an error")
    };
    assert_eq!(e.code, ErrorCode::BadRequest);
    let (status, _) = common::upgrade(server.addr, "?explain=maybe").await;
    assert_eq!(status, 400);
    // A client resuming an explaining session gets the frames it missed, explained, rebuilt
    // from the log.
    let url = server.ws_url(&format!(
        "?session_id={}&last_seq=1&explain=1",
        a.session_id
    ));
    let (mut c, welcome) = Client::connect(&url).await;
    assert!(welcome.resumed);
    for seq in [2, 3] {
        let ServerFrame::State(missed) = c.recv().await else {
            panic!("a missed frame")
        };
        assert_eq!(missed.seq, seq);
        assert!(missed.explain.is_some(), "seq {seq}");
    }
    server.stop().await;
}

on_every_store!(
    the_worked_example_over_websocket,
    two_clients_of_a_session_see_the_same_frames_in_the_same_order,
    a_client_resumes_after_a_dropped_connection,
    a_retried_turn_is_acknowledged_again_and_not_applied_twice,
    every_error_code_is_answered_and_the_connection_carries_on,
    floods_are_rate_limited,
    an_unknown_session_gets_an_error_then_a_close,
    deleting_a_session_disconnects_its_clients,
    the_http_api_serves_state_summary_health_and_metrics,
    browser_origins_are_checked,
    shutdown_closes_every_websocket_with_1001,
    ten_thousand_random_or_malformed_frames_do_not_hurt_the_server,
    state_frames_explain_themselves_when_asked,
);

deadlines_on_both_stores!(
    the_idle_sweep_is_pushed_to_connected_clients_at_the_deadline,
    silent_peers_are_dropped,
    sessions_are_evicted_after_the_retention_period_unless_connected,
);
