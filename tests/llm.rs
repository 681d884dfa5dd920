//! The `llm` assistant against a local OpenAI-compatible server (`common::upstream`) over real
//! sockets: the reply streams to every client of the session and becomes the assistant's turn;
//! a client that drops mid-reply gets the rest exactly once; `stop` cancels the call at once;
//! timeouts, retries, the circuit breaker, the budget, a malformed chunk, and a user message
//! arriving mid-reply.

mod common;

use std::time::{Duration, Instant};

use common::upstream::{Behaviour, Upstream};
use common::{Client, StoreKind, TestServer, http};
use convstate::assistant::Mode;
use convstate::config::{LlmConfig, ServerConfig};
use convstate::conversation::Role;
use convstate::protocol::{ErrorCode, ServerFrame, StateUpdate};
use serde_json::{Value, json};

fn config(upstream: &Upstream, tune: impl FnOnce(&mut LlmConfig)) -> ServerConfig {
    let mut llm = LlmConfig {
        url: Some(upstream.url.clone()),
        model: Some("test-model".into()),
        stall_timeout: Duration::from_secs(2),
        timeout: Duration::from_secs(10),
        ..LlmConfig::default()
    };
    tune(&mut llm);
    ServerConfig {
        assistant: Mode::Llm,
        llm,
        ..ServerConfig::default()
    }
}

async fn say(client: &mut Client, text: &str, id: &str) {
    client
        .send(json!({"type": "message", "role": "user", "text": text, "id": id}))
        .await;
}

/// Everything a client receives until the assistant's turn is stored (its `state` frame), or
/// until an error about the assistant: the frames in order.
async fn until_answered(client: &mut Client) -> Vec<ServerFrame<'static>> {
    let mut frames = Vec::new();
    loop {
        let frame = client.recv().await;
        let done = match &frame {
            ServerFrame::State(s) => s
                .message
                .as_ref()
                .is_some_and(|m| m.role == Role::Assistant),
            ServerFrame::Error(e) => matches!(
                e.code,
                ErrorCode::AssistantUnavailable | ErrorCode::BudgetExhausted
            ),
            _ => false,
        };
        frames.push(frame);
        if done {
            return frames;
        }
    }
}

fn deltas(frames: &[ServerFrame<'_>]) -> String {
    let mut text = String::new();
    for f in frames {
        if let ServerFrame::AssistantDelta(d) = f {
            assert_eq!(d.offset as usize, text.len(), "a gap or an overlap");
            text.push_str(&d.text);
        }
    }
    text
}

fn answer<'a>(frames: &'a [ServerFrame<'static>]) -> &'a StateUpdate<'static> {
    frames
        .iter()
        .rev()
        .find_map(|f| match f {
            ServerFrame::State(s)
                if s.message
                    .as_ref()
                    .is_some_and(|m| m.role == Role::Assistant) =>
            {
                Some(s)
            }
            _ => None,
        })
        .expect("the assistant's turn")
}

fn error_of(frames: &[ServerFrame<'_>]) -> Option<ErrorCode> {
    frames.iter().find_map(|f| match f {
        ServerFrame::Error(e) => Some(e.code),
        _ => None,
    })
}

#[tokio::test]
async fn the_reply_streams_to_every_client_and_becomes_the_assistants_turn() {
    let upstream = Upstream::start().await;
    upstream.default(Behaviour::Reply {
        pieces: [
            "Which ",
            "features ",
            "do ",
            "you ",
            "need ",
            "in ",
            "the ",
            "todo ",
            "app?",
        ]
        .map(String::from)
        .to_vec(),
        gap: Duration::from_millis(30),
    });
    let server = TestServer::start(config(&upstream, |_| {}), None, StoreKind::Sqlite).await;
    let (mut alice, _) = Client::connect(&server.ws_url("")).await;
    let id = alice.session_id.clone();
    let (mut bob, _) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    say(&mut alice, "I want to build a todo app", "c-1").await;
    let seen = until_answered(&mut alice).await;
    let streamed = deltas(&seen);
    assert_eq!(streamed, "Which features do you need in the todo app?");
    let turn = answer(&seen);
    let message = turn.message.as_ref().unwrap();
    assert_eq!(message.text, streamed);
    assert!(!message.partial);
    // The reply asked for the requirements: the engine read it like any assistant turn.
    let slots = &turn.state.current_goal.as_ref().unwrap().required_info;
    assert_eq!(slots[1].status.to_string(), "asked");
    // The status says busy, then idle; the ack of the turn came before the reply.
    let statuses: Vec<String> = seen
        .iter()
        .filter_map(|f| match f {
            ServerFrame::AssistantStatus(s) => Some(s.status.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(statuses.first().map(String::as_str), Some("replying"));
    let ack_at = seen
        .iter()
        .position(|f| matches!(f, ServerFrame::Ack(_)))
        .unwrap();
    let first_delta = seen
        .iter()
        .position(|f| matches!(f, ServerFrame::AssistantDelta(_)))
        .unwrap();
    assert!(ack_at < first_delta, "{seen:?}");
    // The second client saw the same reply, piece by piece.
    let bobs = until_answered(&mut bob).await;
    assert_eq!(deltas(&bobs), streamed);
    assert_eq!(answer(&bobs).message.as_ref().unwrap().text, streamed);
    // The model was called with the state summary and the user's turn.
    let request = &upstream.requests()[0];
    assert_eq!(request["model"], "test-model");
    assert_eq!(request["stream"], true);
    let messages = request["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[1]["content"], "I want to build a todo app");
    let state = messages.last().unwrap()["content"].as_str().unwrap();
    assert!(
        state.contains("Conversation Phase: understanding\nTurn Count: 1"),
        "{state}"
    );
    assert!(state.contains("Description: todo app"), "{state}");
    // The log holds the reply as the assistant's turn.
    let (_, body) = http(server.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    let events: Vec<Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(events.last().unwrap()["text"], streamed);
    // The next call carries the transcript so far.
    say(&mut alice, "Add and delete items", "c-2").await;
    until_answered(&mut alice).await;
    let second = &upstream.requests()[1]["messages"];
    assert_eq!(second[2]["role"], "assistant");
    assert_eq!(second[2]["content"], streamed);
    server.stop().await;
}

#[tokio::test]
async fn a_client_that_drops_mid_reply_gets_the_rest_exactly_once() {
    let upstream = Upstream::start().await;
    let pieces: Vec<String> = (0..12).map(|i| format!("part{i} ")).collect();
    let whole: String = pieces.concat();
    upstream.default(Behaviour::Reply {
        pieces,
        gap: Duration::from_millis(60),
    });
    let server = TestServer::start(config(&upstream, |_| {}), None, StoreKind::Memory).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let id = client.session_id.clone();
    say(&mut client, "Tell me about service workers", "c-1").await;
    // Read up to the third piece, then drop.
    let mut have = String::new();
    let mut reply_id = String::new();
    let mut seq = 0;
    while have.matches("part").count() < 3 {
        match client.recv().await {
            ServerFrame::AssistantDelta(d) => {
                assert_eq!(d.offset as usize, have.len());
                have.push_str(&d.text);
                reply_id = d.reply_id.to_string();
            }
            ServerFrame::State(s) => seq = s.seq,
            _ => {}
        }
    }
    drop(client);
    tokio::time::sleep(Duration::from_millis(150)).await;
    let url = server.ws_url(&format!(
        "?session_id={id}&last_seq={seq}&reply_id={reply_id}&reply_offset={}",
        have.len()
    ));
    let (mut again, _) = Client::connect(&url).await;
    let rest = until_answered(&mut again).await;
    for f in &rest {
        if let ServerFrame::AssistantDelta(d) = f {
            assert_eq!(d.offset as usize, have.len(), "exactly once: {rest:?}");
            have.push_str(&d.text);
        }
    }
    assert_eq!(have, whole);
    assert_eq!(answer(&rest).message.as_ref().unwrap().text, whole);
    server.stop().await;
}

#[tokio::test]
async fn stop_cancels_the_call_at_once_and_keeps_what_was_delivered() {
    let upstream = Upstream::start().await;
    upstream.default(Behaviour::Stall {
        pieces: vec!["Working on it: ".into()],
    });
    let server = TestServer::start(config(&upstream, |_| {}), None, StoreKind::Memory).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    say(&mut client, "Build a landing page", "c-1").await;
    loop {
        if let ServerFrame::AssistantDelta(_) = client.recv().await {
            break;
        }
    }
    let stopped_at = Instant::now();
    client.send(json!({"type": "stop"})).await;
    let seen = until_answered(&mut client).await;
    let message = answer(&seen).message.as_ref().unwrap().clone();
    assert_eq!(message.text, "Working on it: ");
    assert!(message.partial);
    // The upstream saw its client go within 100 ms.
    let mut dropped = upstream.dropped();
    for _ in 0..20 {
        if !dropped.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        dropped = upstream.dropped();
    }
    let took = dropped[0].duration_since(stopped_at);
    assert!(took < Duration::from_millis(100), "{took:?}");
    server.stop().await;
}

#[tokio::test]
async fn silence_times_out_failures_are_retried_and_a_bad_chunk_fails() {
    let upstream = Upstream::start().await;
    let server = TestServer::start(
        config(&upstream, |c| {
            c.stall_timeout = Duration::from_millis(300);
            c.retries = 2;
        }),
        None,
        StoreKind::Memory,
    )
    .await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    // Two transient failures, then a reply: retried, delivered.
    upstream.script([
        Behaviour::Status(503),
        Behaviour::Status(429),
        Behaviour::reply("Hello there"),
    ]);
    say(&mut client, "Hi", "c-1").await;
    let seen = until_answered(&mut client).await;
    assert_eq!(answer(&seen).message.as_ref().unwrap().text, "Hello there");
    assert_eq!(upstream.requests().len(), 3);
    // Silence every time: three attempts, each cut after 300 ms; the turn stands unanswered.
    upstream.default(Behaviour::Stall { pieces: Vec::new() });
    say(&mut client, "Build a form", "c-2").await;
    let started = Instant::now();
    let seen = until_answered(&mut client).await;
    assert_eq!(error_of(&seen), Some(ErrorCode::AssistantUnavailable));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(upstream.requests().len(), 6);
    client.send(json!({"type": "get_state"})).await;
    let state = loop {
        if let ServerFrame::State(s) = client.recv().await {
            break s;
        }
    };
    assert_eq!(state.state.turn_count, 3, "the user's turns, and one reply");
    // A client error (400) is not retried; a malformed chunk fails the reply.
    upstream.script([Behaviour::Status(400)]);
    say(&mut client, "With a name field", "c-3").await;
    assert_eq!(
        error_of(&until_answered(&mut client).await),
        Some(ErrorCode::AssistantUnavailable)
    );
    assert_eq!(upstream.requests().len(), 7);
    upstream.script([Behaviour::Malformed]);
    say(&mut client, "And an email field", "c-4").await;
    assert_eq!(
        error_of(&until_answered(&mut client).await),
        Some(ErrorCode::AssistantUnavailable)
    );
    server.stop().await;
}

#[tokio::test]
async fn killing_the_upstream_opens_the_breaker_and_loses_no_state() {
    let upstream = Upstream::start().await;
    let server = TestServer::start(
        config(&upstream, |c| {
            c.retries = 0;
            c.breaker_failures = 2;
            c.breaker_cooldown = Duration::from_millis(800);
        }),
        None,
        StoreKind::Sqlite,
    )
    .await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    say(&mut client, "I want to build a todo app", "c-1").await;
    until_answered(&mut client).await;
    upstream.kill();
    for (i, text) in ["Add and delete items", "With React"].iter().enumerate() {
        say(&mut client, text, &format!("c-k{i}")).await;
        assert_eq!(
            error_of(&until_answered(&mut client).await),
            Some(ErrorCode::AssistantUnavailable)
        );
    }
    // Open: no call, at once, and the status says so.
    say(&mut client, "Sounds good", "c-k2").await;
    let seen = until_answered(&mut client).await;
    let status = seen.iter().find_map(|f| match f {
        ServerFrame::AssistantStatus(s) => Some(s.clone()),
        _ => None,
    });
    let status = status.expect("a status");
    assert_eq!((&*status.status, &*status.breaker), ("unavailable", "open"));
    let (_, metrics) = http(server.addr, "GET", "/metrics").await;
    assert!(
        metrics.contains("convstate_llm_breaker{state=\"open\"} 1"),
        "{metrics}"
    );
    // Every user turn was stored and moved the state as usual.
    client.send(json!({"type": "get_state"})).await;
    let state = loop {
        if let ServerFrame::State(s) = client.recv().await {
            break s;
        }
    };
    assert_eq!(state.state.turn_count, 5);
    assert_eq!(
        state.state.phase.to_string(),
        "executing",
        "the approval counted"
    );
    // A new upstream on the same address, after the cool-down: the trial call closes it.
    let addr = upstream
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_string();
    drop(upstream);
    let revived = Upstream::start_on(&addr).await;
    revived.default(Behaviour::reply("I'll start now."));
    tokio::time::sleep(Duration::from_millis(900)).await;
    say(&mut client, "Go ahead", "c-k3").await;
    let seen = until_answered(&mut client).await;
    assert_eq!(
        answer(&seen).message.as_ref().unwrap().text,
        "I'll start now."
    );
    let (_, metrics) = http(server.addr, "GET", "/metrics").await;
    assert!(
        metrics.contains("convstate_llm_breaker{state=\"closed\"} 1"),
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_session_over_its_budget_is_told_why() {
    let upstream = Upstream::start().await;
    let server = TestServer::start(
        config(&upstream, |c| c.session_replies = 2),
        None,
        StoreKind::Memory,
    )
    .await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    for i in 0..2 {
        say(&mut client, "Hello", &format!("c-{i}")).await;
        answer(&until_answered(&mut client).await);
    }
    say(&mut client, "Hello again", "c-3").await;
    let seen = until_answered(&mut client).await;
    assert_eq!(error_of(&seen), Some(ErrorCode::BudgetExhausted));
    assert_eq!(upstream.requests().len(), 2);
    server.stop().await;
}

#[tokio::test]
async fn a_message_mid_reply_stops_it_and_is_answered() {
    let upstream = Upstream::start().await;
    upstream.script([Behaviour::Stall {
        pieces: vec!["Let me think ".into()],
    }]);
    upstream.default(Behaviour::reply("Sure, a calculator."));
    let server = TestServer::start(config(&upstream, |_| {}), None, StoreKind::Memory).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let id = client.session_id.clone();
    say(&mut client, "Build a todo app", "c-1").await;
    loop {
        if let ServerFrame::AssistantDelta(_) = client.recv().await {
            break;
        }
    }
    say(&mut client, "Actually, build a calculator instead", "c-2").await;
    let seen = until_answered(&mut client).await;
    let first = answer(&seen);
    assert!(first.message.as_ref().unwrap().partial);
    let seen = until_answered(&mut client).await;
    assert_eq!(
        answer(&seen).message.as_ref().unwrap().text,
        "Sure, a calculator."
    );
    // In the log: the turn, the partial reply, the new turn, its reply.
    let (_, body) = http(server.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    let events: Vec<Value> = serde_json::from_str(&body).unwrap();
    let said: Vec<(String, bool)> = events
        .iter()
        .map(|e| {
            (
                e["role"].as_str().unwrap_or("").to_string(),
                e["partial"] == true,
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("user".to_string(), false),
            ("assistant".to_string(), true),
            ("user".to_string(), false),
            ("assistant".to_string(), false)
        ]
    );
    server.stop().await;
}

#[tokio::test]
async fn llm_needs_a_model_and_only_users_choose_it() {
    // No model configured: the mode is refused per session.
    let server = TestServer::default().await;
    let (status, body) = common::upgrade(server.addr, "?assistant=llm").await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("no model is configured"), "{body}");
    server.stop().await;
    // And for the whole server, at start.
    let config = ServerConfig::default();
    let layer = convstate::config::ConfigLayer {
        assistant: Some("llm".into()),
        ..Default::default()
    };
    let refused = layer.resolve().unwrap_err();
    assert!(refused.contains("llm.url and llm.model"), "{refused}");
    drop(config);
}

#[tokio::test]
async fn the_refuse_policy_and_the_node_wide_cap() {
    let upstream = Upstream::start().await;
    upstream.default(Behaviour::Stall {
        pieces: vec!["Hmm ".into()],
    });
    let server = TestServer::start(
        config(&upstream, |c| {
            c.busy = convstate::config::BusyPolicy::Refuse;
            c.max_concurrent = 1;
        }),
        None,
        StoreKind::Memory,
    )
    .await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    say(&mut client, "Build a form", "c-1").await;
    loop {
        if let ServerFrame::AssistantDelta(_) = client.recv().await {
            break;
        }
    }
    // Busy: refused, nothing applied.
    say(&mut client, "With a name field", "c-2").await;
    let refused = loop {
        if let ServerFrame::Error(e) = client.recv().await {
            break e;
        }
    };
    assert_eq!(refused.code, ErrorCode::AssistantBusy);
    // Another session: the node writes one reply at a time.
    let (mut other, _) = Client::connect(&server.ws_url("")).await;
    say(&mut other, "Hello", "o-1").await;
    let seen = until_answered(&mut other).await;
    assert_eq!(error_of(&seen), Some(ErrorCode::AssistantUnavailable));
    // Stopped, the first session's turn count shows the refused turn was not applied.
    client.send(json!({"type": "stop"})).await;
    let seen = until_answered(&mut client).await;
    let turn = answer(&seen);
    assert_eq!(turn.state.turn_count, 2, "the turn and the partial reply");
    assert!(turn.message.as_ref().unwrap().partial);
    server.stop().await;
}

#[tokio::test]
async fn a_reply_offset_inside_a_character_is_rounded_down_not_a_panic() {
    let upstream = Upstream::start().await;
    upstream.default(Behaviour::Reply {
        pieces: [
            "Ça ", "marche ", "très ", "bien, ", "déjà ", "prêt ", "ou ", "pas?",
        ]
        .map(String::from)
        .to_vec(),
        gap: Duration::from_millis(80),
    });
    let server = TestServer::start(config(&upstream, |_| {}), None, StoreKind::Memory).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let id = client.session_id.clone();
    say(&mut client, "Hello", "c-1").await;
    let reply_id = loop {
        if let ServerFrame::AssistantDelta(d) = client.recv().await {
            break d.reply_id.to_string();
        }
    };
    // Byte 1 is inside "Ç" (two bytes): the rest is sent from byte 0.
    let url = server.ws_url(&format!(
        "?session_id={id}&reply_id={reply_id}&reply_offset=1"
    ));
    let (mut other, _) = Client::connect(&url).await;
    let seen = until_answered(&mut other).await;
    assert_eq!(deltas(&seen), "Ça marche très bien, déjà prêt ou pas?");
    // An offset past the end is the end.
    let url = server.ws_url(&format!(
        "?session_id={id}&reply_id={reply_id}&reply_offset=99999999999"
    ));
    let (mut third, _) = Client::connect(&url).await;
    third.send(json!({"type": "get_state"})).await;
    loop {
        if let ServerFrame::State(_) = third.recv().await {
            break;
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn stopped_replies_count_against_the_budget_and_a_retried_turn_keeps_its_reply() {
    let upstream = Upstream::start().await;
    upstream.default(Behaviour::Stall {
        pieces: vec!["Hmm ".into()],
    });
    let server = TestServer::start(
        config(&upstream, |c| c.session_replies = 2),
        None,
        StoreKind::Memory,
    )
    .await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    for i in 0..2 {
        say(&mut client, "Hello", &format!("c-{i}")).await;
        loop {
            if let ServerFrame::AssistantDelta(_) = client.recv().await {
                break;
            }
        }
        // The same turn again (an unacknowledged retry): same ack, the reply goes on.
        say(&mut client, "Hello", &format!("c-{i}")).await;
        client.send(json!({"type": "stop"})).await;
        let seen = until_answered(&mut client).await;
        assert!(answer(&seen).message.as_ref().unwrap().partial);
        assert_eq!(answer(&seen).message.as_ref().unwrap().text, "Hmm ");
    }
    say(&mut client, "Hello", "c-9").await;
    assert_eq!(
        error_of(&until_answered(&mut client).await),
        Some(ErrorCode::BudgetExhausted)
    );
    server.stop().await;
}

#[tokio::test]
async fn a_reply_longer_than_the_timeout_is_kept_as_far_as_it_went() {
    let upstream = Upstream::start().await;
    upstream.default(Behaviour::Reply {
        pieces: (0..20).map(|i| format!("w{i} ")).collect(),
        gap: Duration::from_millis(100),
    });
    let server = TestServer::start(
        config(&upstream, |c| c.timeout = Duration::from_millis(700)),
        None,
        StoreKind::Memory,
    )
    .await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let id = client.session_id.clone();
    say(&mut client, "Hello", "c-1").await;
    let seen = until_answered(&mut client).await;
    let message = answer(&seen).message.as_ref().unwrap().clone();
    assert!(message.partial);
    assert!(message.text.starts_with("w0 w1 "), "{}", message.text);
    assert!(!message.text.contains("w19"));
    let status = loop {
        if let ServerFrame::AssistantStatus(s) = client.recv().await {
            break s;
        }
    };
    assert_eq!(&*status.status, "idle");
    assert!(
        status
            .reason
            .as_deref()
            .unwrap_or("")
            .contains("longer than"),
        "{status:?}"
    );
    // A reset while a reply is written stores it first, then starts over.
    upstream.default(Behaviour::Stall {
        pieces: vec!["Half ".into()],
    });
    say(&mut client, "Hello again", "c-2").await;
    loop {
        if let ServerFrame::AssistantDelta(_) = client.recv().await {
            break;
        }
    }
    client.send(json!({"type": "reset", "id": "c-3"})).await;
    loop {
        if let ServerFrame::Ack(a) = client.recv().await
            && a.id == "c-3"
        {
            break;
        }
    }
    let (_, body) = http(server.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    let events: Vec<Value> = serde_json::from_str(&body).unwrap();
    let kinds: Vec<String> = events
        .iter()
        .rev()
        .take(2)
        .map(|e| {
            format!(
                "{}{}",
                e["type"].as_str().unwrap(),
                if e["partial"] == true { " partial" } else { "" }
            )
        })
        .collect();
    assert_eq!(kinds, ["reset", "message partial"]);
    server.stop().await;
}
