//! A newcomer's first steps, over the real binary: what the commands say when something is
//! not as they expect (issue "first run without friction").

mod common;

use common::{Client, ServerProcess, convstate};
use serde_json::json;

/// `convstate loadgen` with 4 sessions for `duration` against `url`.
fn loadgen(url: &str, duration: &str) -> (bool, String, String) {
    convstate(&[
        "loadgen",
        "--url",
        url,
        "--sessions",
        "4",
        "--duration",
        duration,
        "--warmup",
        "100ms",
    ])
}

#[test]
fn loadgen_says_when_the_servers_rate_limit_capped_it() {
    let server = ServerProcess::start(&["--store", "memory:"]).unwrap();
    let url = server.ws_url("");
    let (ok, out, said) = loadgen(&url, "2s");
    assert!(ok, "{said}");
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(report["rate_limited"].as_u64().unwrap() > 0, "{out}");
    assert!(said.contains("rate_limited"), "{said}");
    assert!(
        said.contains("--rate-limit 1000000 --rate-burst 1000000"),
        "{said}"
    );
    drop(server);
    // With the limits raised, nothing is refused and nothing is said.
    let server = ServerProcess::start(&[
        "--store",
        "memory:",
        "--rate-limit",
        "1000000",
        "--rate-burst",
        "1000000",
    ])
    .unwrap();
    let url = server.ws_url("");
    let (ok, out, said) = loadgen(&url, "1s");
    assert!(ok, "{said}");
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(report["rate_limited"], 0, "{out}");
    assert!(!said.contains("rate_limited"), "{said}");
}

#[test]
fn a_missing_patterns_directory_is_said_once() {
    for args in [
        vec![
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--patterns",
            "no-such-patterns",
        ],
        vec!["check-patterns", "no-such-patterns"],
    ] {
        let (ok, _, said) = convstate(&args);
        assert!(!ok);
        let lines: Vec<&str> = said
            .lines()
            .filter(|l| l.contains("no-such-patterns"))
            .collect();
        assert_eq!(lines.len(), 1, "{said}");
        assert!(
            lines[0].contains("no-such-patterns: no such directory"),
            "{said}"
        );
        assert!(!said.contains("cannot read"), "{said}");
    }
}

#[test]
fn a_start_that_fails_on_its_port_creates_no_store() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let dir = common::temp_path("first-run", "d");
    let store = format!("sqlite:{}", dir.join("sub/convstate.db").display());
    let (ok, _, said) = convstate(&[
        "serve",
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--store",
        &store,
    ]);
    assert!(!ok);
    assert!(said.contains("cannot listen on"), "{said}");
    assert!(said.contains("choose another port"), "{said}");
    assert!(!dir.exists(), "the failed start created {}", dir.display());
}

#[test]
fn listen_takes_host_names_and_bare_ports() {
    for listen in ["localhost:0", "0"] {
        let server =
            ServerProcess::spawn(&["--listen", listen, "--store", "memory:"], &[]).unwrap();
        assert!(server.addr.ip().is_loopback(), "{listen}: {}", server.addr);
    }
    let (ok, _, said) = convstate(&["serve", "--listen", "nowhere"]);
    assert!(!ok);
    assert!(
        said.contains("localhost:8080") && said.contains("bare PORT"),
        "{said}"
    );
}

#[test]
fn a_config_file_with_several_mistakes_says_each_with_its_line() {
    let path = common::temp_path("first-run", "toml");
    std::fs::write(
        &path,
        "# my server\nidle_timeout = \nlisten = \"127.0.0.1:0\"\nstore = data/x.db\n",
    )
    .unwrap();
    let p = path.display().to_string();
    let (ok, _, said) = convstate(&["serve", "--config", &p]);
    assert!(!ok);
    assert!(
        said.contains(&format!("{p}:2: idle_timeout has no value")),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "{p}:4: store: text is written in quotes: store = \"data/x.db\""
        )),
        "{said}"
    );
    // Names and types: each one said.
    std::fs::write(
        &path,
        "idle_timout = \"2m\"\nlisten = \"127.0.0.1:0\"\nmax_sessions = \"many\"\n",
    )
    .unwrap();
    let (ok, _, said) = convstate(&["serve", "--config", &p]);
    assert!(!ok);
    assert!(
        said.contains(&format!("{p}:1: idle_timout: unknown field")),
        "{said}"
    );
    assert!(said.contains(&format!("{p}:3: max_sessions:")), "{said}");
}

#[test]
fn replay_says_the_transcripts_line_and_column_once() {
    let path = common::temp_path("first-run", "jsonl");
    std::fs::write(
        &path,
        "{\"role\":\"user\",\"text\":\"hi\"}\n{\"role\":\"user\",\"text\":\"hi\",}\n",
    )
    .unwrap();
    let p = path.display().to_string();
    let (ok, _, said) = convstate(&["replay", &p]);
    assert!(!ok);
    assert!(
        said.starts_with(&format!("error: {p}:2:28: invalid step: trailing comma")),
        "{said}"
    );
    assert!(!said.contains("at line"), "{said}");
}

#[tokio::test]
async fn a_misspelt_signal_lists_only_what_a_client_may_send() {
    let server = common::TestServer::default().await;
    let (mut client, _) = Client::connect(&server.ws_url("")).await;
    client
        .send(json!({"type": "signal", "signal": "aprove"}))
        .await;
    let message = client
        .expect_error(convstate::protocol::ErrorCode::BadRequest)
        .await;
    assert!(message.contains("unknown signal \"aprove\""), "{message}");
    assert!(message.contains("change_request or cancel"), "{message}");
    assert!(
        !message.contains("switch") && !message.contains("farewell"),
        "{message}"
    );
    server.stop().await;
}

#[test]
fn exporting_a_store_file_that_is_not_there_fails_and_creates_nothing() {
    let dir = common::temp_path("export-missing", "d");
    let db = dir.join("misspelt.db");
    let store = format!("sqlite:{}", db.display());
    let (ok, out, said) = convstate(&["export", "--store", &store]);
    assert!(!ok, "{said}");
    assert!(out.is_empty(), "{out}");
    assert!(said.contains(&db.display().to_string()), "{said}");
    assert!(said.contains("No such file"), "{said}");
    assert!(said.contains("export reads an existing store"), "{said}");
    assert!(!dir.exists(), "{} was created", dir.display());
    // A sharded set with a file missing: refused, and the missing file is not created.
    std::fs::create_dir_all(&dir).unwrap();
    let first = dir.join("set.db");
    let (ok, _, said) = convstate(&[
        "import",
        "--store",
        &format!("sqlite:{}", first.display()),
        "--store-shards",
        "2",
        "/dev/null",
    ]);
    assert!(ok, "{said}");
    let second = dir.join("set.db.shard1");
    std::fs::remove_file(&second).unwrap();
    let store = format!("sqlite:{}", first.display());
    let (ok, out, said) = convstate(&["export", "--store", &store, "--store-shards", "2"]);
    assert!(!ok, "{said}");
    assert!(out.is_empty(), "{out}");
    assert!(said.contains("set.db.shard1"), "{said}");
    assert!(!second.exists(), "{} was created", second.display());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_command_shows_an_example_in_its_help() {
    for command in [
        "serve",
        "replay",
        "schema",
        "loadgen",
        "script",
        "export",
        "import",
        "check-patterns",
        "flow",
    ] {
        let (ok, out, said) = convstate(&[command, "--help"]);
        assert!(ok, "{command}: {said}");
        assert!(
            out.contains("Example"),
            "{command} --help has no example:\n{out}"
        );
        assert!(
            out.contains(&format!("convstate {command}")) || command == "check-patterns",
            "{out}"
        );
    }
}
