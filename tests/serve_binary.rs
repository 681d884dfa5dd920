//! `convstate serve` as a process: it logs its address, serves, and on SIGTERM or SIGINT
//! closes every WebSocket with 1001 and exits 0.

mod common;

use std::process::Command;

use common::{Client, ServerProcess, http};
use convstate::protocol::ErrorCode;

#[tokio::test]
async fn sigterm_closes_websockets_with_1001_and_exits_0() {
    let server = ServerProcess::start(&["--idle-timeout", "2s", "--store", "memory:"]).unwrap();
    let (status, _) = http(server.addr, "GET", "/healthz").await;
    assert_eq!(status, 200);
    let url = server.ws_url("");
    let (mut a, _) = Client::connect(&url).await;
    a.turn("user", "Build a landing page", "c-1").await;
    let (mut b, _) = Client::connect(&format!("{url}?session_id={}", a.session_id)).await;
    server.signal("TERM");
    assert_eq!(a.closed_with().await, Some(1001));
    assert_eq!(b.closed_with().await, Some(1001));
    let (status, log) = tokio::task::spawn_blocking(move || server.wait())
        .await
        .unwrap();
    assert!(status.success(), "{status}");
    assert!(log.iter().any(|l| l.contains("shutting down")), "{log:?}");
}

#[tokio::test]
async fn sigint_exits_0_too() {
    let server = ServerProcess::start(&["--store", "memory:"]).unwrap();
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    server.signal("INT");
    assert_eq!(client.closed_with().await, Some(1001));
    let (status, _) = tokio::task::spawn_blocking(move || server.wait())
        .await
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
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("expected memory:, sqlite:PATH or redis://HOST:PORT[/DB]")
    );

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
    let config = file.to_str().unwrap();
    let server = ServerProcess::spawn(
        &["--store", "memory:", "--config", config],
        &[
            ("CONVSTATE_LISTEN", "127.0.0.1:0"),
            ("CONVSTATE_MAX_FRAME_BYTES", "1024"),
        ],
    )
    .unwrap();
    let (mut client, welcome) = Client::connect(&server.ws_url("")).await;
    // The file's idle timeout (1h) applies; the environment's frame limit beats the file's.
    let created = welcome.state.created_at;
    let deadline = welcome.state.idle_deadline.expect("an idle deadline");
    assert_eq!(deadline - created, chrono::TimeDelta::hours(1));
    client
        .send_text(&format!(
            r#"{{"type":"message","role":"user","text":"{}"}}"#,
            "a".repeat(1500)
        ))
        .await;
    client.expect_error(ErrorCode::TooLarge).await;
    let (status, _) = tokio::task::spawn_blocking(move || server.stop())
        .await
        .unwrap();
    assert!(status.success());
}

/// Every flag of `serve` has its row in docs/operations.md (the config file keys and the
/// variables are held to it by the settings' own test).
#[test]
fn every_flag_is_documented() {
    let out = Command::new(env!("CARGO_BIN_EXE_convstate"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/operations.md"))
        .unwrap();
    let flags: Vec<&str> = help
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let flag = l
                .split(|c: char| c.is_whitespace() || c == ',' || c == '=')
                .next()?;
            (flag.starts_with("--")
                && flag != "--help"
                && flag[2..]
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-'))
            .then_some(flag)
        })
        .collect();
    assert!(flags.len() >= 30, "{help}");
    for flag in flags {
        assert!(
            doc.contains(&format!("`{flag}")),
            "{flag} is not in docs/operations.md"
        );
    }
}
