//! Hostile clients over real sockets: a message built to be slow to read, a header never
//! finished, a client that never reads, bare connections by the thousand, oversized and binary
//! frames, unbounded fields. Each gets its documented answer, and the server keeps serving a
//! healthy session throughout.
//!
//! The time bounds here are liveness bounds (seconds where the work takes milliseconds), not
//! performance measurements: those are in `benches/` and `scripts/`.

mod common;

use std::time::{Duration, Instant};

use common::{Client, StoreKind, TestServer, http};
use convstate::config::ServerConfig;
use convstate::protocol::ErrorCode;
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// A message built against a reader that compares every phrase with every other: signal words,
/// negations and clause breaks over and over, 64 KiB.
fn adversarial(bytes: usize) -> String {
    let mut text = String::new();
    while text.len() < bytes {
        text.push_str("no but ok sure not yes go ahead never ");
    }
    text.truncate(bytes);
    text
}

fn limits() -> ServerConfig {
    ServerConfig {
        rate_limit: 100_000,
        rate_burst: 100_000,
        ..ServerConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_built_to_be_slow_to_read_is_read_at_once_and_stalls_nobody() {
    let server = TestServer::start(limits(), None, StoreKind::Memory).await;
    let (mut healthy, _) = Client::connect(&server.ws_url("")).await;
    let (mut attacker, _) = Client::connect(&server.ws_url("")).await;
    let text = adversarial(64 * 1024 - 100);
    let started = Instant::now();
    attacker
        .send(json!({"type":"message","role":"user","text":text,"id":"x-1"}))
        .await;
    // Meanwhile the server answers others.
    let (status, _) = http(server.addr, "GET", "/healthz").await;
    assert_eq!(status, 200);
    healthy.turn("user", "Build a landing page", "h-1").await;
    attacker.recv_state().await;
    attacker.expect_ack("x-1").await;
    // Before linear reading, 16 KiB of this took 2.8 s and 64 KiB minutes.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?} to read a 64 KiB message",
        started.elapsed()
    );
    server.stop().await;
}

async fn oversized_and_binary_frames_count_against_the_rate_limit(store: StoreKind) {
    let config = ServerConfig {
        rate_limit: 2,
        rate_burst: 3,
        max_frame_bytes: 1024,
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    for _ in 0..3 {
        client
            .ws
            .send(Message::Binary(vec![0u8; 10].into()))
            .await
            .unwrap();
        client.expect_error(ErrorCode::BadRequest).await;
    }
    client
        .send_text(&format!(
            r#"{{"type":"message","role":"user","text":"{}"}}"#,
            "a".repeat(2000)
        ))
        .await;
    client.expect_error(ErrorCode::RateLimited).await;
    server.stop().await;
}

async fn a_frame_over_the_hard_limit_is_closed_with_1009(store: StoreKind) {
    let server = TestServer::start(limits(), None, store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let huge = "x".repeat(2 << 20);
    let _ = client.ws.send(Message::Text(huge.into())).await;
    assert_eq!(client.closed_with().await, Some(1009));
    // The server goes on.
    let (mut other, _) = Client::connect(&server.ws_url("")).await;
    other.turn("user", "Build a landing page", "o-1").await;
    server.stop().await;
}

async fn long_descriptions_and_values_are_capped_in_the_state(store: StoreKind) {
    let server = TestServer::start(limits(), None, store).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let long = "alpha ".repeat(5_000);
    let (state, _) = client
        .turn(
            "user",
            &format!("Build a landing page called {long}"),
            "c-1",
        )
        .await;
    let goal = state.state.into_owned().current_goal.expect("a goal");
    assert!(
        goal.description.len() <= 1_000,
        "a description of {} bytes",
        goal.description.len()
    );
    assert!(goal.description.ends_with('…'), "marked as cut");
    server.stop().await;
}

on_both_stores!(
    oversized_and_binary_frames_count_against_the_rate_limit,
    a_frame_over_the_hard_limit_is_closed_with_1009,
    long_descriptions_and_values_are_capped_in_the_state,
);
