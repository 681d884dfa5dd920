//! The HTTP API under clients that do not read, bodies that do not come, and strangers: a log
//! page is streamed (the server's memory stays flat under many non-reading readers, each
//! dropped at the write timeout), a body must arrive within the header timeout, a stranger's
//! body is never read, an oversized one is refused from its length, and shutdown does not
//! wait for bodies.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use crate::common::{Client, PATIENCE, ServerProcess, http, temp_path};
use tokio::io::AsyncWriteExt;

/// A client with a tiny receive buffer that sends `request` and never reads.
async fn never_reading(addr: std::net::SocketAddr, request: &str) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Reads until the server closes; the bytes read, or `None` if it stays open past `PATIENCE`.
fn read_to_close(stream: tokio::net::TcpStream) -> Option<usize> {
    let mut s = stream.into_std().unwrap();
    s.set_nonblocking(false).unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut total = 0;
    let mut buf = [0u8; 64 * 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Some(total),
            Ok(n) => total += n,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Some(total),
            Err(_) => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_pages_are_streamed_and_clients_that_do_not_read_them_hold_no_memory() {
    let db = temp_path("event-pages", "db");
    let store = format!("sqlite:{}", db.display());
    let server = ServerProcess::start(&[
        "--store",
        &store,
        "--write-timeout",
        "2s",
        "--rate-limit",
        "100000",
        "--rate-burst",
        "100000",
    ])
    .unwrap();
    // A session of 150 turns of 40 KB: a page of its log is 6 MB and more.
    let (mut writer, _) = Client::connect(&server.ws_url("")).await;
    let id = writer.session_id.clone();
    let words = "the quick brown fox jumps over the lazy dog ".repeat(40 * 1024 / 44);
    for k in 0..150 {
        writer
            .turn("user", &format!("{k} {words}"), &format!("w-{k}"))
            .await;
    }
    let request = format!("GET /api/sessions/{id}/events HTTP/1.1\r\nHost: localhost\r\n\r\n");
    // A reader gets the whole page, well-formed.
    let (status, body) = http(server.addr, "GET", &format!("/api/sessions/{id}/events")).await;
    assert_eq!(status, 200);
    let events: Vec<serde_json::Value> = serde_json::from_str(&body).expect("a JSON array");
    assert_eq!(events.len(), 150);
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    // Forty readers that never read.
    let before = server.rss_mib();
    let mut stuck = Vec::new();
    for _ in 0..40 {
        stuck.push(never_reading(server.addr, &request).await);
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let during = server.rss_mib();
    // Built whole, each page held 12 MB and more (40 of them: half a gigabyte).
    assert!(
        during < before + 64,
        "{before} MiB before, {during} MiB with 40 non-reading readers"
    );
    // Each is dropped at the write timeout.
    let started = Instant::now();
    let closed = tokio::task::spawn_blocking(move || {
        stuck.into_iter().map(read_to_close).collect::<Vec<_>>()
    })
    .await
    .unwrap();
    assert!(
        closed.iter().all(Option::is_some),
        "every connection is closed: {closed:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    // And the server goes on.
    writer.turn("user", "Add a contact form", "w-last").await;
    assert!(server.stop().0.success());
}

/// An import of a STATUS.md announcing `length` bytes, with `headers`, and `sent` of them.
fn post_status(
    addr: std::net::SocketAddr,
    length: usize,
    headers: &str,
    sent: &str,
) -> std::net::TcpStream {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /api/sessions/status.md HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/markdown\r\n\
         Content-Length: {length}\r\n{headers}\r\n{sent}"
    )
    .unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    s
}

/// The status line of the answer on `s`, and how long it took.
fn answer(mut s: std::net::TcpStream) -> (String, Duration) {
    let started = Instant::now();
    let mut text = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n @ 1..) = s.read(&mut buf) {
        text.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&text).into_owned();
    (
        text.lines().next().unwrap_or("").to_string(),
        started.elapsed(),
    )
}

#[test]
fn a_body_must_come_within_the_header_timeout_and_a_strangers_body_is_never_read() {
    const SECRET: &str = "hostile-secret-hostile-secret-hostile";
    let server = ServerProcess::spawn(
        &[
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory:",
            "--header-timeout",
            "1s",
        ],
        &[("CONVSTATE_JWT_SECRET", SECRET)],
    )
    .unwrap();
    // Without a token: 401 at once, the announced body never waited for.
    let (status, took) = answer(post_status(server.addr, 60_000, "", ""));
    assert!(status.contains(" 401 "), "{status}");
    assert!(took < Duration::from_millis(500), "{took:?}");
    // A body announced over the limit: 413 from its length, before it is read.
    let token = jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &serde_json::json!({"sub": "u-1", "exp": chrono::Utc::now().timestamp() + 600}),
        &jsonwebtoken::EncodingKey::from_secret(SECRET.as_bytes()),
    )
    .unwrap();
    let bearer = format!("Authorization: Bearer {token}\r\n");
    let (status, took) = answer(post_status(server.addr, 3_000_000, &bearer, ""));
    assert!(status.contains(" 413 "), "{status}");
    assert!(took < Duration::from_millis(500), "{took:?}");
    // A body that does not come: the request ends at the header timeout (1 s).
    let (status, took) = answer(post_status(server.addr, 60_000, &bearer, "# Status\n"));
    assert!(took < Duration::from_secs(4), "held {took:?}");
    assert!(!status.contains(" 201 "), "{status}");
    // Shutdown does not wait for bodies that do not come.
    let pending: Vec<_> = (0..5)
        .map(|_| post_status(server.addr, 60_000, &bearer, "# Sta"))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let (exit, _) = server.stop();
    assert!(exit.success());
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "shutdown took {:?}",
        started.elapsed()
    );
    drop(pending);
}
