//! `convstate serve` as a process: it logs its address, serves, and on SIGTERM or SIGINT
//! closes every WebSocket with 1001 and exits 0.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use common::{Client, http};

/// Starts the binary on port 0 and returns it with the address it logged.
fn spawn(
    args: &[&str],
) -> (
    Child,
    std::net::SocketAddr,
    std::thread::JoinHandle<Vec<String>>,
) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("a log line before exit").unwrap();
        if let Some(at) = line.find("address=") {
            break line[at + 8..]
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap();
        }
    };
    // Keep draining the log so the server never blocks on a full pipe.
    let rest = std::thread::spawn(move || lines.map_while(Result::ok).collect());
    (child, addr, rest)
}

/// Sends a signal with the shell's builtin `kill` (no procps needed).
fn signal(child: &Child, name: &str) {
    let status = Command::new("sh")
        .args(["-c", &format!("kill -{name} {}", child.id())])
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn sigterm_closes_websockets_with_1001_and_exits_0() {
    let (mut child, addr, log) = spawn(&["--idle-timeout", "2s"]);
    let (status, _) = http(addr, "GET", "/healthz").await;
    assert_eq!(status, 200);
    let url = format!("ws://{addr}/ws");
    let (mut a, _) = Client::connect(&url).await;
    a.turn("user", "Build a landing page", "c-1").await;
    let (mut b, _) = Client::connect(&format!("{url}?session_id={}", a.session_id)).await;
    signal(&child, "TERM");
    assert_eq!(a.closed_with().await, Some(1001));
    assert_eq!(b.closed_with().await, Some(1001));
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
    let log = log.join().unwrap();
    assert!(log.iter().any(|l| l.contains("shutting down")), "{log:?}");
}

#[tokio::test]
async fn sigint_exits_0_too() {
    let (mut child, addr, _) = spawn(&[]);
    let (mut client, _) = Client::connect(&format!("ws://{addr}/ws")).await;
    signal(&child, "INT");
    assert_eq!(client.closed_with().await, Some(1001));
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
}

#[test]
fn bad_configuration_is_refused_with_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["serve", "--idle-timeout", "soon"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("idle_timeout: invalid duration"));

    let out = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("CONVSTATE_RATE_LIMIT", "fast")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("CONVSTATE_RATE_LIMIT"));

    let out = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["serve", "--store", "carrier-pigeon:"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected memory: or sqlite:PATH"));

    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("bad-config.toml");
    std::fs::write(&file, "listen = \"127.0.0.1:0\"\ncolour = \"blue\"\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["serve", "--config"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad-config.toml:2:") && stderr.contains("colour"),
        "{stderr}"
    );
}

#[tokio::test]
async fn the_config_file_and_environment_are_read() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("good-config.toml");
    std::fs::write(&file, "idle_timeout = \"1h\"\nmax_frame_bytes = 2048\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["serve", "--store", "memory:", "--config"])
        .arg(&file)
        .env("CONVSTATE_LISTEN", "127.0.0.1:0")
        .env("CONVSTATE_MAX_FRAME_BYTES", "1024")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr: std::net::SocketAddr = loop {
        let line = lines.next().unwrap().unwrap();
        if let Some(at) = line.find("address=") {
            break line[at + 8..]
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap();
        }
    };
    let (mut client, welcome) = Client::connect(&format!("ws://{addr}/ws")).await;
    // The file's idle timeout (1h) applies; the environment's frame limit beats the file's.
    let created =
        chrono::DateTime::parse_from_rfc3339(welcome["state"]["created_at"].as_str().unwrap())
            .unwrap();
    let deadline =
        chrono::DateTime::parse_from_rfc3339(welcome["state"]["idle_deadline"].as_str().unwrap())
            .unwrap();
    assert_eq!(deadline - created, chrono::TimeDelta::hours(1));
    client
        .send_text(&format!(
            r#"{{"type":"message","role":"user","text":"{}"}}"#,
            "a".repeat(1500)
        ))
        .await;
    client.expect_error("too_large").await;
    signal(&child, "TERM");
    assert!(
        tokio::task::spawn_blocking(move || child.wait())
            .await
            .unwrap()
            .unwrap()
            .success()
    );
}
