//! Hostile clients over real sockets: a message built to be slow to read, a header never
//! finished, a client that never reads, bare connections by the thousand, oversized and binary
//! frames, unbounded fields. Each gets its documented answer, and the server keeps serving a
//! healthy session throughout.
//!
//! The time bounds here are liveness bounds (seconds where the work takes milliseconds), not
//! performance measurements: those are in `benches/` and `scripts/`.

#[path = "../common/mod.rs"]
mod common;
mod floods;
mod flow_files;
mod fragments;
mod http_edges;
mod imports;
mod resumes;
mod tokens;
mod unreadable;
mod vanished_store;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::{
    Client, PATIENCE, ServerProcess, StoreKind, TestServer, error_code, http, temp_path, upgrade,
};
use convstate::config::ServerConfig;
use convstate::protocol::{ErrorCode, ServerFrame};
use futures_util::{SinkExt, StreamExt};
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

on_every_store!(
    oversized_and_binary_frames_count_against_the_rate_limit,
    a_frame_over_the_hard_limit_is_closed_with_1009,
    long_descriptions_and_values_are_capped_in_the_state,
);

/// Writes the start of an HTTP request to the server and leaves it unfinished.
fn half_header(addr: std::net::SocketAddr) -> std::net::TcpStream {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgr").unwrap();
    s
}

#[test]
fn a_half_sent_header_is_closed_at_the_header_timeout() {
    let server = ServerProcess::start(&["--store", "memory:", "--header-timeout", "1s"]).unwrap();
    let mut s = half_header(server.addr);
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 256];
    // Closed by the server: the read ends (0 bytes, or an error for a reset), in time.
    let _ = s.read(&mut buf);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the connection stayed open {:?}",
        started.elapsed()
    );
    // So is a connection that sends nothing at all.
    let mut idle = std::net::TcpStream::connect(server.addr).unwrap();
    idle.set_read_timeout(Some(PATIENCE)).unwrap();
    let started = Instant::now();
    let _ = idle.read(&mut buf);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(server.stop().0.success());
}

/// A WebSocket client with a tiny receive buffer: what it does not read fills up at once.
async fn never_reading(
    url: &str,
    addr: std::net::SocketAddr,
) -> tokio_tungstenite::WebSocketStream<tokio::net::TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    tokio_tungstenite::client_async(url, stream)
        .await
        .unwrap()
        .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_finishes_within_its_deadline_despite_a_half_header_and_a_client_that_never_reads()
{
    let db = temp_path("shutdown", "db");
    let store = format!("sqlite:{}", db.display());
    let server = ServerProcess::start(&[
        "--store",
        &store,
        "--shutdown-timeout",
        "3s",
        "--rate-limit",
        "100000",
        "--rate-burst",
        "100000",
    ])
    .unwrap();
    let _half = half_header(server.addr);
    // A client that never reads, with its session's frames piling up for it.
    let (mut writer, _) = Client::connect(&server.ws_url("")).await;
    let id = writer.session_id.clone();
    let _stuck = never_reading(&server.ws_url(&format!("?session_id={id}")), server.addr).await;
    for k in 0..300 {
        writer
            .turn(
                "user",
                &format!("Add a field number {k}"),
                &format!("w-{k}"),
            )
            .await;
    }
    let (mut polite, _) = Client::connect(&server.ws_url("")).await;
    polite.turn("user", "Build a landing page", "p-1").await;
    let started = Instant::now();
    server.signal("TERM");
    assert_eq!(
        polite.closed_with().await,
        Some(1001),
        "a reading client gets 1001"
    );
    assert_eq!(writer.closed_with().await, Some(1001));
    let (status, _) = server.wait();
    assert!(status.success());
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "shutdown took {:?} (deadline 3 s)",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_signal_stops_at_once_and_the_store_keeps_every_acknowledged_turn() {
    let db = temp_path("second-signal", "db");
    let store = format!("sqlite:{}", db.display());
    let args = ["--store", &store, "--shutdown-timeout", "60s"];
    let server = ServerProcess::start(&args).unwrap();
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let id = client.session_id.clone();
    for k in 0..5 {
        client
            .turn("user", &format!("Add a field {k}"), &format!("a-{k}"))
            .await;
    }
    // A client that reads but never answers the close handshake.
    let (_mute, _) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    let started = Instant::now();
    server.signal("TERM");
    server.signal("TERM");
    let (status, _) = server.wait();
    assert!(status.success());
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "two signals took {:?}",
        started.elapsed()
    );
    let server = ServerProcess::start(&args).unwrap();
    let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
    assert_eq!(status, 200, "{body}");
    let state: convstate::conversation::Conversation = serde_json::from_str(&body).unwrap();
    assert_eq!(state.turn_count, 5);
    assert!(server.stop().0.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_bare_connections_leave_no_session_behind() {
    let db = temp_path("bare", "db");
    let store = format!("sqlite:{}", db.display());
    let server = ServerProcess::start(&["--store", &store, "--exempt-loopback"]).unwrap();
    let mut ids = std::collections::HashSet::new();
    for _ in 0..1_000 {
        let (mut c, welcome) = Client::connect(&server.ws_url("")).await;
        ids.insert(welcome.session_id.to_string());
        c.ws.close(None).await.unwrap();
        while c.ws.next().await.is_some() {}
    }
    assert_eq!(ids.len(), 1_000, "every welcome names its own session");
    // One that speaks is stored.
    let (mut speaker, _) = Client::connect(&server.ws_url("")).await;
    speaker.turn("user", "Build a landing page", "s-1").await;
    let spoken = speaker.session_id.clone();
    let (_, metrics) = http(server.addr, "GET", "/metrics").await;
    let live: usize = metrics
        .lines()
        .filter(|l| l.starts_with("convstate_sessions{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<usize>().ok())
        .sum();
    assert_eq!(
        live, 1,
        "only the speaking session is in memory:\n{metrics}"
    );
    assert!(server.stop().0.success());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let stored: Vec<String> = conn
        .prepare("SELECT id FROM sessions")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(stored, [spoken], "only the session that changed is stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_never_reading_client_is_closed_at_the_write_timeout_and_its_session_goes_on() {
    let config = ServerConfig {
        write_timeout: Duration::from_secs(2),
        ..limits()
    };
    let server = TestServer::start(config, None, StoreKind::Memory).await;
    let (mut writer, _) = Client::connect(&server.ws_url("")).await;
    let id = writer.session_id.clone();
    let mut stuck = never_reading(&server.ws_url(&format!("?session_id={id}")), server.addr).await;
    let started = Instant::now();
    let mut latencies = Vec::new();
    let mut closed_after = None;
    for k in 0.. {
        let sent = Instant::now();
        writer
            .turn(
                "user",
                &format!("Add a field number {k}"),
                &format!("w-{k}"),
            )
            .await;
        latencies.push(sent.elapsed());
        let (_, metrics) = http(server.addr, "GET", "/metrics").await;
        if metrics
            .lines()
            .any(|l| l == "convstate_slow_clients_closed_total 1")
        {
            closed_after = Some(k);
            break;
        }
        assert!(
            started.elapsed() < PATIENCE * 3,
            "the stuck client was not closed"
        );
    }
    assert!(closed_after.is_some());
    latencies.sort();
    let p99 = latencies[latencies.len() * 99 / 100];
    // A stall behind the stuck client would show as its write timeout, 2 s.
    assert!(
        p99 < Duration::from_millis(500),
        "the healthy client's p99 was {p99:?} over {} turns",
        latencies.len()
    );
    // The stuck client's connection ends: what it did not read, then the end.
    let ended = tokio::time::timeout(PATIENCE, async {
        while let Some(Ok(_)) = stuck.next().await {}
    })
    .await;
    assert!(ended.is_ok(), "the stuck client's connection is still open");
    writer.turn("user", "Still here", "w-last").await;
    server.stop().await;
}

/// Reads the status line and body of what the server answers to a WebSocket upgrade, without
/// upgrading.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_caps_are_refused_with_a_clear_answer() {
    // Per address: the sixth connection from loopback gets 429.
    let config = ServerConfig {
        max_connections_per_ip: 5,
        ..limits()
    };
    let server = TestServer::start(config, None, StoreKind::Memory).await;
    let mut held = Vec::new();
    for _ in 0..5 {
        held.push(Client::connect(&server.ws_url("")).await.0);
    }
    let (status, body) = upgrade(server.addr, "").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(error_code(&body), Some(ErrorCode::RateLimited), "{body}");
    // A connection that closes frees its place.
    let mut one = held.pop().unwrap();
    one.ws.close(None).await.unwrap();
    while one.ws.next().await.is_some() {}
    tokio::time::sleep(Duration::from_millis(100)).await;
    held.push(Client::connect(&server.ws_url("")).await.0);
    server.stop().await;

    // The node's cap: 503 `server_full`, whoever asks.
    let config = ServerConfig {
        max_connections: 3,
        exempt_loopback: true,
        ..limits()
    };
    let server = TestServer::start(config, None, StoreKind::Memory).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(Client::connect(&server.ws_url("")).await.0);
    }
    let (status, body) = upgrade(server.addr, "").await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(error_code(&body), Some(ErrorCode::ServerFull), "{body}");
    let (_, metrics) = {
        drop(held.pop());
        tokio::time::sleep(Duration::from_millis(100)).await;
        http(server.addr, "GET", "/metrics").await
    };
    assert!(
        metrics
            .lines()
            .any(|l| l == "convstate_connections_refused_total{cap=\"node\"} 1"),
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_sessions_are_limited_per_address_and_per_node() {
    // Per address: a burst of 3, then one a minute.
    let config = ServerConfig {
        ip_session_rate: 1,
        ip_session_burst: 3,
        ..limits()
    };
    let server = TestServer::start(config, None, StoreKind::Memory).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(Client::connect(&server.ws_url("")).await.0);
    }
    let (status, body) = upgrade(server.addr, "").await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(error_code(&body), Some(ErrorCode::RateLimited), "{body}");
    assert!(body.contains("new sessions"), "{body}");
    // Joining an existing session is not a new one.
    let id = held[0].session_id.clone();
    let (_, welcome) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    assert_eq!(welcome.session_id, id);
    server.stop().await;

    // Per node: `max_sessions` in memory; a bare session that leaves frees its place.
    let config = ServerConfig {
        max_sessions: 2,
        ..limits()
    };
    let server = TestServer::start(config, None, StoreKind::Memory).await;
    let (mut a, _) = Client::connect(&server.ws_url("")).await;
    let (_b, _) = Client::connect(&server.ws_url("")).await;
    let (status, body) = upgrade(server.addr, "").await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(error_code(&body), Some(ErrorCode::ServerFull), "{body}");
    a.ws.close(None).await.unwrap();
    while a.ws.next().await.is_some() {}
    tokio::time::sleep(Duration::from_millis(100)).await;
    Client::connect(&server.ws_url("")).await;
    server.stop().await;
}

#[tokio::test]
async fn an_overlong_session_id_is_a_bad_request() {
    let server = TestServer::start(limits(), None, StoreKind::Memory).await;
    let id = "x".repeat(10 * 1024);
    let query = format!("?session_id={id}");
    let (status, body) = upgrade(server.addr, &query).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(error_code(&body), Some(ErrorCode::BadRequest), "{body}");
    for path in ["", "/summary", "/events", "/goals"] {
        let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}{path}")).await;
        assert_eq!(status, 400, "{path}: {body}");
    }
    server.stop().await;
}

/// What a hostile client does.
enum Attack {
    /// One text frame.
    Text(String),
    /// A text frame whose payload is not UTF-8.
    NotUtf8,
    /// A frame with a reserved opcode.
    ReservedOpcode,
    /// One binary frame of this many bytes.
    Binary(usize),
    /// This many `get_state` frames at once, without waiting.
    Burst(usize),
    /// An upgrade with this query string.
    Upgrade(String),
}

/// What the server answers.
#[derive(Debug, PartialEq)]
enum Answer {
    /// An error frame with this code; the connection stays open and serves a `get_state`.
    Error(ErrorCode),
    /// The frame is applied: its state, then its ack.
    Applied,
    /// A close with this code (after an error frame if one is given).
    Close(Option<ErrorCode>, u16),
    /// Frames answered in order, at least this many refused as `rate_limited`, then a close
    /// 1008 for flooding.
    Burst { refused_at_least: usize },
    /// The upgrade is refused with this HTTP status.
    Http(u16),
}

fn deep(depth: usize) -> String {
    format!(
        r#"{{"type":"message","role":"assistant","text":"done","artifact":{}{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

/// Every hostile input with its documented answer, each on its own connection, over a real
/// socket and the SQLite store; after each, the healthy session takes a turn, and at the end it
/// holds every one of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_input_gets_its_documented_answer_and_a_healthy_session_is_served_throughout()
{
    use tokio_tungstenite::tungstenite::protocol::frame::Frame;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
    let config = ServerConfig {
        rate_limit: 200,
        rate_burst: 40,
        write_timeout: Duration::from_secs(2),
        header_timeout: Duration::from_secs(1),
        ..ServerConfig::default()
    };
    let server = TestServer::start(config, None, StoreKind::Sqlite).await;
    let (mut healthy, _) = Client::connect(&server.ws_url("")).await;
    let healthy_id = healthy.session_id.clone();
    let mut healthy_turns = 0u64;
    let mut latencies = Vec::new();
    let msg = |text: &str| json!({"type":"message","role":"user","text":text}).to_string();
    let text = |t: &str| Attack::Text(t.to_string());
    let turn = |t: &str, id: &str| json!({"type":"message","role":"user","text":t,"id":id});
    let control = turn("\u{0}\u{7}\u{1b}[31m build a page \u{8}\u{7f}", "cc");
    let rtl = turn("\u{202e}build\u{301}\u{301}\u{301} a page", "rtl");
    let long_id = json!({"type":"get_state","id":"i".repeat(10_000)});
    let huge_number = format!(r#"{{"type":"get_state","id":1{}}}"#, "0".repeat(400));
    let nines = "9".repeat(40);
    let table: Vec<(&str, Attack, Answer)> = vec![
        (
            "malformed JSON",
            text(r#"{"type":"message","#),
            Answer::Error(ErrorCode::BadJson),
        ),
        (
            "not an object",
            text("[1,2,3]"),
            Answer::Error(ErrorCode::BadRequest),
        ),
        (
            "wrong type of a field",
            text(r#"{"type":"message","role":5,"text":"hi"}"#),
            Answer::Error(ErrorCode::BadRequest),
        ),
        (
            "unknown field",
            text(r#"{"type":"get_state","admin":true}"#),
            Answer::Error(ErrorCode::BadRequest),
        ),
        (
            "unknown type",
            text(r#"{"type":"drop_tables"}"#),
            Answer::Error(ErrorCode::UnknownType),
        ),
        (
            "huge number as an id",
            text(&huge_number),
            Answer::Error(ErrorCode::BadRequest),
        ),
        // Valid JSON, a number no type holds.
        (
            "huge exponent",
            text(r#"{"type":"get_state","id":1e999999}"#),
            Answer::Error(ErrorCode::BadRequest),
        ),
        (
            "a 10 KB id",
            text(&long_id.to_string()),
            Answer::Error(ErrorCode::BadRequest),
        ),
        // Valid JSON, deeper than the 128 levels read.
        (
            "deep nesting",
            text(&deep(30_000)),
            Answer::Error(ErrorCode::BadRequest),
        ),
        (
            "control characters",
            text(&control.to_string()),
            Answer::Applied,
        ),
        (
            "right-to-left and combining marks",
            text(&rtl.to_string()),
            Answer::Applied,
        ),
        (
            "invalid UTF-8 in a text frame",
            Attack::NotUtf8,
            Answer::Close(None, 1007),
        ),
        (
            "a reserved opcode",
            Attack::ReservedOpcode,
            Answer::Close(None, 1002),
        ),
        (
            "a binary frame",
            Attack::Binary(100),
            Answer::Error(ErrorCode::BadRequest),
        ),
        (
            "a 1 MiB frame",
            text(&msg(&"a".repeat((1 << 20) - 100))),
            Answer::Error(ErrorCode::TooLarge),
        ),
        // Not read whole: closed before any error frame.
        (
            "a 16 MiB frame",
            text(&msg(&"a".repeat(16 << 20))),
            Answer::Close(None, 1009),
        ),
        (
            "a 16 MiB binary frame",
            Attack::Binary(16 << 20),
            Answer::Close(None, 1009),
        ),
        (
            "a burst of 1,000 frames",
            Attack::Burst(1_000),
            Answer::Burst {
                refused_at_least: 40,
            },
        ),
        (
            "an unknown session",
            Attack::Upgrade("?session_id=s-nobody".into()),
            Answer::Close(Some(ErrorCode::UnknownSession), 1008),
        ),
        (
            "a 10 KB session id",
            Attack::Upgrade(format!("?session_id={}", "s".repeat(10_000))),
            Answer::Http(400),
        ),
        (
            "a huge last_seq",
            Attack::Upgrade(format!("?session_id={healthy_id}&last_seq={nines}")),
            Answer::Http(400),
        ),
        (
            "a last_seq that is not a number",
            Attack::Upgrade(format!("?session_id={healthy_id}&last_seq=abc")),
            Answer::Http(400),
        ),
        (
            "an unknown query parameter",
            Attack::Upgrade("?admin=1".into()),
            Answer::Applied,
        ),
    ];
    for (name, attack, answer) in table {
        match attack {
            Attack::Upgrade(query) => {
                let (status, body) = upgrade(server.addr, &query).await;
                match answer {
                    Answer::Http(expected) => {
                        assert_eq!(status, expected, "{name}: {body}");
                        // Refused with the protocol's error object, not a bare text.
                        assert_eq!(
                            error_code(&body),
                            Some(ErrorCode::BadRequest),
                            "{name}: {body}"
                        );
                    }
                    Answer::Applied => assert_eq!(status, 101, "{name}: {body}"),
                    Answer::Close(code, close) => {
                        assert_eq!(status, 101, "{name}");
                        let (mut c, _) = tokio_tungstenite::connect_async(server.ws_url(&query))
                            .await
                            .unwrap();
                        let Some(Ok(Message::Text(t))) = c.next().await else {
                            panic!("{name}: no error frame");
                        };
                        let frame = ServerFrame::parse(&t).unwrap();
                        assert!(
                            matches!(&frame, ServerFrame::Error(e) if Some(e.code) == code),
                            "{name}: {t}"
                        );
                        let mut closed = None;
                        while let Some(Ok(m)) = c.next().await {
                            if let Message::Close(Some(f)) = m {
                                closed = Some(u16::from(f.code));
                            }
                        }
                        assert_eq!(closed, Some(close), "{name}");
                    }
                    other => panic!("{name}: {other:?} is not an answer to an upgrade"),
                }
            }
            attack => {
                let (mut client, _) = Client::connect(&server.ws_url("")).await;
                let frames = match attack {
                    Attack::Text(text) => vec![Message::Text(text.into())],
                    Attack::NotUtf8 => vec![Message::Frame(Frame::message(
                        vec![b'{', 0xff, 0xfe, b'}'],
                        OpCode::Data(Data::Text),
                        true,
                    ))],
                    Attack::ReservedOpcode => vec![Message::Frame(Frame::message(
                        vec![1, 2, 3],
                        OpCode::Data(Data::Reserved(3)),
                        true,
                    ))],
                    Attack::Binary(n) => vec![Message::Binary(vec![7u8; n].into())],
                    Attack::Burst(n) => (0..n)
                        .map(|_| Message::Text(r#"{"type":"get_state"}"#.into()))
                        .collect(),
                    Attack::Upgrade(_) => unreachable!(),
                };
                let count = frames.len();
                for frame in frames {
                    if client.ws.feed(frame).await.is_err() {
                        break;
                    }
                }
                let _ = client.ws.flush().await;
                match answer {
                    Answer::Error(code) => {
                        let message = client.expect_error(code).await;
                        assert!(!message.is_empty(), "{name}");
                        client.send(json!({"type":"get_state"})).await;
                        client.recv_state().await;
                    }
                    Answer::Applied => {
                        client.recv_state().await;
                        client.recv().await; // the ack
                    }
                    Answer::Close(error, code) => {
                        if let Some(error) = error {
                            client.expect_error(error).await;
                        }
                        assert_eq!(client.closed_with().await, Some(code), "{name}");
                    }
                    Answer::Burst { refused_at_least } => {
                        let mut refused = 0;
                        let mut answered = 0;
                        let code = loop {
                            match tokio::time::timeout(PATIENCE, client.ws.next())
                                .await
                                .expect("answers in time")
                            {
                                Some(Ok(Message::Text(t))) => {
                                    answered += 1;
                                    match ServerFrame::parse(&t).unwrap() {
                                        ServerFrame::State(_) => {}
                                        ServerFrame::Error(e)
                                            if e.code == ErrorCode::RateLimited =>
                                        {
                                            refused += 1
                                        }
                                        other => panic!("{name}: {}", other.to_text()),
                                    }
                                }
                                Some(Ok(Message::Close(frame))) => {
                                    break frame.map(|f| u16::from(f.code));
                                }
                                Some(Ok(_)) => {}
                                Some(Err(_)) | None => break None,
                            }
                        };
                        assert!(refused >= refused_at_least, "{name}: {refused} refused");
                        assert!(answered < count, "{name}: closed before the end");
                        assert_eq!(code, Some(1008), "{name}");
                    }
                    Answer::Http(_) => unreachable!(),
                }
            }
        }
        let sent = Instant::now();
        healthy_turns += 1;
        healthy
            .turn(
                "user",
                &format!("Add a note {healthy_turns}"),
                &format!("h-{healthy_turns}"),
            )
            .await;
        latencies.push(sent.elapsed());
    }

    // A client that never reads, on the healthy session: closed at the write timeout while the
    // healthy client goes on.
    let mut stuck = never_reading(
        &server.ws_url(&format!("?session_id={healthy_id}")),
        server.addr,
    )
    .await;
    loop {
        let sent = Instant::now();
        healthy_turns += 1;
        healthy
            .turn(
                "user",
                &format!("Add a note {healthy_turns}"),
                &format!("h-{healthy_turns}"),
            )
            .await;
        latencies.push(sent.elapsed());
        let (_, metrics) = http(server.addr, "GET", "/metrics").await;
        if metrics
            .lines()
            .any(|l| l == "convstate_slow_clients_closed_total 1")
        {
            break;
        }
        assert!(healthy_turns < 5_000, "the stuck client was not closed");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let ended = tokio::time::timeout(PATIENCE, async {
        while let Some(Ok(_)) = stuck.next().await {}
    })
    .await;
    assert!(ended.is_ok(), "the stuck client's connection is still open");

    // A half-sent header: closed at the header timeout.
    let addr = server.addr;
    tokio::task::spawn_blocking(move || {
        let mut s = half_header(addr);
        s.set_read_timeout(Some(PATIENCE)).unwrap();
        let started = Instant::now();
        let _ = s.read(&mut [0u8; 64]);
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{:?}",
            started.elapsed()
        );
    })
    .await
    .unwrap();

    // The healthy session has every turn, in order, and nothing else.
    client_holds(&mut healthy, healthy_turns).await;
    latencies.sort();
    let p99 = latencies[latencies.len() * 99 / 100];
    assert!(
        p99 < Duration::from_millis(500),
        "the healthy client's p99: {p99:?}"
    );
    println!(
        "healthy turns: {}, p50 {:?}, p99 {:?}",
        latencies.len(),
        latencies[latencies.len() / 2],
        p99
    );
    server.stop().await;
}

async fn client_holds(client: &mut Client, turns: u64) {
    client.send(json!({"type":"get_state"})).await;
    let state = client.recv_state().await;
    assert_eq!(state.seq, turns);
    assert_eq!(state.state.turn_count, turns);
}
