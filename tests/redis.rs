//! The Redis store with a real `redis-server` (a test's own, on a free port): the worked example
//! over sockets, lossless resume across a server restart, the compare-and-set of appends between
//! two stores, an outage answered with `store_unavailable` and recovered from, and a SIGKILL of
//! Redis with `appendfsync always` losing no acknowledged turn.

mod common;

use std::sync::Arc;

use chrono::Utc;
use common::{Client, RedisProcess, TestServer};
use convstate::config::ServerConfig;
use convstate::conversation::{Input, Role};
use convstate::protocol::{ErrorCode, ServerFrame};
use convstate::store::{self, Append, Change, ErrorKind, Event, Options, Write};
use serde_json::json;

fn config(redis: &RedisProcess, prefix: &str) -> ServerConfig {
    ServerConfig {
        store: redis.url(),
        redis_prefix: prefix.to_string(),
        ..ServerConfig::default()
    }
}

/// A user turn with an id, and its ack's seq.
async fn turn(client: &mut Client, role: &str, text: &str, id: &str) -> Result<u64, ErrorCode> {
    client
        .send(json!({"type": "message", "role": role, "text": text, "id": id}))
        .await;
    loop {
        match client.recv().await {
            ServerFrame::Ack(a) if a.id == id => return Ok(a.seq),
            ServerFrame::Error(e) => return Err(e.code),
            _ => {}
        }
    }
}

const EXAMPLE: [(&str, &str); 9] = [
    ("user", "I want to build a todo app"),
    ("assistant", "What features do you need?"),
    (
        "user",
        "I need add, delete, and mark as complete functionality with React components",
    ),
    ("assistant", "I'll create a React todo app component"),
    ("user", "Sounds good, go ahead"),
    ("assistant", "<artifact type=\"react\">...</artifact>"),
    ("user", "Perfect! This is exactly what I needed"),
    ("user", "Now build a calculator"),
    ("user", "bye"),
];

#[tokio::test]
async fn the_worked_example_on_redis_and_a_resume_after_a_restart() {
    let redis = RedisProcess::start(false);
    let server = TestServer::start_on(config(&redis, "t1"), None).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let id = client.session_id.clone();
    let mut phases = Vec::new();
    for (i, (role, text)) in EXAMPLE.iter().enumerate().take(5) {
        turn(&mut client, role, text, &format!("c-{i}"))
            .await
            .unwrap();
        phases.push(id.clone());
    }
    server.stop().await;
    // Another server on the same Redis: the client resumes from seq 3 and gets 4 and 5.
    let server = TestServer::start_on(config(&redis, "t1"), None).await;
    let (mut again, welcome) =
        Client::connect(&server.ws_url(&format!("?session_id={id}&last_seq=3"))).await;
    assert!(welcome.resumed);
    let four = again.recv_state().await;
    let five = again.recv_state().await;
    assert_eq!((four.seq, five.seq), (4, 5));
    assert_eq!(five.state.phase.to_string(), "executing");
    for (i, (role, text)) in EXAMPLE.iter().enumerate().skip(5) {
        turn(&mut again, role, text, &format!("c-{i}"))
            .await
            .unwrap();
    }
    again.send(json!({"type": "get_state"})).await;
    let state = again.recv_state().await;
    assert_eq!(state.state.phase.to_string(), "idle");
    assert_eq!(state.state.completed_goals_total, 2);
    // Another prefix on the same Redis sees nothing of it.
    let other = TestServer::start_on(config(&redis, "t2"), None).await;
    let (status, _) = common::http(other.addr, "GET", &format!("/api/sessions/{id}")).await;
    assert_eq!(status, 404);
    other.stop().await;
    server.stop().await;
}

fn append(session: &str, seq: u64, text: &str) -> Write {
    Write::Append(Box::new(Append {
        session: Arc::from(session),
        event: Event {
            seq,
            at: Utc::now(),
            change: Change::from_input(&Input::Message {
                role: Role::User,
                text,
                artifact: false,
            }),
            id: None,
        },
        phase: convstate::conversation::Phase::Understanding,
        idle_deadline: None,
        snapshot: None,
        finished: Vec::new(),
        goals_total: 0,
    }))
}

#[tokio::test]
async fn an_append_that_does_not_follow_the_last_seq_is_refused() {
    let redis = RedisProcess::start(false);
    let options = Options {
        prefix: "cas".into(),
        ..Options::default()
    };
    let a = store::open(&redis.url(), &options).unwrap();
    let b = store::open(&redis.url(), &options).unwrap();
    let create = Write::Create {
        session: Arc::from("s-cas"),
        created_at: Utc::now(),
        idle_deadline: None,
        owner: None,
    };
    let t = a.write(create, None).unwrap();
    a.committed(t).await.unwrap();
    // Both nodes append seq 1: one wins, the other is told it lost.
    let ta = a.write(append("s-cas", 1, "from a"), None).unwrap();
    let tb = b.write(append("s-cas", 1, "from b"), None).unwrap();
    let (ra, rb) = (a.committed(ta).await, b.committed(tb).await);
    assert!(ra.is_ok() != rb.is_ok(), "{ra:?} {rb:?}");
    let lost = ra.err().or(rb.err()).unwrap();
    assert_eq!(lost.kind, ErrorKind::Conflict, "{lost:?}");
    let events = a.events("s-cas", 0, 10).unwrap().unwrap();
    assert_eq!(events.len(), 1);
    // A gap is refused too; the next seq is taken.
    let gap = b.write(append("s-cas", 3, "gap"), None).unwrap();
    assert_eq!(
        b.committed(gap).await.unwrap_err().kind,
        ErrorKind::Conflict
    );
    let next = b.write(append("s-cas", 2, "next"), None).unwrap();
    b.committed(next).await.unwrap();
    assert_eq!(a.events("s-cas", 0, 10).unwrap().unwrap().len(), 2);
    assert!(a.events("s-none", 0, 10).unwrap().is_none());
}

#[tokio::test]
async fn an_outage_is_a_clear_error_and_the_store_recovers() {
    let mut redis = RedisProcess::start(false);
    let server = TestServer::start_on(config(&redis, "t3"), None).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    turn(&mut client, "user", "Build a landing page", "c-1")
        .await
        .unwrap();
    redis.kill();
    // Nothing half-applied: the turn is refused, at once or once the write fails.
    let refused = turn(&mut client, "user", "With a pricing table", "c-2").await;
    assert_eq!(refused, Err(ErrorCode::StoreUnavailable));
    let (status, body) = common::http(server.addr, "GET", "/readyz").await;
    assert_eq!(status, 503, "{body}");
    let (status, body) = common::http(server.addr, "GET", "/healthz").await;
    assert_eq!(status, 200);
    assert!(body.starts_with("ok\nstore: failing since"), "{body}");
    redis.restart();
    // Back by itself: the same turn, sent again, is applied once.
    let mut applied = None;
    for _ in 0..50 {
        match turn(&mut client, "user", "With a pricing table", "c-2").await {
            Ok(seq) => {
                applied = Some(seq);
                break;
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(200)).await,
        }
    }
    assert!(applied.is_some(), "the store did not come back");
    let (status, _) = common::http(server.addr, "GET", "/readyz").await;
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test]
async fn sigkill_of_redis_with_appendfsync_always_loses_no_acknowledged_turn() {
    let mut redis = RedisProcess::start(true);
    let server = TestServer::start_on(config(&redis, "t4"), None).await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    let id = client.session_id.clone();
    let mut acked = 0;
    for i in 0..40 {
        turn(
            &mut client,
            "user",
            &format!("Build thing number {i}"),
            &format!("c-{i}"),
        )
        .await
        .unwrap();
        acked += 1;
    }
    redis.kill();
    server.stop().await;
    redis.restart();
    let server = TestServer::start_on(config(&redis, "t4"), None).await;
    let (mut again, welcome) = Client::connect(&server.ws_url(&format!("?session_id={id}"))).await;
    assert_eq!(welcome.seq, acked);
    assert_eq!(welcome.state.turn_count, acked);
    again.send(json!({"type": "get_state"})).await;
    again.recv_state().await;
    server.stop().await;
}

/// A turn with an id: every state frame read meanwhile goes to `seen` (seq, reasons).
async fn turn_seen(
    client: &mut Client,
    role: &str,
    text: &str,
    id: &str,
    seen: &mut Vec<(u64, Vec<String>)>,
) -> u64 {
    client
        .send(json!({"type": "message", "role": role, "text": text, "id": id}))
        .await;
    loop {
        match client.recv().await {
            ServerFrame::Ack(a) if a.id == id => return a.seq,
            ServerFrame::State(s) => seen.push((
                s.seq,
                s.transitions.iter().map(|t| t.reason.to_string()).collect(),
            )),
            ServerFrame::Error(e) => panic!("{id}: {:?} {}", e.code, e.message),
            _ => {}
        }
    }
}

/// Reads state frames into `seen` until it has one of `seq`.
async fn frames_until(client: &mut Client, seq: u64, seen: &mut Vec<(u64, Vec<String>)>) {
    while seen.last().is_none_or(|(at, _)| *at < seq) {
        if let ServerFrame::State(s) = client.recv().await {
            seen.push((
                s.seq,
                s.transitions.iter().map(|t| t.reason.to_string()).collect(),
            ));
        }
    }
}

#[tokio::test]
async fn two_nodes_share_a_session_the_user_on_one_the_assistant_on_the_other() {
    let redis = RedisProcess::start(false);
    let one = TestServer::start_on(config(&redis, "t5"), None).await;
    let two = TestServer::start_on(config(&redis, "t5"), None).await;
    let (mut user, _) = Client::connect(&one.ws_url("")).await;
    let id = user.session_id.clone();
    // The session exists in the store once it has a change.
    turn(&mut user, "user", EXAMPLE[0].1, "u-0").await.unwrap();
    let (mut assistant, welcome) = Client::connect(&two.ws_url(&format!("?session_id={id}"))).await;
    assert_eq!(welcome.seq, 1);
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    let mut last = 1;
    for (i, (role, text)) in EXAMPLE.iter().enumerate().skip(1) {
        let id = format!("c-{i}");
        last = if *role == "user" {
            turn_seen(&mut user, role, text, &id, &mut mine).await
        } else {
            turn_seen(&mut assistant, role, text, &id, &mut theirs).await
        };
    }
    assert_eq!(last, 9);
    frames_until(&mut user, 9, &mut mine).await;
    frames_until(&mut assistant, 9, &mut theirs).await;
    // Both saw every change from 2 on, with the same transitions, in the same order.
    let from_two = |frames: Vec<(u64, Vec<String>)>| -> Vec<(u64, Vec<String>)> {
        frames.into_iter().filter(|(seq, _)| *seq >= 2).collect()
    };
    let (mine, theirs) = (from_two(mine), from_two(theirs));
    assert_eq!(mine, theirs);
    assert_eq!(
        mine.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        (2..=9).collect::<Vec<_>>()
    );
    let reasons: Vec<String> = mine.into_iter().flat_map(|(_, r)| r).collect();
    assert_eq!(
        reasons,
        [
            "Gathered sufficient information",
            "Plan approved, starting work",
            "Work completed",
            "User satisfied with result",
            "User started new goal",
            "User cancelled",
        ]
    );
    one.stop().await;
    two.stop().await;
}

#[tokio::test]
async fn concurrent_turns_from_two_nodes_are_all_kept_once_in_one_order() {
    let redis = RedisProcess::start(false);
    let one = TestServer::start_on(config(&redis, "t6"), None).await;
    let two = TestServer::start_on(config(&redis, "t6"), None).await;
    let (mut a, _) = Client::connect(&one.ws_url("")).await;
    let id = a.session_id.clone();
    turn(&mut a, "user", "Build a form", "a-start")
        .await
        .unwrap();
    let (mut b, _) = Client::connect(&two.ws_url(&format!("?session_id={id}"))).await;
    const EACH: usize = 15;
    // Both send their turns at once, without waiting.
    for i in 0..EACH {
        a.send(json!({"type": "message", "role": "user", "text": format!("a says {i}"), "id": format!("a-{i}")}))
            .await;
        b.send(json!({"type": "message", "role": "assistant", "text": format!("b says {i}"), "id": format!("b-{i}")}))
            .await;
    }
    let total = 1 + 2 * EACH as u64;
    // Each client reads until it has its 15 acks and the frame of the last change: every
    // state frame it was sent goes into its sequence.
    let (mut seen_a, mut seen_b) = (Vec::new(), Vec::new());
    acks_and_frames(&mut a, "a-", EACH, total, &mut seen_a).await;
    acks_and_frames(&mut b, "b-", EACH, total, &mut seen_b).await;
    // Every turn once: the log holds 31 changes, each text once.
    let (_, body) = common::http(one.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    let events: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(events.len() as u64, total);
    let logged: Vec<String> = events
        .iter()
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect();
    let mut texts = logged.clone();
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len() as u64, total);
    // Both clients saw the same sequence: every change from 2 on, once, in the log's order,
    // with the same turn and the same transitions.
    assert_eq!(
        seen_a.iter().map(|f| f.0).collect::<Vec<_>>(),
        (2..=total).collect::<Vec<_>>(),
        "client a's frames"
    );
    assert_eq!(seen_a, seen_b, "the two clients saw different sequences");
    let texts_seen: Vec<&str> = seen_a.iter().map(|f| f.1.as_str()).collect();
    let logged: Vec<&str> = logged.iter().skip(1).map(String::as_str).collect();
    assert_eq!(texts_seen, logged);
    // Both clients end at the same state.
    for client in [&mut a, &mut b] {
        client.send(json!({"type": "get_state"})).await;
        let state = loop {
            if let ServerFrame::State(s) = client.recv().await
                && s.seq == total
            {
                break s;
            }
        };
        assert_eq!(state.state.turn_count, total);
    }
    one.stop().await;
    two.stop().await;
}

/// A state frame as a client saw it: seq, the turn's text, the transitions' reasons.
type Seen = (u64, String, Vec<String>);

/// Reads until `count` acks of ids starting with `prefix` came and the state frame of `last`
/// arrived; state frames after seq 1 go to `seen`. An error fails the test.
async fn acks_and_frames(
    client: &mut Client,
    prefix: &str,
    count: usize,
    last: u64,
    seen: &mut Vec<Seen>,
) {
    let mut acked = std::collections::BTreeSet::new();
    while acked.len() < count || seen.last().is_none_or(|f| f.0 < last) {
        match client.recv().await {
            ServerFrame::Ack(ack) if ack.id.starts_with(prefix) => {
                acked.insert(ack.id.to_string());
            }
            ServerFrame::State(s) if s.seq >= 2 => seen.push((
                s.seq,
                s.message
                    .as_ref()
                    .map(|m| m.text.to_string())
                    .unwrap_or_default(),
                s.transitions.iter().map(|t| t.reason.to_string()).collect(),
            )),
            ServerFrame::Error(e) => panic!("{prefix}: {:?} {}", e.code, e.message),
            _ => {}
        }
    }
}

#[tokio::test]
async fn an_idle_deadline_is_applied_once_with_two_sweepers() {
    let redis = RedisProcess::start(false);
    let idle = Some(chrono::TimeDelta::seconds(1));
    let one = TestServer::start_on(config(&redis, "t7"), idle).await;
    let two = TestServer::start_on(config(&redis, "t7"), idle).await;
    let (mut a, _) = Client::connect(&one.ws_url("")).await;
    let id = a.session_id.clone();
    turn(&mut a, "user", "Build a landing page", "c-1")
        .await
        .unwrap();
    // Both nodes hold the session, both sweep it at its deadline.
    let (mut b, _) = Client::connect(&two.ws_url(&format!("?session_id={id}"))).await;
    for client in [&mut a, &mut b] {
        loop {
            if let ServerFrame::State(s) = client.recv().await
                && s.state.phase.to_string() == "idle"
            {
                break;
            }
        }
    }
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let (_, body) = common::http(one.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    let events: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    let idles = events.iter().filter(|e| e["type"] == "idle").count();
    assert_eq!(idles, 1, "{events:?}");
    one.stop().await;
    two.stop().await;
}

#[tokio::test]
async fn an_idle_deadline_outlives_the_node_that_held_the_session() {
    let redis = RedisProcess::start(true);
    let url = redis.url();
    let args = [
        "--store",
        url.as_str(),
        "--redis-prefix",
        "t13",
        "--idle-timeout",
        "3s",
    ];
    let a = common::ServerProcess::start(&args).unwrap();
    let b = common::ServerProcess::start(&args).unwrap();
    let (mut user, _) = Client::connect(&a.ws_url("")).await;
    let id = user.session_id.clone();
    turn(&mut user, "user", "Build a landing page", "c-1")
        .await
        .unwrap();
    // Only node a holds the session; it dies before the deadline.
    a.kill();
    // Node b, which never held it, applies the deadline once it falls due (watched in Redis:
    // asking node b would load the session there, and its sweeper would apply it).
    let phase = format!("HGET t13:s:{{{id}}}:meta phase");
    let mut seen = String::new();
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let mut c = std::net::TcpStream::connect(("127.0.0.1", redis.port)).unwrap();
        use std::io::{Read, Write};
        c.write_all(format!("{phase}\r\n").as_bytes()).unwrap();
        let mut buf = [0u8; 64];
        let n = c.read(&mut buf).unwrap();
        seen = String::from_utf8_lossy(&buf[..n]).to_string();
        if seen.contains("idle") {
            break;
        }
    }
    assert!(seen.contains("idle"), "node b applied the deadline: {seen}");
    assert_eq!(redis.command(&format!("XLEN t13:s:{{{id}}}:log")), ":2");
    let (_, body) = common::http(b.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    let events: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(events[1]["type"], "idle", "{events:?}");
    drop(b);
}

#[tokio::test]
async fn a_node_killed_mid_session_its_clients_go_on_on_the_other() {
    let redis = RedisProcess::start(true);
    let url = redis.url();
    let args = ["--store", url.as_str(), "--redis-prefix", "t8"];
    let a = common::ServerProcess::start(&args).unwrap();
    let b = common::ServerProcess::start(&args).unwrap();
    let (mut user, _) = Client::connect(&a.ws_url("")).await;
    let id = user.session_id.clone();
    let mut seq = 0;
    for (i, (role, text)) in EXAMPLE.iter().enumerate().take(3) {
        seq = turn(&mut user, role, text, &format!("c-{i}"))
            .await
            .unwrap();
    }
    let (mut watcher, _) = Client::connect(&b.ws_url(&format!("?session_id={id}"))).await;
    // SIGKILL of the user's node; the user comes back on the other one, from where it was.
    let log = a.kill();
    assert!(!log.is_empty());
    let (mut back, welcome) =
        Client::connect(&b.ws_url(&format!("?session_id={id}&last_seq={seq}"))).await;
    assert!(welcome.resumed);
    assert_eq!(welcome.seq, seq);
    for (i, (role, text)) in EXAMPLE.iter().enumerate().skip(3) {
        seq = turn(&mut back, role, text, &format!("c-{i}"))
            .await
            .unwrap();
    }
    assert_eq!(seq, 9);
    // The watcher on the surviving node saw every change after it joined, in order.
    let mut seen = Vec::new();
    frames_until(&mut watcher, 9, &mut seen).await;
    assert_eq!(
        seen.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        (4..=9).collect::<Vec<_>>()
    );
    drop(b);
}

#[tokio::test]
async fn sessions_move_from_sqlite_to_redis_with_export_and_import() {
    let redis = RedisProcess::start(false);
    let file = common::temp_path("export", "db");
    let sqlite = format!("sqlite:{}", file.display());
    let server = TestServer::start_on(
        ServerConfig {
            store: sqlite.clone(),
            ..ServerConfig::default()
        },
        None,
    )
    .await;
    let mut ids = Vec::new();
    for n in 0..3 {
        let (mut client, _) = Client::connect(&server.ws_url("")).await;
        for (i, (role, text)) in EXAMPLE.iter().enumerate().take(4 + n) {
            turn(&mut client, role, text, &format!("c-{i}"))
                .await
                .unwrap();
        }
        ids.push(client.session_id.clone());
    }
    let mut before = Vec::new();
    for id in &ids {
        before.push(
            common::http(server.addr, "GET", &format!("/api/sessions/{id}"))
                .await
                .1,
        );
    }
    server.stop().await;
    let bin = env!("CARGO_BIN_EXE_convstate");
    let exported = std::process::Command::new(bin)
        .args(["export", "--store", &sqlite])
        .output()
        .unwrap();
    assert!(
        exported.status.success(),
        "{}",
        String::from_utf8_lossy(&exported.stderr)
    );
    let lines = String::from_utf8(exported.stdout).unwrap();
    assert_eq!(
        lines.lines().filter(|l| l.contains("\"session\"")).count(),
        3
    );
    let dump = common::temp_path("export", "jsonl");
    std::fs::write(&dump, &lines).unwrap();
    let import = |store: &str| {
        std::process::Command::new(bin)
            .args([
                "import",
                "--store",
                store,
                "--redis-prefix",
                "moved",
                dump.to_str().unwrap(),
            ])
            .output()
            .unwrap()
    };
    let imported = import(&redis.url());
    let said = String::from_utf8_lossy(&imported.stderr).to_string();
    assert!(imported.status.success(), "{said}");
    assert!(said.contains("3 sessions (15 events) imported"), "{said}");
    // Served from Redis: the same states.
    let server = TestServer::start_on(config(&redis, "moved"), None).await;
    for (id, before) in ids.iter().zip(&before) {
        let (status, after) =
            common::http(server.addr, "GET", &format!("/api/sessions/{id}")).await;
        assert_eq!(status, 200);
        assert_eq!(&after, before);
    }
    server.stop().await;
    // Exported again, from Redis: the same lines.
    let from_redis = std::process::Command::new(bin)
        .args(["export", "--store", &redis.url(), "--redis-prefix", "moved"])
        .output()
        .unwrap();
    assert!(from_redis.status.success());
    assert_eq!(String::from_utf8(from_redis.stdout).unwrap(), lines);
    // Again: nothing is overwritten.
    let again = import(&redis.url());
    let said = String::from_utf8_lossy(&again.stderr).to_string();
    assert!(said.contains("0 sessions (0 events) imported"), "{said}");
    assert_eq!(said.matches("skipped").count(), 3, "{said}");
    // A session there with another log (an import cut short, say) is said, not overwritten.
    let header = lines.lines().find(|l| l.contains("\"session\"")).unwrap();
    let value: serde_json::Value = serde_json::from_str(header).unwrap();
    let mut more = value.clone();
    more["events"] = (value["events"].as_u64().unwrap() + 1).into();
    let mut longer = more.to_string() + "\n";
    for line in lines.lines().skip(1) {
        if line.contains("\"session\"") {
            break;
        }
        longer.push_str(line);
        longer.push('\n');
    }
    std::fs::write(&dump, longer).unwrap();
    let different = import(&redis.url());
    assert!(!different.status.success());
    let said = String::from_utf8_lossy(&different.stderr).to_string();
    assert!(said.contains("another log"), "{said}");
}

#[tokio::test]
async fn a_session_deleted_on_one_node_is_gone_on_the_other() {
    let redis = RedisProcess::start(false);
    let one = TestServer::start_on(config(&redis, "t9"), None).await;
    let two = TestServer::start_on(config(&redis, "t9"), None).await;
    let (mut a, _) = Client::connect(&one.ws_url("")).await;
    let id = a.session_id.clone();
    turn(&mut a, "user", "Build a form", "c-1").await.unwrap();
    let (mut b, _) = Client::connect(&two.ws_url(&format!("?session_id={id}"))).await;
    let (status, _) = common::http(one.addr, "DELETE", &format!("/api/sessions/{id}")).await;
    assert_eq!(status, 204);
    // The other node's client is told, and the other node serves it no more.
    let told = loop {
        if let ServerFrame::Error(e) = b.recv().await {
            break e.code;
        }
    };
    assert_eq!(told, ErrorCode::SessionDeleted);
    let (status, _) = common::http(two.addr, "GET", &format!("/api/sessions/{id}")).await;
    assert_eq!(status, 404);
    one.stop().await;
    two.stop().await;
}

#[tokio::test]
async fn after_a_redis_restart_both_nodes_reconnect_and_resubscribe() {
    let mut redis = RedisProcess::start(true);
    let one = TestServer::start_on(config(&redis, "t10"), None).await;
    let two = TestServer::start_on(config(&redis, "t10"), None).await;
    let (mut a, _) = Client::connect(&one.ws_url("")).await;
    let id = a.session_id.clone();
    turn(&mut a, "user", "Build a landing page", "c-1")
        .await
        .unwrap();
    let (mut b, _) = Client::connect(&two.ws_url(&format!("?session_id={id}"))).await;
    redis.kill();
    redis.restart();
    // Writes come back by themselves on node one; node two hears of them again.
    let mut seq = None;
    for i in 0..50 {
        match turn(&mut a, "user", "With a pricing table", &format!("c-2-{i}")).await {
            Ok(s) => {
                seq = Some(s);
                break;
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(200)).await,
        }
    }
    let seq = seq.expect("node one writes again");
    let mut seen = Vec::new();
    frames_until(&mut b, seq, &mut seen).await;
    assert_eq!(seen.last().unwrap().0, seq);
    // And the other way round.
    let back = turn(&mut b, "assistant", "What tiers do you need?", "b-1")
        .await
        .unwrap();
    let mut seen = Vec::new();
    frames_until(&mut a, back, &mut seen).await;
    one.stop().await;
    two.stop().await;
}

#[tokio::test]
async fn a_model_reply_displaced_by_another_nodes_turn_is_stored_again() {
    use common::upstream::{Behaviour, Upstream};
    let redis = RedisProcess::start(false);
    let upstream = Upstream::start().await;
    upstream.default(Behaviour::Reply {
        pieces: ["Which ", "features ", "do ", "you ", "need?"]
            .map(String::from)
            .to_vec(),
        gap: std::time::Duration::from_millis(50),
    });
    let llm = convstate::config::LlmConfig {
        url: Some(upstream.url.clone()),
        model: Some("test".into()),
        ..Default::default()
    };
    let with_llm = ServerConfig {
        llm: llm.clone(),
        ..config(&redis, "t11")
    };
    let one = TestServer::start_on(with_llm.clone(), None).await;
    let two = TestServer::start_on(with_llm, None).await;
    let (mut a, _) = Client::connect(&one.ws_url("?assistant=llm")).await;
    let id = a.session_id.clone();
    turn(&mut a, "user", "Build a todo app", "c-1")
        .await
        .unwrap();
    // While node one's model writes, a turn on node two takes the next seq.
    let (mut b, _) = Client::connect(&two.ws_url(&format!("?session_id={id}"))).await;
    loop {
        if let ServerFrame::AssistantDelta(_) = a.recv().await {
            break;
        }
    }
    // Node one does not hear of it before its reply ends (its doorbell connection is cut, and
    // it listens again only after half a second): the reply's write loses the compare-and-set
    // to node two's turn, and is stored again after it.
    let killed = redis.command("CLIENT KILL TYPE pubsub");
    assert!(killed.starts_with(':'), "{killed}");
    turn(&mut b, "assistant", "A note from the other node", "b-1")
        .await
        .unwrap();
    // The reply is stored after it, whole.
    let mut stored = None;
    for _ in 0..50 {
        let (_, body) = common::http(two.addr, "GET", &format!("/api/sessions/{id}/events")).await;
        let events: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
        if let Some(e) = events
            .iter()
            .find(|e| e["text"] == "Which features do you need?")
        {
            stored = Some((e["seq"].as_u64().unwrap(), events.len()));
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (seq, count) = stored.expect("the reply was stored");
    assert_eq!((seq, count), (3, 3));
    one.stop().await;
    two.stop().await;
}

#[test]
fn a_server_on_a_redis_that_does_not_fsync_says_so() {
    let volatile = RedisProcess::start(false);
    let url = volatile.url();
    let server = common::ServerProcess::start(&["--store", url.as_str()]).unwrap();
    let log = server.kill().join("\n");
    assert!(log.contains("redis has no append-only file"), "{log}");
    let durable = RedisProcess::start(true);
    let url = durable.url();
    let server = common::ServerProcess::start(&["--store", url.as_str()]).unwrap();
    let log = server.kill().join("\n");
    assert!(!log.contains("append-only file"), "{log}");
}

#[tokio::test]
async fn connections_to_redis_gone_silent_are_found_and_replaced() {
    // Node two reaches Redis through a proxy that makes every connection open through it go
    // silent (half-open: nothing passes, nothing is closed), as a network blip can.
    let redis = RedisProcess::start(false);
    let blip = common::Blip::start(redis.port);
    let one = TestServer::start_on(config(&redis, "t12"), None).await;
    let two = TestServer::start_on(
        ServerConfig {
            store: blip.url(),
            redis_prefix: "t12".into(),
            ..ServerConfig::default()
        },
        None,
    )
    .await;
    let (mut a, _) = Client::connect(&one.ws_url("")).await;
    let id = a.session_id.clone();
    turn(&mut a, "user", "Build a landing page", "a-1")
        .await
        .unwrap();
    let (mut b, welcome) = Client::connect(&two.ws_url(&format!("?session_id={id}"))).await;
    assert_eq!(welcome.seq, 1);
    blip.silence();
    // A change on node one: node two's doorbell connection is silent; its heartbeat finds
    // that, it listens again on a new connection, and its client gets the frame.
    let seq = turn(&mut a, "user", "With a pricing table", "a-2")
        .await
        .unwrap();
    let state = tokio::time::timeout(std::time::Duration::from_secs(40), async {
        loop {
            if let ServerFrame::State(s) = b.recv_within(std::time::Duration::from_secs(40)).await
                && s.seq == seq
            {
                break s;
            }
        }
    })
    .await
    .expect("node two hears of node one's change within 40 s");
    assert_eq!(
        state.message.map(|m| m.text.to_string()).as_deref(),
        Some("With a pricing table")
    );
    // Node two's writes come back too: its first may fail (its connection was silent), then
    // its turns are stored and node one's client sees them.
    let mut back = None;
    for i in 0..60 {
        match turn(
            &mut b,
            "assistant",
            "What tiers do you need?",
            &format!("b-{i}"),
        )
        .await
        {
            Ok(s) => {
                back = Some(s);
                break;
            }
            Err(code) => {
                assert_eq!(code, ErrorCode::StoreUnavailable);
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
        }
    }
    let back = back.expect("node two writes again");
    let mut seen = Vec::new();
    frames_until(&mut a, back, &mut seen).await;
    one.stop().await;
    two.stop().await;
}
